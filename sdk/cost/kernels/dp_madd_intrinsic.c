/* Four independent double-precision spu_madd an iteration: each, two fmadd on the PowerPC (it
 * has no DP vectors), is marked by spu_intrinsics.h as the one SPU dfma it is (7 cycles: issue
 * and the DP unit's 6-cycle stall), so the loop gets the SPU's 4 flops per 7 cycles less the
 * PowerPC's moves of vector doubles through memory around the marks. */
#include <spu_intrinsics.h>

#ifndef N
#define N 1000
#endif

vector double x[4], y[2];

int main(void)
{
    vector double a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3], m = y[0], c = y[1];
    for (int i = 0; i < N; i++) {
        a0 = spu_madd(a0, m, c); a1 = spu_madd(a1, m, c);
        a2 = spu_madd(a2, m, c); a3 = spu_madd(a3, m, c);
    }
    x[0] = a0 + a1 + a2 + a3;
    return 0;
}
