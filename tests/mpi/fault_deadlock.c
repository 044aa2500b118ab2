/* Both ranks send first: in synchronous mode this hangs, as seed 004 §7 warns; mpirun must
 * report it with every rank's pending call. */
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Send(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
