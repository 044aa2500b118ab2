/* The wall-clock cost of an MPI call's round trip between a rank process and the simulator:
 * `calls` MPIX_Compute_cycles(0) calls in a row (each a request answered at once, with no
 * simulated work), timed with the host's monotonic clock. Not MPI_Wtime: the rank library
 * answers one that follows another itself, without a round trip. `cellblade bench` runs it as one rank, several times,
 * through the shared-memory channel and through the socket alone (CELLBLADE_MPI_CHANNEL=socket).
 *
 *     cellblade mpicc -O2 examples/mpi/calls.c -o calls && cellblade mpirun -n 1 ./calls 100000
 *
 * Output, rank 0: "calls N us_per_call X".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "mpi.h"

static double host_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long calls = argc > 1 ? atol(argv[1]) : 100000;
    double t0 = host_s();
    for (long i = 0; i < calls; i++)
        MPIX_Compute_cycles(0);
    double us = (host_s() - t0) * 1e6 / (double)calls;
    if (rank == 0)
        printf("calls %ld us_per_call %.3f\n", calls, us);
    MPI_Finalize();
    return 0;
}
