/* The specific intrinsics: scalars in and out of the SPU's preferred slots (byte 3 for a char,
 * bytes 2-3 for a short, word 0, doubleword 0), immediates as their ten-bit fields read them,
 * the "subtract from" order, the insertion patterns with the store-a-scalar idiom built on
 * them, quadword counts from the preferred slot, and the float and double forms. */
#include <spu_intrinsics.h>

#include "check.h"

static void slots(void)
{
    static int target;
    EXPECT(vec_char16, si_from_char(-5), 0, 0, 0, -5);
    EXPECT(vec_char16, si_from_ushort(0x1234), 0, 0, 0x12, 0x34);
    EXPECT(vec_uint4, (vec_uint4)si_from_int(-2), 0xFFFFFFFE, 0, 0, 0);
    EXPECT(vec_ullong2, (vec_ullong2)si_from_ulong(0x0102030405060708ull), 0x0102030405060708ull,
           0);
    EXPECT_SCALAR(signed char, si_to_char(si_from_char(-5)), -5);
    EXPECT_SCALAR(unsigned char, si_to_uchar(((qword){1, 2, 3, 4})), 4);
    EXPECT_SCALAR(unsigned short, si_to_ushort(((qword){1, 2, 0x12, 0x34})), 0x1234);
    EXPECT_SCALAR(short, si_to_short(si_from_short(-300)), -300);
    EXPECT_SCALAR(unsigned int, si_to_uint(((qword){1, 2, 3, 4, 5})), 0x01020304);
    EXPECT_SCALAR(long long, si_to_long(si_from_long(-7)), -7);
    EXPECT_SCALAR(unsigned long long, si_to_ullong(si_from_ullong(7)), 7);
    EXPECT_SCALAR(float, si_to_float(si_from_float(1.5f)), 1.5f);
    EXPECT_SCALAR(double, si_to_double(si_from_double(-2.25)), -2.25);
    EXPECT_SCALAR(int, si_to_ptr(si_from_ptr(&target)) == &target, 1);
}

static void immediates_and_integers(void)
{
    EXPECT(vec_int4, (vec_int4)si_il(-7), -7, -7, -7, -7);
    EXPECT(vec_int4, (vec_int4)si_il(0x8000), -32768, -32768, -32768, -32768);
    EXPECT(vec_uint4, (vec_uint4)si_ila(0x7FFFF), 0x3FFFF, 0x3FFFF, 0x3FFFF, 0x3FFFF);
    EXPECT(vec_ushort8, (vec_ushort8)si_ilh(0xBEEF), 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF,
           0xBEEF, 0xBEEF, 0xBEEF);
    EXPECT(vec_uint4, (vec_uint4)si_iohl(si_ilhu(0x1234), 0x5678), 0x12345678, 0x12345678,
           0x12345678, 0x12345678);
    EXPECT(vec_uchar16, (vec_uchar16)si_fsmbi(0xF00F), 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0,
           0, 0, 0xFF, 0xFF, 0xFF, 0xFF);
    EXPECT(vec_int4, (vec_int4)si_a(si_il(5), si_il(-7)), -2, -2, -2, -2);
    /* 0x3FF in a ten-bit field is -1 */
    EXPECT(vec_int4, (vec_int4)si_ai(si_il(1), 0x3FF), 0, 0, 0, 0);
    EXPECT(vec_short8, (vec_short8)si_ahi(si_ilh(1), 2), 3, 3, 3, 3, 3, 3, 3, 3);
    /* subtract from: b - a */
    EXPECT(vec_int4, (vec_int4)si_sf(si_il(3), si_il(10)), 7, 7, 7, 7);
    EXPECT(vec_int4, (vec_int4)si_sfi(si_il(3), 10), 7, 7, 7, 7);
    EXPECT(vec_short8, (vec_short8)si_sfh(si_ilh(3), si_ilh(1)), -2, -2, -2, -2, -2, -2, -2, -2);
    EXPECT(vec_int4, (vec_int4)si_sfx(si_il(3), si_il(10), ((qword)(vec_int4){1, 0, 1, 0})), 7,
           6, 7, 6);
    EXPECT(vec_int4, (vec_int4)si_bg(si_il(3), si_il(5)), 1, 1, 1, 1);
    EXPECT(vec_int4, (vec_int4)si_cg(si_il(-1), si_il(1)), 1, 1, 1, 1);
    EXPECT(vec_int4, (vec_int4)si_mpy(si_il(-3), si_il(7)), -21, -21, -21, -21);
    EXPECT(vec_uint4, (vec_uint4)si_mpyu(si_il(-3), si_il(7)), 0x6FFEB, 0x6FFEB, 0x6FFEB,
           0x6FFEB);
    EXPECT(vec_int4, (vec_int4)si_mpyi(si_il(6), -2), -12, -12, -12, -12);
    EXPECT(vec_uint4, (vec_uint4)si_clgti(si_il(-1), 5), 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
           0xFFFFFFFF);
    EXPECT(vec_uint4, (vec_uint4)si_cgti(si_il(-1), 5), 0, 0, 0, 0);
    EXPECT(vec_uint4, (vec_uint4)si_ceqi(si_il(-1), 0x3FF), 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
           0xFFFFFFFF);
    EXPECT(vec_uint4, (vec_uint4)si_andbi(si_il(0x1234), 0x0F), 0x0204, 0x0204, 0x0204, 0x0204);
    EXPECT(vec_uint4, (vec_uint4)si_xori(si_il(0x1234), -1), 0xFFFFEDCB, 0xFFFFEDCB, 0xFFFFEDCB,
           0xFFFFEDCB);
    EXPECT(vec_uint4, (vec_uint4)si_clz(si_il(1)), 31, 31, 31, 31);
    EXPECT(vec_uint4, (vec_uint4)si_gb(si_il(1)), 15, 0, 0, 0);
    EXPECT(vec_uint4, (vec_uint4)si_fsm(si_from_uint(0x5)), 0, 0xFFFFFFFF, 0, 0xFFFFFFFF);
}

