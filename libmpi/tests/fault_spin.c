/* Rank 0 never returns to MPI after MPI_Init; the others wait for it in MPI_Recv. */
#include <unistd.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        for (;;)
            pause();
    MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
