/* MPI_Alltoallv and MPI_Alltoallw (MPI-1.3 §4.8, MPI-2.2 §5.8): the personalized exchange with
 * a count, displacement and (for w) datatype per peer, built as MPI_Alltoall is (coll/coll.c):
 * in step k each rank sends to rank+k and receives from rank-k, a send-receive pair on the
 * communicator's collective context that cannot deadlock. MPI_IN_PLACE exchanges out of a copy
 * of the receive buffer, whose counts and types then serve for both. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "coll/coll.h"

#define T_ALLTOALLV 16 /* above coll/coll.c's tags */

struct side {
    const char *buf;
    const int *counts, *displs;
    const MPI_Datatype *types; /* one per peer (w), or... */
    MPI_Datatype type;         /* ... one for all (v), displacements in its extent */
};

static MPI_Datatype type_of(const struct side *s, int r)
{
    return s->types ? s->types[r] : s->type;
}

static MPI_Aint offset(const struct side *s, int r)
{
    return s->types ? s->displs[r] : (MPI_Aint)s->displs[r] * cb_type_extent(s->type);
}

static int check_side(const char *name, MPI_Comm comm, struct cb_comm *c, const struct side *s)
{
    size_t bytes;
    for (int r = 0; r < c->size; r++)
        CB_CHECK(cb_check_buffer(name, comm, s->counts[r], type_of(s, r), &bytes));
    return MPI_SUCCESS;
}

static size_t span(struct cb_comm *c, const struct side *s)
{
    size_t most = 0;
    for (int r = 0; r < c->size; r++) {
        MPI_Aint end = offset(s, r) + (MPI_Aint)s->counts[r] * cb_type_extent(type_of(s, r));
        most = end > (MPI_Aint)most ? (size_t)end : most;
    }
    return most;
}

/* On an intercommunicator (MPI-2.2 §5.8): the group whose leader has the lower world rank
 * sends to each remote rank in order while the other receives from each in order, then the
 * other way. Pair (i, j) waits only for pairs with a smaller i or j, so this cannot deadlock. */
static int inter_exchange(const char *name, struct cb_comm *c, MPI_Comm comm, const struct side *out, const struct side *in)
{
    int first = c->local_world[0] < c->world[0];
    for (int phase = 0; phase < 2; phase++)
        for (int r = 0; r < c->size; r++)
            if ((phase == 0) == first)
                CB_CHECK(cb_send(name, c, comm, 1, out->buf + offset(out, r), out->counts[r], type_of(out, r), r, T_ALLTOALLV));
            else
                CB_CHECK(cb_recv(name, c, comm, 1, (char *)in->buf + offset(in, r), in->counts[r], type_of(in, r), r, T_ALLTOALLV,
                    MPI_STATUS_IGNORE));
    return MPI_SUCCESS;
}

int cb_inter_allgatherv(const char *name, MPI_Comm comm, struct cb_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
    void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype)
{
    int *counts = malloc(sizeof(int) * (size_t)c->size), *zeros = calloc((size_t)c->size, sizeof(int));
    for (int r = 0; r < c->size; r++)
        counts[r] = sendcount;
    struct side out = {sendbuf, counts, zeros, NULL, sendtype}, in = {recvbuf, recvcounts, displs, NULL, recvtype};
    int rc = check_side(name, comm, c, &in);
    if (rc == MPI_SUCCESS)
        rc = inter_exchange(name, c, comm, &out, &in);
    free(counts);
    free(zeros);
    return rc;
}

static int exchange(const char *name, MPI_Comm comm, struct side *out, struct side *in)
{
    struct cb_comm *c = NULL;
    cb_need_init(name);
    CB_CHECK(cb_check_comm(name, comm, &c));
    CB_CHECK(coll_not_in_place(name, comm, c, out->buf, "sendbuf"));
    CB_CHECK(check_side(name, comm, c, in));
    char *copy = NULL;
    if (out->buf == MPI_IN_PLACE) {
        size_t bytes = span(c, in);
        copy = malloc(bytes + 1);
        memcpy(copy, in->buf, bytes);
        *out = *in;
        out->buf = copy;
    } else
        CB_CHECK(check_side(name, comm, c, out));
    int rc = MPI_SUCCESS;
    if (c->inter)
        rc = inter_exchange(name, c, comm, out, in);
    for (int k = 0; !c->inter && k < c->size && rc == MPI_SUCCESS; k++) {
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        rc = cb_sendrecv(name, c, comm, 1, out->buf + offset(out, to), out->counts[to], type_of(out, to), to, T_ALLTOALLV,
            (char *)in->buf + offset(in, from), in->counts[from], type_of(in, from), from, T_ALLTOALLV, MPI_STATUS_IGNORE);
    }
    free(copy);
    return rc;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct side out = {sendbuf, sendcounts, sdispls, NULL, sendtype}, in = {recvbuf, recvcounts, rdispls, NULL, recvtype};
    return exchange("MPI_Alltoallv", comm, &out, &in);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
    const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct side out = {sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL};
    struct side in = {recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL};
    return exchange("MPI_Alltoallw", comm, &out, &in);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
