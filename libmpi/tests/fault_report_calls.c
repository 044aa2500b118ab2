/* Deadlocks whose report must name the call the program wrote and its communicator, not the
 * sends and receives the library makes for it. Two ranks; the argument picks one:
 *   allreduce  rank 0 calls MPI_Allreduce while rank 1 waits in MPI_Recv from 0;
 *   send       rank 0 has an MPI_Irecv pending (so its blocking MPI_Send goes through the
 *              request engine) and sends a long message rank 1 never receives, while rank 1
 *              does the same the other way;
 *   named      both ranks receive from each other first on a duplicate named "halo". */
#include <string.h>
#include "mpi.h"

#define LONG_MESSAGE 65536

static char big[LONG_MESSAGE];

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    const char *how = argc > 1 ? argv[1] : "allreduce";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(how, "allreduce") == 0) {
        if (rank == 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(how, "send") == 0) {
        MPI_Request r;
        MPI_Irecv(&y, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, &r);
        MPI_Send(big, LONG_MESSAGE, MPI_CHAR, 1 - rank, 5 + rank, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Comm halo;
        MPI_Comm_dup(MPI_COMM_WORLD, &halo);
        MPI_Comm_set_name(halo, "halo");
        MPI_Recv(&y, 1, MPI_INT, 1 - rank, 1, halo, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 1 - rank, 1, halo);
    }
    MPI_Finalize();
    return 0;
}
