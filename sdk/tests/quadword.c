/* Whole-register shifts and rotates: byte counts at and past 16, negative counts, the bit
 * counts of the "bc" forms, bit shifts carrying across bytes, and the big-endian order a
 * program sees when it reads the result as words (a left shift moves bytes toward element 0).
 * Every vector type is accepted and moved as its bytes. */
#include <spu_intrinsics.h>

#include "check.h"

static const vec_uchar16 counting = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const vec_uchar16 ends = {0xF0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0F};

static void bytes(void)
{
    vec_uchar16 a = counting;
    EXPECT(vec_uchar16, spu_slqwbyte(a, 3), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0,
           0);
    EXPECT(vec_uchar16, spu_slqwbyte(a, 35), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0,
           0);
    EXPECT(vec_uchar16, spu_slqwbyte(a, 16), 0);
    EXPECT(vec_uchar16, spu_slqwbyte(a, 17), 0);
    EXPECT(vec_uchar16, spu_slqwbytebc(a, 27), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0,
           0, 0);
    EXPECT(vec_uchar16, spu_rlqwbyte(a, 3), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1, 2,
           3);
    EXPECT(vec_uchar16, spu_rlqwbyte(a, 19), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1, 2,
           3);
    EXPECT(vec_uchar16, spu_rlqwbyte(a, -1), 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
           15);
    EXPECT(vec_uchar16, spu_rlqwbytebc(a, 24), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1,
           2, 3);
    EXPECT(vec_uchar16, spu_rlqwbytebc(a, -8), 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
           15);
    /* right shifts take the negated count */
    EXPECT(vec_uchar16, spu_rlmaskqwbyte(a, -3), 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
           13);
    EXPECT(vec_uchar16, spu_rlmaskqwbyte(a, 29), 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
           13);
    EXPECT(vec_uchar16, spu_rlmaskqwbyte(a, -16), 0);
    EXPECT(vec_uchar16, spu_rlmaskqwbyte(a, 0), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
           15, 16);
    EXPECT(vec_uchar16, spu_rlmaskqwbytebc(a, -24), 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
           12, 13);
    /* the byte part of -9 is -2 (arithmetic shift): two bytes */
    EXPECT(vec_uchar16, spu_rlmaskqwbytebc(a, -9), 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
           13, 14);
}

static void bits(void)
{
    EXPECT(vec_uchar16, spu_slqw(counting, 4), 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
           0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0, 0xF1, 0x00);
    EXPECT(vec_uchar16, spu_slqw(counting, 12), 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
           0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0, 0xF1, 0x00);
    EXPECT(vec_uchar16, spu_rlqw(ends, 4), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF);
    /* the SPU reads count mod 8: -4 rotates left by 4 too */
    EXPECT(vec_uchar16, spu_rlqw(ends, -4), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF);
    EXPECT(vec_uchar16, spu_rlmaskqw(ends, -4), 0x0F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0);
    EXPECT(vec_uchar16, spu_rlmaskqw(ends, 4), 0x0F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_uchar16, spu_rlmaskqw(ends, -9), 0x78, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
           0x07);
}

static void every_type(void)
{
    vec_uint4 words = (vec_uint4)counting;
    EXPECT(vec_uint4, spu_slqwbyte(words, 1), 0x02030405, 0x06070809, 0x0A0B0C0D, 0x0E0F1000);
    EXPECT(vec_int4, spu_rlqwbyte((vec_int4)words, 4), 0x05060708, 0x090A0B0C, 0x0D0E0F10,
           0x01020304);
    EXPECT(vec_ushort8, spu_rlmaskqwbyte((vec_ushort8)words, -2), 0, 0x0102, 0x0304, 0x0506,
           0x0708, 0x090A, 0x0B0C, 0x0D0E);
    EXPECT(vec_short8, spu_slqwbytebc((vec_short8)words, 16), 0x0304, 0x0506, 0x0708, 0x090A,
           0x0B0C, 0x0D0E, 0x0F10, 0);
    EXPECT(vec_char16, spu_rlqwbytebc((vec_char16)words, 8), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
           13, 14, 15, 16, 1);
    EXPECT(vec_ullong2, spu_rlqw((vec_ullong2)words, 1), 0x020406080A0C0E10ull,
           0x121416181A1C1E20ull);
    EXPECT(vec_llong2, spu_slqw((vec_llong2)words, 1), 0x020406080A0C0E10ll,
           0x121416181A1C1E20ll);
    EXPECT(vec_uint4, (vec_uint4)spu_rlmaskqw((vec_float4)words, -1), 0x00810182, 0x02830384,
           0x04850586, 0x06870788);
    EXPECT(vec_uint4, (vec_uint4)spu_rlmaskqwbytebc((vec_double2)words, -32), 0, 0x01020304,
           0x05060708, 0x090A0B0C);
}

int main(void)
{
    bytes();
    bits();
    every_type();
    return check_done();
}
