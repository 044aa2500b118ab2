/* Derived datatypes (MPI-1.3 §3.12, MPI-2.2 §4.1): every constructor, extents, addresses.
 *
 * A derived type is a list of blocks, each `len` elements of an older type at byte
 * displacement `disp`, with its lower bound and extent (explicit from MPI_LB/MPI_UB markers
 * or MPI_Type_create_resized, else those of its data; a struct's extent is padded to its
 * most aligned member, as C pads a struct) and its true bounds (the data's alone). Handles
 * from CB_DERIVED on; the predefined types are datatype/basic.c's. Messages of derived types
 * travel packed: cb_pack walks the blocks in order, cb_unpack does the same and stops where
 * the bytes end, so a short message fills as many basic elements as it holds.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"


/* A slot stays `used` while referenced (MPI_Type_free's semantics): by the user's handle until
 * freed, by each type built on it and by each pending request (cb_type_hold/release). */
static struct derived {
    int used, committed, refs, freed;
    int n; /* blocks */
    MPI_Aint *disp;
    int *len;
    MPI_Datatype *old;
    MPI_Aint lb, ub, true_lb, true_ub;
    int explicit_lb, explicit_ub;
    size_t size;
} types[CB_MAX_TYPES];

static struct derived *derived(MPI_Datatype t)
{
    int i = t - CB_DERIVED;
    return i >= 0 && i < CB_MAX_TYPES && types[i].used ? &types[i] : NULL;
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
        cb_type_forget(t);
        for (int b = 0; b < d->n; b++)
            cb_type_release(d->old[b]);
        free(d->disp);
        free(d->len);
        free(d->old);
    }
}

int cb_type_valid(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (d)
        return !d->freed;
    return cb_predefined(t);
}

size_t cb_type_size(MPI_Datatype t)
{
    struct derived *d = derived(t);
    return d ? d->size : cb_basic_size(t);
}

int cb_type_direct(MPI_Datatype t)
{
    return !derived(t) && (MPI_Aint)cb_type_size(t) == cb_type_extent(t);
}

MPI_Aint cb_type_lb(MPI_Datatype t)
{
    struct derived *d = derived(t);
    return d ? d->lb : 0;
}

MPI_Aint cb_type_extent(MPI_Datatype t)
{
    struct derived *d = derived(t);
    return d ? d->ub - d->lb : (MPI_Aint)(t & 0xff);
}

/* The alignment C gives the type's most aligned basic member. */
static MPI_Aint alignment(MPI_Datatype t)
{
    struct derived *d = derived(t);
    if (!d) {
        MPI_Aint a = cb_basic_align(t);
        return a ? a : 1;
    }
    MPI_Aint most = 1;
    for (int b = 0; b < d->n; b++) {
        MPI_Aint a = alignment(d->old[b]);
        most = a > most ? a : most;
    }
    return most;
}

static int leaves_of(MPI_Datatype t, MPI_Datatype *base)
{
    struct derived *d = derived(t);
    if (!d) {
        if (*base == MPI_DATATYPE_NULL)
            *base = t;
        return *base == t;
    }
    for (int b = 0; b < d->n; b++)
        if (d->len[b] && !leaves_of(d->old[b], base))
            return 0;
    return 1;
}

