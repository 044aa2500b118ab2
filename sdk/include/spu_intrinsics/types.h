/* The SPU vector types as GCC generic vectors.
 *
 * SPE code is compiled by a 32-bit big-endian PowerPC compiler, whose AltiVec keywords cannot
 * say `vector double` or `vector unsigned long long` (no VSX on the G4 that qemu-ppc runs), so
 * `vector` is GCC's vector_size attribute: every SPU element type works, element 0 lies at the
 * lowest address as on the SPU, and GCC lowers the operators to AltiVec where it can. With
 * -maltivec GCC predefines `vector` and `__vector` as AltiVec's context keywords; they are
 * replaced here (altivec.h must not be included with this header). As on the SDK, `vector` is a
 * macro, so a C++ program cannot also include <vector> after this header. */
#ifndef SPU_INTRINSICS_TYPES_H
#define SPU_INTRINSICS_TYPES_H

#undef vector
#undef __vector
#define __vector __attribute__((__vector_size__(16)))
#define vector __vector

/* The SDK's names for the vector types (macros there too). The SPU's char is unsigned, as
 * PowerPC's is, so plain `vector char` behaves as `vector unsigned char`. */
#define vec_uchar16 __vector unsigned char
#define vec_char16 __vector signed char
#define vec_ushort8 __vector unsigned short
#define vec_short8 __vector signed short
#define vec_uint4 __vector unsigned int
#define vec_int4 __vector signed int
#define vec_ullong2 __vector unsigned long long
#define vec_llong2 __vector signed long long
#define vec_float4 __vector float
#define vec_double2 __vector double
#define qword __vector signed char

#endif
