/* Marks for the SPU cost plugin (sdk/cost/README.md, "Intrinsics"): an intrinsic whose SPU
 * arithmetic is emulated here in software (single precision: truncation, no denormals) costs
 * the one SPU instruction it is, not the PowerPC code of its emulation. The emulation is put
 * between two marker instructions, `cmpwi cr7,r2,K` (r2 is the 32-bit PowerPC ABI's thread
 * pointer, which compiled code never compares; the only effect is on cr7, declared clobbered):
 * the begin marker's K names the SPU class and the number of instructions, the end marker's K
 * is 0x5FFF. The begin marker takes the intrinsic's first operand as an in-out operand and the
 * others as inputs, the end marker its result as in-out, so the compiler computes the operands
 * before the begin marker and the result before the end one: the emulation, which needs the
 * first operand as the begin marker leaves it, lies between them. (Only the first is in-out:
 * an in-out operand the program uses again, such as a multiplier shared by many calls, would be
 * copied before each call.) The class numbers are sdk/cost/spu_cost.h's. */
#ifndef SPU_INTRINSICS_COST_H
#define SPU_INTRINSICS_COST_H

/* A marked intrinsic is always inlined: a call's own code (the branch and return, the register
 * saves) would lie outside the markers and be charged as PowerPC code. */
#define __SPU_MARKED __SPU_INLINE __attribute__((__always_inline__))
/* The emulation of a marked intrinsic is a function of its own, called between the markers:
 * inlined, its register pressure put spills and reloads of the caller's values outside the
 * markers, where they were charged (inline, `spu_cmpgt` cost 30 cycles, not 1). */
#define __SPU_EMULATION static __attribute__((__noinline__, __unused__))

/* The marked wrappers: RT NAME(args) is `count` SPU instructions of class cls computed by EMUL.
 * As for the arithmetic, the first operand is in-out at the begin marker and the others are
 * inputs, so the call (which needs the first as the begin leaves it) lies between the markers;
 * a scalar operand is passed as it is, not tracked. */
#define __SPU_WRAP_V1(cls, RT, NAME, EMUL, T1)                                                     \
    __SPU_MARKED RT NAME(T1 a)                                                                     \
    {                                                                                              \
        RT r;                                                                                      \
        __SPU_MARK_IN1(cls, 1, a);                                                                 \
        r = EMUL(a);                                                                               \
        __SPU_MARK_END(r);                                                                         \
        return r;                                                                                  \
    }
#define __SPU_WRAP_V1S(cls, RT, NAME, EMUL, T1, S)                                                 \
    __SPU_MARKED RT NAME(T1 a, S s)                                                                \
    {                                                                                              \
        RT r;                                                                                      \
        __SPU_MARK_IN1(cls, 1, a);                                                                 \
        r = EMUL(a, s);                                                                            \
        __SPU_MARK_END(r);                                                                         \
        return r;                                                                                  \
    }
#define __SPU_WRAP_V2(cls, RT, NAME, EMUL, T1, T2)                                                 \
    __SPU_MARKED RT NAME(T1 a, T2 b)                                                               \
    {                                                                                              \
        RT r;                                                                                      \
        __SPU_MARK_BEGIN2(cls, 1, a, b);                                                           \
        r = EMUL(a, b);                                                                            \
        __SPU_MARK_END(r);                                                                         \
        return r;                                                                                  \
    }
#define __SPU_WRAP_V3(cls, RT, NAME, EMUL, T1, T2, T3)                                             \
    __SPU_MARKED RT NAME(T1 a, T2 b, T3 c)                                                         \
    {                                                                                              \
        RT r;                                                                                      \
        __SPU_MARK_BEGIN3(cls, 1, a, b, c);                                                        \
        r = EMUL(a, b, c);                                                                         \
        __SPU_MARK_END(r);                                                                         \
        return r;                                                                                  \
    }

#define __SPU_CLASS_FX 1
#define __SPU_CLASS_WS 2
#define __SPU_CLASS_SH 3
#define __SPU_CLASS_SP 4
#define __SPU_CLASS_FI 5
#define __SPU_CLASS_DP 6

