/* Known-answer checks for the intrinsics' tests: each compares a result's bytes with the
 * answer worked out by hand from the SPU's definition, reports every mismatch with its line,
 * and main ends with check_done(), which prints "No Errors" when all held (as the MPI tests do)
 * and gives the exit status. */
#ifndef SDK_TESTS_CHECK_H
#define SDK_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

static void check_bytes(int line, const char *what, const void *got, const void *want,
                        unsigned int size)
{
    const unsigned char *g = (const unsigned char *)got, *w = (const unsigned char *)want;
    if (memcmp(got, want, size) == 0)
        return;
    check_failures++;
    printf("line %d: %s\n  got ", line, what);
    for (unsigned int i = 0; i < size; i++)
        printf("%02x%s", g[i], (i % 4 == 3) ? " " : "");
    printf("\n want ");
    for (unsigned int i = 0; i < size; i++)
        printf("%02x%s", w[i], (i % 4 == 3) ? " " : "");
    printf("\n");
}

/* The vector expression got, of type vtype, must equal (vtype){elements...}. */
#define EXPECT(vtype, got, ...)                                                              \
    do {                                                                                     \
        vtype got_ = (got), want_ = (vtype){__VA_ARGS__};                                    \
        check_bytes(__LINE__, #got, &got_, &want_, sizeof got_);                             \
    } while (0)

/* A scalar result, compared as its bytes (so -0.0 differs from 0.0). */
#define EXPECT_SCALAR(type, got, want)                                                       \
    do {                                                                                     \
        type got_ = (got), want_ = (want);                                                   \
        check_bytes(__LINE__, #got, &got_, &want_, sizeof got_);                             \
    } while (0)

/* A float vector from its elements' bits, and a vector's bits as words: an ulp shows. */
#define F4(a, b, c, d) ((vec_float4)(vec_uint4){a, b, c, d})
#define BITS(v) ((vec_uint4)(v))

static int check_done(void)
{
    if (check_failures == 0)
        printf("No Errors\n");
    return check_failures != 0;
}

#endif
