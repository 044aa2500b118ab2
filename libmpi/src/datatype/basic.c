/* Predefined datatypes and reduction operations of the rank library.
 *
 * A predefined datatype's handle carries its kind (bits 8-15) and its size (bits 0-7); derived
 * types are datatype/derived.c's. Reductions work on the predefined types (pair types for
 * MAXLOC and MINLOC), on derived types of one predefined type (packed, then reduced element by
 * element as that type: cb_type_base), and on user operations over predefined types.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "internal.h"

#define MAX_OPS 256
#define USER_OP 100

enum {
    K_CHAR = 1, K_SCHAR, K_UCHAR, K_BYTE, K_SHORT, K_USHORT, K_INT, K_UNSIGNED, K_LONG, K_ULONG, K_LLONG, K_ULLONG,
    K_FLOAT, K_DOUBLE, K_LDOUBLE, K_WCHAR, K_FLOAT_INT, K_DOUBLE_INT, K_LONG_INT, K_2INT, K_SHORT_INT, K_LDOUBLE_INT,
    K_PACKED, /* mpi.h's MPI_PACKED */
    K_LB, K_UB, /* size 0: markers, not data */
    K_COMPLEX, K_DCOMPLEX, /* Fortran's COMPLEX and DOUBLE COMPLEX: C's float and double _Complex */
    /* Fortran's other named types (mpi.h), each computed as its C twin (twin()) */
    K_LOGICAL, K_INTEGER, K_REAL, K_DPREC, K_CHARACTER, K_2INTEGER, K_2REAL, K_2DPREC, K_2COMPLEX, K_2DCOMPLEX,
    K_REAL4, K_REAL8, K_COMPLEX8, K_COMPLEX16, K_INTEGER1, K_INTEGER2, K_INTEGER4, K_INTEGER8,
    K_LAST = K_INTEGER8
};

static struct user_op {
    int used, commute;
    MPI_User_function *fn;
} ops[MAX_OPS];

/* A Fortran type's C twin of the same size and arithmetic (a pair's: of its value); the C
 * types are their own. LOGICAL is an int on which only the logical operations are defined. */
static int twin(int k)
{
    switch (k) {
    case K_LOGICAL: case K_INTEGER: case K_INTEGER4: case K_2INTEGER: return K_INT;
    case K_REAL: case K_REAL4: case K_2REAL: return K_FLOAT;
    case K_DPREC: case K_REAL8: case K_2DPREC: return K_DOUBLE;
    case K_CHARACTER: return K_CHAR;
    case K_COMPLEX8: case K_2COMPLEX: return K_COMPLEX;
    case K_COMPLEX16: case K_2DCOMPLEX: return K_DCOMPLEX;
    case K_INTEGER1: return K_SCHAR;
    case K_INTEGER2: return K_SHORT;
    case K_INTEGER8: return K_LLONG;
    default: return k;
    }
}

/* Fortran's pairs for MAXLOC and MINLOC: two values of one type. */
static int fortran_pair(int k)
{
    return k >= K_2INTEGER && k <= K_2DCOMPLEX;
}

static int kind(MPI_Datatype t)
{
    return t < 0x10000 && t > 0 ? (t >> 8) & 0xff : 0;
}

int cb_predefined(MPI_Datatype t)
{
    int k = kind(t);
    return ((k >= K_CHAR && k <= K_PACKED) || (k >= K_COMPLEX && k <= K_LAST)) && (t & 0xff) != 0;
}

#define ALIGN(T) __alignof__(T)
#define ALIGN_PAIR(V) __alignof__(struct { V v; int i; })

MPI_Aint cb_basic_align(MPI_Datatype t)
{
    switch (twin(kind(t))) {
    case K_SHORT: case K_USHORT: return ALIGN(short);
    case K_INT: case K_UNSIGNED: return ALIGN(int);
    case K_LONG: case K_ULONG: return ALIGN(long);
    case K_LLONG: case K_ULLONG: return ALIGN(long long);
    case K_FLOAT: return ALIGN(float);
    case K_DOUBLE: case K_DCOMPLEX: return ALIGN(double);
    case K_COMPLEX: return ALIGN(float);
    case K_LDOUBLE: return ALIGN(long double);
    case K_WCHAR: return ALIGN(wchar_t);
    case K_FLOAT_INT: return ALIGN_PAIR(float);
    case K_DOUBLE_INT: return ALIGN_PAIR(double);
    case K_LONG_INT: return ALIGN_PAIR(long);
    case K_2INT: return ALIGN_PAIR(int);
    case K_SHORT_INT: return ALIGN_PAIR(short);
    case K_LDOUBLE_INT: return ALIGN_PAIR(long double);
    default: return 1;
    }
}

/* A pair type's value size and its int's offset in memory (C's padding between them), as
 * MPI defines them: the size is the value's plus the int's, the extent the C struct's. */
#define PAIR(V)                                                                                  \
    do {                                                                                         \
        struct { V v; int i; } s_;                                                               \
        *vsize = sizeof s_.v;                                                                    \
        *ioff = (size_t)((char *)&s_.i - (char *)&s_);                                           \
        return 1;                                                                                \
    } while (0)

