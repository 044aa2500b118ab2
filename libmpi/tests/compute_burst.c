/* A busy loop between two MPI_Wtime calls: rank 0 prints the simulated seconds it took, which
 * is zero under `mpirun --compute zero` and the loop's CPU time times the factor under
 * `--compute cpu:FACTOR`. The argument is the loop's length in millions of iterations. */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long millions = argc > 1 ? atol(argv[1]) : 20;
    volatile double x = 1.0;
    double t0 = MPI_Wtime();
    for (long i = 0; i < millions * 1000000; i++)
        x = x * 1.0000001 + 1e-9;
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.9f\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
