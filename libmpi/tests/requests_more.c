/* Persistent requests, buffered and ready sends, MPI_Waitsome/MPI_Testsome, MPI_Cancel of a
 * receive (MPI-1.3 §3.4-3.9),
 * MPI_Alltoallv and MPI_Reduce_scatter, and MPI_IN_PLACE in them, on a ring of ranks. */
#include <stdlib.h>
#include "mtest.h"

static void persistent(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, out = 0, in = -1;
    MPI_Request r[2];
    MPI_Send_init(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[1]);
    MPI_Status st[2];
    MPI_Waitall(2, r, st); /* not started: inactive, as null requests */
    CHECK_MSG(r[0] != MPI_REQUEST_NULL, "an inactive persistent request keeps its handle");
    for (int round = 0; round < 4; round++) {
        out = rank * 100 + round;
        MPI_Startall(2, r);
        MPI_Waitall(2, r, st);
        CHECK_MSG(in == left * 100 + round && st[1].MPI_SOURCE == left, "round %d received %d", round, in);
        CHECK_MSG(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL, "persistent requests stay after MPI_Waitall");
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    CHECK_MSG(r[0] == MPI_REQUEST_NULL, "MPI_Request_free nulls a persistent request");
}

static void buffered(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, x = rank, y[2] = {-1, -1}, bsize;
    int need = 2 * (4 + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)need);
    MPI_Buffer_attach(buf, need);
    /* Every rank sends before it receives: only buffering makes this safe. */
    MPI_Bsend(&x, 1, MPI_INT, right, 6, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Ibsend(&x, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Recv(&y[0], 1, MPI_INT, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&y[1], 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_MSG(y[0] == left && y[1] == left, "buffered sends delivered %d %d", y[0], y[1]);
    /* A persistent buffered send completes at once, before its receive is posted. */
    MPI_Request pb;
    MPI_Bsend_init(&x, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &pb);
    MPI_Start(&pb);
    MPI_Wait(&pb, MPI_STATUS_IGNORE);
    MPI_Recv(&y[0], 1, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_MSG(y[0] == left, "persistent buffered send delivered %d", y[0]);
    MPI_Request_free(&pb);
    void *back;
    MPI_Buffer_detach(&back, &bsize);
    CHECK_MSG(back == buf && bsize == need, "detached %d bytes", bsize);
    free(buf);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Bsend(&x, 1, MPI_INT, right, 8, MPI_COMM_WORLD);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "a buffered send with no buffer attached returns %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* Ready sends: the receive is posted first, then a barrier says so. */
    MPI_Irecv(&y[0], 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(&x, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK_MSG(y[0] == left, "ready send delivered %d", y[0]);
}

static void some(int rank, int size)
{
    int n = size - 1, *in = calloc((size_t)size, sizeof(int)), done = 0, indices[16], outcount;
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)size);
    for (int k = 0, p = 0; p < size; p++)
        if (p != rank)
            MPI_Irecv(&in[p], 1, MPI_INT, p, 10, MPI_COMM_WORLD, &r[k++]);
    for (int p = 0; p < size; p++)
        if (p != rank)
            MPI_Send(&rank, 1, MPI_INT, p, 10, MPI_COMM_WORLD);
    while (done < n) {
        MPI_Waitsome(n, r, &outcount, indices, MPI_STATUSES_IGNORE);
        CHECK_MSG(outcount >= 1, "MPI_Waitsome completed %d", outcount);
        done += outcount > 0 ? outcount : n;
    }
    MPI_Testsome(n, r, &outcount, indices, MPI_STATUSES_IGNORE);
    CHECK_MSG(outcount == MPI_UNDEFINED, "MPI_Testsome over null requests gives %d", outcount);
    for (int p = 0; p < size; p++)
        CHECK_MSG(p == rank || in[p] == p, "from %d received %d", p, in[p]);
    free(in);
    free(r);
}

static void cancel(int rank, int size)
{
    int x = -1, flag = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, (rank + 1) % size, 99, MPI_COMM_WORLD, &r); /* never sent */
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK_MSG(flag && x == -1, "a receive no message matched is cancelled: flag %d", flag);
    /* A receive that has matched completes with its message. */
    int y = rank, z = -1;
    MPI_Irecv(&z, 1, MPI_INT, (rank + size - 1) % size, 98, MPI_COMM_WORLD, &r);
    MPI_Send(&y, 1, MPI_INT, (rank + 1) % size, 98, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK_MSG(!flag && z == (rank + size - 1) % size, "a matched receive is not cancelled: flag %d, got %d", flag, z);
}

static void alltoallv(int rank, int size)
{
    /* Rank r sends p+1 ints, each r*100+p, to rank p. */
    int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
    int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size), st = 0, rt = 0;
    for (int p = 0; p < size; p++) {
        sc[p] = p + 1, sd[p] = st, st += sc[p];
        rc[p] = rank + 1, rd[p] = rt, rt += rc[p];
    }
    int *sb = malloc(sizeof(int) * (size_t)st), *rb = malloc(sizeof(int) * (size_t)rt);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < sc[p]; i++)
            sb[sd[p] + i] = rank * 100 + p;
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size; p++)
        CHECK_MSG(rb[rd[p]] == p * 100 + rank && rb[rd[p] + rank] == p * 100 + rank, "from %d: %d", p, rb[rd[p]]);
    /* In place: each rank's block p becomes p's block for it. */
    for (int p = 0; p < size; p++)
        rc[p] = 1, rd[p] = p, rb[p] = rank * 10 + p;
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size; p++)
        CHECK_MSG(rb[p] == p * 10 + rank, "in place from %d: %d", p, rb[p]);
    /* Reduce_scatter: rank p gets the sum over ranks of block p (p+1 ints of value r). */
    int *vals = malloc(sizeof(int) * (size_t)st), *mine = malloc(sizeof(int) * (size_t)(rank + 1));
    for (int i = 0; i < st; i++)
        vals[i] = rank;
    MPI_Reduce_scatter(vals, mine, sc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_MSG(mine[0] == size * (size - 1) / 2 && mine[rank] == mine[0], "reduce_scatter gave %d", mine[0]);
    int sum = rank;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_MSG(sum == size * (size - 1) / 2, "allreduce in place gave %d", sum);
    int *arrays[] = {sc, sd, rc, rd, sb, rb, vals, mine};
    for (int i = 0; i < 8; i++)
        free(arrays[i]);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        persistent(rank, size);
        buffered(rank, size);
        some(rank, size);
        cancel(rank, size);
    }
    alltoallv(rank, size);
    return mtest_finalize();
}