int cb_pair(MPI_Datatype t, size_t *vsize, size_t *ioff)
{
    switch (kind(t)) {
    case K_FLOAT_INT: PAIR(float);
    case K_DOUBLE_INT: PAIR(double);
    case K_LONG_INT: PAIR(long);
    case K_2INT: PAIR(int);
    case K_SHORT_INT: PAIR(short);
    case K_LDOUBLE_INT: PAIR(long double);
    default: return 0;
    }
}

size_t cb_basic_size(MPI_Datatype t)
{
    size_t vsize, ioff;
    return cb_pair(t, &vsize, &ioff) ? vsize + sizeof(int) : (size_t)(t & 0xff);
}

int PMPI_Op_create(MPI_User_function *function, int commute, MPI_Op *op)
{
    for (int i = 0; i < MAX_OPS; i++)
        if (!ops[i].used) {
            ops[i] = (struct user_op){1, commute, function};
            *op = USER_OP + i;
            return MPI_SUCCESS;
        }
    return cb_fail("MPI_Op_create", MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d operations", MAX_OPS);
}

static struct user_op *user_op(MPI_Op op)
{
    int i = op - USER_OP;
    return i >= 0 && i < MAX_OPS && ops[i].used ? &ops[i] : NULL;
}

int PMPI_Op_free(MPI_Op *op)
{
    struct user_op *u = user_op(*op);
    if (!u)
        return cb_fail("MPI_Op_free", MPI_COMM_WORLD, MPI_ERR_OP, "operation %d is not a user operation", *op);
    u->used = 0;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int cb_op_commutes(MPI_Op op)
{
    struct user_op *u = user_op(op);
    return u ? u->commute : 1;
}

static int integer(int k)
{
    return (k >= K_CHAR && k <= K_ULLONG && k != K_BYTE) || k == K_WCHAR;
}

static int floating(int k)
{
    return k == K_FLOAT || k == K_DOUBLE || k == K_LDOUBLE;
}

static int complex(int k)
{
    return k == K_COMPLEX || k == K_DCOMPLEX;
}

int cb_check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype t)
{
    if (user_op(op))
        return MPI_SUCCESS;
    int f = kind(t), k = twin(f), ok;
    if (op < MPI_MAX || op > MPI_MINLOC)
        return cb_fail(call, comm, MPI_ERR_OP, "operation %d is invalid", op);
    if (f == K_LOGICAL || f == K_CHARACTER || f == K_2COMPLEX || f == K_2DCOMPLEX)
        ok = f == K_LOGICAL && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR);
    else if (fortran_pair(f))
        ok = op == MPI_MAXLOC || op == MPI_MINLOC;
    else switch (op) {
    case MPI_MAX: case MPI_MIN: ok = integer(k) || floating(k); break;
    case MPI_SUM: case MPI_PROD: ok = integer(k) || floating(k) || complex(k); break;
    /* Logical operations on floating types too, as MPICH has them (0 is false). */
    case MPI_LAND: case MPI_LOR: case MPI_LXOR: ok = integer(k) || floating(k); break;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR: ok = integer(k) || k == K_BYTE; break;
    case MPI_MAXLOC: case MPI_MINLOC: ok = k >= K_FLOAT_INT && k <= K_LDOUBLE_INT; break;
    default: ok = 0;
    }
    if (!ok)
        return cb_fail(call, comm, MPI_ERR_OP, "operation %d is not defined on datatype %#x", op, (unsigned)t);
    return MPI_SUCCESS;
}

#define ARITH(T)                                                                                 \
    do {                                                                                         \
        const T *a = in;                                                                         \
        T *b = inout;                                                                            \
        for (int i = 0; i < n; i++)                                                              \
            switch (op) {                                                                        \
            case MPI_MAX: b[i] = a[i] > b[i] ? a[i] : b[i]; break;                              \
            case MPI_MIN: b[i] = a[i] < b[i] ? a[i] : b[i]; break;                              \
            case MPI_SUM: b[i] = a[i] + b[i]; break;                                             \
            case MPI_PROD: b[i] = a[i] * b[i]; break;                                            \
            case MPI_LAND: b[i] = a[i] && b[i]; break;                                           \
            case MPI_LOR: b[i] = a[i] || b[i]; break;                                            \
            case MPI_LXOR: b[i] = !a[i] != !b[i]; break;                                         \
            }                                                                                    \
        return MPI_SUCCESS;                                                                      \
    } while (0)

#define BITS(T)                                                                                  \
    do {                                                                                         \
        const T *a = in;                                                                         \
        T *b = inout;                                                                            \
        for (int i = 0; i < n; i++)                                                              \
            switch (op) {                                                                        \
            case MPI_BAND: b[i] = a[i] & b[i]; break;                                            \
            case MPI_BOR: b[i] = a[i] | b[i]; break;                                             \
            case MPI_BXOR: b[i] = a[i] ^ b[i]; break;                                            \
            }                                                                                    \
        return MPI_SUCCESS;                                                                      \
    } while (0)

