/* How the overloaded intrinsics are named and chosen.
 *
 * Each intrinsic has one inline function per element type it takes (a "form": u8, s8, u16,
 * s16, u32, s32, u64, s64, f32, f64). In C the form is named __spu_<op>_<form> and the public
 * name is a macro that picks it with _Generic on the argument's type, so a call with a type the
 * SPU does not take fails to compile (see __spu_no_form below). In C++ every form is simply an
 * overload of the public name. The macros select a function, never an expression on the
 * arguments, because _Generic type-checks the branches it does not take. */
#ifndef SPU_INTRINSICS_FORMS_H
#define SPU_INTRINSICS_FORMS_H

#ifdef __cplusplus
#define __SPU_FN(op, form) op
#define __SPU_INLINE static inline
#else
#define __SPU_FN(op, form) __##op##_##form
#define __SPU_INLINE static __inline__
#endif

/* Per form: the vector type, its element type, the element count, the unsigned vector and
 * element of the same width, and the mask type a comparison of it returns. */
#define __SPU_VT_u8 vec_uchar16
#define __SPU_VT_s8 vec_char16
#define __SPU_VT_u16 vec_ushort8
#define __SPU_VT_s16 vec_short8
#define __SPU_VT_u32 vec_uint4
#define __SPU_VT_s32 vec_int4
#define __SPU_VT_u64 vec_ullong2
#define __SPU_VT_s64 vec_llong2
#define __SPU_VT_f32 vec_float4
#define __SPU_VT_f64 vec_double2
#define __SPU_ET_u8 unsigned char
#define __SPU_ET_s8 signed char
#define __SPU_ET_u16 unsigned short
#define __SPU_ET_s16 signed short
#define __SPU_ET_u32 unsigned int
#define __SPU_ET_s32 signed int
#define __SPU_ET_u64 unsigned long long
#define __SPU_ET_s64 signed long long
#define __SPU_ET_f32 float
#define __SPU_ET_f64 double
#define __SPU_N_u8 16
#define __SPU_N_s8 16
#define __SPU_N_u16 8
#define __SPU_N_s16 8
#define __SPU_N_u32 4
#define __SPU_N_s32 4
#define __SPU_N_u64 2
#define __SPU_N_s64 2
#define __SPU_N_f32 4
#define __SPU_N_f64 2
#define __SPU_UVT_u8 vec_uchar16
#define __SPU_UVT_s8 vec_uchar16
#define __SPU_UVT_u16 vec_ushort8
#define __SPU_UVT_s16 vec_ushort8
#define __SPU_UVT_u32 vec_uint4
#define __SPU_UVT_s32 vec_uint4
#define __SPU_UVT_u64 vec_ullong2
#define __SPU_UVT_s64 vec_ullong2
#define __SPU_UVT_f32 vec_uint4
#define __SPU_UVT_f64 vec_ullong2
#define __SPU_UT_u8 unsigned char
#define __SPU_UT_s8 unsigned char
#define __SPU_UT_u16 unsigned short
#define __SPU_UT_s16 unsigned short
#define __SPU_UT_u32 unsigned int
#define __SPU_UT_s32 unsigned int
#define __SPU_UT_u64 unsigned long long
#define __SPU_UT_s64 unsigned long long
#define __SPU_VT(f) __SPU_VT_##f
#define __SPU_ET(f) __SPU_ET_##f
#define __SPU_N(f) __SPU_N_##f
#define __SPU_UVT(f) __SPU_UVT_##f
#define __SPU_UT(f) __SPU_UT_##f

/* Apply m(form) to every form, or to the integer forms of 8 to 32 bits (those that take a
 * scalar operand in place of a vector). */
#define __SPU_EACH_FORM(m) m(u8) m(s8) m(u16) m(s16) m(u32) m(s32) m(u64) m(s64) m(f32) m(f64)
#define __SPU_EACH_INT32(m) m(u8) m(s8) m(u16) m(s16) m(u32) m(s32)

#ifndef __cplusplus
/* _Generic associations for form f of op; v is appended to the function name (_s: the form
 * taking a scalar operand). */
