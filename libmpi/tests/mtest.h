/* Shared checking helpers for the MPI C tests: count failures, report them with the rank and
 * line, and print "No Errors" from rank 0 when the whole job passed. */
#ifndef MTEST_H
#define MTEST_H
#include <stdio.h>
#include "mpi.h"

static int mtest_errors;

#define CHECK_MSG(cond, ...)                                                                     \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            int r_;                                                                              \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                  \
            fprintf(stderr, "rank %d, line %d: check failed: %s: ", r_, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
            mtest_errors++;                                                                      \
        }                                                                                        \
    } while (0)

/* Every rank sends its error count to rank 0, which prints the verdict; returns the exit code. */
static int mtest_finalize(void)
{
    int rank, size, total = mtest_errors;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            int e;
            MPI_Recv(&e, 1, MPI_INT, r, 9999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += e;
        }
        if (total == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total);
        fflush(stdout);
    } else {
        MPI_Send(&mtest_errors, 1, MPI_INT, 0, 9999, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return total != 0;
}
#endif
