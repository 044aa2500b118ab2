/* Shifts and rotates of the whole 128-bit register, of any vector type: spu_slqw,
 * spu_slqwbyte, spu_slqwbytebc, spu_rlqw, spu_rlqwbyte, spu_rlqwbytebc, spu_rlmaskqw,
 * spu_rlmaskqwbyte, spu_rlmaskqwbytebc.
 *
 * The quadword is big-endian: byte 0 (element 0's first byte) is the most significant, so a
 * left shift moves bytes toward element 0. Counts are read as the SPU's instructions read them:
 *   slqw, rlqw, rlmaskqw          bits, count mod 8 (rlmaskqw: right by -count mod 8);
 *   slqwbyte                      bytes, count mod 32, 16 or more gives zeros;
 *   rlqwbyte                      bytes, count mod 16;
 *   rlmaskqwbyte                  right by -count mod 32 bytes, 16 or more gives zeros;
 *   the "bc" forms take a bit count and use its byte part, count >> 3 (rlmaskqwbytebc: right
 *   by -(count >> 3) mod 32 bytes), so shifting by bc then by the bits moves by count bits. */
#ifndef SPU_INTRINSICS_QUADWORD_H
#define SPU_INTRINSICS_QUADWORD_H

/* The 16 bytes moved by `bytes` toward element 0 (left, negative: right), zeros shifted in,
 * or rotated when rotate is set. */
__SPU_INLINE vec_uchar16 __spu_qw_move_bytes(vec_uchar16 a, int bytes, int rotate)
{
    int i;
    vec_uchar16 r;
    for (i = 0; i < 16; i++) {
        int from = i + bytes;
        if (rotate)
            r[i] = a[from & 15];
        else
            r[i] = (from >= 0 && from < 16) ? a[from] : 0;
    }
    return r;
}

/* Bits moved left by bits (0..7), zeros shifted in, or rotated. */
__SPU_INLINE vec_uchar16 __spu_qw_shift_bits_left(vec_uchar16 a, unsigned int bits, int rotate)
{
    int i;
    vec_uchar16 r;
    for (i = 0; i < 16; i++) {
        unsigned int next = (i < 15) ? a[i + 1] : (rotate ? a[0] : 0);
        r[i] = (unsigned char)((a[i] << bits) | (next >> (8 - bits)));
    }
    return r;
}

__SPU_INLINE vec_uchar16 __spu_qw_shift_bits_right(vec_uchar16 a, unsigned int bits)
{
    int i;
    vec_uchar16 r;
    for (i = 0; i < 16; i++) {
        unsigned int previous = (i > 0) ? a[i - 1] : 0;
        r[i] = (unsigned char)((a[i] >> bits) | (previous << (8 - bits)));
    }
    return r;
}

__SPU_INLINE vec_uchar16 __spu_slqwbyte_bytes(vec_uchar16 a, unsigned int count)
{
    return __spu_qw_move_bytes(a, (int)(count & 31), 0);
}

__SPU_INLINE vec_uchar16 __spu_rlmaskqwbyte_bytes(vec_uchar16 a, int count)
{
    return __spu_qw_move_bytes(a, -(int)((0u - (unsigned int)count) & 31), 0);
}

/* The SPU's operations on bytes; each intrinsic below is one of these on the register's
 * bytes, for every vector type. */
#define __spu_qw_slqw(a, n) __spu_qw_shift_bits_left(a, (unsigned int)(n) & 7, 0)
#define __spu_qw_slqwbyte(a, n) __spu_slqwbyte_bytes(a, (unsigned int)(n))
#define __spu_qw_slqwbytebc(a, n) __spu_slqwbyte_bytes(a, (unsigned int)(n) >> 3)
#define __spu_qw_rlqw(a, n) __spu_qw_shift_bits_left(a, (unsigned int)(n) & 7, 1)
#define __spu_qw_rlqwbyte(a, n) __spu_qw_move_bytes(a, (int)((unsigned int)(n) & 15), 1)
#define __spu_qw_rlqwbytebc(a, n) __spu_qw_move_bytes(a, (int)(((unsigned int)(n) >> 3) & 15), 1)
#define __spu_qw_rlmaskqw(a, n) __spu_qw_shift_bits_right(a, (0u - (unsigned int)(n)) & 7)
#define __spu_qw_rlmaskqwbyte(a, n) __spu_rlmaskqwbyte_bytes(a, (int)(n))
#define __spu_qw_rlmaskqwbytebc(a, n) __spu_rlmaskqwbyte_bytes(a, (int)(n) >> 3)

