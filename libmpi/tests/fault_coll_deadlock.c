/* Deadlocks through a library collective (run with `--coll library`), each of which must be
 * reported with every rank's pending call rather than hang. The argument picks one:
 *   recv      rank 0 calls MPI_Barrier, rank 1 first waits in MPI_Recv from 0 (a poller);
 *   send      rank 1 first waits in MPI_Send to 0 (no poller: it waits for its signal);
 *   bcast     rank 1 calls MPI_Bcast where rank 0 calls MPI_Barrier;
 *   finalize  the last rank finalizes while the others wait in MPI_Barrier.
 * Rank 0 sends or receives only after its barrier, so none of them can complete. */
#include <string.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, n, x = 7;
    const char *how = argc > 1 ? argv[1] : "recv";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (strcmp(how, "recv") == 0) {
        if (rank == 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else if (strcmp(how, "send") == 0) {
        if (rank == 1)
            MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "bcast") == 0) {
        if (rank == 1)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank != n - 1) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
