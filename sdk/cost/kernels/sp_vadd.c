/* Independent vector single-precision adds: N iterations of eight 4-wide adds into eight
 * accumulators (32 flops). */
#include <spu_intrinsics.h>

#ifndef N
#define N 1000
#endif

vector float x[8], y;

int main(void)
{
    vector float a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
    vector float a4 = x[4], a5 = x[5], a6 = x[6], a7 = x[7], d = y;
    for (int i = 0; i < N; i++) {
        a0 = a0 + d; a1 = a1 + d; a2 = a2 + d; a3 = a3 + d;
        a4 = a4 + d; a5 = a5 + d; a6 = a6 + d; a7 = a7 + d;
        __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                         "+v"(a6), "+v"(a7));
    }
    x[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    return 0;
}
