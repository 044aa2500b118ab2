/* Groups and the communicators made from them (MPI-1.3 §5.3-5.4): a group is an ordered list
 * of world ranks, local to the process (no simulated time: MPI defines group calls as local).
 * MPI_Comm_create is collective over its parent and agrees on the new communicator through
 * MPI_Comm_split (a gather, a broadcast and a context agreement on the simulated blade).
 * The remote-group queries answer for intercommunicators (comm/intercomm.c). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_GROUPS 4096
#define FIRST_GROUP 2 /* 0 is MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY */

static struct group {
    int used, size;
    int *world;
} groups[MAX_GROUPS];

static struct group empty = {1, 0, NULL};

static struct group *group_of(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return &empty;
    return g >= FIRST_GROUP && g < MAX_GROUPS && groups[g].used ? &groups[g] : NULL;
}

static int check_group(const char *call, MPI_Group g, struct group **out)
{
    cb_need_init(call);
    *out = group_of(g);
    if (!*out)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_GROUP, "group %d is invalid", g);
    return MPI_SUCCESS;
}

/* A new group of `n` world ranks (copied); MPI_GROUP_EMPTY when n is 0. */
static int new_group(const char *call, int n, const int *world, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    for (int g = FIRST_GROUP; g < MAX_GROUPS; g++)
        if (!groups[g].used) {
            groups[g].world = malloc(sizeof(int) * (size_t)n);
            memcpy(groups[g].world, world, sizeof(int) * (size_t)n);
            groups[g].size = n;
            groups[g].used = 1;
            *out = g;
            return MPI_SUCCESS;
        }
    return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d groups", MAX_GROUPS - FIRST_GROUP);
}

static int rank_in(const struct group *g, int world)
{
    for (int r = 0; r < g->size; r++)
        if (g->world[r] == world)
            return r;
    return MPI_UNDEFINED;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    struct cb_comm *c = NULL;
    cb_need_init("MPI_Comm_group");
    CB_CHECK(cb_check_comm("MPI_Comm_group", comm, &c));
    if (c->inter)
        return new_group("MPI_Comm_group", c->local_size, c->local_world, group);
    return new_group("MPI_Comm_group", c->size, c->world, group);
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    struct group *g;
    CB_CHECK(check_group("MPI_Group_size", group, &g));
    *size = g->size;
    return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    struct group *g;
    struct cb_comm *world = cb_comm_get(MPI_COMM_WORLD);
    CB_CHECK(check_group("MPI_Group_rank", group, &g));
    *rank = rank_in(g, world->rank);
    return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
    struct group *g;
    CB_CHECK(check_group("MPI_Group_free", *group, &g));
    if (g != &empty) {
        free(g->world);
        g->used = 0;
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    const char *call = "MPI_Group_translate_ranks";
    struct group *a, *b;
    CB_CHECK(check_group(call, group1, &a));
    CB_CHECK(check_group(call, group2, &b));
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->size)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_RANK, "rank %d is invalid: allowed 0 to %d", ranks1[i], a->size - 1);
        ranks2[i] = rank_in(b, a->world[ranks1[i]]);
    }
    return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    struct group *a, *b;
    CB_CHECK(check_group("MPI_Group_compare", group1, &a));
    CB_CHECK(check_group("MPI_Group_compare", group2, &b));
    int same = a->size == b->size, order = same;
    for (int i = 0; same && i < a->size; i++) {
        same = rank_in(b, a->world[i]) != MPI_UNDEFINED;
        order = order && a->world[i] == b->world[i];
    }
    *result = !same ? MPI_UNEQUAL : order ? MPI_IDENT : MPI_SIMILAR;
    return MPI_SUCCESS;
}

/* Union (a's members, then b's not in a), intersection (a's members in b) or difference
 * (a's members not in b), in a's order first as MPI-1.3 §5.3.2 orders them. */
enum { UNION, INTERSECTION, DIFFERENCE };

