/* Point-to-point basics: a ring of messages of many sizes, data checked element by element;
 * status source, tag and count; MPI_ANY_SOURCE and MPI_ANY_TAG; MPI_PROC_NULL. The optional
 * argument caps the element count (ls mode keeps buffers in the 256 KB local store). */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    static const int counts[] = {0, 1, 3, 17, 128, 1000, 4097, 40000};
    int cap = argc > 1 ? atoi(argv[1]) : 1 << 30;
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k] < cap ? counts[k] : cap;
        double *out = malloc(sizeof(double) * (n + 1)), *in = malloc(sizeof(double) * (n + 1));
        for (int i = 0; i < n; i++)
            out[i] = rank * 1e6 + i + 0.5;
        MPI_Status st;
        if (rank % 2 == 0) {
            MPI_Send(out, n, MPI_DOUBLE, next, k, MPI_COMM_WORLD);
            MPI_Recv(in, n, MPI_DOUBLE, prev, k, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(in, n, MPI_DOUBLE, prev, k, MPI_COMM_WORLD, &st);
            MPI_Send(out, n, MPI_DOUBLE, next, k, MPI_COMM_WORLD);
        }
        int got;
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        CHECK_MSG(st.MPI_SOURCE == prev && st.MPI_TAG == (int)k && got == n, "source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, got);
        /* MPICH's name for the bytes received, which programs written against MPICH print. */
        CHECK_MSG(st.count == n * (int)sizeof(double), "status.count is %d bytes for %d doubles", st.count, n);
        for (int i = 0; i < n; i++)
            if (in[i] != prev * 1e6 + i + 0.5) {
                CHECK_MSG(0, "element %d of %d is %g", i, n, in[i]);
                break;
            }
        free(out);
        free(in);
    }
    /* Any source, any tag: rank 0 collects one message from every other rank. */
    if (rank == 0) {
        int seen = 0;
        for (int r = 1; r < size; r++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK_MSG(v == st.MPI_SOURCE * 10 && st.MPI_TAG == 100 + st.MPI_SOURCE, "value %d from %d tag %d", v, st.MPI_SOURCE, st.MPI_TAG);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK_MSG(seen == ((1 << size) - 2), "senders seen %#x", seen);
    } else {
        int v = rank * 10;
        MPI_Send(&v, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    }
    /* Keep the error reports of mtest_finalize out of the any-tag receives above. */
    MPI_Barrier(MPI_COMM_WORLD);
    /* MPI_PROC_NULL: both return at once, the receive's status says so. */
    char c = 'x';
    MPI_Status st;
    MPI_Send(&c, 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&c, 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    int got;
    MPI_Get_count(&st, MPI_CHAR, &got);
    CHECK_MSG(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && got == 0 && c == 'x', "proc null status");
    return mtest_finalize();
}
