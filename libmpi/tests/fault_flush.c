/* Output printed before the job ends badly reaches mpirun's stdout even when it is a pipe
 * (stdio buffers it fully then): argv[1] "abort" calls MPI_Abort, "fatal" makes an error under
 * MPI_ERRORS_ARE_FATAL, "deadlock" has both ranks receive first (the simulator ends the job,
 * and each rank's library finds the simulator gone). */
#include <stdio.h>
#include <string.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d printed this before the end\n", rank);
    if (rank == 0) {
        if (strcmp(argv[1], "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (strcmp(argv[1], "fatal") == 0)
            MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
