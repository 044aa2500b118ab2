/* Arithmetic intrinsics against answers worked by hand from the SPU's definitions: wrapping
 * integer sums, carries and borrows, halfword products, the SPU's truncating single precision
 * (where IEEE's round-to-nearest would differ by an ulp), fused multiply-adds, and the byte
 * operations. Floats are written as their bits so an ulp shows. */
#include <spu_intrinsics.h>

#include "check.h"

static void sums(void)
{
    vec_ushort8 us = {0xFFFF, 1, 2, 3, 4, 5, 6, 0x8000};
    vec_short8 ss = {32767, -1, 0, 0, 0, 0, 0, -32768};
    vec_uint4 ui = {0xFFFFFFFF, 5, 0, 0};
    vec_int4 si = {0x7FFFFFFF, -5, 0, (int)0x80000000};

    EXPECT(vec_ushort8, spu_add(us, ((vec_ushort8){1, 1, 1, 1, 1, 1, 1, 0x8000})), 0, 2, 3, 4,
           5, 6, 7, 0);
    EXPECT(vec_short8, spu_add(ss, ((vec_short8){1, 1})), -32768, 0, 0, 0, 0, 0, 0, -32768);
    EXPECT(vec_uint4, spu_add(ui, ((vec_uint4){2, 6})), 1, 11, 0, 0);
    EXPECT(vec_int4, spu_add(si, ((vec_int4){1, 2})), (int)0x80000000, -3, 0, (int)0x80000000);
    EXPECT(vec_ushort8, spu_add(us, (unsigned short)1), 0, 2, 3, 4, 5, 6, 7, 0x8001);
    EXPECT(vec_short8, spu_add(ss, (short)-1), 32766, -2, -1, -1, -1, -1, -1, 32767);
    EXPECT(vec_uint4, spu_add(ui, 1u), 0, 6, 1, 1);
    EXPECT(vec_int4, spu_add(si, 10), (int)0x80000009, 5, 10, (int)0x8000000A);

    EXPECT(vec_ushort8, spu_sub(us, ((vec_ushort8){0xFFFF, 2})), 0, 0xFFFF, 2, 3, 4, 5, 6,
           0x8000);
    EXPECT(vec_short8, spu_sub(ss, ((vec_short8){-1})), -32768, -1, 0, 0, 0, 0, 0, -32768);
    EXPECT(vec_uint4, spu_sub(ui, ((vec_uint4){0, 6})), 0xFFFFFFFF, 0xFFFFFFFF, 0, 0);
    EXPECT(vec_int4, spu_sub(si, ((vec_int4){-1})), (int)0x80000000, -5, 0, (int)0x80000000);
    /* the scalar comes first: subtracted from */
    EXPECT(vec_ushort8, spu_sub((unsigned short)10, us), 11, 9, 8, 7, 6, 5, 4, 0x800A);
    EXPECT(vec_short8, spu_sub((short)0, ss), -32767, 1, 0, 0, 0, 0, 0, -32768);
    EXPECT(vec_uint4, spu_sub(1u, ui), 2, 0xFFFFFFFC, 1, 1);
    EXPECT(vec_int4, spu_sub(0, si), -0x7FFFFFFF, 5, 0, (int)0x80000000);

    EXPECT(vec_double2, spu_add(((vec_double2){1.5, -1}), ((vec_double2){2.25, 1})), 3.75, 0);
    EXPECT(vec_double2, spu_sub(((vec_double2){1.5, -1}), ((vec_double2){2.25, 1})), -0.75,
           -2);
    EXPECT(vec_double2, spu_mul(((vec_double2){1.5, -1}), ((vec_double2){2.25, 1})), 3.375,
           -1);
}

