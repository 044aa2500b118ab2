/* A freed Irecv that only MPI_Finalize completes: rank 1 sends only after rank 0 has entered
 * MPI_Finalize (its synchronous send waits there until rank 0's engine takes the message), and
 * the bytes are in rank 0's buffer when MPI_Finalize returns. */
#include <stdio.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, data[64] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request q;
        MPI_Irecv(data, 64, MPI_INT, 1, 3, MPI_COMM_WORLD, &q);
        MPI_Request_free(&q);
        MPI_Finalize();
        int bad = 0;
        for (int i = 0; i < 64; i++)
            bad += data[i] != 7 * i;
        printf(bad ? "Found %d errors\n" : "No Errors\n", bad);
        return bad != 0;
    }
    if (rank == 1) {
        for (int i = 0; i < 64; i++)
            data[i] = 7 * i;
        MPI_Send(data, 64, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
