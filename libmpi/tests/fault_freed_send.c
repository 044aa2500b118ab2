/* Rank 0 frees an Isend to rank 1, which never receives it: MPI_Finalize waits for the freed
 * send, and mpirun must report the deadlock naming it, not hang. With the argument "recv",
 * rank 0 frees an Irecv from rank 1, which never sends. */
#include <string.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request q;
        if (argc > 1 && strcmp(argv[1], "recv") == 0)
            MPI_Irecv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &q);
        else
            MPI_Isend(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &q);
        MPI_Request_free(&q);
    }
    MPI_Finalize();
    return 0;
}
