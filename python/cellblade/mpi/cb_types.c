/* Datatypes and reduction operations of the rank library.
 *
 * A predefined datatype's handle carries its kind (bits 8-15) and its size (bits 0-7). Derived
 * types (MPI_Type_contiguous, MPI_Type_vector) are handles from CB_DERIVED on, describing
 * `count` blocks of `blocklen` elements of `old`, block starts `stride` elements apart; messages
 * of derived types travel packed. Reductions work on the predefined types (pair types for
 * MAXLOC and MINLOC), on derived types of one predefined type (packed, then reduced element by
 * element as that type: cb_type_base), and on user operations over predefined types.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "cb_internal.h"

#define CB_DERIVED 0x10000
#define MAX_TYPES 4096 /* MPICH's datatype/tfree holds 1025 at once */
#define MAX_OPS 256
#define USER_OP 100

enum {
    K_CHAR = 1, K_SCHAR, K_UCHAR, K_BYTE, K_SHORT, K_USHORT, K_INT, K_UNSIGNED, K_LONG, K_ULONG, K_LLONG, K_ULLONG,
    K_FLOAT, K_DOUBLE, K_LDOUBLE, K_WCHAR, K_FLOAT_INT, K_DOUBLE_INT, K_LONG_INT, K_2INT, K_SHORT_INT, K_LDOUBLE_INT
};

/* A slot stays `used` while referenced (MPI_Type_free's semantics): by the user's handle until
 * freed, by each type built on it and by each pending request (cb_type_hold/release). */
static struct derived {
    int used, committed, count, blocklen, stride;
    MPI_Datatype old;
    int refs, freed;
} types[MAX_TYPES];

static struct user_op {
    int used, commute;
    MPI_User_function *fn;
} ops[MAX_OPS];

static struct derived *derived(MPI_Datatype t)
{
    int i = t - CB_DERIVED;
    return i >= 0 && i < MAX_TYPES && types[i].used ? &types[i] : NULL;
}

static int kind(MPI_Datatype t)
{
    return t < CB_DERIVED && t > 0 ? (t >> 8) & 0xff : 0;
}

void cb_type_hold(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (d)
        d->refs++;
}

void cb_type_release(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (d && --d->refs == 0) {
        d->used = 0;
        cb_type_release(d->old);
    }
}

int cb_type_valid(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (d)
        return !d->freed;
    int k = kind(t);
    return k >= K_CHAR && k <= K_LDOUBLE_INT && (t & 0xff) != 0;
}

size_t cb_type_size(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (d)
        return (size_t)d->count * d->blocklen * cb_type_size(d->old);
    return (size_t)(t & 0xff);
}

MPI_Aint cb_type_extent(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (!d)
        return t & 0xff;
    if (d->count == 0)
        return 0;
    return ((MPI_Aint)(d->count - 1) * d->stride + d->blocklen) * cb_type_extent(d->old);
}

MPI_Datatype cb_type_base(MPI_Datatype t, int count, int *n)
{
    struct derived *d;
    *n = count;
    while ((d = derived(t)) != NULL) {
        *n *= d->count * d->blocklen;
        t = d->old;
    }
    return t;
}

int cb_check_buffer(const char *call, MPI_Comm comm, int count, MPI_Datatype t, size_t *bytes)
{
    /* An empty buffer's datatype is never used: MPI_DATATYPE_NULL is accepted there, as MPICH
     * accepts it (its pt2pt/recvnull test receives 0 of it from MPI_PROC_NULL). */
    if (count == 0 && t == MPI_DATATYPE_NULL) {
        *bytes = 0;
        return MPI_SUCCESS;
    }
    if (!cb_type_valid(t))
        return cb_fail(call, comm, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)t);
    struct derived *d = derived(t);
    if (d && !d->committed)
        return cb_fail(call, comm, MPI_ERR_TYPE, "datatype %#x is not committed (MPI_Type_commit)", (unsigned)t);
    if (count < 0)
        return cb_fail(call, comm, MPI_ERR_COUNT, "count %d is negative", count);
    *bytes = (size_t)count * cb_type_size(t);
    return MPI_SUCCESS;
}

/* Copy `count` elements of `t` at `buf` to or from the packed bytes at `packed`, at most `*left`
 * bytes of them: a short message fills the elements it reaches, the last one basic element by
 * basic element (MPI-1 §3.3.1: fewer elements than the receive's count is not an error). */
static char *walk(char *buf, int count, MPI_Datatype t, char *packed, int pack, size_t *left)
{
    struct derived *d = derived(t);
    if (!d) {
        size_t n = (size_t)count * cb_type_size(t);
        n = n < *left ? n : *left;
        if (pack)
            memcpy(packed, buf, n);
        else
            memcpy(buf, packed, n);
        *left -= n;
        return packed + n;
    }
    MPI_Aint ext = cb_type_extent(t), old = cb_type_extent(d->old);
    for (int e = 0; e < count && *left; e++)
        for (int b = 0; b < d->count && *left; b++)
            packed = walk(buf + e * ext + (MPI_Aint)b * d->stride * old, d->blocklen, d->old, packed, pack, left);
    return packed;
}

