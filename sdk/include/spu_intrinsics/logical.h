/* Bitwise logic: spu_and, spu_andc, spu_or, spu_orc, spu_xor, spu_nand, spu_nor, spu_eqv on
 * every vector type (bit for bit, whatever the elements), with a scalar second operand for the
 * integer types of 8 to 32 bits (spread to every element), and spu_orx. */
#ifndef SPU_INTRINSICS_LOGICAL_H
#define SPU_INTRINSICS_LOGICAL_H

#define __SPU_DEF_LOGIC(op, f, expr)                                                         \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(op, f)(__SPU_VT(f) a, __SPU_VT(f) b)                   \
    {                                                                                        \
        vec_uint4 x = (vec_uint4)a, y = (vec_uint4)b;                                        \
        return (__SPU_VT(f))(expr);                                                          \
    }
#define __SPU_DEF_LOGIC_ALL(f)                                                               \
    __SPU_DEF_LOGIC(spu_and, f, x & y)                                                       \
    __SPU_DEF_LOGIC(spu_andc, f, x & ~y)                                                     \
    __SPU_DEF_LOGIC(spu_or, f, x | y)                                                        \
    __SPU_DEF_LOGIC(spu_orc, f, x | ~y)                                                      \
    __SPU_DEF_LOGIC(spu_xor, f, x ^ y)                                                       \
    __SPU_DEF_LOGIC(spu_nand, f, ~(x & y))                                                   \
    __SPU_DEF_LOGIC(spu_nor, f, ~(x | y))                                                    \
    __SPU_DEF_LOGIC(spu_eqv, f, ~(x ^ y))
__SPU_EACH_FORM(__SPU_DEF_LOGIC_ALL)

#define __SPU_DEF_LOGIC_SCALAR(op, f, operator)                                              \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(op, f##_s)(__SPU_VT(f) a, __SPU_ET(f) b)               \
    {                                                                                        \
        return (__SPU_VT(f))((__SPU_UVT(f))a operator(__SPU_UT(f)) b);                       \
    }
#define __SPU_DEF_LOGIC_SCALAR_ALL(f)                                                        \
    __SPU_DEF_LOGIC_SCALAR(spu_and, f, &)                                                    \
    __SPU_DEF_LOGIC_SCALAR(spu_or, f, |)                                                     \
    __SPU_DEF_LOGIC_SCALAR(spu_xor, f, ^)
__SPU_EACH_INT32(__SPU_DEF_LOGIC_SCALAR_ALL)

/* spu_orx: the OR of the four words in element 0, zeros elsewhere. */
#define __SPU_DEF_ORX(f)                                                                     \
    __SPU_INLINE __SPU_VT(f) __SPU_FN(spu_orx, f)(__SPU_VT(f) a)                             \
    {                                                                                        \
        __SPU_VT(f) r = {a[0] | a[1] | a[2] | a[3], 0, 0, 0};                                \
        return r;                                                                            \
    }
__SPU_DEF_ORX(u32)
__SPU_DEF_ORX(s32)

#ifndef __cplusplus
#define __SPU_LOGIC_WITH_SCALAR(op, a, b)                                                    \
    __SPU_IF_VECTOR(b, __SPU_PICK_ALL(a, op),                                                \
                    __SPU_PICK_V(a, op, _s, u8, s8, u16, s16, u32, s32))(a, b)
#define spu_and(a, b) __SPU_LOGIC_WITH_SCALAR(spu_and, a, b)
#define spu_or(a, b) __SPU_LOGIC_WITH_SCALAR(spu_or, a, b)
#define spu_xor(a, b) __SPU_LOGIC_WITH_SCALAR(spu_xor, a, b)
#define spu_andc(a, b) __SPU_PICK_ALL(a, spu_andc)(a, b)
#define spu_orc(a, b) __SPU_PICK_ALL(a, spu_orc)(a, b)
#define spu_nand(a, b) __SPU_PICK_ALL(a, spu_nand)(a, b)
#define spu_nor(a, b) __SPU_PICK_ALL(a, spu_nor)(a, b)
#define spu_eqv(a, b) __SPU_PICK_ALL(a, spu_eqv)(a, b)
#define spu_orx(a) __SPU_PICK(a, spu_orx, u32, s32)(a)
#endif

#endif
