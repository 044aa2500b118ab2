/* MPI_Ssend and MPI_Issend are synchronous even in buffered mode (run with
 * `--set mpi.buffered_bytes=80`): a 16-byte one to a rank that first computes 15 us
 * (48000 SPU cycles at 3.2 GHz) returns only after that rank's receive, while an MPI_Send
 * of the same message is buffered and returns at once. Rank 1 answers each message, so each
 * timed send starts with the entry free. Ranks above 1 only join the verdict. */
#include "mtest.h"

#define WORK_CYCLES 48000.0
#define WAITED 10e-6 /* well under the 15 us of work, well above a buffered send */

/* Rank 0 waits for rank 1's answer to message `tag`. */
static void answered(int tag)
{
    MPI_Recv(NULL, 0, MPI_INT, 1, 10 + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int msg[4] = {1, 2, 3, 4};
        double t0 = MPI_Wtime();
        MPI_Ssend(msg, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
        double ssend = MPI_Wtime() - t0;
        CHECK_MSG(ssend >= WAITED, "MPI_Ssend returned after %.3f us, before the receive", ssend * 1e6);
        answered(1);

        MPI_Request r;
        t0 = MPI_Wtime();
        MPI_Issend(msg, 4, MPI_INT, 1, 2, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        double issend = MPI_Wtime() - t0;
        CHECK_MSG(issend >= WAITED, "MPI_Issend and MPI_Wait completed after %.3f us, before the receive", issend * 1e6);
        answered(2);

        t0 = MPI_Wtime();
        MPI_Send(msg, 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
        double send = MPI_Wtime() - t0;
        CHECK_MSG(send < WAITED, "a buffered MPI_Send waited %.3f us for the receive", send * 1e6);
        answered(3);
    } else if (rank == 1) {
        for (int tag = 1; tag <= 3; tag++) {
            int got[4] = {0, 0, 0, 0};
            MPIX_Compute_cycles(WORK_CYCLES);
            MPI_Recv(got, 4, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 4; i++)
                CHECK_MSG(got[i] == i + 1, "message %d: got[%d] = %d", tag, i, got[i]);
            MPI_Send(NULL, 0, MPI_INT, 0, 10 + tag, MPI_COMM_WORLD);
        }
    }
    return mtest_finalize();
}
