/* Intercommunicators (MPI-1.3 §5.6): two disjoint groups, point-to-point between them.
 *
 * An intercommunicator is a struct cb_comm whose `size` and `world` are the remote group's, so
 * that every point-to-point call (which names remote ranks) works on it unchanged; its `rank`
 * is in the local group, which it also keeps with a hidden intracommunicator over it. Both
 * groups agree on one context: each group agrees on its own (cb_agree_ctx), the two leaders
 * exchange theirs and take the larger, and each leader broadcasts it to its group, all through
 * the simulated point-to-point and collective operations. Collectives on intercommunicators
 * (MPI-2, with MPI_ROOT) are coll/coll.c's and coll/alltoallv.c's.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define T_INTER 17 /* on the collective context, above coll/coll.c's and coll/alltoallv.c's tags */

/* The new intercommunicator: remote group `remote[0..rsize)`, local group that of `local`,
 * context `ctx`. Collective over `local` (the hidden duplicate). */
static int make_inter(const char *call, MPI_Comm local, int rsize, const int *remote, int ctx, MPI_Comm *out)
{
    struct cb_comm *lc = cb_comm_get(local);
    MPI_Comm hidden;
    cb_ctx_taken(ctx);
    CB_CHECK(CB_INNER(PMPI_Comm_dup(local, &hidden)));
    lc = cb_comm_get(local);
    const int *lw = lc->inter ? lc->local_world : lc->world;
    int lsize = lc->inter ? lc->local_size : lc->size;
    if (cb_new_comm(rsize, lc->rank, remote, ctx, lc->eh, out) != MPI_SUCCESS)
        return cb_fail(call, local, MPI_ERR_INTERN, "too many communicators");
    struct cb_comm *c = cb_comm_get(*out);
    c->inter = 1;
    c->local_size = lsize;
    c->local_world = malloc(sizeof(int) * (size_t)lsize);
    memcpy(c->local_world, lw, sizeof(int) * (size_t)lsize);
    c->local_comm = hidden;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *call = "MPI_Intercomm_create";
    struct cb_comm *lc = NULL;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, local_comm, &lc));
    if (lc->inter)
        return cb_fail(call, local_comm, MPI_ERR_COMM, "the local communicator %d is an intercommunicator", local_comm);
    if (local_leader < 0 || local_leader >= lc->size)
        return cb_fail(call, local_comm, MPI_ERR_RANK, "local leader %d is invalid: allowed 0 to %d", local_leader, lc->size - 1);
    int lctx, n = 2 + cb_world_size();
    CB_CHECK(cb_agree_ctx(call, local_comm, &lctx));
    int *mine = calloc((size_t)n, sizeof(int)), *theirs = calloc((size_t)n, sizeof(int));
    int rc = MPI_SUCCESS;
    if (lc->rank == local_leader) {
        mine[0] = lctx;
        mine[1] = lc->size;
        memcpy(mine + 2, lc->world, sizeof(int) * (size_t)lc->size);
        rc = CB_INNER(PMPI_Sendrecv(mine, n, MPI_INT, remote_leader, tag, theirs, n, MPI_INT, remote_leader, tag, peer_comm, MPI_STATUS_IGNORE));
        theirs[0] = theirs[0] > lctx ? theirs[0] : lctx;
    }
    if (rc == MPI_SUCCESS)
        rc = CB_INNER(PMPI_Bcast(theirs, n, MPI_INT, local_leader, local_comm));
    if (rc == MPI_SUCCESS)
        rc = make_inter(call, local_comm, theirs[1], theirs + 2, theirs[0], newintercomm);
    free(mine);
    free(theirs);
    return rc;
}

/* `*value` of the local group's leader and that of the remote one, exchanged by the leaders
 * and broadcast to each group: on return *value is the local one, *other the remote one. */
static int swap_with_remote(const char *call, struct cb_comm *c, MPI_Comm comm, int *value, int *other)
{
    if (c->rank == 0)
        CB_CHECK(cb_sendrecv(call, c, comm, 1, value, 1, MPI_INT, 0, T_INTER, other, 1, MPI_INT, 0, T_INTER, MPI_STATUS_IGNORE));
    int both[2] = {*value, *other};
    CB_CHECK(CB_INNER(PMPI_Bcast(both, 2, MPI_INT, 0, c->local_comm)));
    *value = both[0];
    *other = both[1];
    return MPI_SUCCESS;
}

/* A context both groups agree on. */
static int agree_across(const char *call, struct cb_comm *c, MPI_Comm comm, int *ctx)
{
    int mine, theirs = 0;
    CB_CHECK(cb_agree_ctx(call, c->local_comm, &mine));
    CB_CHECK(swap_with_remote(call, c, comm, &mine, &theirs));
    *ctx = mine > theirs ? mine : theirs;
    cb_ctx_taken(*ctx);
    return MPI_SUCCESS;
}

