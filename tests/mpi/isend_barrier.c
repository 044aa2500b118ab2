/* A nonblocking send in flight across a barrier (MPICH pt2pt/send_tests, "UNEXP"): rank 0
 * starts an MPI_Isend (or MPI_Issend) to rank 1, enters MPI_Barrier, then waits; rank 1 posts
 * its receive only after the barrier. MPI requires this to complete: the barrier runs on the
 * collective context, which the pending user message must not hold up. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int sync = 0; sync < 2; sync++) {
        int data[3] = {0, 0, 0};
        if (rank == 0) {
            MPI_Request r;
            data[0] = 40 + sync, data[1] = 41, data[2] = 42;
            if (sync)
                MPI_Issend(data, 3, MPI_INT, size - 1, 1234, MPI_COMM_WORLD, &r);
            else
                MPI_Isend(data, 3, MPI_INT, size - 1, 1234, MPI_COMM_WORLD, &r);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == size - 1) {
            MPI_Status st;
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Recv(data, 3, MPI_INT, 0, 1234, MPI_COMM_WORLD, &st);
            CHECK_MSG(st.MPI_SOURCE == 0 && st.MPI_TAG == 1234, "status: source %d, tag %d", st.MPI_SOURCE, st.MPI_TAG);
            CHECK_MSG(data[0] == 40 + sync && data[1] == 41 && data[2] == 42, "data %d %d %d", data[0], data[1], data[2]);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return mtest_finalize();
}
