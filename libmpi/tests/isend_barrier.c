/* A nonblocking send in flight across collectives (MPICH pt2pt/send_tests, "UNEXP"): rank 0
 * starts an MPI_Isend (or MPI_Issend) to the last rank, then every rank runs a collective
 * (MPI_Barrier, MPI_Bcast from the last rank, MPI_Allreduce, each also on a duplicate of
 * MPI_COMM_WORLD), and only then does the last rank post its receive. MPI requires this to
 * complete: collectives run on the communicator's collective context, which the pending user
 * message must not hold up. A second message on the same pair, sent after the collective, must
 * still arrive after the first (no overtaking within a context). */
#include "mtest.h"

enum { BARRIER, BCAST, ALLREDUCE, KINDS };

static void collective(int kind, MPI_Comm comm, int root)
{
    int v = 1, sum = 0, rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    switch (kind) {
    case BARRIER:
        MPI_Barrier(comm);
        break;
    case BCAST:
        v = rank == root ? 77 : -1;
        MPI_Bcast(&v, 1, MPI_INT, root, comm);
        CHECK_MSG(v == 77, "bcast gave %d", v);
        break;
    default:
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm);
        CHECK_MSG(sum == size, "allreduce gave %d of %d", sum, size);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int last = size - 1;
    for (int dupped = 0; dupped < 2; dupped++)
        for (int kind = 0; kind < KINDS; kind++)
            for (int sync = 0; sync < 2; sync++) {
                MPI_Comm comm = dupped ? dup : MPI_COMM_WORLD;
                int data[3] = {0, 0, 0}, second = 0;
                int tag = 1000 + 100 * dupped + 10 * kind + sync;
                if (rank == 0) {
                    MPI_Request r;
                    data[0] = tag, data[1] = 41, data[2] = 42;
                    if (sync)
                        MPI_Issend(data, 3, MPI_INT, last, tag, comm, &r);
                    else
                        MPI_Isend(data, 3, MPI_INT, last, tag, comm, &r);
                    collective(kind, comm, last);
                    second = -tag;
                    MPI_Send(&second, 1, MPI_INT, last, tag, comm);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                } else if (rank == last) {
                    MPI_Status st;
                    collective(kind, comm, last);
                    MPI_Recv(data, 3, MPI_INT, 0, tag, comm, &st);
                    CHECK_MSG(st.MPI_SOURCE == 0 && st.MPI_TAG == tag, "status: source %d, tag %d", st.MPI_SOURCE, st.MPI_TAG);
                    CHECK_MSG(data[0] == tag && data[1] == 41 && data[2] == 42, "data %d %d %d", data[0], data[1], data[2]);
                    MPI_Recv(&second, 1, MPI_INT, 0, tag, comm, &st);
                    CHECK_MSG(second == -tag, "the second message overtook the first: got %d", second);
                } else {
                    collective(kind, comm, last);
                }
            }
    MPI_Comm_free(&dup);
    return mtest_finalize();
}
