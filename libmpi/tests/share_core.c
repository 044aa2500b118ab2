/* Where the thread that calls MPI runs (env/share_core.c). When the job's ranks and the
 * simulator outnumber the cores this process may use, the simulator's thread in the launcher
 * is pinned to one core, and over the shared-memory channel every rank's thread is on that
 * core after MPI_Init and through a run of calls, has its cores back while it computes (here
 * 200 ms, all ranks at once) and is back on the shared core after its next call. Otherwise
 * (the job fits the cores, or every call goes over the socket) the rank keeps its cores, and
 * where the job fits no thread of the launcher is pinned. Prints "No Errors" from rank 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The core a thread of the launcher (CELLBLADE_MPI_PARENT) is pinned to, or -1 if none is. */
static int simulator_core(void)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%s/task", getenv("CELLBLADE_MPI_PARENT"));
    DIR *tasks = opendir(path);
    int core = -1;
    for (struct dirent *t; tasks && core < 0 && (t = readdir(tasks));) {
        char status[sizeof path + 300];
        snprintf(status, sizeof status, "%s/%s/status", path, t->d_name);
        FILE *f = fopen(status, "r");
        while (f && fgets(line, sizeof line, f)) {
            int cpu;
            char end;
            if (sscanf(line, "Cpus_allowed_list: %d%c", &cpu, &end) == 2 && end == '\n')
                core = cpu;
        }
        if (f)
            fclose(f);
    }
    if (tasks)
        closedir(tasks);
    return core;
}

/* Whether this thread is where it should be: on `core` alone when `pinned`, else on its `own` cores. */
static int placed(int pinned, int core, int own)
{
    return pinned ? cores() == 1 && sched_getcpu() == core : cores() == own;
}

int main(int argc, char **argv)
{
    int own = cores(), rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *channel = getenv("CELLBLADE_MPI_CHANNEL");
    int shared = size + 1 > own, core = simulator_core();
    int pinned = shared && !(channel && strcmp(channel, "socket") == 0);
    int ok[4] = {placed(pinned, core, own), 1, 0, 0}; /* after MPI_Init, the calls, computing, the next call */
    for (int i = 0; i < 100; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        ok[1] &= placed(pinned, core, own);
    }
    busy_ms(200);
    ok[2] = placed(0, core, own);
    MPI_Barrier(MPI_COMM_WORLD);
    ok[3] = placed(pinned, core, own);
    int all[4 * 16], errs = 0;
    MPI_Gather(ok, 4, MPI_INT, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
    const char *when[4] = {"after MPI_Init", "after a barrier", "while computing", "after the next call"};
    if (rank == 0 && shared != (core >= 0)) {
        printf("%d ranks on %d cores: the simulator's thread is %spinned\n", size, own, core >= 0 ? "" : "not ");
        errs++;
    }
    for (int r = 0; rank == 0 && r < size; r++)
        for (int k = 0; k < 4; k++)
            if (!all[4 * r + k]) {
                printf("rank %d %s: %s\n", r, when[k], pinned && k != 2 ? "not on the simulator's core alone" : "not on its own cores");
                errs++;
            }
    if (rank == 0 && errs == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
