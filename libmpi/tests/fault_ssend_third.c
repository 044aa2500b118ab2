/* Ranks 0 and 1 each MPI_Ssend to the other first while rank 2 receives from 1 (issue 22:
 * the job hung with no report): a deadlock, reported at once. */
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank < 2) {
        MPI_Ssend(&v, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else
        MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