/* MAXLOC/MINLOC over pairs of a value V and an index I (C's pairs have an int index,
 * Fortran's an index of the value's type): the better value; on a tie the smaller index. */
#define LOC(V, I)                                                                                \
    do {                                                                                         \
        const struct { V v; I i; } *a = in;                                                      \
        struct { V v; I i; } *b = inout;                                                         \
        for (int i = 0; i < n; i++) {                                                            \
            int better = op == MPI_MAXLOC ? a[i].v > b[i].v : a[i].v < b[i].v;                   \
            if (better || (a[i].v == b[i].v && a[i].i < b[i].i))                                 \
                b[i].v = a[i].v, b[i].i = a[i].i;                                                \
        }                                                                                        \
        return MPI_SUCCESS;                                                                      \
    } while (0)

/* Complex numbers have only the sum and the product (MPI-1.3 §4.9.2). */
#define COMPLEX(T)                                                                               \
    do {                                                                                         \
        const T *a = in;                                                                         \
        T *b = inout;                                                                            \
        for (int i = 0; i < n; i++)                                                              \
            b[i] = op == MPI_SUM ? a[i] + b[i] : a[i] * b[i];                                    \
        return MPI_SUCCESS;                                                                      \
    } while (0)

#define BY_KIND(M)                                                                               \
    switch (k) {                                                                                 \
    case K_CHAR: M(char);                                                                        \
    case K_SCHAR: M(signed char);                                                                \
    case K_UCHAR: case K_BYTE: M(unsigned char);                                                 \
    case K_SHORT: M(short);                                                                      \
    case K_USHORT: M(unsigned short);                                                            \
    case K_INT: M(int);                                                                          \
    case K_UNSIGNED: M(unsigned);                                                                \
    case K_LONG: M(long);                                                                        \
    case K_ULONG: M(unsigned long);                                                              \
    case K_LLONG: M(long long);                                                                  \
    case K_ULLONG: M(unsigned long long);                                                        \
    case K_WCHAR: M(wchar_t);                                                                    \
    }

int cb_reduce_local(const void *in, void *inout, int count, MPI_Datatype t, MPI_Op op)
{
    struct user_op *u = user_op(op);
    int n = count, f = kind(t), k = twin(f);
    if (u) {
        u->fn((void *)in, inout, &n, &t);
        return MPI_SUCCESS;
    }
    if (fortran_pair(f) && (op == MPI_MAXLOC || op == MPI_MINLOC)) {
        switch (k) {
        case K_INT: LOC(int, int);
        case K_FLOAT: LOC(float, float);
        case K_DOUBLE: LOC(double, double);
        }
    }
    if (op >= MPI_BAND && op <= MPI_BXOR && (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)) {
        BY_KIND(BITS)
    }
    if (op == MPI_MAXLOC || op == MPI_MINLOC) {
        switch (k) {
        case K_FLOAT_INT: LOC(float, int);
        case K_DOUBLE_INT: LOC(double, int);
        case K_LONG_INT: LOC(long, int);
        case K_2INT: LOC(int, int);
        case K_SHORT_INT: LOC(short, int);
        case K_LDOUBLE_INT: LOC(long double, int);
        }
    }
    switch (k) {
    case K_FLOAT: ARITH(float);
    case K_DOUBLE: ARITH(double);
    case K_LDOUBLE: ARITH(long double);
    case K_COMPLEX: COMPLEX(float _Complex);
    case K_DCOMPLEX: COMPLEX(double _Complex);
    }
    BY_KIND(ARITH)
    return MPI_ERR_OP;
}

/* MPI_Type_match_size (MPI-2.2 §16.2.5): a named type of the class and size, the sized ones
 * first (MPICH gives those too), then C's (long double for a real of its size). */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_LONG_DOUBLE},
                              integers[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8},
                              complexes[] = {MPI_COMPLEX8, MPI_COMPLEX16};
    const MPI_Datatype *from = typeclass == MPI_TYPECLASS_REAL ? reals : typeclass == MPI_TYPECLASS_INTEGER ? integers
                             : typeclass == MPI_TYPECLASS_COMPLEX ? complexes : NULL;
    size_t n = typeclass == MPI_TYPECLASS_REAL ? 3 : typeclass == MPI_TYPECLASS_INTEGER ? 4 : 2;
    if (!from)
        return cb_fail("MPI_Type_match_size", MPI_COMM_WORLD, MPI_ERR_ARG,
            "type class %d is invalid: allowed MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
    for (size_t i = 0; i < n; i++)
        if ((int)cb_basic_size(from[i]) == size) {
            *datatype = from[i];
            return MPI_SUCCESS;
        }
    return cb_fail("MPI_Type_match_size", MPI_COMM_WORLD, MPI_ERR_ARG, "no %s type has %d bytes",
        typeclass == MPI_TYPECLASS_REAL ? "real" : typeclass == MPI_TYPECLASS_INTEGER ? "integer" : "complex", size);
}

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
#pragma weak MPI_Op_create = PMPI_Op_create
#pragma weak MPI_Op_free = PMPI_Op_free
