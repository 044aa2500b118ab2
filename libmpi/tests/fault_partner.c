/* Rank 1 dies while every other rank does something else; mpirun must end the job when it
 * dies (issue 43). argv[1], how rank 1 dies: "segv" (a null pointer), "exit" (exit(3) without
 * MPI_Finalize), "abort" (MPI_Abort with code 5), "alarm" (SIGALRM while it waits in
 * MPI_Barrier for the others, which never come), "refused" (a request the simulator does not
 * know, made through the library's own call, which the simulator refuses: its own failure;
 * rank 0 waits in MPI_Recv from rank 1, so that the simulator serves rank 1 first). argv[2],
 * what the others do meanwhile:
 * "busy" (compute), "sleep", "read" (block in read on a pipe nobody writes), "recvdead"
 * (MPI_Recv from rank 1), "recvlive" (MPI_Recv from a live rank that never sends: rank 0 from
 * rank 2, itself in a job of two, the others from rank 0). Each rank prints a line first, to
 * a pipe in the tests: it must reach it. Rank 1 prints, flushed, the CLOCK_MONOTONIC second at
 * which it dies. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mpi.h"

/* libmpi's way to the simulator (libmpi/src/internal.h), for a request it would never make. */
int cb_call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into, int *source, uint64_t *count);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: fault_partner segv|exit|abort|alarm|refused busy|sleep|read|recvdead|recvlive\n");
        return 2;
    }
    const char *how = argv[1], *others = argv[2];
    printf("rank %d printed this before the end\n", rank);
    if (rank == 1) {
        /* Long enough for the others to be at what they do. */
        struct timespec t = {0, 300 * 1000 * 1000};
        nanosleep(&t, NULL);
        if (strcmp(how, "alarm") == 0) {
            fprintf(stderr, "dies at %.6f\n", now() + 1.0);
            alarm(1);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        fprintf(stderr, "dies at %.6f\n", now());
        if (strcmp(how, "refused") == 0)
            cb_call(32767, 0, 0, 0, 0, NULL, NULL, NULL, NULL);
        if (strcmp(how, "segv") == 0)
            *(volatile int *)NULL = 1;
        else if (strcmp(how, "exit") == 0)
            exit(3);
        else if (strcmp(how, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 5);
        return 2;
    }
    if (strcmp(how, "refused") == 0 && rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (strcmp(others, "busy") == 0) {
        for (volatile unsigned long i = 0;; i++)
            ;
    } else if (strcmp(others, "sleep") == 0) {
        sleep(120);
    } else if (strcmp(others, "read") == 0) {
        int p[2];
        char c;
        if (pipe(p) == 0)
            (void)!read(p[0], &c, 1);
    } else if (strcmp(others, "recvdead") == 0) {
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(others, "recvlive") == 0) {
        int from = rank != 0 ? 0 : size > 2 ? 2 : 0;
        MPI_Recv(&x, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
