/* Pending requests progress while their rank waits in a collective: rank 0 posts an MPI_Irecv
 * from every other rank and enters MPI_Barrier (then MPI_Allreduce, MPI_Bcast); every other
 * rank first sends to rank 0 (a standard send: synchronous unless buffered), then enters the
 * same collective. The sends complete only if rank 0's receives are matched while it waits in
 * the collective, as MPI's progress rule requires. Run on the seed's collectives and on the
 * library's (`--coll library`). */
#include <stdlib.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *got = calloc((size_t)size, sizeof(int));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)size);
    for (int round = 0; round < 3; round++) {
        if (rank == 0) {
            for (int r = 1; r < size; r++)
                MPI_Irecv(&got[r], 1, MPI_INT, r, 5 + round, MPI_COMM_WORLD, &reqs[r - 1]);
        } else {
            int v = 100 * round + rank;
            MPI_Send(&v, 1, MPI_INT, 0, 5 + round, MPI_COMM_WORLD);
        }
        int one = 1, sum = 0, root = 7 * round;
        switch (round) {
        case 0:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case 1:
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK_MSG(sum == size, "allreduce gave %d of %d", sum, size);
            break;
        default:
            root = size - 1;
            sum = rank == root ? 99 : 0;
            MPI_Bcast(&sum, 1, MPI_INT, root, MPI_COMM_WORLD);
            CHECK_MSG(sum == 99, "bcast gave %d", sum);
        }
        if (rank == 0) {
            MPI_Waitall(size - 1, reqs, MPI_STATUSES_IGNORE);
            for (int r = 1; r < size; r++)
                CHECK_MSG(got[r] == 100 * round + r, "round %d: from %d got %d", round, r, got[r]);
        }
    }
    free(got);
    free(reqs);
    return mtest_finalize();
}
