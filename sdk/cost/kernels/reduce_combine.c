/* The combine step of a reduction, as seeds 000 and 003's collectives run it on every message
 * they receive: "integer arrays and SIMD-ized vector addition" (seed 000 §4), built with "gcc
 * with optimization level -O3" (seed 003 §7). N quadwords of TYPE (vector signed int by default,
 * -DTYPE="vector float" or "vector double") added into the destination with spu_add. The count
 * comes from a variable and the loop is a function of its own, as in a library the compiler
 * cannot specialise for one size. Its cost per quadword is the reduction's gamma (seed 003
 * §3.1) times 16 bytes. */
#include <spu_intrinsics.h>

#ifndef N
#define N 1000
#endif
#ifndef TYPE
#define TYPE vector signed int
#endif

TYPE destination[N], source[N];
volatile int quadwords = N;

__attribute__((noinline)) void combine(TYPE *d, const TYPE *s, int count)
{
    for (int i = 0; i < count; i++)
        d[i] = spu_add(d[i], s[i]);
}

int main(void)
{
    combine(destination, source, quadwords);
    return 0;
}
