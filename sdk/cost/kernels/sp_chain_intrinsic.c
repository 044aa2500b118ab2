/* sp_chain with the SDK's intrinsic: a dependent chain of eight spu_madd an iteration, each
 * needing the one before, so each waits the SP class's 6-cycle latency: about 48 cycles an
 * iteration (sp_chain.c's chain of scalar fadds is 48 too). */
#include <spu_intrinsics.h>

#ifndef N
#define N 1000
#endif

vector float x[1], y[2];

int main(void)
{
    vector float a = x[0], m = y[0], c = y[1];
    for (int i = 0; i < N; i++) {
        a = spu_madd(a, m, c); a = spu_madd(a, m, c);
        a = spu_madd(a, m, c); a = spu_madd(a, m, c);
        a = spu_madd(a, m, c); a = spu_madd(a, m, c);
        a = spu_madd(a, m, c); a = spu_madd(a, m, c);
    }
    x[0] = a;
    return 0;
}