static int combine(const char *call, MPI_Group group1, MPI_Group group2, int how, MPI_Group *out)
{
    struct group *a, *b;
    CB_CHECK(check_group(call, group1, &a));
    CB_CHECK(check_group(call, group2, &b));
    int *world = malloc(sizeof(int) * (size_t)(a->size + b->size + 1)), n = 0;
    for (int i = 0; i < a->size; i++) {
        int in_b = rank_in(b, a->world[i]) != MPI_UNDEFINED;
        if (how == UNION || (how == INTERSECTION) == in_b)
            world[n++] = a->world[i];
    }
    if (how == UNION)
        for (int i = 0; i < b->size; i++)
            if (rank_in(a, b->world[i]) == MPI_UNDEFINED)
                world[n++] = b->world[i];
    int rc = new_group(call, n, world, out);
    free(world);
    return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return combine("MPI_Group_union", group1, group2, UNION, newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return combine("MPI_Group_intersection", group1, group2, INTERSECTION, newgroup);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return combine("MPI_Group_difference", group1, group2, DIFFERENCE, newgroup);
}

/* The ranks `ranks[0..n)` of `g` (each once, in range), marked in `chosen`. */
static int choose(const char *call, struct group *g, int n, const int *ranks, char *chosen)
{
    if (n < 0 || n > g->size)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "%d ranks are invalid: allowed 0 to %d", n, g->size);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_RANK, "rank %d is invalid: allowed 0 to %d", ranks[i], g->size - 1);
        if (chosen[ranks[i]])
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_RANK, "rank %d is named twice", ranks[i]);
        chosen[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

/* Include (in the order given) or exclude the ranks `ranks[0..n)` of `group`. */
static int subset(const char *call, MPI_Group group, int n, const int *ranks, int include, MPI_Group *out)
{
    struct group *g;
    CB_CHECK(check_group(call, group, &g));
    char *chosen = calloc((size_t)g->size + 1, 1);
    int *world = malloc(sizeof(int) * (size_t)(g->size + 1)), k = 0;
    int rc = choose(call, g, n, ranks, chosen);
    if (rc == MPI_SUCCESS && include)
        for (int i = 0; i < n; i++)
            world[k++] = g->world[ranks[i]];
    else if (rc == MPI_SUCCESS)
        for (int r = 0; r < g->size; r++)
            if (!chosen[r])
                world[k++] = g->world[r];
    if (rc == MPI_SUCCESS)
        rc = new_group(call, k, world, out);
    free(chosen);
    free(world);
    return rc;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return subset("MPI_Group_incl", group, n, ranks, 1, newgroup);
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return subset("MPI_Group_excl", group, n, ranks, 0, newgroup);
}

/* The ranks of `n` (first, last, stride) triplets, in order; *out is to be freed. */
static int expand(const char *call, MPI_Group group, int n, int ranges[][3], int **out, int *count)
{
    struct group *g;
    CB_CHECK(check_group(call, group, &g));
    int total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || (last - first) / stride < 0)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "range (%d, %d, %d) is invalid: the stride must lead from first to last",
                first, last, stride);
        total += (last - first) / stride + 1;
    }
    *out = malloc(sizeof(int) * (size_t)(total + 1));
    *count = 0;
    for (int i = 0; i < n; i++)
        for (int r = ranges[i][0]; ranges[i][2] > 0 ? r <= ranges[i][1] : r >= ranges[i][1]; r += ranges[i][2])
            (*out)[(*count)++] = r;
    return MPI_SUCCESS;
}

static int range_subset(const char *call, MPI_Group group, int n, int ranges[][3], int include, MPI_Group *newgroup)
{
    int *ranks = NULL, count = 0;
    CB_CHECK(expand(call, group, n, ranges, &ranks, &count));
    int rc = subset(call, group, count, ranks, include, newgroup);
    free(ranks);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_subset("MPI_Group_range_incl", group, n, ranges, 1, newgroup);
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_subset("MPI_Group_range_excl", group, n, ranges, 0, newgroup);
}

/* Collective over `comm`: each member passes the same group, a subset of comm's. */
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *call = "MPI_Comm_create";
    struct cb_comm *c = NULL;
    struct group *g;
    CB_CHECK(check_group(call, group, &g)); /* first: it starts the call afresh (cb_need_init) */
    CB_CHECK(cb_check_comm(call, comm, &c));
    /* On an intercommunicator (MPI-2.2 §6.4.2) each group names a part of itself, and the two
     * parts make the new intercommunicator. */
    const int *members = c->inter ? c->local_world : c->world;
    int n = c->inter ? c->local_size : c->size;
    for (int r = 0; r < g->size; r++) {
        int found = 0;
        for (int k = 0; k < n && !found; k++)
            found = members[k] == g->world[r];
        if (!found)
            return cb_fail(call, comm, MPI_ERR_GROUP, "world rank %d of the group is not in the communicator's %sgroup", g->world[r],
                c->inter ? "local " : "");
    }
    int me = rank_in(g, members[c->rank]);
    if (c->inter)
        return cb_intercomm_split(comm, me == MPI_UNDEFINED ? MPI_UNDEFINED : 0, me, newcomm);
    return CB_INNER(PMPI_Comm_split(comm, me == MPI_UNDEFINED ? MPI_UNDEFINED : 0, me, newcomm));
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct cb_comm *c = NULL;
    cb_need_init("MPI_Comm_test_inter");
    CB_CHECK(cb_check_comm("MPI_Comm_test_inter", comm, &c));
    *flag = c->inter;
    return MPI_SUCCESS;
}

static int remote(const char *call, MPI_Comm comm, struct cb_comm **c)
{
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, c));
    if (!(*c)->inter)
        return cb_fail(call, comm, MPI_ERR_COMM, "communicator %d is not an intercommunicator", comm);
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    struct cb_comm *c = NULL;
    CB_CHECK(remote("MPI_Comm_remote_size", comm, &c));
    *size = c->size;
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    struct cb_comm *c = NULL;
    CB_CHECK(remote("MPI_Comm_remote_group", comm, &c));
    return new_group("MPI_Comm_remote_group", c->size, c->world, group);
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
#pragma weak MPI_Group_size = PMPI_Group_size
#pragma weak MPI_Group_rank = PMPI_Group_rank
#pragma weak MPI_Group_free = PMPI_Group_free
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
#pragma weak MPI_Group_compare = PMPI_Group_compare
#pragma weak MPI_Group_union = PMPI_Group_union
#pragma weak MPI_Group_intersection = PMPI_Group_intersection
#pragma weak MPI_Group_difference = PMPI_Group_difference
#pragma weak MPI_Group_incl = PMPI_Group_incl
#pragma weak MPI_Group_excl = PMPI_Group_excl
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
#pragma weak MPI_Comm_create = PMPI_Comm_create
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
