/* Parts of an n-dimensional array, built from the MPI-1 constructors, placed at their start and
 * resized to the whole array so that consecutive elements of the type are consecutive arrays:
 * MPI_Type_create_subarray (MPI-2.2 §4.1.3), a block (a contiguous run of the fastest
 * dimension, an hvector per slower one), and MPI_Type_create_darray (§4.1.4), one process's
 * share of an array distributed by blocks or cyclically over a process grid. */
#include <stdlib.h>
#include "internal.h"

static int check_dims(const char *call, int ndims, const int sizes[], const int subsizes[], const int starts[], int order)
{
    if (ndims <= 0)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "ndims %d is invalid: allowed 1 and up", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "order %d is invalid: allowed MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] <= 0)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "sizes[%d] = %d is invalid: allowed 1 and up", i, sizes[i]);
        if (subsizes[i] <= 0 || subsizes[i] > sizes[i])
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "subsizes[%d] = %d is invalid: allowed 1 to sizes[%d] = %d", i, subsizes[i], i,
                sizes[i]);
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "starts[%d] = %d is invalid: allowed 0 to sizes - subsizes = %d", i, starts[i],
                sizes[i] - subsizes[i]);
    }
    return MPI_SUCCESS;
}

/* `t` replaced by `next` (built on it): the intermediate types are the new type's to hold. */
static void step(MPI_Datatype *t, MPI_Datatype next, MPI_Datatype oldtype)
{
    if (*t != oldtype)
        CB_INNER(PMPI_Type_free(t));
    *t = next;
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order, MPI_Datatype oldtype,
    MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_subarray";
    cb_need_init(call);
    CB_CHECK(check_dims(call, ndims, sizes, subsizes, starts, order));
    if (!cb_type_valid(oldtype))
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "oldtype %#x is invalid", (unsigned)oldtype);
    MPI_Aint ext = cb_type_extent(oldtype), stride = ext, offset = 0;
    MPI_Datatype t = oldtype, next;
    /* Dimension `d` of the loop is the fastest first: the last in C order, the first in Fortran's. */
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        if (k == 0)
            CB_CHECK(CB_INNER(PMPI_Type_contiguous(subsizes[d], t, &next)));
        else
            CB_CHECK(CB_INNER(PMPI_Type_create_hvector(subsizes[d], 1, stride, t, &next)));
        step(&t, next, oldtype);
        offset += starts[d] * stride;
        stride *= sizes[d];
    }
    int one = 1;
    CB_CHECK(CB_INNER(PMPI_Type_create_hindexed(1, &one, &offset, t, &next)));
    step(&t, next, oldtype);
    CB_CHECK(CB_INNER(PMPI_Type_create_resized(t, 0, stride, newtype)));
    step(&t, MPI_DATATYPE_NULL, oldtype);
    int *ints = malloc(sizeof(int) * (size_t)(3 * ndims + 2));
    ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[1 + i] = sizes[i];
        ints[1 + ndims + i] = subsizes[i];
        ints[1 + 2 * ndims + i] = starts[i];
    }
    ints[1 + 3 * ndims] = order;
    cb_type_record(*newtype, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1, &oldtype);
    free(ints);
    return MPI_SUCCESS;
}

/* Darray: `stride[d]` is dimension d's in bytes (the faster dimensions' sizes times oldtype's
 * extent); each dimension's type is resized to its whole extent, gsize * stride, so the next
 * dimension's consecutive copies of it are consecutive rows. */
struct dim {
    int gsize, distrib, darg, psize, coord;
    MPI_Aint stride;
};

/* Dimension `d`'s elements this process holds, of `t` (the faster dimensions' type) into
 * `*out`; `*first` is the index of its first. */
static int darray_dim(const struct dim *d, MPI_Datatype t, MPI_Datatype *out, int *first)
{
    MPI_Datatype next;
    if (d->distrib != MPI_DISTRIBUTE_CYCLIC) { /* a block, or all of it (NONE: one process) */
        int b = d->distrib == MPI_DISTRIBUTE_NONE ? d->gsize : d->darg == MPI_DISTRIBUTE_DFLT_DARG ? (d->gsize + d->psize - 1) / d->psize : d->darg;
        int mine = d->gsize - b * d->coord;
        mine = mine < 0 ? 0 : mine > b ? b : mine;
        *first = mine ? b * d->coord : 0;
        CB_CHECK(CB_INNER(PMPI_Type_contiguous(mine, t, &next)));
    } else {
        int b = d->darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : d->darg, start = d->coord * b, span = b * d->psize;
        int mine = start >= d->gsize ? 0 : (d->gsize - start) / span * b, rest = start >= d->gsize ? 0 : (d->gsize - start) % span;
        mine += rest < b ? rest : b;
        *first = mine ? start : 0;
        MPI_Aint pitch = (MPI_Aint)span * d->stride;
        CB_CHECK(CB_INNER(PMPI_Type_create_hvector(mine / b, b, pitch, t, &next)));
        if (mine % b) { /* the last block, cut short by the array's end */
            int lens[2] = {1, mine % b};
            MPI_Aint disps[2] = {0, (MPI_Aint)(mine / b) * pitch};
            MPI_Datatype both[2] = {next, t}, joined;
            CB_CHECK(CB_INNER(PMPI_Type_create_struct(2, lens, disps, both, &joined)));
            CB_INNER(PMPI_Type_free(&next));
            next = joined;
        }
    }
    CB_CHECK(CB_INNER(PMPI_Type_create_resized(next, 0, (MPI_Aint)d->gsize * d->stride, out)));
    return CB_INNER(PMPI_Type_free(&next));
}

