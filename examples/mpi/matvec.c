/* Seed 004 §5.2: matrix-vector multiplication c = A x b with a 1-D decomposition: b and c are
 * replicated, A is distributed by rows, and an all-gather replicates c after each product (the
 * only communication). The product is repeated `iters` times with c fed back as the next b
 * (scaled), as an iterative solver would. Each scalar double-precision multiply-add is charged
 * one DP instruction (MPIX_Compute_dp_fma), as in matmul.c. The seed plots its results
 * (Fig. 6) without printing numbers, so this example prints Gflop/s and checks the result.
 *
 *     cellblade mpicc -O2 examples/mpi/matvec.c -o matvec -lm && cellblade mpirun -n 8 ./matvec 1024 10
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static double entry(int i, int j)
{
    return ((i * 31 + j * 17) % 11 - 5) / 8.0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 1024, iters = argc > 2 ? atoi(argv[2]) : 10;
    if (n % size != 0) {
        if (rank == 0)
            fprintf(stderr, "matvec: n (%d) must be a multiple of the rank count (%d)\n", n, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rows = n / size, first = rank * rows;
    double *a = malloc(sizeof(double) * rows * n), *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = entry(first + i, j);
    for (int j = 0; j < n; j++)
        b[j] = 1.0 + (j % 3);
    double *b0 = malloc(sizeof(double) * n);
    memcpy(b0, b, sizeof(double) * n);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < rows; i++) {
            double s = 0;
            for (int j = 0; j < n; j++)
                s += a[i * n + j] * b[j];
            c[first + i] = s / n;
        }
        MPIX_Compute_dp_fma((double)rows * n);
        MPI_Allgather(MPI_IN_PLACE, rows, MPI_DOUBLE, c, rows, MPI_DOUBLE, MPI_COMM_WORLD);
        memcpy(b, c, sizeof(double) * n);
    }
    double t1 = MPI_Wtime();
    if (rank == 0) {
        /* The host's own iteration of the same products. */
        double *x = b0, *y = malloc(sizeof(double) * n), worst = 0;
        for (int it = 0; it < iters; it++) {
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int j = 0; j < n; j++)
                    s += entry(i, j) * x[j];
                y[i] = s / n;
            }
            memcpy(x, y, sizeof(double) * n);
        }
        for (int i = 0; i < n; i++)
            worst = fmax(worst, fabs(x[i] - c[i]));
        printf("n %d, %d ranks, %d products: %.3f ms, %.3f Gflop/s, %s\n", n, size, iters, (t1 - t0) * 1e3,
            2.0 * n * n * iters / (t1 - t0) / 1e9, worst < 1e-9 ? "verified" : "WRONG");
        free(y);
        MPI_Finalize();
        return worst >= 1e-9;
    }
    MPI_Finalize();
    return 0;
}
