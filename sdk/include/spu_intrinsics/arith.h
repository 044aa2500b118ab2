/* Arithmetic: spu_add, spu_sub, spu_addx, spu_subx, spu_genc, spu_gencx, spu_genb, spu_genbx,
 * spu_mul, spu_mule, spu_mulo, spu_mulh, spu_mulsr, spu_madd, spu_msub, spu_nmadd, spu_nmsub,
 * spu_mhhadd, spu_re, spu_rsqrte, spu_absd, spu_avg, spu_sumb.
 *
 * Integer sums wrap (computed unsigned, where C defines wrapping); single precision goes
 * through sp_float.h; double precision is the host's IEEE arithmetic, the multiply-adds fused
 * as the SPU's are. Halfword products take the even (high, first in memory) or odd (low)
 * halfword of each word, as the SPU's mpy family does. */
#ifndef SPU_INTRINSICS_ARITH_H
#define SPU_INTRINSICS_ARITH_H

/* Integer add and subtract, vector with vector and vector with scalar (spu_sub's scalar comes
 * first: the SPU subtracts from an immediate). */
#define __SPU_DEF_INT_ADDSUB(f)                                                              \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_add, f)(__SPU_VT(f) a, __SPU_VT(f) b)              \
    {                                                                                        \
        return (__SPU_VT(f))((__SPU_UVT(f))a + (__SPU_UVT(f))b);                             \
    }                                                                                        \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_add, f##_s)(__SPU_VT(f) a, __SPU_ET(f) b)          \
    {                                                                                        \
        return (__SPU_VT(f))((__SPU_UVT(f))a + (__SPU_UT(f))b);                              \
    }                                                                                        \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_sub, f)(__SPU_VT(f) a, __SPU_VT(f) b)              \
    {                                                                                        \
        return (__SPU_VT(f))((__SPU_UVT(f))a - (__SPU_UVT(f))b);                             \
    }                                                                                        \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_sub, f##_r)(__SPU_ET(f) a, __SPU_VT(f) b)          \
    {                                                                                        \
        return (__SPU_VT(f))((__SPU_UT(f))a - (__SPU_UVT(f))b);                              \
    }
__SPU_DEF_INT_ADDSUB(u16)
__SPU_DEF_INT_ADDSUB(s16)
__SPU_DEF_INT_ADDSUB(u32)
__SPU_DEF_INT_ADDSUB(s32)

/* Single precision, element by element through the SPU's rules. The emulation is a function of
 * its own, called between the cost plugin's markers (cost.h) by the intrinsic, which is always
 * inlined: the call, its register saves and the emulation are charged as the one SPU
 * instruction, and the caller keeps its values in registers across the call rather than
 * spilling them around an inlined emulation. */
#define __SPU_DEF_SP2(op, scalar_op)                                                         \
    static __attribute__((__noinline__)) vec_float4 __spu_emulated_##op(vec_float4 a,        \
                                                                        vec_float4 b)        \
    {                                                                                        \
        int i;                                                                               \
        vec_float4 r;                                                                        \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = scalar_op(a[i], b[i]);                                                    \
        return r;                                                                            \
    }                                                                                        \
    __SPU_MARKED vec_float4 __SPU_FN(op, f32)(vec_float4 a, vec_float4 b)                    \
    {                                                                                        \
        vec_float4 r;                                                                        \
        __SPU_MARK_BEGIN2(__SPU_CLASS_SP, 1, a, b);                                          \
        r = __spu_emulated_##op(a, b);                                                       \
        __SPU_MARK_END(r);                                                                   \
        return r;                                                                            \
    }
__SPU_DEF_SP2(spu_add, __spu_sp_add)
__SPU_DEF_SP2(spu_sub, __spu_sp_sub)
__SPU_DEF_SP2(spu_mul, __spu_sp_mul)

