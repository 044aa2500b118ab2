/* Isend/Irecv completed by Wait, Waitall, Waitany, Test; the osu_bw window pattern; Probe then
 * Recv of the probed size; Iprobe with nothing pending; Sendrecv around a ring (plain sends
 * would deadlock in synchronous mode) and Sendrecv_replace; PMPI_ names. */
#include <stdlib.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (rank + 1) % n, left = (rank + n - 1) % n;
    int out = rank, in = -1;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
    CHECK_MSG(in == left && st.MPI_SOURCE == left && st.MPI_TAG == 1, "ring sendrecv got %d", in);
    int v = rank;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_MSG(v == left, "sendrecv_replace got %d", v);
    /* The classic exchange: receive and send posted, then one Waitall; and bibw's order, sends
     * waited before receives. Deferred operations pair a send with a receive, so neither hangs. */
    int a = rank, b = -1, c = rank * 2, d = -1;
    MPI_Request rq[4];
    MPI_Irecv(&b, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&a, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK_MSG(b == left, "irecv/isend exchange got %d", b);
    MPI_Irecv(&d, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(&c, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &rq[3]);
    MPI_Wait(&rq[3], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[2], &st);
    CHECK_MSG(d == left * 2 && st.MPI_SOURCE == left && st.MPI_TAG == 4, "send waited first: got %d", d);
    if (n >= 2 && rank < 2) {
        enum { W = 16 };
        int buf[W];
        MPI_Request req[W];
        if (rank == 0) {
            for (int i = 0; i < W; i++) {
                buf[i] = i * 3;
                MPI_Isend(&buf[i], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &req[i]);
            }
            MPI_Waitall(W, req, MPI_STATUSES_IGNORE);
            int flag = 0;
            MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            CHECK_MSG(!flag, "nothing from rank 1 yet");
            double msg[5] = {1, 2, 3, 4, 5};
            PMPI_Send(msg, 5, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD);
            MPI_Request r;
            MPI_Irecv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r);
            /* Each test is one pass of the progress engine: it completes once rank 1 has sent. */
            int done = 0, tests = 0;
            do {
                MPI_Test(&r, &done, &st);
                tests++;
            } while (!done && tests < 100000);
            CHECK_MSG(done && v == 99 && r == MPI_REQUEST_NULL, "test completes the receive");
        } else {
            MPI_Status sts[W];
            for (int i = 0; i < W; i++)
                MPI_Irecv(&buf[i], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &req[i]);
            int idx;
            MPI_Waitany(W, req, &idx, &sts[0]);
            CHECK_MSG(idx == 0 && buf[0] == 0, "waitany");
            MPI_Waitall(W, req, sts);
            for (int i = 0; i < W; i++)
                CHECK_MSG(buf[i] == i * 3, "window item %d = %d", i, buf[i]);
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int cnt;
            MPI_Get_count(&st, MPI_DOUBLE, &cnt);
            CHECK_MSG(st.MPI_SOURCE == 0 && st.MPI_TAG == 8 && cnt == 5, "probe: from %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
            double *msg = malloc(sizeof(double) * cnt);
            MPI_Recv(msg, cnt, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_MSG(msg[4] == 5, "probed message");
            free(msg);
            v = 99;
            MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
        }
    }
    return mtest_finalize();
}
