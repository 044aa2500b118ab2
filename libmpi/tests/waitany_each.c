/* MPI_Waitany over N requests that all complete, called N times (issue 43: 1,250, 2,500 and
 * 5,000 took 1.2, 2.8 and 8.5 s, each pass of the engine reading every pending request): rank
 * 1 posts N receives, rank 0 sends N messages, and rank 1 takes each receive in turn as
 * MPI_Waitany names it; each index exactly once, each value its own. argv[1]: N. */
#include <stdlib.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *v = malloc(sizeof *v * (size_t)n), *seen = calloc((size_t)n, sizeof *seen);
    MPI_Request *q = malloc(sizeof *q * (size_t)n);
    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            v[i] = 3 * i + 1;
            MPI_Isend(&v[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &q[i]);
        }
        MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < n; i++)
            MPI_Irecv(&v[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &q[i]);
        int bad = 0;
        for (int k = 0; k < n; k++) {
            int i = -1;
            MPI_Status st;
            MPI_Waitany(n, q, &i, &st);
            bad += i < 0 || i >= n || seen[i]++ || v[i] != 3 * i + 1 || st.MPI_TAG != i || q[i] != MPI_REQUEST_NULL;
        }
        int index;
        MPI_Waitany(n, q, &index, MPI_STATUS_IGNORE);
        CHECK_MSG(bad == 0 && index == MPI_UNDEFINED, "%d of %d completions wrong; a last Waitany gave %d", bad, n, index);
    }
    free(v);
    free(seen);
    free(q);
    return mtest_finalize();
}
