/* Scalars in and out of vectors: spu_splats, spu_promote, spu_extract, spu_insert.
 *
 * The SPU masks an element index to the element count (spu_extract(v, 5) of a vec_int4 reads
 * element 1), and so do these. spu_promote leaves the other elements undefined on the SPU;
 * here they are zero. */
#ifndef SPU_INTRINSICS_SCALAR_H
#define SPU_INTRINSICS_SCALAR_H

#define __SPU_DEF_SCALAR(f)                                                                  \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_splats, f)(__SPU_ET(f) s)                          \
    {                                                                                        \
        int i;                                                                               \
        __SPU_VT(f) r;                                                                       \
        for (i = 0; i < __SPU_N(f); i++)                                                     \
            r[i] = s;                                                                        \
        return r;                                                                            \
    }                                                                                        \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_promote, f)(__SPU_ET(f) s, int element)            \
    {                                                                                        \
        __SPU_VT(f) r = {0};                                                                 \
        r[element & (__SPU_N(f) - 1)] = s;                                                   \
        return r;                                                                            \
    }                                                                                        \
    __SPU_INLINE __SPU_ET(f) __SPU_FN(spu_extract, f)(__SPU_VT(f) v, int element)            \
    {                                                                                        \
        return v[element & (__SPU_N(f) - 1)];                                                \
    }                                                                                        \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_insert, f)(__SPU_ET(f) s, __SPU_VT(f) v,           \
                                                     int element)                            \
    {                                                                                        \
        v[element & (__SPU_N(f) - 1)] = s;                                                   \
        return v;                                                                            \
    }
__SPU_EACH_FORM(__SPU_DEF_SCALAR)

#ifdef __cplusplus
/* Plain char and the 32-bit longs are their own types in C++: give them the SPU's forms. */
static inline vec_uchar16 spu_splats(char s) { return spu_splats((unsigned char)s); }
static inline vec_uint4 spu_splats(unsigned long s) { return spu_splats((unsigned int)s); }
static inline vec_int4 spu_splats(long s) { return spu_splats((signed int)s); }
static inline vec_uchar16 spu_promote(char s, int e) { return spu_promote((unsigned char)s, e); }
static inline vec_uint4 spu_promote(unsigned long s, int e)
{
    return spu_promote((unsigned int)s, e);
}
static inline vec_int4 spu_promote(long s, int e) { return spu_promote((signed int)s, e); }
#else
#define spu_splats(s) __SPU_PICK_SCALAR(s, spu_splats)(s)
#define spu_promote(s, element) __SPU_PICK_SCALAR(s, spu_promote)(s, element)
#define spu_extract(v, element) __SPU_PICK_ALL(v, spu_extract)(v, element)
#define spu_insert(s, v, element) __SPU_PICK_ALL(v, spu_insert)(s, v, element)
#endif

#endif