#if defined(__powerpc__) && defined(__ALTIVEC__)
#define __SPU_MARK_K(cls, count) (0x5000 | ((count) << 4) | (cls))
/* Before the begin word, one `cmpwi cr7,r2,0x5100+V` per vector register the region reads (its
 * sources: the plugin waits for them as the SPU instruction would); before the end word, one
 * `cmpwi cr7,r2,0x5200+V` naming the register that holds the result (ready the class's latency
 * after the region issues). The compiler prints a "v" operand as its bare number, which the
 * assembler adds to the base. */
#define __SPU_MARK_BEGIN2(cls, count, a, b)                                                        \
    __asm__ __volatile__("cmpwi 7,2,0x5100+%0\n\tcmpwi 7,2,0x5100+%1\n\tcmpwi 7,2,%2"              \
                         : "+v"(a)                                                                 \
                         : "v"(b), "i"(__SPU_MARK_K(cls, count))                                   \
                         : "cr7")
#define __SPU_MARK_BEGIN3(cls, count, a, b, c)                                                     \
    __asm__ __volatile__("cmpwi 7,2,0x5100+%0\n\tcmpwi 7,2,0x5100+%1\n\tcmpwi 7,2,0x5100+%2\n\t" \
                         "cmpwi 7,2,%3"                                                            \
                         : "+v"(a)                                                                 \
                         : "v"(b), "v"(c), "i"(__SPU_MARK_K(cls, count))                           \
                         : "cr7")
#define __SPU_MARK_END(r)                                                                          \
    __asm__ __volatile__("cmpwi 7,2,0x5200+%0\n\tcmpwi 7,2,0x5FFF" : "+v"(r) : : "cr7")
/* One-operand begins for the wrappers above and the families that mark by hand: an in-out
 * vector, or a scalar ("+r" orders the code but is not a tracked source). A second begin word
 * right after the first, in the same asm, is the next SPU instruction of the same region, of
 * another class, depending on the one before (spu_re: frest, then fi). */
#define __SPU_MARK_IN1(cls, count, a)                                                              \
    __asm__ __volatile__("cmpwi 7,2,0x5100+%0\n\tcmpwi 7,2,%1"                                      \
                         : "+v"(a)                                                                 \
                         : "i"(__SPU_MARK_K(cls, count))                                           \
                         : "cr7")
#define __SPU_MARK_IN1_THEN(cls, count, cls2, count2, a)                                           \
    __asm__ __volatile__("cmpwi 7,2,0x5100+%0\n\tcmpwi 7,2,%1\n\tcmpwi 7,2,%2"                     \
                         : "+v"(a)                                                                 \
                         : "i"(__SPU_MARK_K(cls, count)), "i"(__SPU_MARK_K(cls2, count2))          \
                         : "cr7")
#define __SPU_MARK_IN_R(cls, count, x)                                                             \
    __asm__ __volatile__("cmpwi 7,2,%1" : "+r"(x) : "i"(__SPU_MARK_K(cls, count)) : "cr7")
/* A vector double has no register on this PowerPC (no VSX): it is marked in memory. */
#define __SPU_MARK_BEGIN_M2(cls, count, a, b)                                                      \
    __asm__ __volatile__("cmpwi 7,2,%2" : "+m"(a) : "m"(b), "i"(__SPU_MARK_K(cls, count)) : "cr7")
#define __SPU_MARK_BEGIN_M3(cls, count, a, b, c)                                                   \
    __asm__ __volatile__("cmpwi 7,2,%3"                                                            \
                         : "+m"(a)                                                                 \
                         : "m"(b), "m"(c), "i"(__SPU_MARK_K(cls, count))                           \
                         : "cr7")
#define __SPU_MARK_END_M(r) __asm__ __volatile__("cmpwi 7,2,0x5FFF" : "+m"(r) : : "cr7")
#else /* not compiled for the SPE side's PowerPC: nothing to mark */
#define __SPU_MARK_BEGIN2(cls, count, a, b) ((void)0)
#define __SPU_MARK_BEGIN3(cls, count, a, b, c) ((void)0)
#define __SPU_MARK_IN1(cls, count, a) ((void)0)
#define __SPU_MARK_IN1_THEN(cls, count, cls2, count2, a) ((void)0)
#define __SPU_MARK_IN_R(cls, count, x) ((void)0)
#define __SPU_MARK_END(r) ((void)0)
#define __SPU_MARK_BEGIN_M2(cls, count, a, b) ((void)0)
#define __SPU_MARK_BEGIN_M3(cls, count, a, b, c) ((void)0)
#define __SPU_MARK_END_M(r) ((void)0)
#endif

#endif
