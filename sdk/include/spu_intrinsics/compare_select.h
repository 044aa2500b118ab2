/* Comparisons and selection: spu_cmpeq, spu_cmpgt, spu_cmpabseq, spu_cmpabsgt, spu_sel,
 * spu_testsv.
 *
 * A comparison gives all ones in each element where it holds and zeros elsewhere, as an
 * unsigned vector of the same element width (a float comparison gives vec_uint4, a double one
 * vec_ullong2). Single-precision operands are read as the SPU reads them (sp_float.h): a
 * denormal equals zero, -0 equals +0, and an exponent-255 value is an ordinary large number.
 * The double comparisons are those of the PowerXCell 8i (IEEE: a NaN compares unequal). */
#ifndef SPU_INTRINSICS_COMPARE_SELECT_H
#define SPU_INTRINSICS_COMPARE_SELECT_H

#define __SPU_MVT_u8 vec_uchar16
#define __SPU_MVT_s8 vec_uchar16
#define __SPU_MVT_u16 vec_ushort8
#define __SPU_MVT_s16 vec_ushort8
#define __SPU_MVT_u32 vec_uint4
#define __SPU_MVT_s32 vec_uint4
#define __SPU_MVT_u64 vec_ullong2
#define __SPU_MVT_s64 vec_ullong2
#define __SPU_MVT_f32 vec_uint4
#define __SPU_MVT_f64 vec_ullong2
#define __SPU_MVT(f) __SPU_MVT_##f