/* The emulations, on bytes, one function each (called between the markers). */
#define __SPU_DEF_QW_EMULATION(op, count_type)                                               \
    __SPU_EMULATION vec_uchar16 __spu_em_##op(vec_uchar16 a, count_type count)               \
    {                                                                                        \
        return __spu_qw_##op(a, count);                                                      \
    }
__SPU_DEF_QW_EMULATION(slqw, unsigned int)
__SPU_DEF_QW_EMULATION(slqwbyte, unsigned int)
__SPU_DEF_QW_EMULATION(slqwbytebc, unsigned int)
__SPU_DEF_QW_EMULATION(rlqw, int)
__SPU_DEF_QW_EMULATION(rlqwbyte, int)
__SPU_DEF_QW_EMULATION(rlqwbytebc, int)
__SPU_DEF_QW_EMULATION(rlmaskqw, int)
__SPU_DEF_QW_EMULATION(rlmaskqwbyte, int)
__SPU_DEF_QW_EMULATION(rlmaskqwbytebc, int)

/* Each is one quadword shift or rotate (shlqbi, shlqby, rotqbi, rotqby, rotqmbi, rotqmby and
 * their immediate and bit-count forms: the odd pipe's shuffle class); marked as bytes, as a
 * vector double or long long has no AltiVec register. */
#define __SPU_DEF_QW(op, f, count_type)                                                      \
    __SPU_MARKED __SPU_VT(f) __SPU_FN(spu_##op, f)(__SPU_VT(f) a, count_type count)          \
    {                                                                                        \
        vec_uchar16 a8 = (vec_uchar16)a, r;                                                  \
        __SPU_MARK_IN1(__SPU_CLASS_SH, 1, a8);                                               \
        r = __spu_em_##op(a8, count);                                                        \
        __SPU_MARK_END(r);                                                                   \
        return (__SPU_VT(f))r;                                                               \
    }
#define __SPU_DEF_QW_ALL(f)                                                                  \
    __SPU_DEF_QW(slqw, f, unsigned int)                                                      \
    __SPU_DEF_QW(slqwbyte, f, unsigned int)                                                  \
    __SPU_DEF_QW(slqwbytebc, f, unsigned int)                                                \
    __SPU_DEF_QW(rlqw, f, int)                                                               \
    __SPU_DEF_QW(rlqwbyte, f, int)                                                           \
    __SPU_DEF_QW(rlqwbytebc, f, int)                                                         \
    __SPU_DEF_QW(rlmaskqw, f, int)                                                           \
    __SPU_DEF_QW(rlmaskqwbyte, f, int)                                                       \
    __SPU_DEF_QW(rlmaskqwbytebc, f, int)
__SPU_EACH_FORM(__SPU_DEF_QW_ALL)

#ifndef __cplusplus
#define spu_slqw(a, count) __SPU_PICK_ALL(a, spu_slqw)(a, count)
#define spu_slqwbyte(a, count) __SPU_PICK_ALL(a, spu_slqwbyte)(a, count)
#define spu_slqwbytebc(a, count) __SPU_PICK_ALL(a, spu_slqwbytebc)(a, count)
#define spu_rlqw(a, count) __SPU_PICK_ALL(a, spu_rlqw)(a, count)
#define spu_rlqwbyte(a, count) __SPU_PICK_ALL(a, spu_rlqwbyte)(a, count)
#define spu_rlqwbytebc(a, count) __SPU_PICK_ALL(a, spu_rlqwbytebc)(a, count)
#define spu_rlmaskqw(a, count) __SPU_PICK_ALL(a, spu_rlmaskqw)(a, count)
#define spu_rlmaskqwbyte(a, count) __SPU_PICK_ALL(a, spu_rlmaskqwbyte)(a, count)
#define spu_rlmaskqwbytebc(a, count) __SPU_PICK_ALL(a, spu_rlmaskqwbytebc)(a, count)
#endif

#endif
