/* osu_bcast- and osu_allreduce-like timings (written for cellblade, not OSU's code): for every
 * size from 8 B to the largest (the argument, default 16 KB) in powers of two, each rank times
 * `iters` calls of MPI_Bcast (MPI_CHAR, root 0) and of MPI_Allreduce (MPI_FLOAT, MPI_SUM) after
 * `warmup` untimed ones, a barrier between calls outside the timed span, as OSU does; the
 * latency is the slowest rank's mean, in simulated time (MPI_Wtime). The results are checked.
 *
 *     cellblade mpicc -O2 examples/mpi/coll_bench.c -o coll_bench
 *     cellblade mpirun -n 8 --coll library ./coll_bench
 *
 * Output, rank 0: "size bcast_us allreduce_us" per size.
 */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

enum { WARMUP = 2, ITERS = 10 };

/* The slowest rank's mean time per call of `what` (0 bcast, 1 allreduce) on `bytes`. */
static double timed(int what, int bytes, char *c, float *f, float *g, int *bad)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double total = 0, worst = 0;
    for (int i = 0; i < WARMUP + ITERS; i++) {
        for (int k = 0; k < bytes; k++)
            c[k] = rank == 0 ? (char)(k + i) : 0;
        for (int k = 0; k < bytes / 4; k++)
            f[k] = (float)(rank + k % 3);
        double t0 = MPI_Wtime();
        if (what == 0)
            MPI_Bcast(c, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        else
            MPI_Allreduce(f, g, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (i >= WARMUP)
            total += t1 - t0;
        for (int k = 0; what == 0 && k < bytes; k++)
            *bad += c[k] != (char)(k + i);
        for (int k = 0; what == 1 && k < bytes / 4; k++)
            *bad += g[k] != (float)(n * (n - 1) / 2 + n * (k % 3));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double mean = total / ITERS;
    MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return worst;
}

int main(int argc, char **argv)
{
    int rank, bad = 0, total_bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int largest = argc > 1 ? atoi(argv[1]) : 16384;
    char *c = malloc(largest);
    float *f = malloc(largest), *g = malloc(largest);
    if (rank == 0)
        printf("# size bcast_us allreduce_us\n");
    for (int bytes = 8; bytes <= largest; bytes *= 2) {
        double b = timed(0, bytes, c, f, g, &bad), a = timed(1, bytes, c, f, g, &bad);
        if (rank == 0)
            printf("%d %.3f %.3f\n", bytes, b * 1e6, a * 1e6);
    }
    MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && total_bad)
        printf("wrong results: %d\n", total_bad);
    free(c);
    free(f);
    free(g);
    MPI_Finalize();
    return total_bad != 0;
}
