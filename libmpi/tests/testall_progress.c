/* MPI_Testall returns at once: false while a request cannot complete yet (rank 1 sends only
 * after rank 0 tells it to, which rank 0 does after its first Testall), leaving every request
 * in place, then true with every status filled once all are done. Ranks above 1 only join the
 * verdict. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, go = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int data[4] = {0, 0, 0, 0}, flag = -1;
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(data, 4, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[0]);
        r[1] = MPI_REQUEST_NULL;
        MPI_Testall(2, r, &flag, st);
        CHECK_MSG(flag == 0, "Testall before the message was sent: flag %d", flag);
        CHECK_MSG(r[0] != MPI_REQUEST_NULL, "Testall with a false flag freed a request");
        MPI_Send(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        int polls = 0;
        do {
            MPI_Testall(2, r, &flag, st);
            polls++;
        } while (!flag && polls < 100000);
        CHECK_MSG(flag == 1, "Testall never true after %d polls", polls);
        CHECK_MSG(r[0] == MPI_REQUEST_NULL, "Testall with a true flag kept request %d", r[0]);
        CHECK_MSG(st[0].MPI_SOURCE == 1 && st[0].MPI_TAG == 7, "status: source %d, tag %d", st[0].MPI_SOURCE, st[0].MPI_TAG);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(data[i] == 10 + i, "data[%d] = %d", i, data[i]);
    } else if (rank == 1) {
        int data[4] = {10, 11, 12, 13};
        MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(data, 4, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    return mtest_finalize();
}
