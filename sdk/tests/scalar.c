/* Scalars in and out: spu_splats of every scalar type (plain char as the SPU's unsigned char,
 * long as int), spu_promote and spu_insert to an element index the SPU masks to the element
 * count, spu_extract from one. */
#include <spu_intrinsics.h>

#include "check.h"

int main(void)
{
    EXPECT(vec_uchar16, spu_splats((unsigned char)200), 200, 200, 200, 200, 200, 200, 200, 200,
           200, 200, 200, 200, 200, 200, 200, 200);
    EXPECT(vec_uchar16, spu_splats((char)7), 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7);
    EXPECT(vec_char16, spu_splats((signed char)-3), -3, -3, -3, -3, -3, -3, -3, -3, -3, -3, -3,
           -3, -3, -3, -3, -3);
    EXPECT(vec_ushort8, spu_splats((unsigned short)0xBEEF), 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF,
           0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF);
    EXPECT(vec_short8, spu_splats((short)-2), -2, -2, -2, -2, -2, -2, -2, -2);
    EXPECT(vec_uint4, spu_splats(5u), 5, 5, 5, 5);
    EXPECT(vec_int4, spu_splats(-5), -5, -5, -5, -5);
    EXPECT(vec_int4, spu_splats(6L), 6, 6, 6, 6);
    EXPECT(vec_uint4, spu_splats(6UL), 6, 6, 6, 6);
    EXPECT(vec_ullong2, spu_splats(0x0123456789ull), 0x0123456789ull, 0x0123456789ull);
    EXPECT(vec_llong2, spu_splats(-9ll), -9, -9);
    EXPECT(vec_float4, spu_splats(0.5f), 0.5f, 0.5f, 0.5f, 0.5f);
    EXPECT(vec_double2, spu_splats(0.25), 0.25, 0.25);

    EXPECT(vec_int4, spu_promote(7, 5), 0, 7, 0, 0);
    EXPECT(vec_uchar16, spu_promote((unsigned char)9, 19), 0, 0, 0, 9);
    EXPECT(vec_char16, spu_promote((signed char)-9, 0), -9);
    EXPECT(vec_ushort8, spu_promote((unsigned short)9, 9), 0, 9);
    EXPECT(vec_short8, spu_promote((short)-9, -1), 0, 0, 0, 0, 0, 0, 0, -9);
    EXPECT(vec_uint4, spu_promote(9u, 3), 0, 0, 0, 9);
    EXPECT(vec_ullong2, spu_promote(9ull, 3), 0, 9);
    EXPECT(vec_llong2, spu_promote(-9ll, 0), -9, 0);
    EXPECT(vec_float4, spu_promote(1.5f, 6), 0, 0, 1.5f, 0);
    EXPECT(vec_double2, spu_promote(2.5, 3), 0, 2.5);

    EXPECT_SCALAR(int, spu_extract(((vec_int4){1, 2, 3, 4}), 5), 2);
    EXPECT_SCALAR(unsigned int, spu_extract(((vec_uint4){1, 2, 3, 4}), 0), 1);
    EXPECT_SCALAR(unsigned short, spu_extract(((vec_ushort8){1, 2, 3, 4, 5, 6, 7, 8}), -1), 8);
    EXPECT_SCALAR(short, spu_extract(((vec_short8){-1, -2}), 9), -2);
    EXPECT_SCALAR(unsigned char, spu_extract(((vec_uchar16){1, 2, 3, 4}), 18), 3);
    EXPECT_SCALAR(signed char, spu_extract(((vec_char16){-1, -2, -3, -4}), 3), -4);
    EXPECT_SCALAR(unsigned long long, spu_extract(((vec_ullong2){1, 2}), 3), 2);
    EXPECT_SCALAR(long long, spu_extract(((vec_llong2){-1, -2}), 2), -1);
    EXPECT_SCALAR(float, spu_extract(((vec_float4){0.5f, 1, 2, 3}), 7), 3.0f);
    EXPECT_SCALAR(double, spu_extract(((vec_double2){1.5, 2.5}), 2), 1.5);

    EXPECT(vec_int4, spu_insert(9, ((vec_int4){1, 2, 3, 4}), 6), 1, 2, 9, 4);
    EXPECT(vec_uint4, spu_insert(9u, ((vec_uint4){1, 2, 3, 4}), 0), 9, 2, 3, 4);
    EXPECT(vec_ushort8, spu_insert((unsigned short)9, ((vec_ushort8){1, 2}), 15), 1, 2, 0, 0, 0,
           0, 0, 9);
    EXPECT(vec_short8, spu_insert((short)-9, ((vec_short8){1, 2}), 8), -9, 2);
    EXPECT(vec_uchar16, spu_insert((unsigned char)9, ((vec_uchar16){1, 2}), 17), 1, 9);
    EXPECT(vec_char16, spu_insert((signed char)-9, ((vec_char16){1, 2}), 15), 1, 2, 0, 0, 0, 0,
           0, 0, 0, 0, 0, 0, 0, 0, 0, -9);
    EXPECT(vec_ullong2, spu_insert(9ull, ((vec_ullong2){1, 2}), -1), 1, 9);
    EXPECT(vec_llong2, spu_insert(-9ll, ((vec_llong2){1, 2}), 0), -9, 2);
    EXPECT(vec_float4, spu_insert(0.5f, ((vec_float4){1, 2, 3, 4}), 4), 0.5f, 2, 3, 4);
    EXPECT(vec_double2, spu_insert(0.5, ((vec_double2){1, 2}), 1), 1, 0.5);
    return check_done();
}
