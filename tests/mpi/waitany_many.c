/* MPI_Waitany, MPI_Testany and MPI_Waitall over more than 4096 entries (issue 22: a fixed
 * stack array overflowed): 5000 receives pending at once, most of the array MPI_REQUEST_NULL
 * for Waitany, every one a real request for Waitall. */
#include <stdlib.h>
#include "mtest.h"

#define N 5000

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
        for (int i = 0; i < N; i++)
            MPI_Isend(&v[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &q[i]);
        MPI_Waitall(N, q, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        MPI_Irecv(&v[N - 1], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &q[N - 1]);
        MPI_Waitany(N, q, &index, MPI_STATUS_IGNORE);
        CHECK_MSG(index == N - 1 && v[N - 1] == 7, "Waitany: index %d, value %d", index, v[N - 1]);
        MPI_Testany(N, q, &index, &flag, MPI_STATUS_IGNORE);
        CHECK_MSG(flag && index == MPI_UNDEFINED, "Testany over nulls: flag %d, index %d", flag, index);
        for (int i = 0; i < N; i++)
            MPI_Irecv(&v[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &q[i]);
        MPI_Waitall(N, q, MPI_STATUSES_IGNORE);
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += v[i] != i;
        CHECK_MSG(bad == 0, "%d of %d values wrong", bad, N);
    }
    free(q);
    free(v);
    int rc = mtest_finalize();
    MPI_Finalize();
    return rc;
}
