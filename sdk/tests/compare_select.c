/* Comparisons and selection: every element type with vector and scalar operands, signed
 * against unsigned order, the SPU's reading of floats (a denormal equals zero, -0 equals +0,
 * exponent 255 is a number), the tutorial's vector absolute value, and spu_testsv. */
#include <spu_intrinsics.h>

#include "check.h"

static void integers(void)
{
    vec_uchar16 ua = {0, 1, 0x80, 0xFF}, ub = {0, 2, 0x7F, 0xFF};
    vec_char16 sa = {0, 1, -128, -1}, sb = {0, 2, 127, -1};
    vec_ushort8 ha = {1, 0x8000}, hb = {1, 0x7FFF};
    vec_short8 hsa = {1, -32768}, hsb = {1, 32767};
    vec_uint4 wa = {1, 0x80000000, 5, 0}, wb = {1, 0x7FFFFFFF, 6, 0};
    vec_int4 wsa = {1, (int)0x80000000, 5, 0}, wsb = {1, 0x7FFFFFFF, 6, 0};

    EXPECT(vec_uchar16, spu_cmpeq(ua, ub), 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
    EXPECT(vec_uchar16, spu_cmpgt(ua, ub), 0, 0, 0xFF, 0);
    EXPECT(vec_uchar16, spu_cmpgt(sa, sb), 0, 0, 0, 0);
    EXPECT(vec_uchar16, spu_cmpeq(sa, sb), 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
    EXPECT(vec_uchar16, spu_cmpgt(ua, (unsigned char)0x7F), 0, 0, 0xFF, 0xFF);
    EXPECT(vec_uchar16, spu_cmpgt(sa, (signed char)0), 0, 0xFF, 0, 0);
    EXPECT(vec_uchar16, spu_cmpeq(ua, (unsigned char)0xFF), 0, 0, 0, 0xFF);
    EXPECT(vec_uchar16, spu_cmpeq(sa, (signed char)-1), 0, 0, 0, 0xFF);
    EXPECT(vec_ushort8, spu_cmpgt(ha, hb), 0, 0xFFFF, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_ushort8, spu_cmpgt(hsa, hsb), 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_ushort8, spu_cmpeq(ha, hb), 0xFFFF, 0, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
           0xFFFF);
    EXPECT(vec_ushort8, spu_cmpeq(hsa, (short)-32768), 0, 0xFFFF, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_ushort8, spu_cmpgt(ha, (unsigned short)1), 0, 0xFFFF, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_ushort8, spu_cmpgt(hsa, (short)0), 0xFFFF, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_ushort8, spu_cmpeq(ha, (unsigned short)0), 0, 0, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
           0xFFFF, 0xFFFF);
    EXPECT(vec_uint4, spu_cmpgt(wa, wb), 0, 0xFFFFFFFF, 0, 0);
    EXPECT(vec_uint4, spu_cmpgt(wsa, wsb), 0, 0, 0, 0);
    EXPECT(vec_uint4, spu_cmpeq(wa, wb), 0xFFFFFFFF, 0, 0, 0xFFFFFFFF);
    EXPECT(vec_uint4, spu_cmpeq(wsa, wsb), 0xFFFFFFFF, 0, 0, 0xFFFFFFFF);
    EXPECT(vec_uint4, spu_cmpgt(wa, 4u), 0, 0xFFFFFFFF, 0xFFFFFFFF, 0);
    EXPECT(vec_uint4, spu_cmpgt(wsa, -1), 0xFFFFFFFF, 0, 0xFFFFFFFF, 0xFFFFFFFF);
    EXPECT(vec_uint4, spu_cmpeq(wa, 5u), 0, 0, 0xFFFFFFFF, 0);
    EXPECT(vec_uint4, spu_cmpeq(wsa, 0), 0, 0, 0, 0xFFFFFFFF);
}

static void floats(void)
{
    /* 1 > 0.5; a denormal is not above zero; -0 is not below +0; exponent 255 (an IEEE NaN)
     * is the SPU's largest binade, above 1 */
    vec_float4 a = F4(0x3F800000, 0x00000001, 0x80000000, 0x7FC00000);
    vec_float4 b = F4(0x3F000000, 0x00000000, 0x00000000, 0x3F800000);
    EXPECT(vec_uint4, spu_cmpgt(a, b), 0xFFFFFFFF, 0, 0, 0xFFFFFFFF);
    EXPECT(vec_uint4, spu_cmpeq(a, b), 0, 0xFFFFFFFF, 0xFFFFFFFF, 0);
    /* magnitudes: |-2| > |1|, |-1| == |1| */
    EXPECT(vec_uint4, spu_cmpabsgt(F4(0xC0000000, 0xBF800000, 0, 0), F4(0x3F800000, 0x3F800000,
                                                                         0, 0)),
           0xFFFFFFFF, 0, 0, 0);
    EXPECT(vec_uint4, spu_cmpabseq(F4(0xC0000000, 0xBF800000, 0, 0), F4(0x3F800000, 0x3F800000,
                                                                         0, 0)),
           0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF);
    EXPECT(vec_ullong2, spu_cmpgt(((vec_double2){2, -1}), ((vec_double2){1, 1})), ~0ull, 0);
    EXPECT(vec_ullong2, spu_cmpeq(((vec_double2){2, -0.0}), ((vec_double2){1, 0})), 0, ~0ull);
    EXPECT(vec_ullong2, spu_cmpabsgt(((vec_double2){-2, 1}), ((vec_double2){1, -1})), ~0ull, 0);
    EXPECT(vec_ullong2, spu_cmpabseq(((vec_double2){-2, 1}), ((vec_double2){1, -1})), 0, ~0ull);
}

/* The Cell Programming Tutorial's vector absolute value (its abs_spe kernel's loop). */
static void tutorial_vector_abs(void)
{
    static float data[8] __attribute__((aligned(16))) = {1.5f, -2, 0, -0.25f, -8, 3, -1, 7};
    vector float *a = (vector float *)data;
    for (int i = 0; i < 2; i++) {
        vector unsigned int pcmp = spu_cmpgt(spu_splats(0.0f), a[i]);
        a[i] = spu_sel(a[i], spu_sub(spu_splats(0.0f), a[i]), pcmp);
    }
    EXPECT(vec_float4, a[0], 1.5f, 2, 0, 0.25f);
    EXPECT(vec_float4, a[1], 8, 3, 1, 7);
}

static void select(void)
{
    vec_uint4 mask = {0xFFFFFFFF, 0, 0x0000FFFF, 0xF0F0F0F0};
    EXPECT(vec_uint4, spu_sel(((vec_uint4){1, 2, 0x11111111, 0}), ((vec_uint4){5, 6, 0x22222222,
                                                                               0xFFFFFFFF}),
                              mask),
           5, 2, 0x11112222, 0xF0F0F0F0);
    EXPECT(vec_int4, spu_sel(((vec_int4){1, 2}), ((vec_int4){-1, -2}), mask), -1, 2, 0, 0);
    EXPECT(vec_float4, spu_sel(((vec_float4){1, 2, 0, 0}), ((vec_float4){3, 4, 0, 0}),
                               ((vec_uint4){0, 0xFFFFFFFF})),
           1, 4, 0, 0);
    EXPECT(vec_uchar16, spu_sel(((vec_uchar16){1, 2, 3}), ((vec_uchar16){9, 9, 9}),
                                ((vec_uchar16){0xFF, 0, 0x0F})),
           9, 2, 9);
    EXPECT(vec_char16, spu_sel(((vec_char16){1, 2}), ((vec_char16){-1, -1}),
                               ((vec_uchar16){0, 0xFF})),
           1, -1);
    EXPECT(vec_ushort8, spu_sel(((vec_ushort8){1, 2}), ((vec_ushort8){7, 7}),
                                ((vec_ushort8){0xFFFF, 0})),
           7, 2);
    EXPECT(vec_short8, spu_sel(((vec_short8){1, 2}), ((vec_short8){-7, -7}),
                               ((vec_ushort8){0, 0xFFFF})),
           1, -7);
    EXPECT(vec_ullong2, spu_sel(((vec_ullong2){1, 2}), ((vec_ullong2){3, 4}),
                                ((vec_ullong2){~0ull, 0})),
           3, 2);
    EXPECT(vec_llong2, spu_sel(((vec_llong2){1, 2}), ((vec_llong2){-3, -4}),
                               ((vec_ullong2){0, ~0ull})),
           1, -4);
    EXPECT(vec_double2, spu_sel(((vec_double2){1, 2}), ((vec_double2){3, 4}),
                                ((vec_ullong2){~0ull, 0})),
           3, 2);
}

static void special_values(void)
{
    vec_ullong2 nan_inf = {0x7FF8000000000000ull, 0xFFF0000000000000ull};
    vec_ullong2 zero_denorm = {0x8000000000000000ull, 0x0000000000000001ull};
    EXPECT(vec_ullong2, spu_testsv((vec_double2)nan_inf, SPU_SV_NAN), ~0ull, 0);
    EXPECT(vec_ullong2, spu_testsv((vec_double2)nan_inf, SPU_SV_NEG_INFINITY), 0, ~0ull);
    EXPECT(vec_ullong2, spu_testsv((vec_double2)nan_inf, SPU_SV_POS_INFINITY), 0, 0);
    EXPECT(vec_ullong2, spu_testsv((vec_double2)zero_denorm, SPU_SV_NEG_ZERO | SPU_SV_POS_DENORM),
           ~0ull, ~0ull);
    EXPECT(vec_ullong2, spu_testsv((vec_double2)zero_denorm, SPU_SV_POS_ZERO | SPU_SV_NEG_DENORM),
           0, 0);
    EXPECT(vec_ullong2, spu_testsv(((vec_double2){1.0, 0.0}), 0x7F), 0, ~0ull);
}

int main(void)
{
    integers();
    floats();
    tutorial_vector_abs();
    select();
    special_values();
    return check_done();
}