static void carries(void)
{
    vec_uint4 a = {0xFFFFFFFF, 1, 2, 3}, b = {0, 1, 2, 3}, c = {1, 0, 3, 2};
    EXPECT(vec_uint4, spu_addx(a, b, c), 0, 2, 5, 6);
    EXPECT(vec_int4, spu_addx((vec_int4)a, (vec_int4)b, (vec_int4)c), 0, 2, 5, 6);
    EXPECT(vec_uint4, spu_genc(((vec_uint4){0xFFFFFFFF, 1, 0x80000000, 0}),
                               ((vec_uint4){1, 1, 0x80000000, 0})),
           1, 0, 1, 0);
    EXPECT(vec_int4, spu_genc(((vec_int4){-1, 1}), ((vec_int4){1, 1})), 1, 0, 0, 0);
    EXPECT(vec_uint4, spu_gencx(((vec_uint4){0xFFFFFFFF, 0xFFFFFFFF, 1, 0}),
                                ((vec_uint4){0, 0, 1, 0}), ((vec_uint4){1, 0, 1, 0xFFFFFFFF})),
           1, 0, 0, 0);
    /* a - b, with c's low bit 1 meaning no borrow in */
    EXPECT(vec_uint4, spu_subx(((vec_uint4){5, 5, 0, 0}), ((vec_uint4){3, 3, 1, 0}),
                               ((vec_uint4){1, 0, 1, 0})),
           2, 1, 0xFFFFFFFF, 0xFFFFFFFF);
    EXPECT(vec_int4, spu_subx(((vec_int4){5}), ((vec_int4){3}), ((vec_int4){1})), 2, -1, -1, -1);
    /* 1 where a - b needs no borrow */
    EXPECT(vec_uint4, spu_genb(((vec_uint4){5, 3, 0, 0xFFFFFFFF}), ((vec_uint4){3, 5, 0, 1})), 1,
           0, 1, 1);
    EXPECT(vec_int4, spu_genb(((vec_int4){-1, 1}), ((vec_int4){1, -1})), 1, 0, 1, 1);
    EXPECT(vec_uint4, spu_genbx(((vec_uint4){5, 3, 3, 0}), ((vec_uint4){3, 5, 3, 0}),
                                ((vec_uint4){0, 1, 0, 1})),
           1, 0, 0, 1);
    EXPECT(vec_int4, spu_genbx(((vec_int4){3, 3}), ((vec_int4){3, 3}), ((vec_int4){1, 0})), 1, 0,
           0, 0);
}

static void products(void)
{
    vec_ushort8 ua = {0xFFFF, 2, 3, 4, 5, 6, 7, 8}, ub = {0xFFFF, 1, 2, 3, 4, 5, 6, 7};
    vec_short8 sa = {-2, 3, -32768, -32768}, sb = {4, -5, -32768, -32768};

    EXPECT(vec_uint4, spu_mule(ua, ub), 0xFFFE0001, 6, 20, 42);
    EXPECT(vec_uint4, spu_mulo(ua, ub), 2, 12, 30, 56);
    EXPECT(vec_uint4, spu_mulo(ua, (unsigned short)3), 6, 12, 18, 24);
    EXPECT(vec_int4, spu_mule(sa, sb), -8, 0x40000000, 0, 0);
    EXPECT(vec_int4, spu_mulo(sa, sb), -15, 0x40000000, 0, 0);
    EXPECT(vec_int4, spu_mulo(sa, (short)-1), -3, 32768, 0, 0);
    EXPECT(vec_uint4, spu_mhhadd(ua, ub, ((vec_uint4){0xFFFF, 1, 1, 1})), 0xFFFF0000, 7, 21, 43);
    EXPECT(vec_int4, spu_mhhadd(sa, sb, ((vec_int4){8, 1})), 0, 0x40000001, 0, 0);
    EXPECT(vec_int4, spu_madd(sa, sb, ((vec_int4){15, 1, 2, 3})), 0, 0x40000001, 2, 3);
    EXPECT(vec_int4, spu_mulh(((vec_short8){3, 0, -1, 0, 0x7FFF}), ((vec_short8){0, 5, 0, 2, 0,
                                                                                0x7FFF})),
           0x000F0000, (int)0xFFFE0000, 0x00010000, 0);
    EXPECT(vec_int4, spu_mulsr(((vec_short8){0, 0x4000, 0, -0x4000, 0, 3, 0, 0x7FFF}),
                               ((vec_short8){0, 0x4000, 0, 0x4000, 0, 5, 0, 0x7FFF})),
           0x1000, -0x1000, 0, 0x3FFF);
}

