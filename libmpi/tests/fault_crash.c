/* Rank 1 dies of a segmentation fault while rank 0 waits for its message; rank 2 (if any)
 * waits in a barrier. mpirun must name rank 1 and SIGSEGV and end the others. */
#include <signal.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (rank == 1)
        raise(SIGSEGV);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
