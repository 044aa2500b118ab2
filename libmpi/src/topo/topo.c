/* Process topologies (MPI-1.3 chapter 6): Cartesian grids and graphs over a communicator.
 * A topology is what the communicator knows about its ranks, kept here per communicator
 * handle; building one is collective (MPI_Comm_split on the simulated blade: ranks past the
 * topology's size get MPI_COMM_NULL) and ranks are never reordered (the simulated SPEs are
 * placed by `mpirun --placement`). Queries are local. MPI_Comm_dup copies the topology and
 * MPI_Comm_free drops it (cb_topo_copy, cb_topo_drop). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"


static struct topo {
    int kind; /* MPI_CART, MPI_GRAPH, or 0 for none */
    int ndims, *dims, *periods;
    int nnodes, *index, *edges;
} topos[MAX_COMMS];

static int *copy_ints(const int *from, int n)
{
    int *to = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (n)
        memcpy(to, from, sizeof(int) * (size_t)n);
    return to;
}

void cb_topo_drop(MPI_Comm comm)
{
    if (comm <= 0 || comm >= MAX_COMMS)
        return;
    struct topo *t = &topos[comm];
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    memset(t, 0, sizeof *t);
}

void cb_topo_copy(MPI_Comm from, MPI_Comm to)
{
    if (from <= 0 || from >= MAX_COMMS || to <= 0 || to >= MAX_COMMS)
        return;
    struct topo *a = &topos[from], *b = &topos[to];
    cb_topo_drop(to);
    b->kind = a->kind;
    b->ndims = a->ndims;
    b->nnodes = a->nnodes;
    if (a->kind == MPI_CART) {
        b->dims = copy_ints(a->dims, a->ndims);
        b->periods = copy_ints(a->periods, a->ndims);
    } else if (a->kind == MPI_GRAPH) {
        b->index = copy_ints(a->index, a->nnodes);
        b->edges = copy_ints(a->edges, a->nnodes ? a->index[a->nnodes - 1] : 0);
    }
}

/* The communicator's topology of `kind` (0: any), or the error naming what it lacks. */
static int topo_of(const char *call, MPI_Comm comm, int kind, struct cb_comm **c, struct topo **t)
{
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, c));
    *t = &topos[comm];
    if (kind && (*t)->kind != kind)
        return cb_fail(call, comm, MPI_ERR_TOPOLOGY, "communicator %d has no %s topology", comm, kind == MPI_CART ? "Cartesian" : "graph");
    return MPI_SUCCESS;
}

/* The first `size` ranks of `comm`, in order, as a new communicator (MPI_COMM_NULL beyond). */
static int first_ranks(struct cb_comm *c, MPI_Comm comm, int size, MPI_Comm *out)
{
    return CB_INNER(PMPI_Comm_split(comm, c->rank < size ? 0 : MPI_UNDEFINED, c->rank, out));
}

int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart)
{
    const char *call = "MPI_Cart_create";
    struct cb_comm *c;
    (void)reorder;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, &c));
    if (ndims < 0)
        return cb_fail(call, comm, MPI_ERR_DIMS, "%d dimensions are invalid: allowed 0 and up", ndims);
    long size = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return cb_fail(call, comm, MPI_ERR_DIMS, "dimension %d has %d ranks: allowed 1 and up", i, dims[i]);
        size *= dims[i];
    }
    if (size > c->size)
        return cb_fail(call, comm, MPI_ERR_TOPOLOGY, "the grid needs %ld ranks, the communicator has %d", size, c->size);
    CB_CHECK(first_ranks(c, comm, (int)size, comm_cart));
    if (*comm_cart != MPI_COMM_NULL) {
        struct topo *t = &topos[*comm_cart];
        cb_topo_drop(*comm_cart);
        *t = (struct topo){MPI_CART, ndims, copy_ints(dims, ndims), copy_ints(periods, ndims), 0, NULL, NULL};
    }
    return MPI_SUCCESS;
}

