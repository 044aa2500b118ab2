/* Rank 1 dies of SIGSEGV at once, before MPI_Init, while rank 0 computes for a minute of wall
 * time before its first MPI call: mpirun must report rank 1 when it dies, not when the
 * simulator next hears from rank 0. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    if (atoi(getenv("CELLBLADE_MPI_RANK")) == 1)
        raise(SIGSEGV);
    sleep(60);
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
