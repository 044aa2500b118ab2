/* A message longer than the receive buffer: MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN, the
 * buffer filled up to its size and nothing past it; then invalid arguments get their classes. */
#include <string.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        int data[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        CHECK_MSG(MPI_Send(data, 10, MPI_INT, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS, "the sender is not at fault");
    } else if (rank == 1) {
        int buf[8];
        memset(buf, 0xff, sizeof buf);
        MPI_Status st;
        int rc = MPI_Recv(buf, 6, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK_MSG(cls == MPI_ERR_TRUNCATE, "class %d", cls);
        CHECK_MSG(st.MPI_ERROR == MPI_ERR_TRUNCATE, "status error %d", st.MPI_ERROR);
        for (int i = 0; i < 6; i++)
            CHECK_MSG(buf[i] == i, "buf[%d] = %d", i, buf[i]);
        CHECK_MSG(buf[6] == -1 && buf[7] == -1, "written past the count");
        char text[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, text, &len);
        CHECK_MSG(strcmp(text, "MPI_ERR_TRUNCATE") == 0 && len == 16, "%s", text);
    }
    int x = 0;
    CHECK_MSG(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK, "rank out of range");
    CHECK_MSG(MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD) == MPI_ERR_RANK, "negative rank");
    CHECK_MSG(MPI_Send(&x, 1, MPI_INT, 0, -1, MPI_COMM_WORLD) == MPI_ERR_TAG, "negative tag");
    CHECK_MSG(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT, "negative count");
    CHECK_MSG(MPI_Send(&x, 1, (MPI_Datatype)12345678, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE, "bad datatype");
    CHECK_MSG(MPI_Send(&x, 1, MPI_INT, 0, 0, (MPI_Comm)77) == MPI_ERR_COMM, "bad communicator");
    CHECK_MSG(MPI_Recv(&x, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_ERR_TAG, "bad receive tag");
    return mtest_finalize();
}
