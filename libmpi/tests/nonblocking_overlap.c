/* Nonblocking requests are in flight together on the simulated SPEs: an Isend/Irecv exchange
 * beats Send-then-Recv, both ranks may Isend first, Waitany takes the first to finish, Test
 * reports a request not yet done, and messages keep their order. Pairs of ranks (0-1, 2-3, ...);
 * an odd last rank only reports; the times are compared with two ranks. Prints the two exchange times when given "-v". */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define N 16384

static double exchange(int peer, int rank, int overlapped, char *s, char *d)
{
    MPI_Request q[2];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (overlapped) {
        MPI_Irecv(d, N, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(s, N, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    } else if (rank < peer) {
        MPI_Send(s, N, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(d, N, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(d, N, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(s, N, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    char *s = malloc(N), *d = malloc(N);
    for (int i = 0; i < N; i++)
        s[i] = (char)(i * 7 + rank);
    double blocking = 0, overlapped = 0;
    int paired = peer < size;
    /* Every rank joins the barriers inside exchange(); an unpaired one has nobody to talk to. */
    for (int round = 0; round < 2; round++) {
        if (paired) {
            memset(d, 0, N);
            double t = exchange(peer, rank, round, s, d);
            *(round ? &overlapped : &blocking) = t;
            int ok = 1;
            for (int i = 0; i < N; i++)
                ok &= d[i] == (char)(i * 7 + peer);
            CHECK_MSG(ok, "round %d: wrong bytes from %d", round, peer);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    if (paired) {
        /* Timed on one pair only: with more, the linear barrier releases ranks at different times. */
        if (size == 2)
            CHECK_MSG(overlapped < 0.75 * blocking, "Isend+Irecv %.3f us vs Send/Recv %.3f us", overlapped * 1e6, blocking * 1e6);
        if (argc > 1 && !strcmp(argv[1], "-v") && rank == 0)
            printf("exchange of %d B: Send then Recv %.3f us, Isend+Irecv+Waitall %.3f us\n", N, blocking * 1e6, overlapped * 1e6);

        /* Both Isend first, several each, then receive: no deadlock, order kept. */
        int out[4], in[4];
        MPI_Request q[8];
        for (int k = 0; k < 4; k++) {
            out[k] = 100 * rank + k;
            MPI_Isend(&out[k], 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &q[k]);
        }
        for (int k = 0; k < 4; k++)
            MPI_Irecv(&in[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[4 + k]);
        MPI_Status st[8];
        MPI_Waitall(8, q, st);
        for (int k = 0; k < 4; k++) {
            CHECK_MSG(in[k] == 100 * peer + k, "message %d: got %d", k, in[k]);
            CHECK_MSG(st[4 + k].MPI_SOURCE == peer && st[4 + k].MPI_TAG == 7, "status %d", k);
        }

        /* Test before the peer sends reports not done; Waitany takes the message sent. */
        int a = -1, b = -1, flag = 1, index = -1;
        MPI_Request r[2];
        MPI_Irecv(&a, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[1]);
        MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
        CHECK_MSG(!flag, "a receive nobody has sent to is not done");
        MPI_Barrier(MPI_COMM_WORLD);
        int v = rank + 50;
        MPI_Send(&v, 1, MPI_INT, peer, 21, MPI_COMM_WORLD);
        MPI_Status one;
        MPI_Waitany(2, r, &index, &one);
        CHECK_MSG(index == 1 && b == peer + 50 && one.MPI_TAG == 21, "waitany: index %d, b %d", index, b);
        MPI_Send(&v, 1, MPI_INT, peer, 20, MPI_COMM_WORLD);
        do
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
        while (!flag);
        CHECK_MSG(a == peer + 50 && r[0] == MPI_REQUEST_NULL, "test: a %d", a);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(s);
    free(d);
    return mtest_finalize();
}
