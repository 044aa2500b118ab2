/* A 2 GB send that no buffer of the blade can hold: refused before its bytes are copied
 * (the pages of the buffer are never touched, so they cost no memory in this process). */
#include <stdlib.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = 2147483647;
    char *buf = malloc((size_t)count);
    if (rank == 0)
        MPI_Send(buf, count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(buf, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
