/* Bit counts: ones in each byte, leading zeros of each word (32 for zero, a float's bits). */
#include <spu_intrinsics.h>

#include "check.h"

int main(void)
{
    EXPECT(vec_uchar16, spu_cntb(((vec_uchar16){0xFF, 0x01, 0x80, 0, 0x55})), 8, 1, 1, 0, 4);
    EXPECT(vec_uchar16, spu_cntb(((vec_char16){-1, 0x7F, -128})), 8, 7, 1);
    EXPECT(vec_uint4, spu_cntlz(((vec_uint4){0, 1, 0x80000000, 0x0000FFFF})), 32, 31, 0, 16);
    EXPECT(vec_uint4, spu_cntlz(((vec_int4){-1, 0x40000000, 0, 7})), 0, 1, 32, 29);
    EXPECT(vec_uint4, spu_cntlz(((vec_float4){1.0f, -1.0f, 0.0f, 2.0f})), 2, 0, 32, 1);
    return check_done();
}
