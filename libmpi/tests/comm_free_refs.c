/* MPI_Comm_free has reference semantics and communicators are plentiful (found by MPICH's
 * comm/cmfree and cmfree2): a communicator freed while a receive is pending on it still
 * delivers that message, even after new communicators were made; a freed handle is
 * MPI_ERR_COMM; 1100 communicators can exist at once, and freeing them gives the slots back. */
#include "mtest.h"

#define MANY 1100

static MPI_Comm many[MANY];

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int src = 0, dst = n - 1;

    MPI_Comm dup, copy;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    copy = dup;
    int got[4] = {0, 0, 0, 0}, sent[4] = {5, 6, 7, 8};
    if (n >= 2 && rank == dst) {
        MPI_Request req;
        MPI_Status st;
        MPI_Irecv(got, 4, MPI_INT, src, 3, dup, &req);
        MPI_Comm_free(&dup);
        CHECK_MSG(dup == MPI_COMM_NULL, "freed handle set to MPI_COMM_NULL");
        for (int i = 0; i < 8; i++)
            MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &many[i]);
        MPI_Sendrecv(NULL, 0, MPI_INT, src, 1, NULL, 0, MPI_INT, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, &st);
        CHECK_MSG(st.MPI_SOURCE == src && st.MPI_TAG == 3, "status of the pending receive: source %d, tag %d", st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(got[i] == sent[i], "element %d: %d", i, got[i]);
    } else if (n >= 2 && rank == src) {
        for (int i = 0; i < 8; i++)
            MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &many[i]);
        MPI_Sendrecv(NULL, 0, MPI_INT, dst, 1, NULL, 0, MPI_INT, dst, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sent, 4, MPI_INT, dst, 3, dup);
        MPI_Comm_free(&dup);
    } else {
        for (int i = 0; i < 8; i++)
            MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &many[i]);
        MPI_Comm_free(&dup);
    }
    for (int i = 0; i < 8; i++)
        MPI_Comm_free(&many[i]);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int size = 0, cls = -1, rc = MPI_Comm_size(copy, &size);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_COMM, "a freed communicator: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < MANY; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &many[i]);
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, many[MANY - 1]);
        CHECK_MSG(sum == n * (n - 1) / 2, "allreduce on communicator %d: %d", MANY - 1, sum);
        for (int i = 0; i < MANY; i++)
            MPI_Comm_free(&many[i]);
    }
    return mtest_finalize();
}
