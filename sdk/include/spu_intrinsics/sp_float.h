/* The SPU's single-precision arithmetic, reproduced on an IEEE host.
 *
 * The SPU's single precision is not IEEE: it has no infinities or NaNs (exponent 255 is an
 * ordinary binade, so magnitudes reach (2 - 2^-23) * 2^128), no denormals (an operand with
 * exponent 0 is zero, a result below 2^-126 becomes zero), results are truncated toward zero,
 * and a result too large saturates to the largest magnitude (bits 0x7FFFFFFF with its sign).
 * Each operation here reads its operands as such values into doubles, where products of two
 * singles are exact, computes there, and writes the result back truncated. A sum's rounding
 * error in double is recovered exactly (Knuth's two-sum), so truncation is of the exact result:
 * the bits are the SPU's, not an approximation of them. Zero results keep the sign the double
 * computation gives them. */
#ifndef SPU_INTRINSICS_SP_FLOAT_H
#define SPU_INTRINSICS_SP_FLOAT_H

__SPU_INLINE unsigned int __spu_sp_bits(float f)
{
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
}

__SPU_INLINE float __spu_sp_from_bits(unsigned int u)
{
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}

/* The value an SPU single holds, exactly, as a double. */
__SPU_INLINE double __spu_sp_value(float f)
{
    unsigned int u = __spu_sp_bits(f);
    unsigned int exponent = (u >> 23) & 0xFF;
    unsigned long long d;
    double value;
    if (exponent == 0) /* zero, or a denormal the SPU reads as zero */
        return (u >> 31) ? -0.0 : 0.0;
    d = ((unsigned long long)(u >> 31) << 63) |
        ((unsigned long long)(exponent - 127 + 1023) << 52) |
        ((unsigned long long)(u & 0x7FFFFF) << 29);
    __builtin_memcpy(&value, &d, sizeof value);
    return value;
}

/* The SPU single for the exact value sum + residual (residual at most half an ulp of sum, as
 * two-sum leaves it): truncated toward zero, saturated, flushed to zero. */
__SPU_INLINE float __spu_sp_truncate(double sum, double residual)
{
    unsigned long long d;
    unsigned int sign, mantissa;
    int exponent;
    __builtin_memcpy(&d, &sum, sizeof d);
    sign = (unsigned int)(d >> 63) << 31;
    if (sum == 0.0)
        return __spu_sp_from_bits(sign);
    exponent = (int)((d >> 52) & 0x7FF) - 1023;
    if (exponent > 128) /* beyond the extended range, or a double infinity (1/0) */
        return __spu_sp_from_bits(sign | 0x7FFFFFFF);
    mantissa = (unsigned int)((d >> 29) & 0x7FFFFF);
    /* sum lies on a single exactly and the exact value is a little nearer zero: truncation
     * gives the single below it in magnitude */
    if ((d & 0x1FFFFFFF) == 0 && residual != 0.0 && ((residual < 0.0) != (sign != 0))) {
        if (mantissa == 0) {
            mantissa = 0x7FFFFF;
            exponent -= 1;
        } else {
            mantissa -= 1;
        }
    }
    if (exponent < -126)
        return __spu_sp_from_bits(sign);
    return __spu_sp_from_bits(sign | ((unsigned int)(exponent + 127) << 23) | mantissa);
}

/* a + b truncated, from doubles holding exact SPU singles or exact products of two. */
__SPU_INLINE float __spu_sp_sum(double a, double b)
{
    double sum = a + b;
    double b_part = sum - a;
    double residual = (a - (sum - b_part)) + (b - b_part);
    return __spu_sp_truncate(sum, residual);
}

__SPU_INLINE float __spu_sp_add(float a, float b)
{
    return __spu_sp_sum(__spu_sp_value(a), __spu_sp_value(b));
}

__SPU_INLINE float __spu_sp_sub(float a, float b)
{
    return __spu_sp_sum(__spu_sp_value(a), -__spu_sp_value(b));
}

__SPU_INLINE float __spu_sp_mul(float a, float b)
{
    return __spu_sp_truncate(__spu_sp_value(a) * __spu_sp_value(b), 0.0);
}

/* a * b + c with one truncation, as the SPU's fused multiply-add. */
__SPU_INLINE float __spu_sp_madd(float a, float b, float c)
{
    return __spu_sp_sum(__spu_sp_value(a) * __spu_sp_value(b), __spu_sp_value(c));
}

/* The largest SPU single t > 0 with residual(t) <= 0, from a guess within an ulp of it:
 * residual(t) = t^k * x - 1 for the root t of t^k * x = 1, computed by fma after an exact
 * product, so its sign is exact. */
#define __spu_sp_settle(t, residual)                                                         \
    do {                                                                                     \
        double dt_ = __spu_sp_value(t);                                                      \
        if ((residual(dt_)) > 0.0) {                                                         \
            t = __spu_sp_from_bits(__spu_sp_bits(t) - 1);                                    \
        } else {                                                                             \
            float up_ = __spu_sp_from_bits(__spu_sp_bits(t) + 1);                            \
            dt_ = __spu_sp_value(up_);                                                       \
            if ((residual(dt_)) <= 0.0)                                                      \
                t = up_;                                                                     \
        }                                                                                    \
    } while (0)

/* The SPU's estimates (frest, frsqest, refined by fi) are good to about 12 bits; these give
 * the exact result truncated, which Newton-Raphson steps of a program refine the same way. The
 * square-root estimate takes the magnitude, as frsqest does; 1/0 saturates. */
__SPU_INLINE float __spu_sp_reciprocal(float a)
{
    double value = __spu_sp_value(a), magnitude = __builtin_fabs(value);
    float t;
    if (value == 0.0 || magnitude > 0x1p126)
        return __spu_sp_truncate(1.0 / value, 0.0); /* saturates, or flushes to zero */
    t = __spu_sp_truncate(1.0 / magnitude, 0.0);
#define __spu_reciprocal_residual(d) __builtin_fma(d, magnitude, -1.0)
    __spu_sp_settle(t, __spu_reciprocal_residual);
#undef __spu_reciprocal_residual
    return value < 0.0 ? -t : t;
}

__SPU_INLINE float __spu_sp_rsqrt(float a)
{
    int step;
    double value = __builtin_fabs(__spu_sp_value(a)), estimate;
    unsigned long long bits;
    float t;
    if (value == 0.0)
        return __spu_sp_truncate(1.0 / value, 0.0);
    /* Newton-Raphson from the bit-pattern guess (within 4%), five steps to double precision:
     * the G4 has no square-root instruction and this header must not need libm. */
    __builtin_memcpy(&bits, &value, sizeof bits);
    bits = 0x5FE6EB50C7B537A9ull - (bits >> 1);
    __builtin_memcpy(&estimate, &bits, sizeof estimate);
    for (step = 0; step < 5; step++)
        estimate = estimate * (1.5 - 0.5 * value * estimate * estimate);
    t = __spu_sp_truncate(estimate, 0.0);
#define __spu_rsqrt_residual(d) __builtin_fma((d) * (d), value, -1.0)
    __spu_sp_settle(t, __spu_rsqrt_residual);
#undef __spu_rsqrt_residual
    return t;
}

#endif