static int check_darray(const char *call, int size, int rank, int ndims, const struct dim *dims, int order)
{
    if (size <= 0 || rank < 0 || rank >= size)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "rank %d of size %d is invalid: allowed 0 to size - 1", rank, size);
    if (ndims <= 0)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "ndims %d is invalid: allowed 1 and up", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "order %d is invalid: allowed MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    long procs = 1;
    for (int i = 0; i < ndims; i++) {
        const struct dim *d = &dims[i];
        procs *= d->psize;
        if (d->gsize <= 0 || d->psize <= 0)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "gsizes[%d] = %d, psizes[%d] = %d: allowed 1 and up", i, d->gsize, i, d->psize);
        if (d->distrib != MPI_DISTRIBUTE_BLOCK && d->distrib != MPI_DISTRIBUTE_CYCLIC && d->distrib != MPI_DISTRIBUTE_NONE)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                "distribs[%d] = %d is invalid: allowed MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE", i, d->distrib);
        if (d->distrib == MPI_DISTRIBUTE_NONE && d->psize != 1)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "psizes[%d] = %d with MPI_DISTRIBUTE_NONE: allowed 1", i, d->psize);
        if (d->distrib != MPI_DISTRIBUTE_NONE && d->darg != MPI_DISTRIBUTE_DFLT_DARG && d->darg <= 0)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "dargs[%d] = %d is invalid: allowed 1 and up or MPI_DISTRIBUTE_DFLT_DARG", i, d->darg);
        if (d->distrib == MPI_DISTRIBUTE_BLOCK && d->darg != MPI_DISTRIBUTE_DFLT_DARG && (long)d->darg * d->psize < d->gsize)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "dargs[%d] = %d blocks of %d processes cover less than gsizes[%d] = %d", i,
                d->darg, d->psize, i, d->gsize);
    }
    if (procs != size)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "the psizes multiply to %ld: allowed size = %d", procs, size);
    return MPI_SUCCESS;
}

static void record_darray(MPI_Datatype t, int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
    const int psizes[], int order, MPI_Datatype oldtype)
{
    int *ints = malloc(sizeof(int) * (size_t)(4 * ndims + 4));
    ints[0] = size, ints[1] = rank, ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[3 + i] = gsizes[i];
        ints[3 + ndims + i] = distribs[i];
        ints[3 + 2 * ndims + i] = dargs[i];
        ints[3 + 3 * ndims + i] = psizes[i];
    }
    ints[3 + 4 * ndims] = order;
    cb_type_record(t, MPI_COMBINER_DARRAY, 4 * ndims + 4, ints, 0, NULL, 1, &oldtype);
    free(ints);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[], const int psizes[],
    int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *call = "MPI_Type_create_darray";
    cb_need_init(call);
    struct dim *dims = malloc(sizeof *dims * (size_t)(ndims > 0 ? ndims : 1));
    for (int i = 0, procs = size, left = rank; i < ndims; i++) { /* the process grid is row-major in either order */
        dims[i] = (struct dim){gsizes[i], distribs[i], dargs[i], psizes[i], 0, 0};
        if (psizes[i] > 0 && procs >= psizes[i]) {
            procs /= psizes[i];
            dims[i].coord = left / procs;
            left %= procs;
        }
    }
    int rc = check_darray(call, size, rank, ndims, dims, order);
    if (rc == MPI_SUCCESS && !cb_type_valid(oldtype))
        rc = cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "oldtype %#x is invalid", (unsigned)oldtype);
    MPI_Aint stride = cb_type_extent(oldtype), offset = 0;
    MPI_Datatype t = oldtype, next;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        struct dim *d = &dims[order == MPI_ORDER_C ? ndims - 1 - k : k];
        int first = 0;
        d->stride = stride;
        rc = darray_dim(d, t, &next, &first);
        if (rc == MPI_SUCCESS)
            step(&t, next, oldtype);
        offset += first * stride;
        stride *= d->gsize;
    }
    free(dims);
    CB_CHECK(rc);
    int one = 1;
    CB_CHECK(CB_INNER(PMPI_Type_create_hindexed(1, &one, &offset, t, &next)));
    step(&t, next, oldtype);
    CB_CHECK(CB_INNER(PMPI_Type_create_resized(t, 0, stride, newtype)));
    step(&t, MPI_DATATYPE_NULL, oldtype);
    record_darray(*newtype, size, rank, ndims, gsizes, distribs, dargs, psizes, order, oldtype);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