void cb_pack(const void *buf, int count, MPI_Datatype t, char *out)
{
    size_t all = (size_t)-1;
    walk((char *)buf, count, t, out, 1, &all);
}

/* Unpack the `bytes` a message brought (fewer than the buffer's when it was short). */
void cb_unpack(const char *in, size_t bytes, MPI_Datatype t, void *buf)
{
    size_t size = cb_type_size(t), left = bytes;
    /* One element more than whole ones: the partial element's basic elements (walk stops at `left`). */
    walk(buf, size ? (int)((bytes + size - 1) / size) : 0, t, (char *)in, 0, &left);
}

/* MPI_Get_elements: the basic elements received (a derived type's are of one predefined type). */
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Get_elements", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    int n;
    size_t basic = cb_type_size(cb_type_base(datatype, 1, &n));
    if (basic == 0)
        *count = 0;
    else
        *count = status->cb_bytes % basic ? MPI_UNDEFINED : (int)(status->cb_bytes / basic);
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Type_size", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    *size = (int)cb_type_size(datatype);
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Type_get_extent", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    *lb = 0;
    *extent = cb_type_extent(datatype);
    return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_vector";
    if (!cb_type_valid(oldtype))
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)oldtype);
    if (count < 0 || blocklength < 0)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_COUNT, "count %d or block length %d is negative", count, blocklength);
    if (stride < blocklength)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "stride %d is below the block length %d: overlapping blocks are not supported", stride, blocklength);
    for (int i = 0; i < MAX_TYPES; i++)
        if (!types[i].used) {
            types[i] = (struct derived){1, 0, count, blocklength, stride, oldtype, 1, 0};
            cb_type_hold(oldtype);
            *newtype = CB_DERIVED + i;
            return MPI_SUCCESS;
        }
    return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d derived datatypes", MAX_TYPES);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return PMPI_Type_vector(count, 1, 1, oldtype, newtype);
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    struct derived *d = derived(*datatype);
    if (d && !d->freed)
        d->committed = 1;
    else if (!cb_type_valid(*datatype))
        return cb_fail("MPI_Type_commit", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)*datatype);
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    struct derived *d = derived(*datatype);
    if (!d || d->freed)
        return cb_fail("MPI_Type_free", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is not a derived datatype", (unsigned)*datatype);
    d->freed = 1;
    cb_type_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
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

int cb_check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype t)
{
    if (user_op(op))
        return MPI_SUCCESS;
    int k = kind(t), ok;
    switch (op) {
    case MPI_MAX: case MPI_MIN: case MPI_SUM: case MPI_PROD: ok = integer(k) || floating(k); break;
    case MPI_LAND: case MPI_LOR: case MPI_LXOR: ok = integer(k); break;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR: ok = integer(k) || k == K_BYTE; break;
    case MPI_MAXLOC: case MPI_MINLOC: ok = k >= K_FLOAT_INT && k <= K_LDOUBLE_INT; break;
    default: return cb_fail(call, comm, MPI_ERR_OP, "operation %d is invalid", op);
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

/* MAXLOC/MINLOC: the better value; on a tie the smaller index. */
#define LOC(V)                                                                                   \
    do {                                                                                         \
        const struct { V v; int i; } *a = in;                                                    \
        struct { V v; int i; } *b = inout;                                                       \
        for (int i = 0; i < n; i++) {                                                            \
            int better = op == MPI_MAXLOC ? a[i].v > b[i].v : a[i].v < b[i].v;                   \
            if (better || (a[i].v == b[i].v && a[i].i < b[i].i))                                 \
                b[i].v = a[i].v, b[i].i = a[i].i;                                                   \
        }                                                                                        \
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
    int n = count, k = kind(t);
    if (u) {
        u->fn((void *)in, inout, &n, &t);
        return MPI_SUCCESS;
    }
    if (op >= MPI_BAND && op <= MPI_BXOR && (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)) {
        BY_KIND(BITS)
    }
    if (op == MPI_MAXLOC || op == MPI_MINLOC) {
        switch (k) {
        case K_FLOAT_INT: LOC(float);
        case K_DOUBLE_INT: LOC(double);
        case K_LONG_INT: LOC(long);
        case K_2INT: LOC(int);
        case K_SHORT_INT: LOC(short);
        case K_LDOUBLE_INT: LOC(long double);
        }
    }
    switch (k) {
    case K_FLOAT: ARITH(float);
    case K_DOUBLE: ARITH(double);
    case K_LDOUBLE: ARITH(long double);
    }
    BY_KIND(ARITH)
    return MPI_ERR_OP;
}

#pragma weak MPI_Type_size = PMPI_Type_size
#pragma weak MPI_Get_elements = PMPI_Get_elements
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
#pragma weak MPI_Type_vector = PMPI_Type_vector
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
#pragma weak MPI_Type_commit = PMPI_Type_commit
#pragma weak MPI_Type_free = PMPI_Type_free
#pragma weak MPI_Op_create = PMPI_Op_create
#pragma weak MPI_Op_free = PMPI_Op_free
