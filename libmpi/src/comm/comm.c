/* Communicators (MPI-1.3 chapter 5): duplicating, splitting, freeing and comparing
 * intracommunicators (intercomm.c has the intercommunicators'). Each new communicator's context
 * id is agreed on by a reduction and a broadcast of the seed's linear collectives (coll/coll.c),
 * so that creating one costs what the seed's library would spend on it; MPI_Comm_split gathers
 * each member's free id with its color and key, so it needs no collectives of its own for it.
 */
#include <stdlib.h>
#include "coll/coll.h"
#include "internal.h"

/* A context id every member agrees on: one above the largest any member has used. */
static int next_ctx;

static int free_ctx(void)
{
    if (next_ctx == 0)
        next_ctx = cb_world_size() + 1; /* 0 is MPI_COMM_WORLD's, 1..size MPI_COMM_SELF's */
    return next_ctx;
}

static int agree_ctx(const char *name, struct cb_comm *c, MPI_Comm comm, int *ctx)
{
    int mine = free_ctx();
    CB_CHECK(coll_reduce(name, c, comm, &mine, ctx, 1, MPI_INT, MPI_MAX, 0));
    CB_CHECK(coll_bcast(name, c, comm, ctx, 1, MPI_INT, 0));
    next_ctx = *ctx + 1;
    return MPI_SUCCESS;
}

int cb_agree_ctx(const char *name, MPI_Comm comm, int *ctx)
{
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin(name, comm, &c));
    return agree_ctx(name, c, comm, ctx);
}

void cb_ctx_taken(int ctx)
{
    next_ctx = ctx + 1 > next_ctx ? ctx + 1 : next_ctx;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    struct cb_comm *c = NULL;
    int ctx;
    CB_CHECK(coll_begin("MPI_Comm_dup", comm, &c));
    if (c->inter)
        return cb_intercomm_dup(comm, newcomm);
    CB_CHECK(agree_ctx("MPI_Comm_dup", c, comm, &ctx));
    if (cb_new_comm(c->size, c->rank, c->world, ctx, c->eh, newcomm) != MPI_SUCCESS)
        return cb_fail("MPI_Comm_dup", comm, MPI_ERR_INTERN, "too many communicators");
    int rc = cb_comm_copied(comm, *newcomm);
    if (rc != MPI_SUCCESS) /* a copy function failed: no new communicator */
        CB_INNER(PMPI_Comm_free(newcomm));
    return rc;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *name = "MPI_Comm_split";
    struct cb_comm *c = NULL;
    int ctx;
    CB_CHECK(coll_begin(name, comm, &c));
    if (c->inter)
        return cb_intercomm_split(comm, color, key, newcomm);
    if (color < 0 && color != MPI_UNDEFINED)
        return cb_fail(name, comm, MPI_ERR_ARG, "color %d is invalid: allowed 0 and up or MPI_UNDEFINED", color);
    /* (color, key, free context id) of every member, to every member: two collectives. */
    int mine[3] = {color, key, free_ctx()}, n = c->size;
    int *all = malloc(sizeof(int) * 3 * (size_t)n), *counts, *displs;
    coll_regular(c, 3, &counts, &displs);
    int rc = coll_gatherv(name, c, comm, mine, 3, MPI_INT, all, counts, displs, MPI_INT, 0);
    if (rc == MPI_SUCCESS)
        rc = coll_bcast(name, c, comm, all, 3 * n, MPI_INT, 0);
    free(counts);
    free(displs);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    ctx = 0;
    for (int r = 0; r < n; r++)
        ctx = all[3 * r + 2] > ctx ? all[3 * r + 2] : ctx;
    next_ctx = ctx + 1;
    *newcomm = MPI_COMM_NULL;
    if (color != MPI_UNDEFINED) {
        /* Members of my color, ordered by (key, rank in the parent). */
        int *order = malloc(sizeof(int) * (size_t)n), size = 0, me = 0;
        for (int r = 0; r < n; r++)
            if (all[3 * r] == color) {
                int at = size++;
                while (at > 0 && all[3 * order[at - 1] + 1] > all[3 * r + 1]) {
                    order[at] = order[at - 1];
                    at--;
                }
                order[at] = r;
            }
        int *world = malloc(sizeof(int) * (size_t)size);
        for (int i = 0; i < size; i++) {
            world[i] = c->world[order[i]];
            if (order[i] == c->rank)
                me = i;
        }
        /* Every color gets the same agreed id: their members are disjoint, so no message
         * of one can reach a member of another. */
        rc = cb_new_comm(size, me, world, ctx, c->eh, newcomm) == MPI_SUCCESS ? MPI_SUCCESS
            : cb_fail(name, comm, MPI_ERR_INTERN, "too many communicators");
        free(order);
        free(world);
    }
    free(all);
    return rc;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin("MPI_Comm_free", *comm, &c));
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return cb_fail("MPI_Comm_free", *comm, MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
    CB_CHECK(cb_comm_freeing(*comm));
    c->freed = 1;
    cb_comm_release(*comm); /* gone now unless a pending request still holds it */
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    struct cb_comm *a = NULL, *b = NULL;
    CB_CHECK(coll_begin("MPI_Comm_compare", comm1, &a));
    CB_CHECK(coll_begin("MPI_Comm_compare", comm2, &b));
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int same = a->size == b->size, order = same;
    for (int i = 0; same && i < a->size; i++) {
        int found = 0;
        for (int j = 0; j < b->size; j++)
            found |= a->world[i] == b->world[j];
        same = found;
        order = order && a->world[i] == b->world[i];
    }
    *result = !same ? MPI_UNEQUAL : order ? MPI_CONGRUENT : MPI_SIMILAR;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
#pragma weak MPI_Comm_split = PMPI_Comm_split
#pragma weak MPI_Comm_free = PMPI_Comm_free
#pragma weak MPI_Comm_compare = PMPI_Comm_compare
