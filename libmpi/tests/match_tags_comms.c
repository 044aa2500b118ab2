/* Matching by tag and communicator (MPI-1 §3.5, issue 22): rank 0 posts Isend tag 1 then
 * Isend tag 2 and rank 1 receives tag 2 first; an Isend on a duplicate communicator then a
 * Send on MPI_COMM_WORLD to the same rank, received world first; MPI_ANY_TAG then takes the
 * oldest message left. With 3 or more ranks, the others each Isend tags 31 then 30 to rank 1,
 * which takes tag 30 from any source first. Each must complete with the right bytes. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, a[4] = {11, 12, 13, 14}, b[2] = {21, 22}, got[4];
    MPI_Comm dup;
    MPI_Request q[3];
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        MPI_Isend(a, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(b, 2, MPI_INT, 1, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        MPI_Isend(b, 1, MPI_INT, 1, 5, dup, &q[2]);
        MPI_Send(a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Wait(&q[2], MPI_STATUS_IGNORE);
        MPI_Isend(a, 2, MPI_INT, 1, 7, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(b, 2, MPI_INT, 1, 8, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(got, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
        CHECK_MSG(st.MPI_TAG == 2 && got[0] == 21 && got[1] == 22, "tag 2 first: tag %d, %d %d", st.MPI_TAG, got[0], got[1]);
        MPI_Recv(got, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        CHECK_MSG(got[0] == 11 && got[3] == 14, "then tag 1: %d .. %d", got[0], got[3]);
        MPI_Recv(got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
        CHECK_MSG(got[0] == 11, "world's message on the world: %d", got[0]);
        MPI_Recv(got, 1, MPI_INT, 0, 5, dup, &st);
        CHECK_MSG(got[0] == 21, "the duplicate's on the duplicate: %d", got[0]);
        MPI_Probe(0, 8, MPI_COMM_WORLD, &st); /* parks tag 7 on its way */
        MPI_Recv(got, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK_MSG(st.MPI_TAG == 7 && got[1] == 12, "any tag takes the oldest: tag %d", st.MPI_TAG);
        MPI_Recv(got, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK_MSG(st.MPI_TAG == 8 && got[1] == 22, "then tag %d", st.MPI_TAG);
        /* Every other rank sends tag 31 before tag 30: any source, tag 30 first, parks them. */
        int seen = 0;
        for (int k = 2; k < size; k++) {
            MPI_Recv(got, 1, MPI_INT, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &st);
            CHECK_MSG(got[0] == 100 * st.MPI_SOURCE, "tag 30 from rank %d: %d", st.MPI_SOURCE, got[0]);
            seen |= 1 << st.MPI_SOURCE;
        }
        for (int k = 2; k < size; k++) {
            MPI_Recv(got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK_MSG(st.MPI_TAG == 31 && got[0] == 100 * st.MPI_SOURCE + 1, "tag %d from rank %d: %d", st.MPI_TAG, st.MPI_SOURCE, got[0]);
        }
        CHECK_MSG(seen == ((1 << size) - 1) - 3, "tag 30 from every other rank: %#x", seen);
    } else {
        int v[2] = {100 * rank, 100 * rank + 1};
        MPI_Isend(&v[1], 1, MPI_INT, 1, 31, MPI_COMM_WORLD, &q[1]);
        MPI_Isend(&v[0], 1, MPI_INT, 1, 30, MPI_COMM_WORLD, &q[0]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
    MPI_Comm_free(&dup);
    return mtest_finalize();
}
