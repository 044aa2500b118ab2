/* Bitwise intrinsics on every vector type (the bits, whatever the elements: a float's sign bit
 * cleared by spu_and), the scalar forms, which spread the scalar to every element of its width,
 * and spu_orx. */
#include <spu_intrinsics.h>

#include "check.h"

int main(void)
{
    vec_uint4 a = {0xFF00FF00, 0x12345678, 0, 0xFFFFFFFF};
    vec_uint4 b = {0x0F0F0F0F, 0xFFFF0000, 0, 0x00000001};

    EXPECT(vec_uint4, spu_and(a, b), 0x0F000F00, 0x12340000, 0, 1);
    EXPECT(vec_uint4, spu_andc(a, b), 0xF000F000, 0x00005678, 0, 0xFFFFFFFE);
    EXPECT(vec_uint4, spu_or(a, b), 0xFF0FFF0F, 0xFFFF5678, 0, 0xFFFFFFFF);
    EXPECT(vec_uint4, spu_orc(a, b), 0xFFF0FFF0, 0x1234FFFF, 0xFFFFFFFF, 0xFFFFFFFF);
    EXPECT(vec_uint4, spu_xor(a, b), 0xF00FF00F, 0xEDCB5678, 0, 0xFFFFFFFE);
    EXPECT(vec_uint4, spu_nand(a, b), 0xF0FFF0FF, 0xEDCBFFFF, 0xFFFFFFFF, 0xFFFFFFFE);
    EXPECT(vec_uint4, spu_nor(a, b), 0x00F000F0, 0x0000A987, 0xFFFFFFFF, 0);
    EXPECT(vec_uint4, spu_eqv(a, b), 0x0FF00FF0, 0x1234A987, 0xFFFFFFFF, 1);

    /* every other type is the same bits */
    EXPECT(vec_int4, spu_and((vec_int4)a, (vec_int4)b), 0x0F000F00, 0x12340000, 0, 1);
    EXPECT(vec_ushort8, spu_xor((vec_ushort8)a, (vec_ushort8)b), 0xF00F, 0xF00F, 0xEDCB, 0x5678,
           0, 0, 0xFFFF, 0xFFFE);
    EXPECT(vec_short8, spu_or((vec_short8)a, (vec_short8)b), (short)0xFF0F, (short)0xFF0F, -1,
           0x5678, 0, 0, -1, -1);
    EXPECT(vec_uchar16, spu_nor((vec_uchar16)a, (vec_uchar16)b), 0x00, 0xF0, 0x00, 0xF0, 0x00,
           0x00, 0xA9, 0x87, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0);
    EXPECT(vec_char16, spu_andc((vec_char16)a, (vec_char16)b), (signed char)0xF0, 0,
           (signed char)0xF0, 0, 0, 0, 0x56, 0x78, 0, 0, 0, 0, -1, -1, -1, -2);
    EXPECT(vec_ullong2, spu_eqv((vec_ullong2)a, (vec_ullong2)b), 0x0FF00FF01234A987ull,
           0xFFFFFFFF00000001ull);
    EXPECT(vec_llong2, spu_orc((vec_llong2)a, (vec_llong2)b), (long long)0xFFF0FFF01234FFFFull,
           -1);
    EXPECT(vec_ullong2, (vec_ullong2)spu_nand((vec_double2)a, (vec_double2)b),
           0xF0FFF0FFEDCBFFFFull, 0xFFFFFFFFFFFFFFFEull);
    /* clearing a float's sign bit: |x| */
    EXPECT(vec_float4, spu_and(((vec_float4){-1.5f, 2, -0.0f, -3}), (vec_float4)spu_splats(
                                                                        0x7FFFFFFFu)),
           1.5f, 2, 0, 3);

    /* scalar operands spread to every element of the vector's width */
    EXPECT(vec_uchar16, spu_and((vec_uchar16)a, (unsigned char)0x0F), 0x0F, 0, 0x0F, 0, 0x02,
           0x04, 0x06, 0x08, 0, 0, 0, 0, 0x0F, 0x0F, 0x0F, 0x0F);
    EXPECT(vec_char16, spu_or(((vec_char16){0, 1}), (signed char)-128), -128, -127, -128, -128,
           -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128);
    EXPECT(vec_ushort8, spu_xor(((vec_ushort8){0, 0xFFFF}), (unsigned short)0x00FF), 0x00FF,
           0xFF00, 0x00FF, 0x00FF, 0x00FF, 0x00FF, 0x00FF, 0x00FF);
    EXPECT(vec_short8, spu_and(((vec_short8){-1, 0x1234}), (short)0x0FF0), 0x0FF0, 0x0230);
    EXPECT(vec_uint4, spu_or(b, 0x80000000u), 0x8F0F0F0F, 0xFFFF0000, 0x80000000, 0x80000001);
    EXPECT(vec_int4, spu_xor((vec_int4)b, -1), (int)0xF0F0F0F0, 0x0000FFFF, -1, -2);

    EXPECT(vec_uint4, spu_orx(((vec_uint4){1, 2, 4, 0x80000000})), 0x80000007, 0, 0, 0);
    EXPECT(vec_int4, spu_orx(((vec_int4){-2, 1, 0, 0})), -1, 0, 0, 0);
    return check_done();
}
