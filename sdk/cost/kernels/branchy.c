/* Short blocks: an integer loop with a branch inside (the Collatz step), the plugin's worst case
 * for overhead (one inline add per few instructions). */
#ifndef N
#define N 1000
#endif

unsigned seed;

int main(void)
{
    unsigned x = seed | 27, n = 0;
    for (unsigned i = 0; i < N; i++) {
        if (x & 1)
            x = 3 * x + 1;
        else
            x >>= 1;
        n += x & 7;
    }
    seed = n;
    return 0;
}