/* MPI-1.3 §6.5.2: fill the zero entries with factors of what `nnodes` leaves, as close to one
 * another as possible, in non-increasing order. */
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *call = "MPI_Dims_create";
    if (nnodes <= 0 || ndims < 0)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "%d nodes in %d dimensions are invalid: allowed 1 and up, 0 and up", nnodes, ndims);
    int left = nnodes, free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "dimension %d is %d: allowed 0 (to choose) and up", i, dims[i]);
        if (dims[i] > 0) {
            if (left % dims[i])
                return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "dimension %d (%d) does not divide %d nodes", i, dims[i], nnodes);
            left /= dims[i];
        } else
            free_dims++;
    }
    if (free_dims == 0) {
        if (left != 1)
            return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_DIMS, "the dimensions given do not make %d nodes", nnodes);
        return MPI_SUCCESS;
    }
    int *got = malloc(sizeof(int) * (size_t)free_dims);
    for (int i = 0; i < free_dims; i++)
        got[i] = 1;
    /* Each prime factor, largest first, goes to the currently smallest dimension. */
    int factors[64], nf = 0;
    for (int p = 2, n = left; n > 1; p++)
        while (n % p == 0) {
            factors[nf++] = p;
            n /= p;
        }
    for (int f = nf - 1; f >= 0; f--) {
        int smallest = 0;
        for (int i = 1; i < free_dims; i++)
            if (got[i] < got[smallest])
                smallest = i;
        got[smallest] *= factors[f];
    }
    for (int i = 0; i < free_dims; i++) /* non-increasing */
        for (int j = i + 1; j < free_dims; j++)
            if (got[j] > got[i]) {
                int x = got[i];
                got[i] = got[j];
                got[j] = x;
            }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = got[k++];
    free(got);
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of("MPI_Topo_test", comm, 0, &c, &t));
    *status = t->kind ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of("MPI_Cartdim_get", comm, MPI_CART, &c, &t));
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

static void coords_of(const struct topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of("MPI_Cart_get", comm, MPI_CART, &c, &t));
    int *mine = malloc(sizeof(int) * (size_t)(t->ndims + 1));
    coords_of(t, c->rank, mine);
    for (int i = 0; i < maxdims && i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = mine[i];
    }
    free(mine);
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    const char *call = "MPI_Cart_rank";
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of(call, comm, MPI_CART, &c, &t));
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (t->periods[i])
            x = ((x % d) + d) % d;
        else if (x < 0 || x >= d)
            return cb_fail(call, comm, MPI_ERR_ARG, "coordinate %d of dimension %d is invalid: allowed 0 to %d", x, i, d - 1);
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    const char *call = "MPI_Cart_coords";
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of(call, comm, MPI_CART, &c, &t));
    if (rank < 0 || rank >= c->size)
        return cb_fail(call, comm, MPI_ERR_RANK, "rank %d is invalid: allowed 0 to %d", rank, c->size - 1);
    int *all = malloc(sizeof(int) * (size_t)(t->ndims + 1));
    coords_of(t, rank, all);
    for (int i = 0; i < maxdims && i < t->ndims; i++)
        coords[i] = all[i];
    free(all);
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    const char *call = "MPI_Cart_shift";
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of(call, comm, MPI_CART, &c, &t));
    if (direction < 0 || direction >= t->ndims)
        return cb_fail(call, comm, MPI_ERR_DIMS, "direction %d is invalid: allowed 0 to %d", direction, t->ndims - 1);
    int *at = malloc(sizeof(int) * (size_t)t->ndims), d = t->dims[direction], mine;
    coords_of(t, c->rank, at);
    mine = at[direction];
    int ends[2] = {mine - disp, mine + disp}, *out[2] = {rank_source, rank_dest};
    for (int k = 0; k < 2; k++) {
        int x = ends[k];
        if (t->periods[direction])
            x = ((x % d) + d) % d;
        if (x < 0 || x >= d) {
            *out[k] = MPI_PROC_NULL;
            continue;
        }
        at[direction] = x;
        int r = 0;
        for (int i = 0; i < t->ndims; i++)
            r = r * t->dims[i] + at[i];
        *out[k] = r;
    }
    free(at);
    return MPI_SUCCESS;
}