MPI_Datatype cb_type_base(MPI_Datatype t, int count, int *n)
{
    MPI_Datatype base = MPI_DATATYPE_NULL;
    if (!derived(t)) {
        *n = count;
        return t;
    }
    if (!leaves_of(t, &base) || base == MPI_DATATYPE_NULL)
        base = MPI_BYTE; /* mixed members: no predefined operation applies */
    size_t size = cb_type_size(base);
    *n = size ? (int)((size_t)count * cb_type_size(t) / size) : 0;
    return base;
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

/* Copy `count` elements of `t` at `buf` to or from the packed bytes at `*packed`, at most
 * `*left` bytes of them (basic elements past that are left alone). */
static void walk(char *buf, int count, MPI_Datatype t, char **packed, size_t *left, int pack)
{
    struct derived *d = derived(t);
    size_t vsize, ioff;
    if (!d && cb_pair(t, &vsize, &ioff)) { /* value, then int: packed without C's padding */
        MPI_Aint ext = cb_type_extent(t);
        for (int e = 0; e < count && *left >= vsize; e++) {
            walk(buf + e * ext, (int)vsize, MPI_BYTE, packed, left, pack);
            if (*left >= sizeof(int))
                walk(buf + e * ext + ioff, (int)sizeof(int), MPI_BYTE, packed, left, pack);
        }
        return;
    }
    if (!d) {
        size_t size = cb_type_size(t), n = (size_t)count * size;
        if (n > *left)
            n = size ? *left / size * size : 0;
        if (pack)
            memcpy(*packed, buf, n);
        else
            memcpy(buf, *packed, n);
        *packed += n;
        *left -= n;
        return;
    }
    MPI_Aint ext = cb_type_extent(t);
    for (int e = 0; e < count && *left; e++)
        for (int b = 0; b < d->n && *left; b++)
            walk(buf + e * ext + d->disp[b], d->len[b], d->old[b], packed, left, pack);
}

void cb_pack(const void *buf, int count, MPI_Datatype t, char *out)
{
    size_t left = (size_t)count * cb_type_size(t);
    walk((char *)buf, count, t, &out, &left, 1);
}

/* Unpack `bytes` into at most the buffer's elements: a short message fills what it holds. */
void cb_unpack(const char *in, size_t bytes, MPI_Datatype t, void *buf)
{
    struct derived *d = derived(t);
    size_t size = cb_type_size(t);
    int count = size ? (int)((bytes + size - 1) / size) : 0;
    char *from = (char *)in;
    if (!d && (MPI_Aint)size == cb_type_extent(t)) {
        memcpy(buf, in, bytes);
        return;
    }
    walk(buf, count, t, &from, &bytes, 0);
}

/* Basic elements in one element of `t`, as far as `*bytes` go (consumed); MPI_Get_elements. */
static long elements(MPI_Datatype t, size_t *bytes)
{
    struct derived *d = derived(t);
    size_t vsize, ioff;
    if (!d && cb_pair(t, &vsize, &ioff) && *bytes >= vsize) { /* a pair is two basic elements */
        *bytes -= vsize;
        if (*bytes < sizeof(int))
            return 1;
        *bytes -= sizeof(int);
        return 2;
    }
    if (!d) { /* one element of it, if the bytes hold one */
        size_t size = cb_type_size(t);
        if (!size || *bytes < size)
            return 0;
        *bytes -= size;
        return 1;
    }
    long n = 0;
    for (int b = 0; b < d->n; b++)
        for (int k = 0; k < d->len[b]; k++) {
            size_t before = *bytes;
            n += elements(d->old[b], bytes);
            if (*bytes == before && cb_type_size(d->old[b]))
                return n;
        }
    return n;
}

/* A new type of `n` blocks; bounds and size are set from them (explicit markers aside). */
static int new_type(const char *call, int n, const MPI_Aint *disp, const int *len, const MPI_Datatype *old, int is_struct, MPI_Datatype *out)
{
    int i = 0;
    while (i < CB_MAX_TYPES && types[i].used)
        i++;
    if (i == CB_MAX_TYPES)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d derived datatypes", CB_MAX_TYPES);
    struct derived *d = &types[i];
    *d = (struct derived){.used = 1, .refs = 1};
    d->disp = malloc(sizeof *d->disp * (size_t)(n > 0 ? n : 1));
    d->len = malloc(sizeof *d->len * (size_t)(n > 0 ? n : 1));
    d->old = malloc(sizeof *d->old * (size_t)(n > 0 ? n : 1));
    int data = 0;
    MPI_Aint lb = 0, ub = 0, tlb = 0, tub = 0, xlb = 0, xub = 0;
    for (int b = 0; b < n; b++) {
        if (old[b] == MPI_LB || old[b] == MPI_UB) {
            MPI_Aint *x = old[b] == MPI_LB ? &xlb : &xub;
            int *has = old[b] == MPI_LB ? &d->explicit_lb : &d->explicit_ub;
            if (!*has || (old[b] == MPI_LB ? disp[b] < *x : disp[b] > *x))
                *x = disp[b];
            *has = 1;
            continue;
        }
        struct derived *o = derived(old[b]);
        int k = d->n++;
        d->disp[k] = disp[b];
        d->len[k] = len[b];
        d->old[k] = old[b];
        cb_type_hold(old[b]);
        d->size += (size_t)len[b] * cb_type_size(old[b]);
        if (len[b] == 0)
            continue;
        MPI_Aint ext = cb_type_extent(old[b]), olb = cb_type_lb(old[b]);
        MPI_Aint lo = disp[b] + olb + (ext < 0 ? (len[b] - 1) * ext : 0);
        MPI_Aint hi = disp[b] + olb + (ext > 0 ? len[b] * ext : ext);
        MPI_Aint tlo = disp[b] + (o ? o->true_lb : 0) + (ext < 0 ? (len[b] - 1) * ext : 0);
        MPI_Aint thi = disp[b] + (o ? o->true_ub : (MPI_Aint)cb_type_size(old[b])) + (ext > 0 ? (len[b] - 1) * ext : 0);
        if (o && o->explicit_lb && (!d->explicit_lb || lo < xlb))
            xlb = lo, d->explicit_lb = 1;
        if (o && o->explicit_ub && (!d->explicit_ub || hi > xub))
            xub = hi, d->explicit_ub = 1;
        lb = data && lb < lo ? lb : lo;
        ub = data && ub > hi ? ub : hi;
        tlb = data && tlb < tlo ? tlb : tlo;
        tub = data && tub > thi ? tub : thi;
        data = 1;
    }
    d->lb = d->explicit_lb ? xlb : lb;
    d->ub = d->explicit_ub ? xub : ub;
    d->true_lb = tlb;
    d->true_ub = tub;
    if (is_struct && !d->explicit_ub) {
        MPI_Aint a = 1;
        for (int b = 0; b < d->n; b++) {
            MPI_Aint x = alignment(d->old[b]);
            a = x > a ? x : a;
        }
        MPI_Aint ext = d->ub - d->lb;
        if (ext % a)
            d->ub += a - ext % a;
    }
    *out = CB_DERIVED + i;
    return MPI_SUCCESS;
}

static int check_old(const char *call, MPI_Datatype t, int markers)
{
    if (cb_type_valid(t) || (markers && (t == MPI_LB || t == MPI_UB)))
        return MPI_SUCCESS;
    return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)t);
}

