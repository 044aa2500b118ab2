/* Reductions with user operations over derived datatypes (found by MPICH's coll/allred3,
 * allred4, allred_derived, red3, red4): the operation gets the derived datatype and buffers in
 * memory layout, including a strided vector's gaps, which the result leaves untouched. A
 * non-commutative operation on a contiguous 2x2-matrix type is applied in rank order by
 * Reduce, Allreduce (also MPI_IN_PLACE) and Scan; a predefined operation over a derived
 * datatype reduces its elements. */
#include <string.h>
#include "mtest.h"

#define GAP -77

static MPI_Datatype mat; /* 4 contiguous ints: a 2x2 matrix */

/* inout = in * inout for each matrix, whatever the element count means for the type. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *t)
{
    int *a = in, *b = inout;
    if (*t != mat)
        return;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

/* Element-wise maximum over a vector of 3 ints spread with stride 2: reads only the data slots. */
static MPI_Datatype strided;
static void vmax(void *in, void *inout, int *len, MPI_Datatype *t)
{
    int *a = in, *b = inout;
    if (*t != strided)
        return;
    for (int k = 0; k < *len; k++, a += 5, b += 5)
        for (int j = 0; j < 5; j += 2)
            b[j] = a[j] > b[j] ? a[j] : b[j];
}

/* Rank r's matrix: [[1, r+1], [0, 1]]; the ordered product of ranks lo..hi is [[1, sum], [0, 1]]. */
static void rank_matrix(int r, int *m)
{
    m[0] = 1, m[1] = r + 1, m[2] = 0, m[3] = 1;
}

static int triangle(int hi)
{
    return (hi + 1) * (hi + 2) / 2;
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Op mul, mx;
    MPI_Op_create(matmul, 0, &mul);
    MPI_Op_create(vmax, 1, &mx);

    int mine[8], out[8];
    rank_matrix(rank, mine);
    rank_matrix(rank, mine + 4);
    memset(out, 0, sizeof out);
    MPI_Reduce(mine, out, 2, mat, mul, n - 1, MPI_COMM_WORLD);
    if (rank == n - 1)
        for (int k = 0; k < 2; k++)
            CHECK_MSG(out[4 * k] == 1 && out[4 * k + 1] == triangle(n - 1) && out[4 * k + 2] == 0 && out[4 * k + 3] == 1,
                "reduce matrix %d: [%d %d; %d %d]", k, out[4 * k], out[4 * k + 1], out[4 * k + 2], out[4 * k + 3]);
    MPI_Allreduce(mine, out, 2, mat, mul, MPI_COMM_WORLD);
    CHECK_MSG(out[1] == triangle(n - 1) && out[5] == triangle(n - 1), "allreduce: %d %d", out[1], out[5]);
    memcpy(out, mine, sizeof mine);
    MPI_Allreduce(MPI_IN_PLACE, out, 2, mat, mul, MPI_COMM_WORLD);
    CHECK_MSG(out[1] == triangle(n - 1) && out[7] == 1, "allreduce in place: %d %d", out[1], out[7]);
    MPI_Scan(mine, out, 1, mat, mul, MPI_COMM_WORLD);
    CHECK_MSG(out[0] == 1 && out[1] == triangle(rank) && out[2] == 0, "scan: %d (want %d)", out[1], triangle(rank));

    /* Two strided elements of 5 ints each (data at 0, 2, 4 of each): the gaps keep their value. */
    int v[10], w[10];
    for (int i = 0; i < 10; i++) {
        v[i] = (i % 5) % 2 ? GAP : (rank * 10 + i) * (i < 5 ? 1 : -1);
        w[i] = GAP;
    }
    MPI_Allreduce(v, w, 2, strided, mx, MPI_COMM_WORLD);
    for (int i = 0; i < 10; i++) {
        int want = (i % 5) % 2 ? GAP : ((i < 5 ? n - 1 : 0) * 10 + i) * (i < 5 ? 1 : -1);
        CHECK_MSG(w[i] == want, "strided allreduce slot %d: %d (want %d)", i, w[i], want);
    }

    /* A predefined operation over a derived type works element by element on its ints. */
    int sum[4] = {0, 0, 0, 0}, each[4];
    for (int r = 0; r < n; r++) {
        rank_matrix(r, each);
        for (int i = 0; i < 4; i++)
            sum[i] += each[i];
    }
    MPI_Allreduce(mine, out, 1, mat, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        CHECK_MSG(out[i] == sum[i], "MPI_SUM over a derived type, int %d: %d (want %d)", i, out[i], sum[i]);

    MPI_Op_free(&mul);
    MPI_Op_free(&mx);
    MPI_Type_free(&mat);
    MPI_Type_free(&strided);
    return mtest_finalize();
}
