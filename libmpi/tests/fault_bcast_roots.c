/* The seed-path MPI_Bcast with mismatched roots (issue 22: hung on 3-4 ranks): every rank
 * names itself the root, so each sends and none receives: a deadlock, reported at once. */
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, v[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(v, 4, MPI_INT, rank % 2, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