/* a * b + c, a * b - c and c - a * b, each truncated once. */
#define __SPU_DEF_SP3(op, sign_product, sign_addend)                                        \
    static __attribute__((__noinline__)) vec_float4 __spu_emulated_##op(                    \
        vec_float4 a, vec_float4 b, vec_float4 c)                                           \
    {                                                                                       \
        int i;                                                                              \
        vec_float4 r;                                                                       \
        for (i = 0; i < 4; i++)                                                             \
            r[i] = __spu_sp_sum(sign_product __spu_sp_value(a[i]) * __spu_sp_value(b[i]),   \
                                sign_addend __spu_sp_value(c[i]));                          \
        return r;                                                                           \
    }                                                                                       \
    __SPU_MARKED vec_float4 __SPU_FN(op, f32)(vec_float4 a, vec_float4 b, vec_float4 c)     \
    {                                                                                       \
        vec_float4 r;                                                                       \
        __SPU_MARK_BEGIN3(__SPU_CLASS_SP, 1, a, b, c);                                      \
        r = __spu_emulated_##op(a, b, c);                                                   \
        __SPU_MARK_END(r);                                                                  \
        return r;                                                                           \
    }
__SPU_DEF_SP3(spu_madd, +, +)
__SPU_DEF_SP3(spu_msub, +, -)
__SPU_DEF_SP3(spu_nmsub, -, +)

/* One dfa, dfs or dfm: the two scalar PowerPC operations (each priced as a DP issue) between
 * memory marks, as the multiply-adds below. */
#define __SPU_DEF_DP2(op, operator)                                                         \
    __SPU_MARKED vec_double2 __SPU_FN(op, f64)(vec_double2 a, vec_double2 b)                \
    {                                                                                       \
        vec_double2 r;                                                                      \
        __SPU_MARK_BEGIN_M2(__SPU_CLASS_DP, 1, a, b);                                       \
        r = a operator b;                                                                   \
        __SPU_MARK_END_M(r);                                                                \
        return r;                                                                           \
    }
__SPU_DEF_DP2(spu_add, +)
__SPU_DEF_DP2(spu_sub, -)
__SPU_DEF_DP2(spu_mul, *)

#define __SPU_DEF_DP3(op, sign_result, sign_addend)                                         \
    __SPU_MARKED vec_double2 __SPU_FN(op, f64)(vec_double2 a, vec_double2 b, vec_double2 c) \
    {                                                                                       \
        int i;                                                                              \
        vec_double2 r;                                                                      \
        __SPU_MARK_BEGIN_M3(__SPU_CLASS_DP, 1, a, b, c);                                    \
        for (i = 0; i < 2; i++)                                                             \
            r[i] = sign_result __builtin_fma(a[i], b[i], sign_addend c[i]);                 \
        __SPU_MARK_END_M(r);                                                                \
        return r;                                                                           \
    }
__SPU_DEF_DP3(spu_madd, +, +)
__SPU_DEF_DP3(spu_msub, +, -)
__SPU_DEF_DP3(spu_nmadd, -, +)
__SPU_DEF_DP3(spu_nmsub, -, -)

/* Word carries and borrows. spu_genb(a, b) is the SPU's "borrow" bit: 1 when a - b needs no
 * borrow (a >= b unsigned); the x forms add c's low bit as carry in (for a sub, 1 = no borrow
 * in), so multi-word sums chain as on the SPU. */
