/* Both ranks send first: in synchronous mode this hangs, as seed 004 §7 warns; mpirun must
 * report it with every rank's pending call. With the argument "ssend" both use MPI_Ssend,
 * which hangs in buffered mode too. */
#include <string.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "ssend") == 0)
        MPI_Ssend(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
    else
        MPI_Send(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
