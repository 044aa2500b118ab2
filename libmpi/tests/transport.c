/* The call channel's edges: messages larger than the shared data area (1 MiB), which travel
 * over the socket beside it, in both directions and through Sendrecv; and many cheap calls in
 * a row. Any even number of ranks: pairs (0,1), (2,3), ... */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

static unsigned char at(long i, int from)
{
    return (unsigned char)(i * 7 + from * 31 + (i >> 12));
}

int main(int argc, char **argv)
{
    int rank, size, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long n = (3L << 20) + 3;
    unsigned char *out = malloc(n), *in = malloc(n);
    for (long i = 0; i < n; i++)
        out[i] = at(i, rank);
    int peer = rank ^ 1;
    MPI_Status st;
    if (peer < size) {
        if (rank % 2 == 0) {
            MPI_Send(out, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            MPI_Recv(in, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(in, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st);
            MPI_Send(out, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
        }
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_MSG(count == n, "received %d bytes, sent %ld", count, n);
        long bad = -1;
        for (long i = 0; i < n && bad < 0; i++)
            if (in[i] != at(i, peer))
                bad = i;
        CHECK_MSG(bad < 0, "byte %ld differs after Send/Recv", bad);
        memset(in, 0, n);
        MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, 5, in, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st);
        bad = -1;
        for (long i = 0; i < n && bad < 0; i++)
            if (in[i] != at(i, peer))
                bad = i;
        CHECK_MSG(bad < 0, "byte %ld differs after Sendrecv", bad);
    }
    for (int i = 0; i < 1000; i++) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_MSG(!flag, "call %d: Iprobe found a message where none was sent", i);
    }
    free(out);
    free(in);
    return mtest_finalize();
}
