/* MPI_Type_free has reference semantics (found by MPICH's datatype/tfree): a derived type freed
 * while a receive is pending on it, with its slot then wanted by many new types, still places
 * the data by its own stride; a type built on a freed type keeps working; a freed handle is
 * MPI_ERR_TYPE; 1101 types can exist at once; and freed types give their slots back (3000
 * create/free rounds). */
#include <stdlib.h>
#include "mtest.h"

#define NELM 64
#define STRIDE 4

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int src = 0, dst = n - 1;

    if (n >= 2 && (rank == src || rank == dst)) {
        int *buf = malloc(sizeof(int) * NELM * STRIDE);
        if (rank == dst) {
            MPI_Datatype strided, fill[1100];
            MPI_Request req;
            for (int i = 0; i < NELM * STRIDE; i++)
                buf[i] = -1;
            MPI_Type_vector(NELM, 1, STRIDE, MPI_INT, &strided);
            MPI_Type_commit(&strided);
            MPI_Irecv(buf, 1, strided, src, 0, MPI_COMM_WORLD, &req);
            MPI_Type_free(&strided);
            CHECK_MSG(strided == MPI_DATATYPE_NULL, "freed handle set to MPI_DATATYPE_NULL");
            for (int i = 0; i < 1100; i++) {
                MPI_Type_contiguous(NELM, MPI_INT, &fill[i]);
                MPI_Type_commit(&fill[i]);
            }
            MPI_Sendrecv(NULL, 0, MPI_INT, src, 1, NULL, 0, MPI_INT, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (int i = 0; i < NELM * STRIDE; i++)
                CHECK_MSG(buf[i] == (i % STRIDE ? -1 : i / STRIDE), "pending receive, slot %d: %d", i, buf[i]);
            for (int i = 0; i < 1100; i++)
                MPI_Type_free(&fill[i]);
        } else {
            for (int i = 0; i < NELM; i++)
                buf[i] = i;
            MPI_Sendrecv(NULL, 0, MPI_INT, dst, 1, NULL, 0, MPI_INT, dst, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, NELM, MPI_INT, dst, 0, MPI_COMM_WORLD);
        }
        free(buf);
    }

    /* Pairs of ints, four of them every 3 pairs: the pair type is freed before use. */
    MPI_Datatype pair, spread, copy;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_vector(4, 1, 3, pair, &spread);
    MPI_Type_commit(&spread);
    copy = pair;
    MPI_Type_free(&pair);
    int size = 0;
    MPI_Type_size(spread, &size);
    CHECK_MSG(size == 32, "size of a type built on a freed one: %d", size);
    int v[24], w[24];
    for (int i = 0; i < 24; i++)
        v[i] = rank * 100 + i, w[i] = -1;
    MPI_Sendrecv(v, 1, spread, (rank + 1) % n, 2, w, 1, spread, (rank + n - 1) % n, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int from = (rank + n - 1) % n;
    for (int i = 0; i < 20; i++)
        CHECK_MSG(w[i] == ((i / 2) % 3 ? -1 : from * 100 + i), "spread slot %d: %d", i, w[i]);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1, rc = MPI_Send(v, 1, copy, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_TYPE, "send with a freed handle: class %d", cls);
    cls = -1;
    rc = MPI_Type_free(&copy);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_TYPE, "freeing twice: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&spread);

    for (int i = 0; i < 3000; i++) {
        MPI_Datatype a, b;
        MPI_Type_contiguous(3, MPI_INT, &a);
        MPI_Type_vector(2, 1, 2, a, &b);
        MPI_Type_free(&a);
        MPI_Type_free(&b);
    }
    return mtest_finalize();
}
