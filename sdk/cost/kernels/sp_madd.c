/* Vectorised single-precision multiply-add: eight independent accumulators of 4-wide vector
 * floats, N iterations of eight vector multiply-adds (64 flops): enough accumulators to cover
 * the 6-cycle latency. Host IEEE arithmetic on generic vectors (AltiVec vmaddfp), not the
 * emulated spu_madd: see ../README.md. */
#include <spu_intrinsics.h>

#ifndef N
#define N 1000
#endif

vector float x[8], y[2];

int main(void)
{
    vector float a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
    vector float a4 = x[4], a5 = x[5], a6 = x[6], a7 = x[7];
    vector float m = y[0], c = y[1];
    for (int i = 0; i < N; i++) {
        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
        a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
        __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                         "+v"(a6), "+v"(a7));
    }
    x[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    return 0;
}