#define __SPU_AS_u8(op, v) , vec_uchar16: __##op##_u8##v, __vector char: __##op##_u8##v
#define __SPU_AS_s8(op, v) , vec_char16: __##op##_s8##v
#define __SPU_AS_u16(op, v) , vec_ushort8: __##op##_u16##v
#define __SPU_AS_s16(op, v) , vec_short8: __##op##_s16##v
#define __SPU_AS_u32(op, v) , vec_uint4: __##op##_u32##v
#define __SPU_AS_s32(op, v) , vec_int4: __##op##_s32##v
#define __SPU_AS_u64(op, v) , vec_ullong2: __##op##_u64##v
#define __SPU_AS_s64(op, v) , vec_llong2: __##op##_s64##v
#define __SPU_AS_f32(op, v) , vec_float4: __##op##_f32##v
#define __SPU_AS_f64(op, v) , vec_double2: __##op##_f64##v

#define __SPU_E1(o, v, f) __SPU_AS_##f(o, v)
#define __SPU_E2(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E1(o, v, __VA_ARGS__)
#define __SPU_E3(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E2(o, v, __VA_ARGS__)
#define __SPU_E4(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E3(o, v, __VA_ARGS__)
#define __SPU_E5(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E4(o, v, __VA_ARGS__)
#define __SPU_E6(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E5(o, v, __VA_ARGS__)
#define __SPU_E7(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E6(o, v, __VA_ARGS__)
#define __SPU_E8(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E7(o, v, __VA_ARGS__)
#define __SPU_E9(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E8(o, v, __VA_ARGS__)
#define __SPU_E10(o, v, f, ...) __SPU_AS_##f(o, v) __SPU_E9(o, v, __VA_ARGS__)
#define __SPU_NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, n, ...) n
#define __SPU_CAT(a, b) __SPU_CAT2(a, b)
#define __SPU_CAT2(a, b) a##b
#define __SPU_EACH(o, v, ...) \
    __SPU_CAT(__SPU_E, __SPU_NTH(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1))(o, v, __VA_ARGS__)

/* What a call with types no form takes resolves to: a function whose parameter cannot take
 * them, so GCC's error notes that it "expected struct spu_intrinsic_has_no_form_for_these_
 * argument_types" and names the argument's type. A _Generic without a default would say it
 * better, but _Generic rejects a selector matching no association even in a branch of an
 * enclosing _Generic that is not taken, and the scalar-or-vector choices below nest them. */
struct spu_intrinsic_has_no_form_for_these_argument_types;
extern void __spu_no_form(struct spu_intrinsic_has_no_form_for_these_argument_types *);

/* The form of op for x's vector type, among the listed forms. */
#define __SPU_PICK(x, op, ...) _Generic((x)__SPU_EACH(op, , __VA_ARGS__), default: __spu_no_form)
/* The same for the forms whose names end in v: _s, a scalar second operand; _r, a scalar
 * first one (spu_sub's). */
#define __SPU_PICK_V(x, op, v, ...)                                                         \
    _Generic((x)__SPU_EACH(op, v, __VA_ARGS__), default: __spu_no_form)
/* All ten forms. */
#define __SPU_PICK_ALL(x, op) __SPU_PICK(x, op, u8, s8, u16, s16, u32, s32, u64, s64, f32, f64)

/* v if x is one of the vector types, s otherwise (a scalar operand). */
#define __SPU_IF_VECTOR(x, v, s)                                                          \
    _Generic((x), vec_uchar16: v, __vector char: v, vec_char16: v, vec_ushort8: v,        \
             vec_short8: v, vec_uint4: v, vec_int4: v, vec_ullong2: v, vec_llong2: v,     \
             vec_float4: v, vec_double2: v, default: s)

/* The form for a scalar's type (spu_splats, spu_promote). */
#define __SPU_PICK_SCALAR(x, op)                                                          \
    _Generic((x), unsigned char: __##op##_u8, char: __##op##_u8, signed char: __##op##_s8, \
             unsigned short: __##op##_u16, short: __##op##_s16, unsigned int: __##op##_u32, \
             int: __##op##_s32, unsigned long: __##op##_u32, long: __##op##_s32,            \
             unsigned long long: __##op##_u64, long long: __##op##_s64, float: __##op##_f32, \
             double: __##op##_f64, default: __spu_no_form)
#endif

#endif
