/* Seed 004 §5.2: the master-worker double-precision matrix multiplication of Gropp, Lusk and
 * Skjellum's "Using MPI" (the seed's [10]), C = A x B with n x n matrices. Every worker holds
 * all of B; the master (rank 0) hands out rows of A, one per message, and collects rows of C,
 * handing the next row to whichever worker answered.
 *
 * The seed's inner loop is not vectorised: each multiply-add is one scalar double-precision
 * instruction. Built for the host, the program charges them by hand with MPIX_Compute_dp_fma
 * (n*n per row, one per 7 SPU cycles), as the host's computation costs nothing under the
 * default --compute zero. Built for `mpirun --compute model` (mpicc --target=ppc32), it charges
 * nothing: the SPU cost plugin prices the compiled loop itself. -DMATMUL_CHARGE=0 or 1 chooses
 * either way on any target. The hand-coded DMAs that stream B from main memory are not
 * modelled. Prints the Gflop/s the seed reports (5.85 at n = 512, 5.66 at n = 1024 on 8 SPEs)
 * and checks C against the host's product.
 *
 *     cellblade mpicc -O2 examples/mpi/matmul.c -o matmul && cellblade mpirun -n 8 ./matmul 512
 *     cellblade mpicc --target=ppc32 -O2 examples/mpi/matmul.c -o matmul-ppc
 *     cellblade mpirun --compute model -n 8 ./matmul-ppc 512
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

#ifndef MATMUL_CHARGE
#ifdef __powerpc__
#define MATMUL_CHARGE 0 /* under --compute model the plugin prices the loop */
#else
#define MATMUL_CHARGE 1
#endif
#endif

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 512;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || n < 1) {
        if (rank == 0)
            fprintf(stderr, "matmul: needs 2 or more ranks and n >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *b = malloc(sizeof(double) * n * n), *row = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    for (int i = 0; i < n * n; i++)
        b[i] = (i % 7) - 3.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Bcast(b, n * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *a = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
        for (int i = 0; i < n * n; i++)
            a[i] = (i % 5) - 2.0;
        int sent = 0;
        for (int w = 1; w < size && sent < n; w++, sent++)
            MPI_Send(&a[sent * n], n, MPI_DOUBLE, w, sent + 1, MPI_COMM_WORLD);
        for (int done = 0; done < n; done++) {
            MPI_Status st;
            MPI_Recv(out, n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            for (int j = 0; j < n; j++)
                c[(st.MPI_TAG - 1) * n + j] = out[j];
            if (sent < n) {
                MPI_Send(&a[sent * n], n, MPI_DOUBLE, st.MPI_SOURCE, sent + 1, MPI_COMM_WORLD);
                sent++;
            } else {
                MPI_Send(row, 0, MPI_DOUBLE, st.MPI_SOURCE, 0, MPI_COMM_WORLD);
            }
        }
        for (int w = n + 1; w < size; w++) /* workers that never got a row */
            MPI_Send(row, 0, MPI_DOUBLE, w, 0, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        int bad = 0;
        for (int i = 0; i < n && !bad; i += 1 + n / 17)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++)
                    s += a[i * n + k] * b[k * n + j];
                bad |= fabs(s - c[i * n + j]) > 1e-9;
            }
        printf("n %d, %d workers: %.3f ms, %.2f Gflop/s, %s\n", n, size - 1, (t1 - t0) * 1e3, 2.0 * n * n * n / (t1 - t0) / 1e9,
            bad ? "WRONG" : "verified");
        free(a);
        free(c);
        MPI_Finalize();
        return bad;
    }
    for (;;) {
        MPI_Status st;
        MPI_Recv(row, n, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == 0)
            break;
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += row[k] * b[k * n + j];
            out[j] = s;
        }
        if (MATMUL_CHARGE)
            MPIX_Compute_dp_fma((double)n * n);
        MPI_Send(out, n, MPI_DOUBLE, 0, st.MPI_TAG, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