int cb_intercomm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    const char *call = "MPI_Comm_dup";
    struct cb_comm *c = cb_comm_get(comm);
    int ctx;
    CB_CHECK(agree_across(call, c, comm, &ctx));
    int *remote = malloc(sizeof(int) * (size_t)c->size);
    memcpy(remote, c->world, sizeof(int) * (size_t)c->size);
    int rc = make_inter(call, c->local_comm, c->size, remote, ctx, newcomm);
    free(remote);
    if (rc == MPI_SUCCESS) {
        cb_comm_get(*newcomm)->eh = cb_comm_get(comm)->eh;
        rc = cb_comm_copied(comm, *newcomm);
    }
    return rc;
}

/* MPI-2.2 §6.4.2: each group splits by color, and the parts of one color on both sides make
 * an intercommunicator (MPI_COMM_NULL where the other side has no part of that color). */
int cb_intercomm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *call = "MPI_Comm_split";
    struct cb_comm *c = cb_comm_get(comm);
    int n = cb_world_size(), ctx, count = 0;
    int mine[3] = {color, key, c->local_world[c->rank]};
    int *local = malloc(sizeof(int) * 3 * (size_t)n), *remote = calloc(3 * (size_t)n, sizeof(int));
    int *world = malloc(sizeof(int) * (size_t)n), *keys = malloc(sizeof(int) * (size_t)n);
    MPI_Comm part = MPI_COMM_NULL;
    *newcomm = MPI_COMM_NULL;
    int rc = CB_INNER(PMPI_Allgather(mine, 3, MPI_INT, local, 3, MPI_INT, c->local_comm));
    if (rc == MPI_SUCCESS && c->rank == 0)
        rc = cb_sendrecv(call, c, comm, 1, local, 3 * c->local_size, MPI_INT, 0, T_INTER, remote, 3 * c->size, MPI_INT, 0, T_INTER,
            MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = CB_INNER(PMPI_Bcast(remote, 3 * c->size, MPI_INT, 0, c->local_comm));
    if (rc == MPI_SUCCESS)
        rc = agree_across(call, c, comm, &ctx);
    if (rc == MPI_SUCCESS)
        rc = CB_INNER(PMPI_Comm_split(c->local_comm, color, key, &part));
    /* The remote members of my color, by (key, remote rank): an insertion sort. */
    for (int r = 0; rc == MPI_SUCCESS && part != MPI_COMM_NULL && r < c->size; r++)
        if (remote[3 * r] == color) {
            int at = count++;
            for (; at > 0 && keys[at - 1] > remote[3 * r + 1]; at--)
                keys[at] = keys[at - 1], world[at] = world[at - 1];
            keys[at] = remote[3 * r + 1];
            world[at] = remote[3 * r + 2];
        }
    if (rc == MPI_SUCCESS && count > 0)
        rc = make_inter(call, part, count, world, ctx, newcomm);
    if (part != MPI_COMM_NULL)
        CB_INNER(PMPI_Comm_free(&part));
    free(local);
    free(remote);
    free(world);
    free(keys);
    return rc;
}

void cb_intercomm_freeing(MPI_Comm comm)
{
    struct cb_comm *c = cb_comm_get(comm);
    if (c && c->inter && c->local_comm != MPI_COMM_NULL)
        CB_INNER(PMPI_Comm_free(&c->local_comm));
}

/* The union, the group that passed `high` false first (on a tie, the group whose leader has
 * the lower world rank). */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    const char *call = "MPI_Intercomm_merge";
    struct cb_comm *c = NULL;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, intercomm, &c));
    if (!c->inter)
        return cb_fail(call, intercomm, MPI_ERR_COMM, "communicator %d is not an intercommunicator", intercomm);
    int mine = high != 0, theirs = 0, ctx;
    CB_CHECK(swap_with_remote(call, c, intercomm, &mine, &theirs));
    CB_CHECK(agree_across(call, c, intercomm, &ctx));
    c = cb_comm_get(intercomm);
    int first = mine != theirs ? !mine : c->local_world[0] < c->world[0];
    int total = c->local_size + c->size, *world = malloc(sizeof(int) * (size_t)total);
    const int *a = first ? c->local_world : c->world, *b = first ? c->world : c->local_world;
    int na = first ? c->local_size : c->size;
    memcpy(world, a, sizeof(int) * (size_t)na);
    memcpy(world + na, b, sizeof(int) * (size_t)(total - na));
    int rank = first ? c->rank : c->size + c->rank;
    int rc = cb_new_comm(total, rank, world, ctx, c->eh, newintracomm) == MPI_SUCCESS ? MPI_SUCCESS
        : cb_fail(call, intercomm, MPI_ERR_INTERN, "too many communicators");
    free(world);
    return rc;
}

/* MPI_Barrier on an intercommunicator: each group's barrier, the leaders' exchange, and the
 * group's barrier again, so no rank leaves before every rank of both groups has entered. */
int cb_inter_barrier(MPI_Comm comm, struct cb_comm *c)
{
    const char *call = "MPI_Barrier";
    char none = 0;
    CB_CHECK(CB_INNER(PMPI_Barrier(c->local_comm)));
    if (c->rank == 0)
        CB_CHECK(cb_sendrecv(call, c, comm, 1, &none, 0, MPI_BYTE, 0, T_INTER, &none, 0, MPI_BYTE, 0, T_INTER, MPI_STATUS_IGNORE));
    return CB_INNER(PMPI_Barrier(c->local_comm));
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
