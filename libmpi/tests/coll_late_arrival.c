/* Library collectives whose ranks arrive at very different times are not deadlocks: ranks 0
 * and 1 ping-pong (polling point-to-point) a thousand times while the others already wait in
 * MPI_Allreduce; then, in a broadcast on 4 or more ranks, leaf 1 (which needs only ranks 0 and
 * 2 in the binomial tree) finishes and sends to rank 3, which enters the broadcast only after
 * receiving it. Every result is checked. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, x = 0, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1 && rank < 2) {
        for (int i = 0; i < 1000; i++) {
            if (rank == 0) {
                x = i;
                MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK_MSG(x == i + 1, "ping-pong %d came back as %d", i, x);
            } else {
                MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                x++;
                MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            }
        }
    }
    int mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_MSG(sum == size * (size + 1) / 2, "sum %d", sum);
    for (int i = 0; i < 20; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    int token = 0, data = rank == 0 ? 4242 : 0;
    if (size >= 4 && rank == 3)
        MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Bcast(&data, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_MSG(data == 4242, "broadcast gave %d", data);
    if (size >= 4 && rank == 1)
        MPI_Send(&data, 1, MPI_INT, 3, 2, MPI_COMM_WORLD);
    if (size >= 4 && rank == 3)
        CHECK_MSG(token == 4242, "token %d", token);
    return mtest_finalize();
}