/* The integer comparisons, vector with vector and vector with scalar. */
#define __SPU_DEF_INT_COMPARE(f)                                                             \
    __SPU_INLINE __SPU_MVT(f) __SPU_FN(spu_cmpeq, f)(__SPU_VT(f) a, __SPU_VT(f) b)           \
    {                                                                                        \
        return (__SPU_MVT(f))(a == b);                                                       \
    }                                                                                        \
    __SPU_INLINE __SPU_MVT(f) __SPU_FN(spu_cmpeq, f##_s)(__SPU_VT(f) a, __SPU_ET(f) b)       \
    {                                                                                        \
        return (__SPU_MVT(f))(a == (__SPU_ET(f))b);                                          \
    }                                                                                        \
    __SPU_INLINE __SPU_MVT(f) __SPU_FN(spu_cmpgt, f)(__SPU_VT(f) a, __SPU_VT(f) b)           \
    {                                                                                        \
        return (__SPU_MVT(f))(a > b);                                                        \
    }                                                                                        \
    __SPU_INLINE __SPU_MVT(f) __SPU_FN(spu_cmpgt, f##_s)(__SPU_VT(f) a, __SPU_ET(f) b)       \
    {                                                                                        \
        return (__SPU_MVT(f))(a > (__SPU_ET(f))b);                                           \
    }
__SPU_EACH_INT32(__SPU_DEF_INT_COMPARE)

/* Float comparisons element by element on the values the SPU sees; magnitude forms compare
 * absolute values. */
#define __SPU_DEF_SP_COMPARE(op, value, relation)                                            \
    __SPU_EMULATION vec_uint4 __SPU_FN(__spu_em_##op, f32)(vec_float4 a, vec_float4 b)       \
    {                                                                                        \
        int i;                                                                               \
        vec_uint4 r;                                                                         \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = value(a[i]) relation value(b[i]) ? 0xFFFFFFFFu : 0;                       \
        return r;                                                                            \
    }                                                                                        \
    /* fceq, fcgt, fcmeq, fcmgt: simple fixed point (gcc spu.md: fx2) */                     \
    __SPU_WRAP_V2(__SPU_CLASS_FX, vec_uint4, __SPU_FN(op, f32), __SPU_FN(__spu_em_##op, f32), \
                  vec_float4, vec_float4)
#define __spu_sp_magnitude(x) __builtin_fabs(__spu_sp_value(x))
__SPU_DEF_SP_COMPARE(spu_cmpeq, __spu_sp_value, ==)
__SPU_DEF_SP_COMPARE(spu_cmpgt, __spu_sp_value, >)
__SPU_DEF_SP_COMPARE(spu_cmpabseq, __spu_sp_magnitude, ==)
__SPU_DEF_SP_COMPARE(spu_cmpabsgt, __spu_sp_magnitude, >)

#define __SPU_DEF_DP_COMPARE(op, value, relation)                                            \
    __SPU_INLINE vec_ullong2 __SPU_FN(op, f64)(vec_double2 a, vec_double2 b)                 \
    {                                                                                        \
        int i;                                                                               \
        vec_ullong2 r;                                                                       \
        for (i = 0; i < 2; i++)                                                              \
            r[i] = value(a[i]) relation value(b[i]) ? ~0ull : 0;                             \
        return r;                                                                            \
    }
#define __spu_dp_value(x) (x)
__SPU_DEF_DP_COMPARE(spu_cmpeq, __spu_dp_value, ==)
__SPU_DEF_DP_COMPARE(spu_cmpgt, __spu_dp_value, >)
__SPU_DEF_DP_COMPARE(spu_cmpabseq, __builtin_fabs, ==)
__SPU_DEF_DP_COMPARE(spu_cmpabsgt, __builtin_fabs, >)

/* spu_sel: each bit from b where the mask has a one, from a where it has a zero. */
#define __SPU_DEF_SEL(f)                                                                     \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_sel, f)(__SPU_VT(f) a, __SPU_VT(f) b,              \
                                                  __SPU_MVT(f) mask)                         \
    {                                                                                        \
        vec_uint4 m = (vec_uint4)mask;                                                       \
        return (__SPU_VT(f))(((vec_uint4)a & ~m) | ((vec_uint4)b & m));                      \
    }
__SPU_EACH_FORM(__SPU_DEF_SEL)

/* spu_testsv's classes of double (the SDK's names and bits). */
#define SPU_SV_NEG_DENORM 0x01
#define SPU_SV_POS_DENORM 0x02
#define SPU_SV_NEG_ZERO 0x04
#define SPU_SV_POS_ZERO 0x08
#define SPU_SV_NEG_INFINITY 0x10
#define SPU_SV_POS_INFINITY 0x20
#define SPU_SV_NAN 0x40

/* All ones in each element whose double is of one of the classes in values. */
__SPU_INLINE vec_ullong2 spu_testsv(vec_double2 a, unsigned int values)
{
    int i;
    vec_ullong2 bits = (vec_ullong2)a, r;
    for (i = 0; i < 2; i++) {
        unsigned long long magnitude = bits[i] & 0x7FFFFFFFFFFFFFFFull;
        int negative = (int)(bits[i] >> 63);
        unsigned int class_bit;
        if (magnitude > 0x7FF0000000000000ull)
            class_bit = SPU_SV_NAN;
        else if (magnitude == 0x7FF0000000000000ull)
            class_bit = negative ? SPU_SV_NEG_INFINITY : SPU_SV_POS_INFINITY;
        else if (magnitude == 0)
            class_bit = negative ? SPU_SV_NEG_ZERO : SPU_SV_POS_ZERO;
        else if (magnitude < 0x0010000000000000ull)
            class_bit = negative ? SPU_SV_NEG_DENORM : SPU_SV_POS_DENORM;
        else
            class_bit = 0;
        r[i] = (class_bit & values) ? ~0ull : 0;
    }
    return r;
}

#ifndef __cplusplus
#define spu_cmpeq(a, b)                                                                      \
    __SPU_IF_VECTOR(b, __SPU_PICK(a, spu_cmpeq, u8, s8, u16, s16, u32, s32, f32, f64),       \
                    __SPU_PICK_V(a, spu_cmpeq, _s, u8, s8, u16, s16, u32, s32))(a, b)
#define spu_cmpgt(a, b)                                                                      \
    __SPU_IF_VECTOR(b, __SPU_PICK(a, spu_cmpgt, u8, s8, u16, s16, u32, s32, f32, f64),       \
                    __SPU_PICK_V(a, spu_cmpgt, _s, u8, s8, u16, s16, u32, s32))(a, b)
#define spu_cmpabseq(a, b) __SPU_PICK(a, spu_cmpabseq, f32, f64)(a, b)
#define spu_cmpabsgt(a, b) __SPU_PICK(a, spu_cmpabsgt, f32, f64)(a, b)
#define spu_sel(a, b, mask) __SPU_PICK_ALL(a, spu_sel)(a, b, mask)
#endif

#endif
