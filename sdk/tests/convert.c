/* Conversions: integer to float truncated (where IEEE would round), with scale; float to
 * integer truncated and saturated, negative to 0 unsigned, an exponent-255 value as the large
 * number it is on the SPU; sign extension of the odd elements; float to double and back. */
#include <spu_intrinsics.h>

#include "check.h"

int main(void)
{
    /* 0xFFFFFFFF truncates to 0xFFFFFF00 (IEEE would give 2^32) */
    EXPECT(vec_uint4, BITS(spu_convtf(((vec_uint4){1, 3, 0xFFFFFFFF, 0x80000001}), 0)),
           0x3F800000, 0x40400000, 0x4F7FFFFF, 0x4F000000);
    EXPECT(vec_uint4, BITS(spu_convtf(((vec_uint4){1, 3, 0, 0}), 1)), 0x3F000000, 0x3FC00000, 0,
           0);
    EXPECT(vec_uint4,
           BITS(spu_convtf(((vec_int4){-1, -3, 0x7FFFFFFF, (int)0x80000000}), 0)), 0xBF800000,
           0xC0400000, 0x4EFFFFFF, 0xCF000000);
    EXPECT(vec_uint4, BITS(spu_convtf(((vec_int4){-1, 0, 0, 0}), 2)), 0xBE800000, 0, 0, 0);

    EXPECT(vec_int4, spu_convts(((vec_float4){1.5f, -1.5f, 3e9f, -3e9f}), 0), 1, -1, 0x7FFFFFFF,
           (int)0x80000000);
    EXPECT(vec_int4, spu_convts(((vec_float4){1.5f, -1.5f, 0.25f, -0.75f}), 1), 3, -3, 0, -1);
    EXPECT(vec_int4, spu_convts(F4(0x7FFFFFFF, 0xFF800000, 0x00000001, 0), 0), 0x7FFFFFFF,
           (int)0x80000000, 0, 0);
    EXPECT(vec_uint4, spu_convtu(((vec_float4){1.5f, -1.5f, 5e9f, 4294967040.0f}), 0), 1, 0,
           0xFFFFFFFF, 0xFFFFFF00);
    EXPECT(vec_uint4, spu_convtu(((vec_float4){0.0625f, 0.03125f, 1, 0}), 4), 1, 0, 16, 0);

    EXPECT(vec_short8, spu_extend(((vec_char16){1, -128, 2, 127, -86, -1})), -128, 127, -1, 0, 0,
           0, 0, 0);
    EXPECT(vec_int4, spu_extend(((vec_short8){0, -2, 0, 5, 7, 32767, 0, -32768})), -2, 5, 32767,
           -32768);
    EXPECT(vec_llong2, spu_extend(((vec_int4){0, -1, 5, 7})), -1, 7);
    EXPECT(vec_double2, spu_extend(((vec_float4){1.5f, 9, -2.25f, 9})), 1.5, -2.25);
    /* the double unit rounds to nearest (1/3 to ...AB) and overflows to infinity (IEEE) */
    EXPECT(vec_uint4, BITS(spu_roundtf(((vec_double2){1.0 / 3.0, 1e300}))), 0x3EAAAAAB, 0,
           0x7F800000, 0);
    return check_done();
}
