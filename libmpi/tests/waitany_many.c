/* MPI_Waitany, MPI_Testany and MPI_Waitall over more than 4096 entries (issue 22: fixed
 * arrays of 4096): Waitany and Testany over 5000 entries, most MPI_REQUEST_NULL; then 5000
 * requests pending at once (receives from MPI_PROC_NULL, done at once, and 16 real ones from
 * rank 0, so the simulated time stays short) and one Waitall over them all. */
#include <stdlib.h>
#include "mtest.h"

#define N 5000
#define REAL 16

int main(int argc, char **argv)
{
    int rank, index, flag;
    MPI_Request *q = malloc(sizeof *q * N);
    int *v = malloc(sizeof *v * N);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++)
        q[i] = MPI_REQUEST_NULL;
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            v[i] = i;
        MPI_Send(&v[7], 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        for (int i = 0; i < REAL; i++)
            MPI_Isend(&v[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &q[i]);
        MPI_Waitall(REAL, q, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        MPI_Irecv(&v[N - 1], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &q[N - 1]);
        MPI_Waitany(N, q, &index, MPI_STATUS_IGNORE);
        CHECK_MSG(index == N - 1 && v[N - 1] == 7, "Waitany: index %d, value %d", index, v[N - 1]);
        MPI_Testany(N, q, &index, &flag, MPI_STATUS_IGNORE);
        CHECK_MSG(flag && index == MPI_UNDEFINED, "Testany over nulls: flag %d, index %d", flag, index);
        for (int i = 0; i < N; i++) {
            v[i] = -1;
            MPI_Irecv(&v[i], 1, MPI_INT, i < REAL ? 0 : MPI_PROC_NULL, i, MPI_COMM_WORLD, &q[i]);
        }
        MPI_Waitall(N, q, MPI_STATUSES_IGNORE);
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += v[i] != (i < REAL ? i : -1) || q[i] != MPI_REQUEST_NULL;
        CHECK_MSG(bad == 0, "%d of %d values or requests wrong", bad, N);
    }
    free(q);
    free(v);
    return mtest_finalize();
}
