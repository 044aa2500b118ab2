/* Buffers larger than the simulated blade holds (issue 43): a 2 GB send is MPI_ERR_NO_MEM
 * through the communicator's error handler, its message naming the call, for MPI_Send,
 * MPI_Isend and MPI_Sendrecv; a 2 GB receive buffer posted for a 4-byte message is legal and
 * gets it, for MPI_Recv, MPI_Irecv and MPI_Sendrecv. No page of the buffers is touched but
 * the first, so they cost no memory. argv[1] "fatal": the first send under the default
 * handler, whose report names the call. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define HUGE 2147483647

int main(int argc, char **argv)
{
    int rank, n, x = 41, cls;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int peer = (rank + 1) % n, from = (rank + n - 1) % n;
    char *big = malloc(HUGE);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) /* the default handler: its report names the call */
        MPI_Send(big, HUGE, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *calls[] = {"MPI_Send", "MPI_Isend", "MPI_Sendrecv"};
    for (int k = 0; k < 3; k++) {
        MPI_Request q = MPI_REQUEST_NULL;
        int rc = k == 0   ? MPI_Send(big, HUGE, MPI_BYTE, peer, 0, MPI_COMM_WORLD)
                 : k == 1 ? MPI_Isend(big, HUGE, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &q)
                          : MPI_Sendrecv(big, HUGE, MPI_BYTE, peer, 0, &x, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        CHECK_MSG(cls == MPI_ERR_NO_MEM && q == MPI_REQUEST_NULL, "a 2 GB %s: class %d", calls[k], cls);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    for (int k = 0; k < 3; k++) {
        int v = 100 * rank + k, got = -1;
        MPI_Status st;
        MPI_Request q;
        big[0] = -1;
        if (k == 0) {
            MPI_Request s;
            MPI_Isend(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, &s);
            MPI_Recv(big, HUGE, MPI_BYTE, from, k, MPI_COMM_WORLD, &st);
            MPI_Wait(&s, MPI_STATUS_IGNORE);
        } else if (k == 1) {
            MPI_Irecv(big, HUGE, MPI_BYTE, from, k, MPI_COMM_WORLD, &q);
            MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
            MPI_Wait(&q, &st);
        } else {
            MPI_Sendrecv(&v, 1, MPI_INT, peer, k, big, HUGE, MPI_BYTE, from, k, MPI_COMM_WORLD, &st);
        }
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        memcpy(&got, big, sizeof got);
        CHECK_MSG(count == 4 && got == 100 * from + k, "a 2 GB receive buffer (%d): %d bytes, value %d", k, count, got);
    }
    free(big);
    return mtest_finalize();
}
