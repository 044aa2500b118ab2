/* An osu_latency-like ping-pong (written for cellblade, not OSU's code): rank 0 sends a message
 * of each size to rank 1 and receives it back, `iters` times after `warmup` untimed rounds;
 * the latency is half a round trip in simulated time (MPI_Wtime). `cellblade bench` runs it
 * (with examples/mpi/calls.c for the wall-clock cost of a call); the largest size is the
 * argument (default 1 MB).
 *
 *     cellblade mpicc -O2 examples/mpi/latency.c -o latency && cellblade mpirun -n 2 ./latency
 *
 * Output, rank 0: "size latency_us" per size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long largest = argc > 1 ? atol(argv[1]) : 1L << 20;
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "latency: needs 2 ranks, has %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc(largest > 0 ? largest : 1);
    memset(buf, rank, largest > 0 ? largest : 1);
    int peer = 1 - rank;
    for (long bytes = 0; bytes <= largest; bytes = bytes ? bytes * 2 : 1) {
        /* osu_latency's split: many rounds for small messages, fewer past 8 KB. */
        int iters = bytes > 8192 ? 20 : 200, warmup = bytes > 8192 ? 2 : 20;
        double t0 = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            printf("%ld %.3f\n", bytes, (MPI_Wtime() - t0) * 1e6 / (2.0 * iters));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
