/* MPI_Request_free (MPI-1 §3.7.3): the handle becomes MPI_REQUEST_NULL at once and the
 * operation completes in the background. Rank 0 frees an Isend and then receives from rank 1,
 * whose synchronous send waits for that receive (this deadlocked while Request_free waited);
 * a freed Irecv's bytes are in its buffer once a later message from the same sender, or a later
 * collective, has been received; freed sends to one receiver arrive in order; freeing
 * MPI_REQUEST_NULL, an invalid or an already freed handle is MPI_ERR_REQUEST. Ranks above 1
 * only join the barrier and the verdict. Argument: the large messages' ints (default 20000,
 * several memory-mode chunks). */
#include <stdlib.h>
#include "mtest.h"

#define SENDS 40

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 1000003 + i;
}

static int wrong(const int *b, int n, int seed)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += b[i] != seed * 1000003 + i;
    return bad;
}

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *a = malloc(sizeof(int) * (size_t)n), *b = calloc((size_t)n, sizeof(int));
    MPI_Request q, copy;
    if (rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        fill(a, n, 1);
        MPI_Isend(a, n, MPI_INT, 1, 5, MPI_COMM_WORLD, &q);
        int rc = MPI_Request_free(&q);
        CHECK_MSG(rc == MPI_SUCCESS && q == MPI_REQUEST_NULL, "freeing an Isend: code %d, handle %d", rc, q);
        MPI_Recv(b, n, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_MSG(wrong(b, n, 2) == 0, "rank 1's message: %d ints wrong", wrong(b, n, 2));

        int *c = calloc((size_t)n, sizeof(int)), token = 0;
        MPI_Irecv(c, n, MPI_INT, 1, 7, MPI_COMM_WORLD, &q);
        copy = q;
        rc = MPI_Request_free(&q);
        CHECK_MSG(rc == MPI_SUCCESS && q == MPI_REQUEST_NULL, "freeing an Irecv: code %d, handle %d", rc, q);
        rc = MPI_Wait(&copy, MPI_STATUS_IGNORE);
        CHECK_MSG(error_class(rc) == MPI_ERR_REQUEST, "waiting on a freed request: code %d", rc);
        rc = MPI_Request_free(&copy);
        CHECK_MSG(error_class(rc) == MPI_ERR_REQUEST, "freeing a freed request: code %d", rc);
        MPI_Recv(&token, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_MSG(wrong(c, n, 3) == 0, "the freed Irecv's buffer after a later message: %d ints wrong", wrong(c, n, 3));
        free(c);

        /* Any source, into a derived type freed meanwhile: every other int of d. */
        int d[32] = {0};
        MPI_Datatype every_other;
        MPI_Type_vector(16, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        MPI_Irecv(d, 1, every_other, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &q);
        MPI_Request_free(&q);
        MPI_Type_free(&every_other);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < 16; k++)
            CHECK_MSG(d[2 * k] == 100 + k && d[2 * k + 1] == 0, "after the barrier: d[%d] = %d, d[%d] = %d", 2 * k, d[2 * k], 2 * k + 1,
                d[2 * k + 1]);

        int small[SENDS];
        for (int k = 0; k < SENDS; k++) {
            small[k] = k;
            if (k % 2)
                MPI_Issend(&small[k], 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &q);
            else
                MPI_Isend(&small[k], 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &q);
            MPI_Request_free(&q);
        }

        q = MPI_REQUEST_NULL;
        rc = MPI_Request_free(&q);
        CHECK_MSG(error_class(rc) == MPI_ERR_REQUEST, "freeing MPI_REQUEST_NULL: code %d", rc);
        q = 12345;
        rc = MPI_Request_free(&q);
        CHECK_MSG(error_class(rc) == MPI_ERR_REQUEST, "freeing handle 12345: code %d", rc);
        MPI_Isend(a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
        rc = MPI_Request_free(&q);
        CHECK_MSG(rc == MPI_SUCCESS && q == MPI_REQUEST_NULL, "freeing a send to MPI_PROC_NULL: code %d", rc);
    } else if (rank == 1) {
        fill(a, n, 2);
        MPI_Send(a, n, MPI_INT, 0, 6, MPI_COMM_WORLD);
        MPI_Recv(b, n, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_MSG(wrong(b, n, 1) == 0, "the freed Isend's message: %d ints wrong", wrong(b, n, 1));
        fill(a, n, 3);
        MPI_Send(a, n, MPI_INT, 0, 7, MPI_COMM_WORLD);
        MPI_Send(a, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        int e[16];
        for (int k = 0; k < 16; k++)
            e[k] = 100 + k;
        MPI_Send(e, 16, MPI_INT, 0, 9, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < SENDS; k++) {
            int x = -1;
            MPI_Recv(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_MSG(x == k, "freed send %d brought %d", k, x);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(a);
    free(b);
    return mtest_finalize();
}
