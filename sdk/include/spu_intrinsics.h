/* spu_intrinsics.h: the SPU C/C++ Language Extensions' vector types and generic intrinsics,
 * for SPE programs that cellblade compiles for a big-endian 32-bit PowerPC host and runs under
 * qemu-ppc, with their local store at addresses 0 to 256 KB.
 *
 * The results are the SPU's, bit for bit, except where this comment says otherwise:
 *
 *  - Vector types are GCC generic vectors (spu_intrinsics/types.h): element 0 at the lowest
 *    address, big-endian elements, the scalar "preferred slot" element 0 for 32- and 64-bit
 *    types (bytes 0-3 or 0-7 of the register); a char or short scalar the SPU keeps in byte 3
 *    or halfword 1 is, here, simply the scalar (spu_promote and spu_extract take an element
 *    index, which they mask to the element count as the SPU does).
 *  - Single precision is the SPU's (spu_intrinsics/sp_float.h): truncation toward zero, no
 *    denormals (read as zero, results flushed to zero), no infinities or NaNs (exponent 255
 *    is an ordinary number, overflow saturates to 0x7FFFFFFF with the sign), in spu_add,
 *    spu_sub, spu_mul, spu_madd, spu_msub, spu_nmsub, the comparisons, spu_convtf, spu_convts
 *    and spu_convtu. Plain C float arithmetic (a + b on floats or on vector floats) is the
 *    host's IEEE arithmetic, not the SPU's: only the intrinsics reproduce it.
 *  - spu_re and spu_rsqrte return the truncated exact reciprocal (square root), where the SPU's
 *    estimate is good to about 12 bits; programs refining them with Newton-Raphson steps get
 *    results at least as accurate.
 *  - Double precision is the host's IEEE arithmetic, round to nearest, with denormals, as the
 *    PowerXCell 8i's; the Cell BE's double unit flushed denormals to zero.
 *  - spu_promote sets the elements it does not define to zero.
 *  - Zero results of single precision keep the sign IEEE rules give them; the SPU ISA's rule
 *    for the sign of a flushed or exact zero has not been checked.
 *
 * The specific intrinsics (si_*) are in spu_intrinsics/specific.h, each over its generic.
 *
 * The channel intrinsics and stop are spu_channels.h's, included at the end, as the SDK's
 * spu_intrinsics.h gave them too. */
#ifndef SPU_INTRINSICS_H
#define SPU_INTRINSICS_H

/* The SPU's arithmetic relies on exact IEEE steps (two-sum, signed zeros); a program built with
 * -ffast-math keeps them here, where the intrinsics are then called rather than inlined. */
#pragma GCC push_options
#pragma GCC optimize("no-fast-math")
/* Built without -maltivec, GCC warns that vectors pass in memory; the header's own functions
 * should not say so on every include. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

#include "spu_intrinsics/types.h"
#include "spu_intrinsics/forms.h"
#include "spu_intrinsics/cost.h"
#include "spu_intrinsics/sp_float.h"
#include "spu_intrinsics/arith.h"
#include "spu_intrinsics/compare_select.h"
#include "spu_intrinsics/logical.h"
#include "spu_intrinsics/shift_rotate.h"
#include "spu_intrinsics/quadword.h"
#include "spu_intrinsics/shuffle.h"
#include "spu_intrinsics/bits.h"
#include "spu_intrinsics/convert.h"
#include "spu_intrinsics/scalar.h"
#include "spu_intrinsics/specific.h"
#include "spu_intrinsics/control.h"
#include "spu_channels.h"

#pragma GCC diagnostic pop
#pragma GCC pop_options

#endif
