/* Empty buffers (found by MPICH's pt2pt/recvnull): a count of 0 with MPI_DATATYPE_NULL is
 * accepted by Send, Recv, Irecv and Sendrecv, to MPI_PROC_NULL (whose status says source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0) and to a real peer; a non-zero count of
 * MPI_DATATYPE_NULL is still MPI_ERR_TYPE, and a NULL buffer of 1000 MPI_INTs is MPI_ERR_BUFFER
 * for a receive as for a send (issue 43: MPI_Recv wrote through it). */
#include "mtest.h"

static void check_null_status(MPI_Status *st, const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK_MSG(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0, "%s: source %d, tag %d, count %d", what,
        st->MPI_SOURCE, st->MPI_TAG, count);
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Status st;
    MPI_Request req;

    st.MPI_SOURCE = st.MPI_TAG = 123;
    MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    check_null_status(&st, "Irecv from MPI_PROC_NULL");
    st.MPI_SOURCE = st.MPI_TAG = 123;
    MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st);
    check_null_status(&st, "Recv from MPI_PROC_NULL");
    MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD);
    st.MPI_SOURCE = st.MPI_TAG = 123;
    MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    check_null_status(&st, "Sendrecv with MPI_PROC_NULL");

    /* An empty message between two ranks, its envelope intact. */
    if (n >= 2 && rank < 2) {
        if (rank == 0) {
            MPI_Send(NULL, 0, MPI_DATATYPE_NULL, 1, 7, MPI_COMM_WORLD);
        } else {
            int count = -1;
            MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK_MSG(st.MPI_SOURCE == 0 && st.MPI_TAG == 7 && count == 0, "empty message: source %d, tag %d, count %d", st.MPI_SOURCE,
                st.MPI_TAG, count);
        }
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, cls = -1;
    int rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_TYPE, "a count of 1 of MPI_DATATYPE_NULL: class %d", cls);
    const char *calls[] = {"MPI_Send", "MPI_Recv", "MPI_Irecv", "MPI_Sendrecv (its receive)"};
    for (int k = 0; k < 4; k++) {
        MPI_Request q = MPI_REQUEST_NULL;
        if (k == 0)
            rc = MPI_Send(NULL, 1000, MPI_INT, rank, 0, MPI_COMM_WORLD);
        else if (k == 1)
            rc = MPI_Recv(NULL, 1000, MPI_INT, rank, 0, MPI_COMM_WORLD, &st);
        else if (k == 2)
            rc = MPI_Irecv(NULL, 1000, MPI_INT, rank, 0, MPI_COMM_WORLD, &q);
        else
            rc = MPI_Sendrecv(&x, 1, MPI_INT, rank, 0, NULL, 1000, MPI_INT, rank, 0, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK_MSG(cls == MPI_ERR_BUFFER && q == MPI_REQUEST_NULL, "%s(NULL, 1000, MPI_INT): class %d", calls[k], cls);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mtest_finalize();
}
