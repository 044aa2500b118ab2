/* One marked intrinsic family, eight applications an iteration: two after each other on each of
 * four vector floats (OP, given on the command line, casts to and from its types: a cast between
 * vector types is no instruction). tests/test_sdk_cost.py builds it once per family and checks
 * that each application costs its SPU class's issue and latency, not the PowerPC code of its
 * emulation. Four chains, not eight independent values: with eight values live across the
 * emulation's calls gcc keeps some in call-clobbered registers and spills them round each call,
 * and a spill's store waits for the marked result (PowerPC code the SPU would not run). */
#include <spu_intrinsics.h>
#ifndef N
#define N 1000
#endif
#ifndef OP
#define OP(v) spu_re(v)
#endif

vector float x[4], y[1];
vector unsigned char pattern[1];
int main(void)
{
    vector float a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
    vector float m = y[0];
    vector unsigned char p = pattern[0];
    (void)m, (void)p;
    for (int i = 0; i < N; i++) {
        a0 = OP(a0); a1 = OP(a1); a2 = OP(a2); a3 = OP(a3);
        a0 = OP(a0); a1 = OP(a1); a2 = OP(a2); a3 = OP(a3);
    }
    x[0] = a0 + a1 + a2 + a3;
    return 0;
}
