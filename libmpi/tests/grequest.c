/* Generalized requests (MPI-2.2 §12.2): a request the program completes. A test before
 * MPI_Grequest_complete finds it pending; a wait after it returns the status the query
 * function sets (with MPI_Status_set_elements and _set_cancelled) and calls the free function
 * once; the free function's error is the wait's; MPI_Request_free before completion defers the
 * free function to MPI_Grequest_complete; MPI_Cancel calls the cancel function; a Waitany
 * picks the completed one among other requests. With "never", the rank waits on one it never
 * completed: an error naming it, not a hang. */
#include <string.h>
#include "mtest.h"

struct state {
    int queried, freed, cancelled, free_rc;
};

static int query(void *extra, MPI_Status *status)
{
    struct state *s = extra;
    s->queried++;
    status->MPI_SOURCE = 3;
    status->MPI_TAG = 11;
    MPI_Status_set_elements(status, MPI_INT, 5);
    MPI_Status_set_cancelled(status, 0);
    return MPI_SUCCESS;
}

static int release(void *extra)
{
    struct state *s = extra;
    s->freed++;
    return s->free_rc;
}

static int cancel(void *extra, int complete)
{
    struct state *s = extra;
    s->cancelled = complete ? 2 : 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct state s = {0, 0, 0, MPI_SUCCESS};
    MPI_Request r;
    MPI_Status st;
    int flag, count;
    MPI_Grequest_start(query, release, cancel, &s, &r);
    if (argc > 1 && strcmp(argv[1], "never") == 0)
        MPI_Wait(&r, &st); /* nothing can complete it now */
    MPI_Test(&r, &flag, &st);
    CHECK_MSG(!flag && s.queried == 0, "pending before MPI_Grequest_complete: flag %d", flag);
    MPI_Cancel(&r);
    CHECK_MSG(s.cancelled == 1, "cancel function told it is not complete: %d", s.cancelled);
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_MSG(r == MPI_REQUEST_NULL && s.queried == 1 && s.freed == 1, "r %d, queried %d, freed %d", r, s.queried, s.freed);
    CHECK_MSG(st.MPI_SOURCE == 3 && st.MPI_TAG == 11 && count == 5, "status (%d, %d, %d)", st.MPI_SOURCE, st.MPI_TAG, count);
    int elements;
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Status_set_elements(&st, pair, 3);
    MPI_Get_elements(&st, pair, &elements);
    CHECK_MSG(st.count == 12 && elements == 3, "3 ints of a pair type: %d bytes, %d elements", st.count, elements);
    MPI_Type_free(&pair);

    /* MPI_Request_free first: the free function runs at completion. */
    struct state t = {0, 0, 0, MPI_SUCCESS};
    MPI_Grequest_start(query, release, cancel, &t, &r);
    MPI_Request kept = r;
    MPI_Request_free(&r);
    CHECK_MSG(r == MPI_REQUEST_NULL && t.freed == 0, "freed early: r %d, freed %d", r, t.freed);
    MPI_Grequest_complete(kept);
    CHECK_MSG(t.freed == 1 && t.queried == 0, "at completion: freed %d, queried %d", t.freed, t.queried);

    /* Among receives: Waitany takes the completed generalized request. */
    int rank, size, buf = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct state u = {0, 0, 0, MPI_ERR_OTHER};
    MPI_Request two[2];
    MPI_Irecv(&buf, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &two[0]);
    MPI_Grequest_start(query, release, cancel, &u, &two[1]);
    MPI_Grequest_complete(two[1]);
    int index;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Waitany(2, two, &index, &st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MSG(index == 1 && rc == MPI_ERR_OTHER && u.freed == 1, "Waitany: index %d, rc %d (the free function's), freed %d", index, rc, u.freed);
    int mine = rank;
    MPI_Send(&mine, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD);
    MPI_Wait(&two[0], MPI_STATUS_IGNORE);
    CHECK_MSG(buf == (rank + 1) % size, "the receive beside it got %d", buf);
    return mtest_finalize();
}
