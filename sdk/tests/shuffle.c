/* spu_shuffle with every kind of pattern byte (the SPU's 10xxxxxx, 110xxxxx and 111xxxxx
 * constants, indices into either operand, ignored high bits), the tutorial grayscale's use of it
 * (bytes of RGBA pixels moved into the low bytes of words, read back as the words' values, as
 * only a big-endian layout gives), the masks and spu_gather. */
#include <spu_intrinsics.h>

#include "check.h"

static void patterns(void)
{
    vec_uchar16 a = {0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
                     0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF};
    vec_uchar16 b = {0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7,
                     0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF};
    vec_uchar16 pattern = {0x80, 0xC0, 0xE0, 0xBF, 0xDF, 0xFF, 0x1F, 0x10,
                           0x0F, 0x00, 0x20, 0x3F, 0x7F, 0x45, 0x03, 0x13};
    EXPECT(vec_uchar16, spu_shuffle(a, b, pattern), 0x00, 0xFF, 0x80, 0x00, 0xFF, 0x80, 0xBF,
           0xB0, 0xAF, 0xA0, 0xA0, 0xBF, 0xBF, 0xA5, 0xA3, 0xB3);
    /* the same bytes whatever the operands' type */
    EXPECT(vec_uint4, spu_shuffle((vec_uint4)a, (vec_uint4)b, pattern), 0x00FF8000, 0xFF80BFB0,
           0xAFA0A0BF, 0xBFA5A3B3);
    EXPECT(vec_char16, spu_shuffle((vec_char16)a, (vec_char16)b, pattern), 0x00, -1, -128, 0x00,
           -1, -128, (signed char)0xBF, (signed char)0xB0, (signed char)0xAF, (signed char)0xA0,
           (signed char)0xA0, (signed char)0xBF, (signed char)0xBF, (signed char)0xA5,
           (signed char)0xA3, (signed char)0xB3);
    EXPECT(vec_ushort8, spu_shuffle((vec_ushort8)a, (vec_ushort8)b, pattern), 0x00FF, 0x8000,
           0xFF80, 0xBFB0, 0xAFA0, 0xA0BF, 0xBFA5, 0xA3B3);
    EXPECT(vec_short8, spu_shuffle((vec_short8)a, (vec_short8)b, pattern), 0x00FF,
           (short)0x8000, (short)0xFF80, (short)0xBFB0, (short)0xAFA0, (short)0xA0BF,
           (short)0xBFA5, (short)0xA3B3);
    EXPECT(vec_int4, spu_shuffle((vec_int4)a, (vec_int4)b, pattern), 0x00FF8000,
           (int)0xFF80BFB0, (int)0xAFA0A0BF, (int)0xBFA5A3B3);
    EXPECT(vec_ullong2, spu_shuffle((vec_ullong2)a, (vec_ullong2)b, pattern),
           0x00FF8000FF80BFB0ull, 0xAFA0A0BFBFA5A3B3ull);
    EXPECT(vec_llong2, spu_shuffle((vec_llong2)a, (vec_llong2)b, pattern),
           0x00FF8000FF80BFB0ll, (long long)0xAFA0A0BFBFA5A3B3ull);
    EXPECT(vec_uint4, (vec_uint4)spu_shuffle((vec_float4)a, (vec_float4)b, pattern), 0x00FF8000,
           0xFF80BFB0, 0xAFA0A0BF, 0xBFA5A3B3);
    EXPECT(vec_uint4, (vec_uint4)spu_shuffle((vec_double2)a, (vec_double2)b, pattern),
           0x00FF8000, 0xFF80BFB0, 0xAFA0A0BF, 0xBFA5A3B3);
}

/* Four RGBA pixels: each channel's bytes go to the low byte of a word (0x80 pattern bytes
 * give the zero high bytes), so the words read as the channel's values, then as floats. */
static void grayscale_channels(void)
{
    vec_uchar16 pixels = {10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255, 100, 110, 120, 255};
    vec_uchar16 red = {0x80, 0x80, 0x80, 0, 0x80, 0x80, 0x80, 4,
                       0x80, 0x80, 0x80, 8, 0x80, 0x80, 0x80, 12};
    vec_uchar16 green = (vec_uchar16)spu_add((vec_uint4)red, 1u);
    vec_uint4 r = (vec_uint4)spu_shuffle(pixels, pixels, red);
    vec_uint4 g = (vec_uint4)spu_shuffle(pixels, pixels, green);
    EXPECT(vec_uint4, r, 10, 40, 70, 100);
    EXPECT(vec_uint4, g, 20, 50, 80, 110);
    EXPECT(vec_float4, spu_convtf(r, 0), 10, 40, 70, 100);
}

static void masks(void)
{
    EXPECT(vec_uchar16, spu_maskb(0x8001), 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF);
    EXPECT(vec_uchar16, spu_maskb(0x12345), 0, 0, 0xFF, 0, 0, 0, 0xFF, 0xFF, 0, 0xFF, 0, 0, 0,
           0xFF, 0, 0xFF);
    EXPECT(vec_uchar16, spu_maskb((short)-1), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
    EXPECT(vec_ushort8, spu_maskh(0x1A5), 0xFFFF, 0, 0xFFFF, 0, 0, 0xFFFF, 0, 0xFFFF);
    EXPECT(vec_ushort8, spu_maskh((unsigned char)0x80), 0xFFFF, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_uint4, spu_maskw(0x1C), 0xFFFFFFFF, 0xFFFFFFFF, 0, 0);
    EXPECT(vec_uint4, spu_maskw(1), 0, 0, 0, 0xFFFFFFFF);
}

static void gather(void)
{
    EXPECT(vec_uint4, spu_gather(((vec_uint4){1, 2, 3, 0xFFFFFFFF})), 11, 0, 0, 0);
    EXPECT(vec_uint4, spu_gather(((vec_int4){-1, 0, 0, 0})), 8, 0, 0, 0);
    EXPECT(vec_uint4, spu_gather(((vec_ushort8){1, 0, 1, 0, 0, 0, 0, 0xFFFF})), 0xA1, 0, 0, 0);
    EXPECT(vec_uint4, spu_gather(((vec_short8){0, 0, 0, 0, 0, 0, 0, -1})), 1, 0, 0, 0);
    EXPECT(vec_uint4, spu_gather(((vec_uchar16){1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3})),
           0x8001, 0, 0, 0);
    EXPECT(vec_uint4, spu_gather(((vec_char16){-1, -1})), 0xC000, 0, 0, 0);
    EXPECT(vec_uint4, spu_gather(((vec_float4)(vec_uint4){0x3F800000, 1, 1, 0})), 6, 0, 0, 0);
}

int main(void)
{
    patterns();
    grayscale_channels();
    masks();
    gather();
    return check_done();
}
