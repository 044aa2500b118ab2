/* The default error handler: a send to rank 9 of 2 aborts the job with a message naming the
 * call, the class and the value. */
#include "mpi.h"

int main(int argc, char **argv)
{
    int x = 0;
    MPI_Init(&argc, &argv);
    MPI_Send(&x, 1, MPI_INT, 9, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
