/* MPI_Wtime answered by the rank library itself between two other calls (env/channel.c) gives
 * the values and simulated times that a round trip per call gives: tests/test_mpi_transport.py
 * runs this through the shared-memory channel (local answers) and the socket alone (a round
 * trip each) and compares the output. Each rank spins (rank + 1) * 3 us, probes once, spins
 * 2 us more, meets the others in a barrier; rank 0 prints every rank's call count and times.
 * With an argument S, rank 0 then spins S seconds while the others wait in a receive from it,
 * and prints the spin's length and calls. */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, size, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = 0;
    double t0 = MPI_Wtime(), t, t1, t2;
    while ((t = MPI_Wtime()) - t0 < (rank + 1) * 3e-6)
        calls++;
    MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    t1 = MPI_Wtime();
    while ((t2 = MPI_Wtime()) - t1 < 2e-6)
        calls++;
    MPI_Barrier(MPI_COMM_WORLD);
    double mine[4] = {(double)calls, t - t0, t2 - t0, MPI_Wtime()}, *all = malloc(sizeof mine * (size_t)size);
    MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size; r++)
        printf("rank %d: %.0f calls, %.9f %.9f %.9f\n", r, all[4 * r], all[4 * r + 1], all[4 * r + 2], all[4 * r + 3]);
    if (argc > 1) {
        int x = 0;
        if (rank == 0) {
            double seconds = atof(argv[1]), start = MPI_Wtime(), now;
            long spins = 0;
            while ((now = MPI_Wtime()) - start < seconds)
                spins++;
            for (int r = 1; r < size; r++)
                MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
            printf("spun %.9f s in %ld calls\n", now - start, spins);
        } else {
            MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    free(all);
    MPI_Finalize();
    return 0;
}
