/* A call before MPI_Init. */
#include "mpi.h"

int main(void)
{
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    return 0;
}