static int check_count(const char *call, int count)
{
    if (count < 0)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_COUNT, "count %d is negative", count);
    return MPI_SUCCESS;
}

/* `count` blocks of `lens[i]` (or `len`) elements of `old` at byte displacements `disp[i]`. */
static int blocks(const char *call, int count, const int *lens, int len, const MPI_Aint *disp, MPI_Datatype old, MPI_Datatype *out)
{
    CB_CHECK(check_count(call, count));
    CB_CHECK(check_old(call, old, 0));
    int *l = malloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
    MPI_Datatype *o = malloc(sizeof(MPI_Datatype) * (size_t)(count > 0 ? count : 1));
    int rc = MPI_SUCCESS;
    for (int b = 0; b < count; b++) {
        l[b] = lens ? lens[b] : len;
        o[b] = old;
        if (l[b] < 0)
            rc = cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "block length %d (block %d) is negative", l[b], b);
    }
    if (rc == MPI_SUCCESS)
        rc = new_type(call, count, disp, l, o, 0, out);
    free(l);
    free(o);
    return rc;
}

static int strided(const char *call, int count, int len, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *out)
{
    CB_CHECK(check_count(call, count));
    if (len < 0)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "block length %d is negative", len);
    MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (size_t)(count > 0 ? count : 1));
    for (int b = 0; b < count; b++)
        disp[b] = b * stride;
    int rc = blocks(call, count, NULL, len, disp, old, out);
    free(disp);
    return rc;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    CB_CHECK(check_count("MPI_Type_contiguous", count));
    MPI_Aint zero = 0;
    CB_CHECK(blocks("MPI_Type_contiguous", 1, NULL, count, &zero, oldtype, newtype));
    cb_type_record(*newtype, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &oldtype);
    return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    CB_CHECK(check_old("MPI_Type_vector", oldtype, 0));
    CB_CHECK(strided("MPI_Type_vector", count, blocklength, stride * cb_type_extent(oldtype), oldtype, newtype));
    int ints[3] = {count, blocklength, stride};
    cb_type_record(*newtype, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &oldtype);
    return MPI_SUCCESS;
}

