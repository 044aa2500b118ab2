/* Erroneous collectives: with argument "order", rank 0 calls MPI_Bcast where the others call
 * MPI_Allreduce; with "skip", the last rank skips an MPI_Barrier and finalizes. Both end in a
 * deadlock report naming every rank's call, on the seed's collectives and on the library's
 * (`--coll library`, where the ranks with a different call never run theirs). */
#include <string.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int rank, n, x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc > 1 && strcmp(argv[1], "order") == 0) {
        if (rank == 0)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        else
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (rank != n - 1) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
