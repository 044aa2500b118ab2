/* Conversions: spu_convtf, spu_convts, spu_convtu, spu_extend, spu_roundtf.
 *
 * spu_convtf(v, scale) is v / 2^scale as single precision, truncated as the SPU's csflt and
 * cuflt do; spu_convts and spu_convtu are v * 2^scale truncated toward zero and saturated to the
 * integer's range (a negative value gives 0 unsigned), scale 0 to 127. spu_extend sign-extends
 * the odd (low) element of each pair into the double-width element, and widens the even
 * floats (elements 0 and 2) to double. spu_roundtf narrows each double to a float in the even
 * element, zero in the odd, rounding to nearest as the SPU's double unit does by default. The
 * double-unit conversions use the host's IEEE rules. */
#ifndef SPU_INTRINSICS_CONVERT_H
#define SPU_INTRINSICS_CONVERT_H

/* 2^e exactly, for e within the double's normal range. */
__SPU_INLINE double __spu_pow2(int e)
{
    unsigned long long bits = (unsigned long long)(1023 + e) << 52;
    double value;
    __builtin_memcpy(&value, &bits, sizeof value);
    return value;
}

#define __SPU_DEF_CONVTF(f)                                                                  \
    __SPU_EMULATION vec_float4 __SPU_FN(__spu_em_convtf, f)(__SPU_VT(f) a, unsigned int scale)\
    {                                                                                        \
        int i;                                                                               \
        vec_float4 r;                                                                        \
        double factor = __spu_pow2(-(int)(scale & 127));                                     \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = __spu_sp_truncate((double)a[i] * factor, 0.0);                            \
        return r;                                                                            \
    }
__SPU_DEF_CONVTF(u32)
__SPU_DEF_CONVTF(s32)
/* cuflt, csflt: one floating-point-integer instruction */
__SPU_WRAP_V1S(__SPU_CLASS_FI, vec_float4, __SPU_FN(spu_convtf, u32), __SPU_FN(__spu_em_convtf, u32),
               vec_uint4, unsigned int)
__SPU_WRAP_V1S(__SPU_CLASS_FI, vec_float4, __SPU_FN(spu_convtf, s32), __SPU_FN(__spu_em_convtf, s32),
               vec_int4, unsigned int)

/* The value times 2^scale, truncated toward zero into [low, high]. */
#define __SPU_DEF_CONVT(op, vt, low, high)                                                   \
    __SPU_EMULATION vt __spu_em_##op(vec_float4 a, unsigned int scale)                       \
    {                                                                                        \
        int i;                                                                               \
        vt r;                                                                                \
        double factor = __spu_pow2((int)(scale & 127));                                      \
        for (i = 0; i < 4; i++) {                                                            \
            double value = __spu_sp_value(a[i]) * factor;                                    \
            r[i] = value >= (high) ? (high) : value <= (low) ? (low) : value;                \
        }                                                                                    \
        return r;                                                                            \
    }
__SPU_DEF_CONVT(spu_convts, vec_int4, -2147483648.0, 2147483647.0)
__SPU_DEF_CONVT(spu_convtu, vec_uint4, 0.0, 4294967295.0)
/* cflts, cfltu */
__SPU_WRAP_V1S(__SPU_CLASS_FI, vec_int4, spu_convts, __spu_em_spu_convts, vec_float4, unsigned int)
__SPU_WRAP_V1S(__SPU_CLASS_FI, vec_uint4, spu_convtu, __spu_em_spu_convtu, vec_float4, unsigned int)

/* QUAL NAME_from: the sign extension itself, an emulation called between marks or, where the
 * result has no register to mark, the intrinsic inlined whole. */
#define __SPU_DEF_EXTEND(QUAL, NAME, from, to)                                               \
    QUAL __SPU_VT(to) __SPU_FN(NAME, from)(__SPU_VT(from) a)                                 \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(to) r;                                                                      \
        for (i = 0; i < __SPU_N(to); i++)                                                    \
            r[i] = a[2 * i + 1];                                                             \
        return r;                                                                            \
    }
/* xsbh, xshw: simple fixed point (spu.md fx2), one instruction */
__SPU_DEF_EXTEND(__SPU_EMULATION, __spu_em_extend, s8, s16)
__SPU_WRAP_V1(__SPU_CLASS_FX, vec_short8, __SPU_FN(spu_extend, s8), __SPU_FN(__spu_em_extend, s8),
              vec_char16)
__SPU_DEF_EXTEND(__SPU_EMULATION, __spu_em_extend, s16, s32)
__SPU_WRAP_V1(__SPU_CLASS_FX, vec_int4, __SPU_FN(spu_extend, s16), __SPU_FN(__spu_em_extend, s16),
              vec_short8)
/* xswd: its result is a vector long long, which has no register here: inlined, priced as its
 * PowerPC code */
__SPU_DEF_EXTEND(__SPU_INLINE, spu_extend, s32, s64)

__SPU_INLINE vec_double2 __SPU_FN(spu_extend, f32)(vec_float4 a)
{
    vec_double2 r = {a[0], a[2]};
    return r;
}

__SPU_INLINE vec_float4 spu_roundtf(vec_double2 a)
{
    vec_float4 r = {(float)a[0], 0.0f, (float)a[1], 0.0f};
    return r;
}

#ifndef __cplusplus
#define spu_convtf(a, scale) __SPU_PICK(a, spu_convtf, u32, s32)(a, scale)
#define spu_extend(a) __SPU_PICK(a, spu_extend, s8, s16, s32, f32)(a)
#endif

#endif