#define __SPU_DEF_CARRY(f)                                                                   \
    __SPU_EMULATION __SPU_VT(f) __SPU_FN(__spu_em_addx, f)(__SPU_VT(f) a, __SPU_VT(f) b,     \
                                                           __SPU_VT(f) c)                    \
    {                                                                                        \
        return (__SPU_VT(f))((vec_uint4)a + (vec_uint4)b + ((vec_uint4)c & 1));              \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(f) __SPU_FN(__spu_em_subx, f)(__SPU_VT(f) a, __SPU_VT(f) b,     \
                                                           __SPU_VT(f) c)                    \
    {                                                                                        \
        return (__SPU_VT(f))((vec_uint4)a + ~(vec_uint4)b + ((vec_uint4)c & 1));             \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(f) __SPU_FN(__spu_em_gencx, f)(__SPU_VT(f) a, __SPU_VT(f) b,    \
                                                            __SPU_VT(f) c)                   \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(f) r;                                                                       \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = (unsigned int)(((unsigned long long)(unsigned int)a[i] +                  \
                                   (unsigned int)b[i] + ((unsigned int)c[i] & 1)) >> 32);    \
        return r;                                                                            \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(f) __SPU_FN(__spu_em_genbx, f)(__SPU_VT(f) a, __SPU_VT(f) b,    \
                                                            __SPU_VT(f) c)                   \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(f) r;                                                                       \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = (c[i] & 1) ? (unsigned int)a[i] >= (unsigned int)b[i]                     \
                              : (unsigned int)a[i] > (unsigned int)b[i];                     \
        return r;                                                                            \
    }                                                                                        \
    /* without a carry in; without a borrow in */                                            \
    __SPU_EMULATION __SPU_VT(f) __SPU_FN(__spu_em_genc, f)(__SPU_VT(f) a, __SPU_VT(f) b)     \
    {                                                                                        \
        return __SPU_FN(__spu_em_gencx, f)(a, b, (__SPU_VT(f)){0, 0, 0, 0});                 \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(f) __SPU_FN(__spu_em_genb, f)(__SPU_VT(f) a, __SPU_VT(f) b)     \
    {                                                                                        \
        return __SPU_FN(__spu_em_genbx, f)(a, b, (__SPU_VT(f)){1, 1, 1, 1});                 \
    }                                                                                        \
    /* addx, sfx, cgx, bgx, cg, bg: simple fixed point (spu.md fx2), one instruction each */ \
    __SPU_WRAP_V3(__SPU_CLASS_FX, __SPU_VT(f), __SPU_FN(spu_addx, f), __SPU_FN(__spu_em_addx, f), \
                  __SPU_VT(f), __SPU_VT(f), __SPU_VT(f))                                     \
    __SPU_WRAP_V3(__SPU_CLASS_FX, __SPU_VT(f), __SPU_FN(spu_subx, f), __SPU_FN(__spu_em_subx, f), \
                  __SPU_VT(f), __SPU_VT(f), __SPU_VT(f))                                     \
    __SPU_WRAP_V3(__SPU_CLASS_FX, __SPU_VT(f), __SPU_FN(spu_gencx, f),                       \
                  __SPU_FN(__spu_em_gencx, f), __SPU_VT(f), __SPU_VT(f), __SPU_VT(f))        \
    __SPU_WRAP_V3(__SPU_CLASS_FX, __SPU_VT(f), __SPU_FN(spu_genbx, f),                       \
                  __SPU_FN(__spu_em_genbx, f), __SPU_VT(f), __SPU_VT(f), __SPU_VT(f))        \
    __SPU_WRAP_V2(__SPU_CLASS_FX, __SPU_VT(f), __SPU_FN(spu_genc, f), __SPU_FN(__spu_em_genc, f), \
                  __SPU_VT(f), __SPU_VT(f))                                                  \
    __SPU_WRAP_V2(__SPU_CLASS_FX, __SPU_VT(f), __SPU_FN(spu_genb, f), __SPU_FN(__spu_em_genb, f), \
                  __SPU_VT(f), __SPU_VT(f))
__SPU_DEF_CARRY(u32)
__SPU_DEF_CARRY(s32)

/* Halfword products into words: even (first, high) halfwords for spu_mule and spu_mhhadd, odd
 * (low) for spu_mulo and spu_madd's integer form. */
#define __SPU_DEF_HALF_PRODUCTS(hf, wf)                                                      \
    __SPU_EMULATION __SPU_VT(wf) __SPU_FN(__spu_em_mule, hf)(__SPU_VT(hf) a, __SPU_VT(hf) b) \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(wf) r;                                                                      \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = (__SPU_ET(wf))((__SPU_ET(wf))a[2 * i] * b[2 * i]);                        \
        return r;                                                                            \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(wf) __SPU_FN(__spu_em_mulo, hf)(__SPU_VT(hf) a, __SPU_VT(hf) b) \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(wf) r;                                                                      \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = (__SPU_ET(wf))((__SPU_ET(wf))a[2 * i + 1] * b[2 * i + 1]);                \
        return r;                                                                            \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(wf) __SPU_FN(__spu_em_mulo, hf##_s)(__SPU_VT(hf) a, __SPU_ET(hf) b)\
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(wf) r;                                                                      \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = (__SPU_ET(wf))((__SPU_ET(wf))a[2 * i + 1] * b);                           \
        return r;                                                                            \
    }                                                                                        \
    __SPU_EMULATION __SPU_VT(wf) __SPU_FN(__spu_em_mhhadd, hf)(__SPU_VT(hf) a, __SPU_VT(hf) b,\
                                                              __SPU_VT(wf) c)                \
    {                                                                                        \
        return (__SPU_VT(wf))((vec_uint4)__SPU_FN(__spu_em_mule, hf)(a, b) + (vec_uint4)c);  \
    }                                                                                        \
    /* mpyhh(u), mpy(u), mpyi/mpyui, mpyhha(u): 16-bit multiplies, floating-point integer */ \
    __SPU_WRAP_V2(__SPU_CLASS_FI, __SPU_VT(wf), __SPU_FN(spu_mule, hf), __SPU_FN(__spu_em_mule, hf),\
                  __SPU_VT(hf), __SPU_VT(hf))                                                \
    __SPU_WRAP_V2(__SPU_CLASS_FI, __SPU_VT(wf), __SPU_FN(spu_mulo, hf), __SPU_FN(__spu_em_mulo, hf),\
                  __SPU_VT(hf), __SPU_VT(hf))                                                \
    __SPU_WRAP_V1S(__SPU_CLASS_FI, __SPU_VT(wf), __SPU_FN(spu_mulo, hf##_s),                 \
                   __SPU_FN(__spu_em_mulo, hf##_s), __SPU_VT(hf), __SPU_ET(hf))              \
    __SPU_WRAP_V3(__SPU_CLASS_FI, __SPU_VT(wf), __SPU_FN(spu_mhhadd, hf),                    \
                  __SPU_FN(__spu_em_mhhadd, hf), __SPU_VT(hf), __SPU_VT(hf), __SPU_VT(wf))
__SPU_DEF_HALF_PRODUCTS(u16, u32)
__SPU_DEF_HALF_PRODUCTS(s16, s32)

__SPU_EMULATION vec_int4 __SPU_FN(__spu_em_madd, s16)(vec_short8 a, vec_short8 b, vec_int4 c)
{
    return (vec_int4)((vec_uint4)__SPU_FN(__spu_em_mulo, s16)(a, b) + (vec_uint4)c);
}
/* mpya */
__SPU_WRAP_V3(__SPU_CLASS_FI, vec_int4, __SPU_FN(spu_madd, s16), __SPU_FN(__spu_em_madd, s16),
              vec_short8, vec_short8, vec_int4)

/* spu_mulh: the high halfword of a by the low one of b, shifted into the high halfword. */
__SPU_EMULATION vec_int4 __spu_em_mulh(vec_short8 a, vec_short8 b)
{
    int i;
    vec_int4 r;
    for (i = 0; i < 4; i++)
        r[i] = (int)((unsigned int)(a[2 * i] * b[2 * i + 1]) << 16);
    return r;
}
/* mpyh */
__SPU_WRAP_V2(__SPU_CLASS_FI, vec_int4, spu_mulh, __spu_em_mulh, vec_short8, vec_short8)

/* spu_mulsr: the signed product of the low halfwords, shifted right 16 keeping its sign. */
__SPU_EMULATION vec_int4 __spu_em_mulsr(vec_short8 a, vec_short8 b)
{
    int i;
    vec_int4 r;
    for (i = 0; i < 4; i++)
        r[i] = (a[2 * i + 1] * b[2 * i + 1]) >> 16;
    return r;
}
/* mpys */
__SPU_WRAP_V2(__SPU_CLASS_FI, vec_int4, spu_mulsr, __spu_em_mulsr, vec_short8, vec_short8)

#define __SPU_DEF_SP_ESTIMATE(op, scalar_op)                                                 \
    __SPU_EMULATION vec_float4 __spu_em_##op(vec_float4 a)                                   \
    {                                                                                        \
        int i;                                                                               \
        vec_float4 r;                                                                        \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = scalar_op(a[i]);                                                          \
        return r;                                                                            \
    }                                                                                        \
    /* frest or frsqest (odd pipe), then fi on the estimate: two dependent instructions */   \
    __SPU_MARKED vec_float4 op(vec_float4 a)                                                 \
    {                                                                                        \
        vec_float4 r;                                                                        \
        __SPU_MARK_IN1_THEN(__SPU_CLASS_SH, 1, __SPU_CLASS_FI, 1, a);                        \
        r = __spu_em_##op(a);                                                                \
        __SPU_MARK_END(r);                                                                   \
        return r;                                                                            \
    }
__SPU_DEF_SP_ESTIMATE(spu_re, __spu_sp_reciprocal)
__SPU_DEF_SP_ESTIMATE(spu_rsqrte, __spu_sp_rsqrt)

/* Byte operations: absolute difference, rounded average, and the sums of each word's bytes
 * (b's into the even halfword, a's into the odd, as the SPU's sumb places them). */
__SPU_EMULATION vec_uchar16 __spu_em_absd(vec_uchar16 a, vec_uchar16 b)
{
    int i;
    vec_uchar16 r;
    for (i = 0; i < 16; i++)
        r[i] = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
    return r;
}

__SPU_EMULATION vec_uchar16 __spu_em_avg(vec_uchar16 a, vec_uchar16 b)
{
    int i;
    vec_uchar16 r;
    for (i = 0; i < 16; i++)
        r[i] = (unsigned char)((a[i] + b[i] + 1) >> 1);
    return r;
}
/* absdb, avgb: even pipe, 4 cycles (gcc spu.md: fxb), the word-shift class's price */
__SPU_WRAP_V2(__SPU_CLASS_WS, vec_uchar16, spu_absd, __spu_em_absd, vec_uchar16, vec_uchar16)
__SPU_WRAP_V2(__SPU_CLASS_WS, vec_uchar16, spu_avg, __spu_em_avg, vec_uchar16, vec_uchar16)

__SPU_EMULATION vec_ushort8 __spu_em_sumb(vec_uchar16 a, vec_uchar16 b)
{
    int i;
    vec_ushort8 r;
    for (i = 0; i < 4; i++) {
        r[2 * i] = b[4 * i] + b[4 * i + 1] + b[4 * i + 2] + b[4 * i + 3];
        r[2 * i + 1] = a[4 * i] + a[4 * i + 1] + a[4 * i + 2] + a[4 * i + 3];
    }
    return r;
}
/* sumb: even pipe, 4 cycles (gcc spu.md: fxb), the word-shift class's price */
__SPU_WRAP_V2(__SPU_CLASS_WS, vec_ushort8, spu_sumb, __spu_em_sumb, vec_uchar16, vec_uchar16)

#ifndef __cplusplus
#define spu_add(a, b)                                                                        \
    __SPU_IF_VECTOR(b, __SPU_PICK(a, spu_add, u16, s16, u32, s32, f32, f64),                 \
                    __SPU_PICK_V(a, spu_add, _s, u16, s16, u32, s32))(a, b)
#define spu_sub(a, b)                                                                        \
    __SPU_IF_VECTOR(a, __SPU_PICK(a, spu_sub, u16, s16, u32, s32, f32, f64),                 \
                    __SPU_PICK_V(b, spu_sub, _r, u16, s16, u32, s32))(a, b)
#define spu_mul(a, b) __SPU_PICK(a, spu_mul, f32, f64)(a, b)
#define spu_madd(a, b, c) __SPU_PICK(a, spu_madd, s16, f32, f64)(a, b, c)
#define spu_msub(a, b, c) __SPU_PICK(a, spu_msub, f32, f64)(a, b, c)
#define spu_nmsub(a, b, c) __SPU_PICK(a, spu_nmsub, f32, f64)(a, b, c)
#define spu_nmadd(a, b, c) __SPU_PICK(a, spu_nmadd, f64)(a, b, c)
#define spu_addx(a, b, c) __SPU_PICK(a, spu_addx, u32, s32)(a, b, c)
#define spu_subx(a, b, c) __SPU_PICK(a, spu_subx, u32, s32)(a, b, c)
#define spu_genc(a, b) __SPU_PICK(a, spu_genc, u32, s32)(a, b)
#define spu_gencx(a, b, c) __SPU_PICK(a, spu_gencx, u32, s32)(a, b, c)
#define spu_genb(a, b) __SPU_PICK(a, spu_genb, u32, s32)(a, b)
#define spu_genbx(a, b, c) __SPU_PICK(a, spu_genbx, u32, s32)(a, b, c)
#define spu_mule(a, b) __SPU_PICK(a, spu_mule, u16, s16)(a, b)
#define spu_mulo(a, b)                                                                       \
    __SPU_IF_VECTOR(b, __SPU_PICK(a, spu_mulo, u16, s16),                                    \
                    __SPU_PICK_V(a, spu_mulo, _s, u16, s16))(a, b)
#define spu_mhhadd(a, b, c) __SPU_PICK(a, spu_mhhadd, u16, s16)(a, b, c)
#endif

#endif
