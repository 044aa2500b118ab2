/* Rearranging bytes and bits: spu_shuffle, spu_maskb, spu_maskh, spu_maskw, spu_gather.
 *
 * spu_shuffle(a, b, pattern) takes each result byte from the 32 bytes of a then b, numbered
 * in memory order, by the pattern byte's low five bits; pattern bytes 10xxxxxx give 0x00,
 * 110xxxxx give 0xFF and 111xxxxx give 0x80, as the SPU's shufb does. The masks spread the
 * low bits of a scalar (16, 8 or 4 of them, the highest to element 0) into whole elements;
 * spu_gather collects the low bit of each element into element 0, the first element's bit
 * highest, and zeros the other elements. */
#ifndef SPU_INTRINSICS_SHUFFLE_H
#define SPU_INTRINSICS_SHUFFLE_H

__SPU_EMULATION vec_uchar16 __spu_shuffle_bytes(vec_uchar16 a, vec_uchar16 b, vec_uchar16 pattern)
{
    int i;
    vec_uchar16 r;
    for (i = 0; i < 16; i++) {
        unsigned int p = pattern[i];
        if ((p & 0xC0) == 0x80)
            r[i] = 0x00;
        else if ((p & 0xE0) == 0xC0)
            r[i] = 0xFF;
        else if ((p & 0xE0) == 0xE0)
            r[i] = 0x80;
        else
            r[i] = (p & 0x10) ? b[p & 15] : a[p & 15];
    }
    return r;
}

#define __SPU_DEF_SHUFFLE(f)                                                                 \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_shuffle, f)(__SPU_VT(f) a, __SPU_VT(f) b,          \
                                                      vec_uchar16 pattern)                   \
    {                                                                                        \
        /* shufb; marked as bytes: a vector double or long long has no AltiVec register */   \
        vec_uchar16 a8 = (vec_uchar16)a, b8 = (vec_uchar16)b, r;                             \
        __SPU_MARK_BEGIN3(__SPU_CLASS_SH, 1, a8, b8, pattern);                                  \
        r = __spu_shuffle_bytes(a8, b8, pattern);                                            \
        __SPU_MARK_END(r);                                                                   \
        return (__SPU_VT(f))r;                                                               \
    }
__SPU_EACH_FORM(__SPU_DEF_SHUFFLE)

/* Each of the n low bits of bits (the highest first) as an element of all ones or zeros. */
#define __SPU_DEF_MASK(op, vt, n)                                                            \
    __SPU_EMULATION vt __spu_em_##op(unsigned int bits)                                      \
    {                                                                                        \
        int i;                                                                               \
        vt r;                                                                                \
        for (i = 0; i < n; i++)                                                              \
            r[i] = -((bits >> (n - 1 - i)) & 1);                                             \
        return r;                                                                            \
    }                                                                                        \
    __SPU_MARKED vt op(unsigned int bits) /* fsmb, fsmh, fsm: odd pipe */                    \
    {                                                                                        \
        vt r;                                                                                \
        __SPU_MARK_IN_R(__SPU_CLASS_SH, 1, bits);                                            \
        r = __spu_em_##op(bits);                                                             \
        __SPU_MARK_END(r);                                                                   \
        return r;                                                                            \
    }
__SPU_DEF_MASK(spu_maskb, vec_uchar16, 16)
__SPU_DEF_MASK(spu_maskh, vec_ushort8, 8)
__SPU_DEF_MASK(spu_maskw, vec_uint4, 4)

/* The low bit of each element of the unsigned view u, n elements. */
#define __SPU_DEF_GATHER(f, view, n)                                                         \
    __SPU_EMULATION vec_uint4 __SPU_FN(__spu_em_gather, f)(__SPU_VT(f) a)                    \
    {                                                                                        \
        int i;                                                                               \
        view u = (view)a;                                                                    \
        unsigned int bits = 0;                                                               \
        for (i = 0; i < n; i++)                                                              \
            bits = (bits << 1) | (u[i] & 1);                                                 \
        vec_uint4 r = {bits, 0, 0, 0};                                                       \
        return r;                                                                            \
    }                                                                                        \
    /* gbb, gbh, gb: odd pipe */                                                             \
    __SPU_WRAP_V1(__SPU_CLASS_SH, vec_uint4, __SPU_FN(spu_gather, f), __SPU_FN(__spu_em_gather, f), \
                  __SPU_VT(f))
__SPU_DEF_GATHER(u8, vec_uchar16, 16)
__SPU_DEF_GATHER(s8, vec_uchar16, 16)
__SPU_DEF_GATHER(u16, vec_ushort8, 8)
__SPU_DEF_GATHER(s16, vec_ushort8, 8)
__SPU_DEF_GATHER(u32, vec_uint4, 4)
__SPU_DEF_GATHER(s32, vec_uint4, 4)
__SPU_DEF_GATHER(f32, vec_uint4, 4)

#ifndef __cplusplus
#define spu_shuffle(a, b, pattern) __SPU_PICK_ALL(a, spu_shuffle)(a, b, pattern)
#define spu_gather(a) __SPU_PICK(a, spu_gather, u8, s8, u16, s16, u32, s32, f32)(a)
#endif

#endif