/* Collective: one sub-grid per value of the dropped coordinates, ranked in grid order. */
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    const char *call = "MPI_Cart_sub";
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of(call, comm, MPI_CART, &c, &t));
    int *at = malloc(sizeof(int) * (size_t)(t->ndims + 1)), color = 0, key = 0, n = 0;
    int *dims = malloc(sizeof(int) * (size_t)(t->ndims + 1)), *periods = malloc(sizeof(int) * (size_t)(t->ndims + 1));
    coords_of(t, c->rank, at);
    for (int i = 0; i < t->ndims; i++)
        if (remain_dims[i]) {
            key = key * t->dims[i] + at[i];
            dims[n] = t->dims[i];
            periods[n++] = t->periods[i];
        } else
            color = color * t->dims[i] + at[i];
    int rc = CB_INNER(PMPI_Comm_split(comm, color, key, newcomm));
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        cb_topo_drop(*newcomm);
        topos[*newcomm] = (struct topo){MPI_CART, n, copy_ints(dims, n), copy_ints(periods, n), 0, NULL, NULL};
    }
    free(at);
    free(dims);
    free(periods);
    return rc;
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    struct cb_comm *c;
    (void)periods;
    cb_need_init("MPI_Cart_map");
    CB_CHECK(cb_check_comm("MPI_Cart_map", comm, &c));
    long size = 1;
    for (int i = 0; i < ndims; i++)
        size *= dims[i];
    *newrank = c->rank < size ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph)
{
    const char *call = "MPI_Graph_create";
    struct cb_comm *c;
    (void)reorder;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, &c));
    if (nnodes < 0 || nnodes > c->size)
        return cb_fail(call, comm, MPI_ERR_ARG, "%d nodes are invalid: allowed 0 to %d", nnodes, c->size);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return cb_fail(call, comm, MPI_ERR_ARG, "index[%d] = %d is below the one before it", i, index[i]);
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return cb_fail(call, comm, MPI_ERR_ARG, "edge %d leads to node %d: allowed 0 to %d", e, edges[e], nnodes - 1);
    CB_CHECK(first_ranks(c, comm, nnodes, comm_graph));
    if (*comm_graph != MPI_COMM_NULL) {
        cb_topo_drop(*comm_graph);
        topos[*comm_graph] = (struct topo){MPI_GRAPH, 0, NULL, NULL, nnodes, copy_ints(index, nnodes), copy_ints(edges, nedges)};
    }
    return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of("MPI_Graphdims_get", comm, MPI_GRAPH, &c, &t));
    *nnodes = t->nnodes;
    *nedges = t->nnodes ? t->index[t->nnodes - 1] : 0;
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    struct cb_comm *c;
    struct topo *t;
    CB_CHECK(topo_of("MPI_Graph_get", comm, MPI_GRAPH, &c, &t));
    for (int i = 0; i < maxindex && i < t->nnodes; i++)
        index[i] = t->index[i];
    int nedges = t->nnodes ? t->index[t->nnodes - 1] : 0;
    for (int e = 0; e < maxedges && e < nedges; e++)
        edges[e] = t->edges[e];
    return MPI_SUCCESS;
}

static int neighbours(const char *call, MPI_Comm comm, int rank, struct topo **t, int *first, int *n)
{
    struct cb_comm *c;
    CB_CHECK(topo_of(call, comm, MPI_GRAPH, &c, t));
    if (rank < 0 || rank >= (*t)->nnodes)
        return cb_fail(call, comm, MPI_ERR_RANK, "rank %d is invalid: allowed 0 to %d", rank, (*t)->nnodes - 1);
    *first = rank ? (*t)->index[rank - 1] : 0;
    *n = (*t)->index[rank] - *first;
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    struct topo *t;
    int first;
    return neighbours("MPI_Graph_neighbors_count", comm, rank, &t, &first, nneighbors);
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    struct topo *t;
    int first, n;
    CB_CHECK(neighbours("MPI_Graph_neighbors", comm, rank, &t, &first, &n));
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = t->edges[first + i];
    return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    struct cb_comm *c;
    (void)index;
    (void)edges;
    cb_need_init("MPI_Graph_map");
    CB_CHECK(cb_check_comm("MPI_Graph_map", comm, &c));
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
#pragma weak MPI_Dims_create = PMPI_Dims_create
#pragma weak MPI_Topo_test = PMPI_Topo_test
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
#pragma weak MPI_Cart_get = PMPI_Cart_get
#pragma weak MPI_Cart_rank = PMPI_Cart_rank
#pragma weak MPI_Cart_coords = PMPI_Cart_coords
#pragma weak MPI_Cart_shift = PMPI_Cart_shift
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
#pragma weak MPI_Cart_map = PMPI_Cart_map
#pragma weak MPI_Graph_create = PMPI_Graph_create
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
#pragma weak MPI_Graph_get = PMPI_Graph_get
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
#pragma weak MPI_Graph_map = PMPI_Graph_map