static void single_precision(void)
{
    /* 1 + 0.75 ulp: IEEE rounds up to 0x3F800001, the SPU truncates to 1 */
    EXPECT(vec_uint4, BITS(spu_add(F4(0x3F800000, 0xBF800000, 0x3F800000, 0x40400000),
                                   F4(0x33C00000, 0xB3C00000, 0x40000000, 0xC0400000))),
           0x3F800000, 0xBF800000, 0x40400000, 0);
    /* 1 - 2^-60: the double sum rounds to 1, the exact value truncates to the float below 1 */
    EXPECT(vec_uint4, BITS(spu_sub(F4(0x3F800000, 0x3F800000, 0x40A00000, 0),
                                   F4(0x21800000, 0x30800000, 0x40000000, 0))),
           0x3F7FFFFF, 0x3F7FFFFF, 0x40400000, 0);
    /* (1 + 2^-23) * 1.5 = 1.5 + 1.5 ulp: IEEE ties to even 0x3FC00002, the SPU 0x3FC00001 */
    EXPECT(vec_uint4, BITS(spu_mul(F4(0x3F800001, 0x40400000, 0xC0000000, 0x3F800000),
                                   F4(0x3FC00000, 0x3F000000, 0x40400000, 0x80000000))),
           0x3FC00001, 0x3FC00000, 0xC0C00000, 0x80000000);
    /* fused: (1 + 2^-23) * 1.5 - 1.5 = 1.5 * 2^-23 exactly (unfused it would be 2^-23) */
    EXPECT(vec_uint4, BITS(spu_madd(F4(0x3F800001, 0x40000000, 0, 0), F4(0x3FC00000, 0x40400000,
                                                                          0, 0),
                                    F4(0xBFC00000, 0x3F800000, 0, 0))),
           0x34400000, 0x40E00000, 0, 0);
    EXPECT(vec_uint4, BITS(spu_msub(F4(0x40000000, 0, 0, 0), F4(0x40400000, 0, 0, 0),
                                    F4(0x3F800000, 0, 0, 0))),
           0x40A00000, 0, 0, 0);
    EXPECT(vec_uint4, BITS(spu_nmsub(F4(0x40000000, 0, 0, 0), F4(0x40400000, 0, 0, 0),
                                     F4(0x3F800000, 0, 0, 0))),
           0xC0A00000, 0, 0, 0);
    /* 1/3 truncates to 0x3EAAAAAA (nearest is ...AB); 1/0 saturates */
    EXPECT(vec_uint4, BITS(spu_re(F4(0x40000000, 0x40400000, 0, 0xC0800000))), 0x3F000000,
           0x3EAAAAAA, 0x7FFFFFFF, 0xBE800000);
    /* the magnitude's root: 1/sqrt(16) for -16; 1/sqrt(2) = 0.70710678.. truncates to 3F3504F3 */
    EXPECT(vec_uint4, BITS(spu_rsqrte(F4(0x40800000, 0xC1800000, 0, 0x40000000))), 0x3F000000,
           0x3E800000, 0x7FFFFFFF, 0x3F3504F3);
}

static void double_precision(void)
{
    vec_double2 a = {2, 0.1}, b = {3, 10}, c = {1, -1};
    EXPECT(vec_double2, spu_madd(a, b, c), 7, 0.1 * 10 - 1 == 0 ? __builtin_fma(0.1, 10, -1) : 0);
    EXPECT(vec_double2, spu_msub(a, b, c), 5, __builtin_fma(0.1, 10, 1));
    EXPECT(vec_double2, spu_nmsub(a, b, c), -5, -__builtin_fma(0.1, 10, 1));
    EXPECT(vec_double2, spu_nmadd(a, b, c), -7, -__builtin_fma(0.1, 10, -1));
    /* fused: 0.1 * 10 - 1 is 2^-54 exactly, where rounding the product first gives 0 */
    EXPECT(vec_double2, spu_madd(((vec_double2){0.1}), ((vec_double2){10}), ((vec_double2){-1})),
           0x1p-54, 0);
}

static void bytes(void)
{
    vec_uchar16 a = {1, 2, 3, 4, 255, 255, 255, 255, 1, 200, 5}, b = {10, 20, 30, 40, 0, 0, 0, 0,
                                                                      3, 100, 5, 255};
    EXPECT(vec_uchar16, spu_absd(a, b), 9, 18, 27, 36, 255, 255, 255, 255, 2, 100, 0, 255);
    EXPECT(vec_uchar16, spu_avg(a, b), 6, 11, 17, 22, 128, 128, 128, 128, 2, 150, 5, 128);
    EXPECT(vec_ushort8, spu_sumb(a, b), 100, 10, 0, 1020, 363, 206, 0, 0);
}

int main(void)
{
    sums();
    carries();
    products();
    single_precision();
    double_precision();
    bytes();
    return check_done();
}
