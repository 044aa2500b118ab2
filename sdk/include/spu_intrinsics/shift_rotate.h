/* Shifts and rotates of elements: spu_rl, spu_rlmask, spu_rlmaska, spu_sl.
 *
 * The SPU reads only the low bits of a count, and a shift by the element width or more gives
 * zeros (or copies of the sign) rather than C's undefined behaviour:
 *   spu_rl      rotates left by count mod width, so a negative count rotates right;
 *   spu_rlmask  shifts right logically by -count (programs pass a negative count), reading
 *               -count mod 2*width: a shift of width or more gives 0;
 *   spu_rlmaska the same, arithmetic: a shift of width or more gives copies of the sign bit;
 *   spu_sl      shifts left by count mod 2*width: width or more gives 0.
 * Counts come per element (a vector: signed for the rotates, unsigned for spu_sl) or as one
 * scalar for every element. */
#ifndef SPU_INTRINSICS_SHIFT_ROTATE_H
#define SPU_INTRINSICS_SHIFT_ROTATE_H

#define __SPU_BITS_u16 16
#define __SPU_BITS_s16 16
#define __SPU_BITS_u32 32
#define __SPU_BITS_s32 32
#define __SPU_CVT_u16 vec_short8
#define __SPU_CVT_s16 vec_short8
#define __SPU_CVT_u32 vec_int4
#define __SPU_CVT_s32 vec_int4
#define __SPU_STYPE_u16 signed short
#define __SPU_STYPE_s16 signed short
#define __SPU_STYPE_u32 signed int
#define __SPU_STYPE_s32 signed int

/* One element of each operation, on the unsigned bits x of width w with count n. */
#define __spu_rotate_left(x, n, w)                                                           \
    (((x) << ((n) & ((w)-1))) | ((x) >> ((w) - ((n) & ((w)-1))) % (w)))
#define __spu_shift_right(x, n, w)                                                           \
    ((unsigned int)(-(n)) % (2 * (w)) >= (w) ? 0 : (x) >> ((unsigned int)(-(n)) % (2 * (w))))
#define __spu_shift_left(x, n, w)                                                            \
    ((unsigned int)(n) % (2 * (w)) >= (w) ? 0 : (x) << ((unsigned int)(n) % (2 * (w))))

/* Define op for form f from an element expression over x (the element's unsigned bits), sx
 * (its signed value), n (the count) and w (the width); count types are the vector vt and the
 * scalar st. */
#define __SPU_DEF_SHIFT(op, f, vt, st, expr)                                                 \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(op, f)(__SPU_VT(f) a, vt count)                        \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(f) r;                                                                       \
        for (i = 0; i < __SPU_N(f); i++) {                                                   \
            unsigned int x = (__SPU_UT(f))a[i];                                              \
            int sx = (__SPU_STYPE_##f)a[i], n = count[i];                                    \
            unsigned int w = __SPU_BITS_##f;                                                 \
            (void)sx, (void)x;                                                               \
            r[i] = (__SPU_ET(f))(expr);                                                      \
        }                                                                                    \
        return r;                                                                            \
    }                                                                                        \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(op, f##_s)(__SPU_VT(f) a, st count)                    \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(f) r;                                                                       \
        for (i = 0; i < __SPU_N(f); i++) {                                                   \
            unsigned int x = (__SPU_UT(f))a[i];                                              \
            int sx = (__SPU_STYPE_##f)a[i], n = (int)count;                                  \
            unsigned int w = __SPU_BITS_##f;                                                 \
            (void)sx, (void)x;                                                               \
            r[i] = (__SPU_ET(f))(expr);                                                      \
        }                                                                                    \
        return r;                                                                            \
    }

/* The arithmetic shift fills with the sign: a shift of width or more is a shift by w - 1. */
#define __spu_shift_right_arith(sx, n, w)                                                    \
    ((unsigned int)(-(n)) % (2 * (w)) >= (w) ? (sx) >> ((w)-1)                               \
                                             : (sx) >> ((unsigned int)(-(n)) % (2 * (w))))

#define __SPU_DEF_SHIFTS(f)                                                                  \
    __SPU_DEF_SHIFT(spu_rl, f, __SPU_CVT_##f, int, __spu_rotate_left(x, n, w))               \
    __SPU_DEF_SHIFT(spu_rlmask, f, __SPU_CVT_##f, int, __spu_shift_right(x, n, w))           \
    __SPU_DEF_SHIFT(spu_rlmaska, f, __SPU_CVT_##f, int, __spu_shift_right_arith(sx, n, w))   \
    __SPU_DEF_SHIFT(spu_sl, f, __SPU_UVT(f), unsigned int, __spu_shift_left(x, n, w))
__SPU_DEF_SHIFTS(u16)
__SPU_DEF_SHIFTS(s16)
__SPU_DEF_SHIFTS(u32)
__SPU_DEF_SHIFTS(s32)

#ifndef __cplusplus
#define __SPU_SHIFT_PICK(op, a, count)                                                       \
    __SPU_IF_VECTOR(count, __SPU_PICK(a, op, u16, s16, u32, s32),                            \
                    __SPU_PICK_V(a, op, _s, u16, s16, u32, s32))(a, count)
#define spu_rl(a, count) __SPU_SHIFT_PICK(spu_rl, a, count)
#define spu_rlmask(a, count) __SPU_SHIFT_PICK(spu_rlmask, a, count)
#define spu_rlmaska(a, count) __SPU_SHIFT_PICK(spu_rlmaska, a, count)
#define spu_sl(a, count) __SPU_SHIFT_PICK(spu_sl, a, count)
#endif

#endif
