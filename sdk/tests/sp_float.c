/* The SPU's single precision at its edges, where the host's IEEE arithmetic differs: denormal
 * operands read as zero, results below 2^-126 flushed to zero, overflow saturated to the
 * largest magnitude, and exponent 255 (an IEEE infinity or NaN) an ordinary binade reaching
 * (2 - 2^-23) * 2^128. */
#include <spu_intrinsics.h>

#include "check.h"

int main(void)
{
    /* 2^-127 (a denormal) * 2^100 is 2^-27 in IEEE, zero on the SPU; the smallest denormal
     * plus zero is zero; 2^-100 * 2^-30 underflows to zero (IEEE: a denormal) */
    EXPECT(vec_uint4, BITS(spu_mul(F4(0x00400000, 0x0D800000, 0x3F800000, 0x3F800000),
                                   F4(0x71800000, 0x30800000, 0x00000001, 0x3F800000))),
           0, 0, 0, 0x3F800000);
    EXPECT(vec_uint4, BITS(spu_add(F4(0x00000001, 0x00800000, 0x00800000, 0),
                                   F4(0x00000000, 0x80000001, 0x80400000, 0))),
           0, 0x00800000, 0x00800000, 0);
    /* 2^100 * 2^100 saturates, with its sign; so does 2^128 + 2^128 */
    EXPECT(vec_uint4, BITS(spu_mul(F4(0x71800000, 0xF1800000, 0x7F000000, 0x7FFFFFFF),
                                   F4(0x71800000, 0x71800000, 0x40000000, 0x3F000000))),
           0x7FFFFFFF, 0xFFFFFFFF, 0x7F800000, 0x7F7FFFFF);
    /* 2^128 (bits of IEEE infinity) is a number: doubled it saturates, less 2^127 it is 2^127,
     * and it compares above FLT_MAX */
    EXPECT(vec_uint4, BITS(spu_add(F4(0x7F800000, 0x7F800000, 0x7FFFFFFF, 0xFF800000),
                                   F4(0x7F800000, 0xFF000000, 0xFFFFFFFF, 0x7F000000))),
           0x7FFFFFFF, 0x7F000000, 0, 0xFF000000);
    EXPECT(vec_uint4, spu_cmpgt(F4(0x7F800000, 0x7FFFFFFF, 0, 0), F4(0x7F7FFFFF, 0x7F800000, 0,
                                                                       0)),
           0xFFFFFFFF, 0xFFFFFFFF, 0, 0);
    /* a multiply-add whose exact result is below 2^-126 flushes; one whose product overflows
     * the extended range but whose sum does not is exact */
    EXPECT(vec_uint4, BITS(spu_madd(F4(0x00800000, 0x7F800000, 0, 0), F4(0x3F000000, 0x40000000,
                                                                          0, 0),
                                    F4(0, 0xFF800000, 0, 0))),
           0, 0x7F800000, 0, 0);
    return check_done();
}