static int hvector(const char *call, int combiner, int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    CB_CHECK(strided(call, count, blocklength, stride, oldtype, newtype));
    int ints[2] = {count, blocklength};
    cb_type_record(*newtype, combiner, 2, ints, 1, &stride, 1, &oldtype);
    return MPI_SUCCESS;
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector("MPI_Type_hvector", MPI_COMBINER_HVECTOR_INTEGER, count, blocklength, stride, oldtype, newtype);
}

static int indexed(const char *call, int combiner, int count, const int *lens, int len, const int *disps, MPI_Datatype old, MPI_Datatype *out)
{
    CB_CHECK(check_count(call, count));
    CB_CHECK(check_old(call, old, 0));
    MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (size_t)(count > 0 ? count : 1)), ext = cb_type_extent(old);
    for (int b = 0; b < count; b++)
        disp[b] = disps[b] * ext;
    int rc = blocks(call, count, lens, len, disp, old, out);
    free(disp);
    if (rc == MPI_SUCCESS)
        cb_type_record_blocks(*out, combiner, count, lens, len, disps, NULL, NULL, old);
    return rc;
}

int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, blocklengths, 0, displacements, oldtype, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (blocklength < 0)
        return cb_fail("MPI_Type_create_indexed_block", MPI_COMM_WORLD, MPI_ERR_ARG, "block length %d is negative", blocklength);
    return indexed("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, displacements, oldtype, newtype);
}

static int hindexed(const char *call, int combiner, int count, const int *lens, const MPI_Aint *disps, MPI_Datatype old, MPI_Datatype *out)
{
    CB_CHECK(blocks(call, count, lens, 0, disps, old, out));
    cb_type_record_blocks(*out, combiner, count, lens, 0, NULL, disps, NULL, old);
    return MPI_SUCCESS;
}

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hindexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, blocklengths, displacements, oldtype, newtype);
}

int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hindexed("MPI_Type_hindexed", MPI_COMBINER_HINDEXED_INTEGER, count, blocklengths, displacements, oldtype, newtype);
}

static int structure(const char *call, int combiner, int count, const int *lens, const MPI_Aint *disps, const MPI_Datatype *olds, MPI_Datatype *out)
{
    CB_CHECK(check_count(call, count));
    for (int b = 0; b < count; b++) {
        CB_CHECK(check_old(call, olds[b], 1));
        if (lens[b] < 0)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "block length %d (block %d) is negative", lens[b], b);
    }
    CB_CHECK(new_type(call, count, disps, lens, olds, 1, out));
    cb_type_record_blocks(*out, combiner, count, lens, 0, NULL, disps, olds, MPI_DATATYPE_NULL);
    return MPI_SUCCESS;
}

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[], const MPI_Datatype types_[], MPI_Datatype *newtype)
{
    return structure("MPI_Type_create_struct", MPI_COMBINER_STRUCT, count, blocklengths, displacements, types_, newtype);
}

