/* Counting bits: spu_cntb (ones in each byte), spu_cntlz (leading zeros of each word, 32 for a
 * zero word; a float is counted on its bits). */
#ifndef SPU_INTRINSICS_BITS_H
#define SPU_INTRINSICS_BITS_H

#define __SPU_DEF_CNTB(f)                                                                    \
    __SPU_EMULATION vec_uchar16 __SPU_FN(__spu_em_cntb, f)(__SPU_VT(f) a)                    \
    {                                                                                        \
        int i;                                                                               \
        vec_uchar16 u = (vec_uchar16)a, r;                                                   \
        for (i = 0; i < 16; i++)                                                             \
            r[i] = (unsigned char)__builtin_popcount(u[i]);                                  \
        return r;                                                                            \
    }                                                                                        \
    /* cntb: even pipe, 4 cycles (gcc spu.md: fxb), the word-shift class's price */          \
    __SPU_WRAP_V1(__SPU_CLASS_WS, vec_uchar16, __SPU_FN(spu_cntb, f), __SPU_FN(__spu_em_cntb, f), \
                  __SPU_VT(f))
__SPU_DEF_CNTB(u8)
__SPU_DEF_CNTB(s8)

#define __SPU_DEF_CNTLZ(f)                                                                   \
    __SPU_EMULATION vec_uint4 __SPU_FN(__spu_em_cntlz, f)(__SPU_VT(f) a)                     \
    {                                                                                        \
        int i;                                                                               \
        vec_uint4 u = (vec_uint4)a, r;                                                       \
        for (i = 0; i < 4; i++)                                                              \
            r[i] = u[i] ? (unsigned int)__builtin_clz(u[i]) : 32;                            \
        return r;                                                                            \
    }                                                                                        \
    /* clz: simple fixed point (gcc spu.md: fx2) */                                          \
    __SPU_WRAP_V1(__SPU_CLASS_FX, vec_uint4, __SPU_FN(spu_cntlz, f), __SPU_FN(__spu_em_cntlz, f), \
                  __SPU_VT(f))
__SPU_DEF_CNTLZ(u32)
__SPU_DEF_CNTLZ(s32)
__SPU_DEF_CNTLZ(f32)

#ifndef __cplusplus
#define spu_cntb(a) __SPU_PICK(a, spu_cntb, u8, s8)(a)
#define spu_cntlz(a) __SPU_PICK(a, spu_cntlz, u32, s32, f32)(a)
#endif

#endif
