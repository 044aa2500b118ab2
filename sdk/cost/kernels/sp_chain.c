/* A dependent chain of scalar single-precision adds: N iterations of eight adds, each needing the
 * one before. */
#ifndef N
#define N 1000
#endif

float x, y;

int main(void)
{
    float s = x, d = y;
    for (int i = 0; i < N; i++) {
        s = s + d; s = s + d; s = s + d; s = s + d;
        s = s + d; s = s + d; s = s + d; s = s + d;
        __asm__ volatile("" : "+f"(s));
    }
    x = s;
    return 0;
}
