/* The vector types as programs write them: declarations of every element type, compound
 * literals, parameters and results, pointers, arrays, sizeof, alignment, and the byte order a
 * program sees through a union (element 0 and a word's high byte first). */
#include <spu_intrinsics.h>

#include "check.h"

typedef vector float vf4_t;

static vector float scaled(vector float v, const vector float *by) { return v * *by; }

static vector unsigned long long twice(vector unsigned long long v) { return v + v; }

int main(void)
{
    vector unsigned char uc = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    vector signed char sc = {-1};
    vector unsigned short us = {1, 2, 3, 4, 5, 6, 7, 8};
    vector signed short ss = {-1, -2};
    vector unsigned int ui = {0x01020304, 2, 3, 4};
    vector signed int si = {-1, -2, -3, -4};
    vector unsigned long long ull = {0x0102030405060708ull, 9};
    vector signed long long sll = {-1, 1};
    vector double d = {1.5, -2.0};
    vector float arr[3] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    vector float *p = &arr[1];
    vf4_t aligned_local __attribute__((aligned(16))) = (vector float){2, 2, 2, 2};
    __vector float underscored = {1};
    const vector float constant = {0.5f, 0.25f, 0, 0};
    union {
        vector unsigned int v;
        unsigned char b[16];
        unsigned long long ull[2];
    } view = {ui};

    EXPECT_SCALAR(unsigned int, sizeof(vector unsigned char), 16);
    EXPECT_SCALAR(unsigned int, sizeof(vector double), 16);
    EXPECT_SCALAR(unsigned int, sizeof arr, 48);
    EXPECT_SCALAR(unsigned int, __alignof__(vector float), 16);
    EXPECT_SCALAR(unsigned int, (unsigned int)&aligned_local % 16, 0);
    EXPECT_SCALAR(unsigned int, (unsigned int)&arr[1] % 16, 0);
    EXPECT(vector float, scaled(*p, &aligned_local), 10, 12, 14, 16);
    EXPECT(vector float, arr[2], 0, 0, 0, 0);
    EXPECT(vector float, underscored + constant, 1.5f, 0.25f, 0, 0);
    EXPECT(vector unsigned long long, twice(ull), 0x020406080A0C0E10ull, 18);
    EXPECT(vector signed long long, sll, -1, 1);
    EXPECT(vector double, d * d, 2.25, 4.0);
    EXPECT(vector unsigned char, uc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    EXPECT(vector signed char, sc, -1, 0);
    EXPECT(vector unsigned short, us, 1, 2, 3, 4, 5, 6, 7, 8);
    EXPECT(vector signed short, ss, -1, -2);
    EXPECT(vector signed int, si, -1, -2, -3, -4);
    /* big-endian: the word 0x01020304 is bytes 01 02 03 04, element 0 first */
    EXPECT_SCALAR(unsigned char, view.b[0], 0x01);
    EXPECT_SCALAR(unsigned char, view.b[3], 0x04);
    EXPECT_SCALAR(unsigned char, view.b[7], 0x02);
    EXPECT_SCALAR(unsigned long long, view.ull[0], 0x0102030400000002ull);
    /* the SDK's type names are the same types */
    {
        vec_uint4 same = ui;
        qword q = (qword)same;
        EXPECT(vec_char16, q, 1, 2, 3, 4, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4);
    }
    return check_done();
}