int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types_[], MPI_Datatype *newtype)
{
    return structure("MPI_Type_struct", MPI_COMBINER_STRUCT_INTEGER, count, blocklengths, displacements, types_, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_resized";
    CB_CHECK(check_old(call, oldtype, 0));
    MPI_Aint disp[3] = {lb, 0, lb + extent};
    int len[3] = {1, 1, 1};
    MPI_Datatype old[3] = {MPI_LB, oldtype, MPI_UB};
    CB_CHECK(new_type(call, 3, disp, len, old, 0, newtype));
    /* Exactly these bounds (MPI-2.2 §4.1.7), also when oldtype's own markers lie outside them. */
    struct derived *d = derived(*newtype);
    d->lb = lb;
    d->ub = lb + extent;
    MPI_Aint addrs[2] = {lb, extent};
    cb_type_record(*newtype, MPI_COMBINER_RESIZED, 0, NULL, 2, addrs, 1, &oldtype);
    return MPI_SUCCESS;
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    CB_CHECK(check_old("MPI_Type_dup", oldtype, 0));
    CB_CHECK(CB_INNER(PMPI_Type_create_resized(oldtype, cb_type_lb(oldtype), cb_type_extent(oldtype), newtype)));
    struct derived *o = derived(oldtype), *d = derived(*newtype);
    d->committed = o ? o->committed : 1;
    cb_type_record(*newtype, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype);
    int rc = cb_type_copied(oldtype, *newtype);
    if (rc != MPI_SUCCESS) /* MPI-2.2 §6.7.4: no new type when a copy function fails */
        CB_INNER(PMPI_Type_free(newtype));
    return rc;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Type_size", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    *size = (int)cb_type_size(datatype);
    return MPI_SUCCESS;
}

static int bounds(const char *call, MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent, int true_ones)
{
    if (!cb_type_valid(t))
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)t);
    struct derived *d = derived(t);
    if (lb)
        *lb = !d ? 0 : true_ones ? d->true_lb : d->lb;
    if (extent)
        *extent = !d ? cb_type_extent(t) : true_ones ? d->true_ub - d->true_lb : d->ub - d->lb;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return bounds("MPI_Type_get_extent", datatype, lb, extent, 0);
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    return bounds("MPI_Type_get_true_extent", datatype, true_lb, true_extent, 1);
}

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    return bounds("MPI_Type_extent", datatype, NULL, extent, 0);
}

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    return bounds("MPI_Type_lb", datatype, displacement, NULL, 0);
}

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb = 0, ext = 0;
    CB_CHECK(bounds("MPI_Type_ub", datatype, &lb, &ext, 0));
    *displacement = lb + ext;
    return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(char *)location;
    return MPI_SUCCESS;
}

int PMPI_Address(void *location, MPI_Aint *address)
{
    return CB_INNER(PMPI_Get_address(location, address));
}

/* The bytes of `count` basic elements of `t` (whole elements of t, then the first basic
 * elements of one more); MPI_Get_elements counts them back. */
size_t cb_type_element_bytes(MPI_Datatype t, int count)
{
    size_t size = cb_type_size(t), one = size;
    long per = size ? elements(t, &one) : 0;
    if (per <= 0)
        return 0;
    size_t bytes = (size_t)(count / per) * size;
    long more = count % per;
    for (size_t b = 0; more > 0 && b < size; b++) { /* the shortest prefix holding `more` elements */
        size_t left = b + 1;
        if (elements(t, &left) >= more && left == 0)
            return bytes + b + 1;
    }
    return bytes;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Get_elements", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    size_t bytes = (size_t)status->count, size = cb_type_size(datatype);
    if (size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    size_t whole = bytes / size, rest = bytes - whole * size;
    size_t one = size;
    long per = elements(datatype, &one);
    long n = (long)whole * per + elements(datatype, &rest);
    *count = rest ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
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
    CB_CHECK(cb_type_freeing(*datatype));
    d->freed = 1;
    cb_type_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
#pragma weak MPI_Type_vector = PMPI_Type_vector
#pragma weak MPI_Type_hvector = PMPI_Type_hvector
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
#pragma weak MPI_Type_indexed = PMPI_Type_indexed
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
#pragma weak MPI_Type_struct = PMPI_Type_struct
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
#pragma weak MPI_Type_dup = PMPI_Type_dup
#pragma weak MPI_Type_size = PMPI_Type_size
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
#pragma weak MPI_Type_extent = PMPI_Type_extent
#pragma weak MPI_Type_lb = PMPI_Type_lb
#pragma weak MPI_Type_ub = PMPI_Type_ub
#pragma weak MPI_Get_address = PMPI_Get_address
#pragma weak MPI_Address = PMPI_Address
#pragma weak MPI_Get_elements = PMPI_Get_elements
#pragma weak MPI_Type_commit = PMPI_Type_commit
#pragma weak MPI_Type_free = PMPI_Type_free
