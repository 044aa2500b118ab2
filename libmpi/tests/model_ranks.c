/* A rank program for `mpirun --compute model` (tests/test_mpi_model.py), built for the PowerPC
 * with `mpicc --target=ppc32`: point to point, a sendrecv, nonblocking calls and reductions on
 * doubles and ints (each read by the simulator in the rank's byte order), then a timed loop of
 * ARGV[1] iterations whose SPU cycles the cost plugin counts. */
#include <stdio.h>
#include <stdlib.h>
#include "mpi.h"

/* A dependent chain of integer multiply-adds the compiler cannot fold (volatile seed). */
static unsigned loop(long n)
{
    volatile unsigned seed = 7;
    unsigned x = seed;
    for (long i = 0; i < n; i++)
        x = x * 2654435761u + (unsigned)i;
    return x;
}

int main(int argc, char **argv)
{
    int rank, size;
    long n = argc > 1 ? atol(argv[1]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long long token = 0x0102030405060708LL + rank, got = 0;
    MPI_Sendrecv(&token, 1, MPI_LONG_LONG, right, 5, &got, 1, MPI_LONG_LONG, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int ok = got == 0x0102030405060708LL + left;
    double d[3] = {0.5 * rank, -1.25, 1e300 / (rank + 1)}, dsum[3];
    int i[2] = {rank + 1, -70000 * rank}, isum[2], imax;
    MPI_Allreduce(d, dsum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(i, isum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&i[1], &imax, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Request rq[2];
    int out = 1000 + rank, in = -1, which;
    MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitany(2, rq, &which, MPI_STATUS_IGNORE);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    ok &= in == 1000 + left;
    double t0 = MPI_Wtime();
    unsigned x = loop(n);
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("dsum %.6g %.6g %.6g isum %d %d imin %d ok %d loop %.0f ticks (x %u)\n", dsum[0], dsum[1], dsum[2], isum[0], isum[1],
               imax, ok, (t1 - t0) / MPI_Wtick(), x & 1);
    else if (!ok)
        printf("rank %d: wrong point-to-point data\n", rank);
    MPI_Finalize();
    return !ok;
}
