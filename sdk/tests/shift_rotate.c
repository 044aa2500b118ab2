/* Element shifts and rotates against the SPU's count rules: rotates by counts of the width or
 * more and by negative counts, right shifts written as negative counts (-count mod twice the
 * width: a shift of the width or more empties the element, or fills it with the sign), left
 * shifts by the width or more, with vector and scalar counts, for halfwords and words. */
#include <spu_intrinsics.h>

#include "check.h"

static void rotates(void)
{
    vec_ushort8 h = {0x8001, 0x1234, 0xFFFF, 1, 0x8000, 2, 3, 4};
    vec_short8 counts = {1, 4, 16, 17, -1, -16, 15, 0};
    vec_uint4 w = {0x80000001, 0x12345678, 1, 0xF0000000};

    EXPECT(vec_ushort8, spu_rl(h, counts), 0x0003, 0x2341, 0xFFFF, 2, 0x4000, 2, 0x8001, 4);
    EXPECT(vec_short8, spu_rl((vec_short8)h, counts), 0x0003, 0x2341, -1, 2, 0x4000, 2,
           (short)0x8001, 4);
    EXPECT(vec_ushort8, spu_rl(h, 4), 0x0018, 0x2341, 0xFFFF, 0x0010, 0x0008, 0x0020, 0x0030,
           0x0040);
    EXPECT(vec_short8, spu_rl((vec_short8)h, -12), 0x0018, 0x2341, -1, 0x0010, 0x0008, 0x0020,
           0x0030, 0x0040);
    EXPECT(vec_uint4, spu_rl(w, ((vec_int4){1, 8, -1, 36})), 3, 0x34567812, 0x80000000, 0xF);
    EXPECT(vec_int4, spu_rl((vec_int4)w, ((vec_int4){1, 8, -1, 36})), 3, 0x34567812,
           (int)0x80000000, 0xF);
    EXPECT(vec_uint4, spu_rl(w, 32), 0x80000001, 0x12345678, 1, 0xF0000000);
    EXPECT(vec_int4, spu_rl((vec_int4)w, -4), 0x18000000, (int)0x81234567, 0x10000000,
           0x0F000000);
}

static void right_shifts(void)
{
    vec_ushort8 h = {0x8000, 0x8000, 0x8000, 0x8000, 0xFFFF, 0xFFFF, 0x1234, 0x1234};
    vec_short8 counts = {-1, -15, -16, -31, 0, -32, 1, -4};
    vec_uint4 w = {0x80000000, 0x80000000, 0xFFFFFFFF, 0x12345678};
    vec_int4 wcounts = {-31, -32, -63, -64};

    EXPECT(vec_ushort8, spu_rlmask(h, counts), 0x4000, 1, 0, 0, 0xFFFF, 0xFFFF, 0, 0x0123);
    EXPECT(vec_short8, spu_rlmask((vec_short8)h, counts), 0x4000, 1, 0, 0, -1, -1, 0, 0x0123);
    EXPECT(vec_ushort8, spu_rlmaska(h, counts), 0xC000, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
           0, 0x0123);
    EXPECT(vec_short8, spu_rlmaska((vec_short8)h, counts), (short)0xC000, -1, -1, -1, -1, -1, 0,
           0x0123);
    EXPECT(vec_ushort8, spu_rlmask(h, -16), 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_short8, spu_rlmaska((vec_short8)h, -20), -1, -1, -1, -1, -1, -1, 0, 0);
    EXPECT(vec_uint4, spu_rlmask(w, wcounts), 1, 0, 0, 0x12345678);
    EXPECT(vec_int4, spu_rlmask((vec_int4)w, wcounts), 1, 0, 0, 0x12345678);
    EXPECT(vec_uint4, spu_rlmaska(w, wcounts), 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0x12345678);
    EXPECT(vec_int4, spu_rlmaska((vec_int4)w, wcounts), -1, -1, -1, 0x12345678);
    EXPECT(vec_uint4, spu_rlmask(w, -4), 0x08000000, 0x08000000, 0x0FFFFFFF, 0x01234567);
    EXPECT(vec_int4, spu_rlmaska((vec_int4)w, -4), (int)0xF8000000, (int)0xF8000000, -1,
           0x01234567);
}

static void left_shifts(void)
{
    vec_ushort8 h = {1, 0x8001, 0xFFFF, 1, 3, 3, 3, 3};
    vec_ushort8 counts = {1, 1, 15, 16, 31, 32, 33, 0};

    EXPECT(vec_ushort8, spu_sl(h, counts), 2, 2, 0x8000, 0, 0, 3, 6, 3);
    EXPECT(vec_short8, spu_sl((vec_short8)h, counts), 2, 2, (short)0x8000, 0, 0, 3, 6, 3);
    EXPECT(vec_short8, spu_sl((vec_short8)h, 16u), 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(vec_ushort8, spu_sl(h, 4u), 0x10, 0x0010, 0xFFF0, 0x10, 0x30, 0x30, 0x30, 0x30);
    EXPECT(vec_uint4, spu_sl(((vec_uint4){1, 1, 1, 0xFFFFFFFF}), ((vec_uint4){31, 32, 64, 4})),
           0x80000000, 0, 1, 0xFFFFFFF0);
    EXPECT(vec_int4, spu_sl(((vec_int4){-1, 1, 2, 3}), ((vec_uint4){1, 63, 0, 2})), -2, 0, 2,
           12);
    EXPECT(vec_int4, spu_sl(((vec_int4){-1, 1, 2, 3}), 1u), -2, 2, 4, 6);
    EXPECT(vec_uint4, spu_sl(((vec_uint4){-1u, 1, 2, 3}), 32u), 0, 0, 0, 0);
}

int main(void)
{
    rotates();
    right_shifts();
    left_shifts();
    return check_done();
}
