/* MPI-2 datatype pieces MPICH's MPI-1 directories use: MPI_Type_create_subarray in both
 * orders (MPI-2.2 §4.1.3), MPI_Type_create_darray (§4.1.4), MPI_Type_get_envelope and _contents (§4.1.13), and MPI_COMPLEX /
 * MPI_DOUBLE_COMPLEX reduced with MPI_SUM and MPI_PROD (MPI-1.3 §4.9.2). */
#include <complex.h>
#include "mtest.h"

/* A 2x3 block at (1, 2) of a 4x6 int array, sent to this rank as 6 ints. */
static void subarray(int order)
{
    int sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2}, a[24], got[6];
    for (int i = 0; i < 24; i++)
        a[i] = i;
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sub, starts, order, MPI_INT, &t);
    MPI_Type_commit(&t);
    int size;
    MPI_Aint lb, extent;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK_MSG(size == 6 * (int)sizeof(int) && lb == 0 && extent == 24 * (MPI_Aint)sizeof(int), "size %d lb %ld extent %ld", size, (long)lb,
        (long)extent);
    MPI_Sendrecv(a, 1, t, 0, 0, got, 6, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    /* C order: row-major, 6 per row; Fortran order: column-major, 4 per column. */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            int want = order == MPI_ORDER_C ? (1 + i) * 6 + 2 + j : (2 + j) * 4 + 1 + i;
            int at = order == MPI_ORDER_C ? i * 3 + j : j * 2 + i;
            CHECK_MSG(got[at] == want, "order %d: element (%d, %d) is %d, want %d", order, i, j, got[at], want);
        }
    int ni, na, nd, combiner, ints[8];
    MPI_Datatype old;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    CHECK_MSG(combiner == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nd == 1, "subarray's envelope: %d (%d, %d, %d)", combiner, ni, na, nd);
    MPI_Type_get_contents(t, 8, 0, 1, ints, NULL, &old);
    CHECK_MSG(ints[0] == 2 && ints[2] == 6 && ints[4] == 3 && ints[6] == 2 && ints[7] == order && old == MPI_INT, "subarray's contents");
    MPI_Type_free(&t);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    starts[1] = 4;
    int rc = MPI_Type_create_subarray(2, sizes, sub, starts, order, MPI_INT, &t);
    CHECK_MSG(rc == MPI_ERR_ARG, "a block past the array's end: %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A 4x6 int array over a 2x2 process grid, rows by blocks, columns cyclically two at a time:
 * every rank's share is checked here, whatever the job's size. */
static void darray(void)
{
    int gsizes[2] = {4, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2}, a[24], got[24];
    for (int i = 0; i < 24; i++)
        a[i] = i;
    for (int r = 0; r < 4; r++) {
        MPI_Datatype t;
        MPI_Type_create_darray(4, r, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t);
        MPI_Type_commit(&t);
        int size, n = 0, ok = 1;
        MPI_Aint lb, extent;
        MPI_Type_size(t, &size);
        MPI_Type_get_extent(t, &lb, &extent);
        MPI_Sendrecv(a, 1, t, 0, 0, got, 24, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        for (int row = 2 * (r / 2); row < 2 * (r / 2) + 2; row++)
            for (int col = 0; col < 6; col++)
                if (col / 2 % 2 == r % 2)
                    ok &= got[n++] == row * 6 + col;
        CHECK_MSG(ok && size == n * (int)sizeof(int) && lb == 0 && extent == 24 * (MPI_Aint)sizeof(int),
            "rank %d's share: %d elements as expected %d, size %d, extent %ld", r, n, ok, size, (long)extent);
        int ni, na, nd, combiner;
        MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
        CHECK_MSG(combiner == MPI_COMBINER_DARRAY && ni == 12 && nd == 1, "darray's envelope: %d (%d ints)", combiner, ni);
        MPI_Type_free(&t);
    }
    /* A resized type's bounds are exactly the ones asked for, also inside oldtype's markers. */
    MPI_Datatype wide, narrow;
    MPI_Aint lb, extent;
    MPI_Type_create_resized(MPI_INT, 0, 16, &wide);
    MPI_Type_create_resized(wide, 0, 8, &narrow);
    MPI_Type_get_extent(narrow, &lb, &extent);
    CHECK_MSG(lb == 0 && extent == 8, "resized to 8 inside 16: lb %ld extent %ld", (long)lb, (long)extent);
    MPI_Type_free(&narrow);
    MPI_Type_free(&wide);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    psizes[1] = 3;
    int rc = MPI_Type_create_darray(4, 0, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t);
    CHECK_MSG(rc == MPI_ERR_ARG, "a 2x3 grid for 4 processes: %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void complex_ops(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double _Complex d = rank + 1.0 * I, dsum, dprod;
    float _Complex f = 1.0f + 1.0f * I, fprod;
    MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&d, &dprod, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    MPI_Allreduce(&f, &fprod, 1, MPI_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    double _Complex want = 1;
    float _Complex fwant = 1;
    for (int r = 0; r < size; r++) {
        want *= r + 1.0 * I;
        fwant *= 1.0f + 1.0f * I;
    }
    CHECK_MSG(creal(dsum) == size * (size - 1) / 2.0 && cimag(dsum) == size, "sum (%g, %g)", creal(dsum), cimag(dsum));
    CHECK_MSG(dprod == want, "product (%g, %g), want (%g, %g)", creal(dprod), cimag(dprod), creal(want), cimag(want));
    CHECK_MSG(fprod == fwant, "float product (%g, %g)", crealf(fprod), cimagf(fprod));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(rc == MPI_ERR_OP, "MPI_MAX on complex numbers: %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_DOUBLE_COMPLEX, name, &len);
    CHECK_MSG(len == 18, "MPI_DOUBLE_COMPLEX is named %s", name);
}

/* A vector of a vector: the outer one's contents hand out the inner one as a new handle, which
 * tells what made it and is freed on its own. */
static void contents(void)
{
    MPI_Datatype inner, outer, got[2];
    int ni, na, nd, combiner, ints[8];
    MPI_Aint addrs[2];
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &inner);
    MPI_Type_create_hvector(4, 2, 64, inner, &outer);
    MPI_Type_get_envelope(outer, &ni, &na, &nd, &combiner);
    CHECK_MSG(combiner == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nd == 1, "hvector's envelope: %d (%d, %d, %d)", combiner, ni, na, nd);
    MPI_Type_get_contents(outer, 8, 2, 2, ints, addrs, got);
    CHECK_MSG(ints[0] == 4 && ints[1] == 2 && addrs[0] == 64 && got[0] != inner, "hvector's contents: %d %d %ld", ints[0], ints[1], (long)addrs[0]);
    MPI_Type_get_envelope(got[0], &ni, &na, &nd, &combiner);
    MPI_Type_get_contents(got[0], 8, 2, 2, ints, addrs, &got[1]);
    CHECK_MSG(combiner == MPI_COMBINER_VECTOR && ni == 3 && ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && got[1] == MPI_DOUBLE,
        "the inner vector's copy: combiner %d, ints %d %d %d", combiner, ints[0], ints[1], ints[2]);
    MPI_Type_free(&got[0]);
    MPI_Type_free(&inner);
    MPI_Type_free(&outer);
    int lens[2] = {1, 2}, disps[2] = {5, 0};
    MPI_Type_indexed(2, lens, disps, MPI_INT, &inner);
    MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner);
    MPI_Type_get_contents(inner, 8, 2, 2, ints, addrs, got);
    CHECK_MSG(combiner == MPI_COMBINER_INDEXED && ni == 5 && ints[0] == 2 && ints[2] == 2 && ints[3] == 5 && got[0] == MPI_INT, "indexed's contents");
    MPI_Type_free(&inner);
    MPI_Type_get_envelope(MPI_FLOAT, &ni, &na, &nd, &combiner);
    CHECK_MSG(combiner == MPI_COMBINER_NAMED && ni + na + nd == 0, "MPI_FLOAT's envelope: %d", combiner);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Type_get_contents(MPI_FLOAT, 8, 2, 2, ints, addrs, got);
    CHECK_MSG(rc == MPI_ERR_TYPE, "MPI_FLOAT's contents: %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    subarray(MPI_ORDER_C);
    subarray(MPI_ORDER_FORTRAN);
    darray();
    contents();
    complex_ops();
    return mtest_finalize();
}
