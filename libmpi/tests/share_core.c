/* Where the thread that calls MPI runs (env/share_core.c). When the job's ranks and the
 * simulator outnumber the cores this process may use, every rank waits on the simulator's core
 * after MPI_Init and after a short stretch between calls, and has its own cores back after a
 * long one (here 20 ms of busy loop); otherwise nothing moves. Prints "No Errors" from rank 0. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include "mpi.h"

static int cores(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

static void busy_ms(long ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* Rank 0 checks that every rank sees `want` cores (and, when it is 1, that all are on one core). */
static int check(const char *when, int want, int rank, int size)
{
    int mine[2] = {cores(), sched_getcpu()}, all[2 * 16];
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int errs = 0;
    for (int r = 0; rank == 0 && r < size; r++) {
        if (all[2 * r] != want) {
            printf("%s: rank %d may run on %d cores, %d expected\n", when, r, all[2 * r], want);
            errs++;
        } else if (want == 1 && all[2 * r + 1] != all[1]) {
            printf("%s: rank %d runs on core %d, rank 0 on %d\n", when, r, all[2 * r + 1], all[1]);
            errs++;
        }
    }
    return errs;
}

int main(int argc, char **argv)
{
    int own = cores(), rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int shared = size + 1 > own ? 1 : own;
    int errs = check("after MPI_Init", shared, rank, size);
    busy_ms(20);
    MPI_Wtime(); /* one call, which leaves the shared core before it waits */
    errs += check("after a long stretch", own, rank, size);
    MPI_Barrier(MPI_COMM_WORLD); /* the gather's answer came just before: a short stretch */
    errs += check("after a short one", shared, rank, size);
    if (rank == 0 && errs == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
