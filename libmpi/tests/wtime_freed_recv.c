/* A freed receive (MPI_Request_free, MPI-1 §3.7.3) completes in the background of the rank's
 * MPI calls: the rank's SPE runs both its program and the protocol, so, as in MPICH without
 * an asynchronous progress thread, the receive moves on only inside calls that progress
 * requests, and MPI_Wtime is not one of them. A spin on MPI_Wtime therefore never sees the
 * bytes, whether the rank library answers MPI_Wtime itself or every call is a round trip to
 * the simulator (tests/test_mpi_transport.py compares the two channels); the next call that
 * progresses (here MPI_Iprobe) brings them. Rank 1 frees an Irecv from rank 0, spins 100 us or
 * until the value is there, then probes once; rank 0 spins 5 us and sends the value. */
#include <stdio.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, x = -1, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime(), t = t0;
    if (rank == 0) {
        while (MPI_Wtime() - t0 < 5e-6)
            ;
        x = 42;
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request q;
        MPI_Irecv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &q);
        MPI_Request_free(&q);
        long calls = 0;
        while (*(volatile int *)&x == -1 && (t = MPI_Wtime()) - t0 < 1e-4)
            calls++;
        printf("spin: %d after %ld calls, %.9f s\n", x, calls, t - t0);
        MPI_Iprobe(0, 8, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        printf("after MPI_Iprobe: %d at %.9f s\n", x, MPI_Wtime() - t0);
    }
    MPI_Finalize();
    return 0;
}
