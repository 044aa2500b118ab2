/* MPI_Type_create_subarray (MPI-2.2 §4.1.3): a block of an n-dimensional array, built from the
 * MPI-1 constructors (a contiguous run of the fastest dimension, an hvector per slower one),
 * placed at its start and resized to the whole array, so consecutive elements of the type are
 * consecutive arrays. */
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

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
