/* An osu_latency-like ping-pong (written for cellblade, not OSU's code): rank 0 sends a message
 * of each size to rank 1 and receives it back, `iters` times after `warmup` untimed rounds;
 * the latency is half a round trip in simulated time (MPI_Wtime). Then rank 0 times 5 batches
 * of `calls` / 5 MPI_Wtime calls with the host's monotonic clock while rank 1 waits in a
 * barrier: the wall-clock cost of one call's round trip between this process and the
 * simulator, per batch (the host is shared, so a batch can be slowed by other processes).
 * `cellblade bench` runs it; the largest size is the argument (default 1 MB).
 *
 *     cellblade mpicc -O2 examples/mpi/latency.c -o latency && cellblade mpirun -n 2 ./latency
 *
 * Output, rank 0: "size latency_us" per size, then "roundtrip_us X" per batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long largest = argc > 1 ? atol(argv[1]) : 1L << 20;
    int calls = argc > 2 ? atoi(argv[2]) : 20000;
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
    if (rank == 0) {
        for (int batch = 0; batch < 5; batch++) {
            double t0 = host_s();
            for (int i = 0; i < calls / 5; i++)
                MPI_Wtime();
            printf("roundtrip_us %.3f\n", (host_s() - t0) * 1e6 / (calls / 5));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
