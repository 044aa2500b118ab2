/* Rank 1 dies while it waits inside MPI_Recv: SIGALRM (default action: terminate) arrives a
 * second into the receive, while rank 0 spends two seconds of host time before it sends. Rank
 * 0 sleeps between MPIX_Compute_cycles calls, which take simulated time and so let the
 * simulator serve rank 1 meanwhile (calls that take none, such as MPI_Iprobe with nothing to
 * find, keep the simulator on rank 0). */
#include <time.h>
#include <unistd.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, v = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        alarm(1);
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int i = 0; i < 20; i++) {
            struct timespec t = {0, 100000000};
            nanosleep(&t, NULL);
            MPIX_Compute_cycles(1000);
        }
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