static void insertion(void)
{
    static vec_int4 buffer __attribute__((aligned(16))) = {1, 2, 3, 4};
    unsigned int address = (unsigned int)&buffer + 8;
    qword line;

    EXPECT(vec_uchar16, (vec_uchar16)si_cbd(si_from_uint(0x1005), 0), 0x10, 0x11, 0x12, 0x13,
           0x14, 0x03, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F);
    EXPECT(vec_uchar16, (vec_uchar16)si_chd(si_from_uint(6), 1), 0x10, 0x11, 0x12, 0x13, 0x14,
           0x15, 0x02, 0x03, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F);
    EXPECT(vec_uchar16, (vec_uchar16)si_cwx(si_from_uint(0x1000), si_from_uint(9)), 0x10, 0x11,
           0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x00, 0x01, 0x02, 0x03, 0x1C, 0x1D, 0x1E, 0x1F);
    EXPECT(vec_uchar16, (vec_uchar16)si_cdd(si_from_uint(3), 0), 0, 1, 2, 3, 4, 5, 6, 7, 0x18,
           0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F);
    /* store a word to an address: load its quadword, shuffle the scalar in, store it back */
    line = si_lqd(si_from_uint(address), 0);
    line = si_shufb(si_from_int(99), line, si_cwd(si_from_uint(address), 0));
    si_stqd(line, si_from_uint(address), 0);
    EXPECT(vec_int4, buffer, 1, 2, 99, 4);
    EXPECT(vec_int4, (vec_int4)si_lqx(si_from_uint(address), si_from_uint(3)), 1, 2, 99, 4);
}

static void quadword_counts(void)
{
    qword counting = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    EXPECT(vec_char16, si_shlqbyi(counting, 3), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    EXPECT(vec_char16, si_rotqby(counting, si_from_int(-1)), 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
           11, 12, 13, 14, 15);
    EXPECT(vec_char16, si_rotqmbyi(counting, -3), 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
           13);
    EXPECT(vec_char16, si_shlqbybi(counting, si_from_uint(16)), 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
           13, 14, 15, 16);
    EXPECT(vec_uint4, (vec_uint4)si_rotmi(si_il(-1), -28), 15, 15, 15, 15);
    EXPECT(vec_int4, (vec_int4)si_rotmai(si_il(-16), -2), -4, -4, -4, -4);
}

static void floating(void)
{
    qword two = (qword)(vec_float4){2, 2, 2, 2}, three = (qword)(vec_float4){3, 3, 3, 3};
    qword one = (qword)(vec_float4){1, 1, 1, 1};
    EXPECT(vec_float4, (vec_float4)si_fma(two, three, one), 7, 7, 7, 7);
    EXPECT(vec_float4, (vec_float4)si_fnms(two, three, one), -5, -5, -5, -5);
    EXPECT(vec_float4, (vec_float4)si_fi(two, si_frest(two)), 0.5f, 0.5f, 0.5f, 0.5f);
    EXPECT(vec_int4, (vec_int4)si_cflts(three, 1), 6, 6, 6, 6);
    EXPECT(vec_float4, (vec_float4)si_csflt(si_il(-8), 2), -2, -2, -2, -2);
    EXPECT(vec_uint4, (vec_uint4)si_fcgt(three, two), 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
           0xFFFFFFFF);
    EXPECT(vec_double2, (vec_double2)si_dfma(((qword)(vec_double2){2, 2}),
                                             ((qword)(vec_double2){3, 3}),
                                             ((qword)(vec_double2){1, -1})),
           7, 5);
    EXPECT(vec_double2, (vec_double2)si_dfnms(((qword)(vec_double2){2, 2}),
                                              ((qword)(vec_double2){3, 3}),
                                              ((qword)(vec_double2){1, -1})),
           -5, -7);
    EXPECT(vec_double2, (vec_double2)si_fesd(three), 3, 3);
}

int main(void)
{
    slots();
    immediates_and_integers();
    insertion();
    quadword_counts();
    floating();
    return check_done();
}
