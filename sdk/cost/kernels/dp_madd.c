/* Double-precision multiply-add: four independent scalar accumulators (fmadd), N iterations of
 * four multiply-adds (8 flops). */
#ifndef N
#define N 1000
#endif

double x[4], y[2];

int main(void)
{
    double a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
    double m = y[0], c = y[1];
    for (int i = 0; i < N; i++) {
        a0 = a0 * m + c;
        a1 = a1 * m + c;
        a2 = a2 * m + c;
        a3 = a3 * m + c;
        __asm__ volatile("" : "+d"(a0), "+d"(a1), "+d"(a2), "+d"(a3));
    }
    x[0] = a0 + a1 + a2 + a3;
    return 0;
}
