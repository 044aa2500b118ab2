/* sp_madd with the SDK's intrinsic: eight independent spu_madd of 4-wide vector floats an
 * iteration, which spu_intrinsics.h emulates in software (the SPU's truncating single
 * precision) between markers, so that the cost plugin charges each as the one SPU fma it is:
 * about 8 cycles an iteration, as sp_madd.c's plain vector arithmetic. */
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
        a0 = spu_madd(a0, m, c); a1 = spu_madd(a1, m, c);
        a2 = spu_madd(a2, m, c); a3 = spu_madd(a3, m, c);
        a4 = spu_madd(a4, m, c); a5 = spu_madd(a5, m, c);
        a6 = spu_madd(a6, m, c); a7 = spu_madd(a7, m, c);
    }
    x[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    return 0;
}
