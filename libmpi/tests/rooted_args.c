/* Rooted collectives check only their significant arguments (found by MPICH's coll/gather2,
 * scatter2, scatter3): away from the root, Gather(v)'s receive side and Scatter(v)'s send side
 * may be -1 of MPI_DATATYPE_NULL, as may the ignored side at a root passing MPI_IN_PLACE; the
 * data still arrive, every root in turn. A bad count where it is significant is still
 * MPI_ERR_COUNT. */
#include "mtest.h"

#define M 3 /* doubles per rank */

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double all[M * 16], mine[M];

    for (int root = 0; root < n; root++) {
        for (int i = 0; i < M; i++)
            mine[i] = rank * 100 + i;
        for (int i = 0; i < M * n; i++)
            all[i] = -1;
        if (rank == root) {
            for (int i = 0; i < M; i++)
                all[root * M + i] = mine[i];
            MPI_Gather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, M, MPI_DOUBLE, root, MPI_COMM_WORLD);
        } else {
            MPI_Gather(mine, M, MPI_DOUBLE, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        }
        if (rank == root)
            for (int i = 0; i < M * n; i++)
                CHECK_MSG(all[i] == (i / M) * 100 + i % M, "gather to %d, element %d: %g", root, i, all[i]);

        /* Scatter it back: the root keeps its block in place. */
        for (int i = 0; i < M; i++)
            mine[i] = -2;
        if (rank == root) {
            MPI_Scatter(all, M, MPI_DOUBLE, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        } else {
            MPI_Scatter(NULL, -1, MPI_DATATYPE_NULL, mine, M, MPI_DOUBLE, root, MPI_COMM_WORLD);
            for (int i = 0; i < M; i++)
                CHECK_MSG(mine[i] == rank * 100 + i, "scatter from %d, element %d: %g", root, i, mine[i]);
        }
        int counts[16], displs[16];
        for (int r = 0; r < n; r++)
            counts[r] = M, displs[r] = r * M;
        if (rank == root)
            MPI_Gatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all, counts, displs, MPI_DOUBLE, root, MPI_COMM_WORLD);
        else
            MPI_Gatherv(mine, M, MPI_DOUBLE, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        if (rank != root) {
            for (int i = 0; i < M; i++)
                mine[i] = -3;
            MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, mine, M, MPI_DOUBLE, root, MPI_COMM_WORLD);
            CHECK_MSG(mine[0] == rank * 100 && mine[M - 1] == rank * 100 + M - 1, "scatterv from %d: %g .. %g", root, mine[0], mine[M - 1]);
        } else {
            MPI_Scatterv(all, counts, displs, MPI_DOUBLE, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        }
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Gather(mine, -1, MPI_DOUBLE, all, M, MPI_DOUBLE, 0, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_COUNT, "a send count of -1 where it counts: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mtest_finalize();
}
