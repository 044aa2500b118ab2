/* Collectives of the rank library, built on send and receive as seed 004
 * §3.4 builds them ("the root performs N-1 send operations"): linear, on the communicator's
 * collective context so they never match its point-to-point messages. MPI_Barrier on
 * MPI_COMM_WORLD is the simulator's (the same linear scheme, run inside the SPE programs).
 * Reductions combine in rank order (x0 op x1 op ... op xn-1), so non-commutative user
 * operations are right. Predefined operations over derived datatypes are packed and reduced as
 * the predefined element type; user operations get the datatype itself, as MPI defines, with
 * the buffers kept in memory layout (a datatype's extent per element).
 *
 * `cellblade mpirun --coll` may put MPI_Barrier, Bcast, Reduce, Allreduce and Allgather on the
 * collective library instead (crates/cellblade/src/mpi/collective.rs): on communicators with
 * MPI_COMM_WORLD's ranks in its order, the call goes to the simulator as one request, which
 * answers with the result or tells this side to take the seed's path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "channel.h"
#include "internal.h"
#include "coll/coll.h"

enum { T_BCAST = 1, T_REDUCE, T_GATHER, T_SCATTER, T_ALLTOALL, T_SCAN, T_BARRIER, T_SPLIT };

int coll_begin(const char *name, MPI_Comm comm, struct cb_comm **c)
{
    cb_need_init(name);
    return cb_check_comm(name, comm, c);
}

/* MPI-2.2 §5.2.2: "in place" is an intracommunicator option, since on an intercommunicator no
 * process sends to itself. */
int coll_not_in_place(const char *name, MPI_Comm comm, const struct cb_comm *c, const void *buf, const char *arg)
{
    if (c->inter && buf == MPI_IN_PLACE)
        return cb_fail(name, comm, MPI_ERR_BUFFER, "%s is MPI_IN_PLACE on intercommunicator %d: allowed on intracommunicators only", arg, comm);
    return MPI_SUCCESS;
}

/* Collectives on intercommunicators are MPI-2's (§7.3.1); MPI_Scan and MPI_Exscan take
 * intracommunicators only. */
static int intra_begin(const char *name, MPI_Comm comm, struct cb_comm **c)
{
    CB_CHECK(coll_begin(name, comm, c));
    if ((*c)->inter)
        return cb_fail(name, comm, MPI_ERR_COMM, "communicator %d is an intercommunicator: %s is defined on intracommunicators only", comm, name);
    return MPI_SUCCESS;
}

/* On an intercommunicator the root's group passes MPI_ROOT (the root) or MPI_PROC_NULL (the
 * others), the other group the root's rank in it. */
static int check_root(const char *name, MPI_Comm comm, struct cb_comm *c, int root)
{
    if (c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL))
        return MPI_SUCCESS;
    if (root < 0 || root >= c->size)
        return cb_fail(name, comm, MPI_ERR_ROOT, "root %d is invalid: allowed 0 to %d%s", root, c->size - 1,
            c->inter ? ", MPI_ROOT or MPI_PROC_NULL on an intercommunicator" : "");
    return MPI_SUCCESS;
}

/* This rank receives (gather, reduce) or sends (bcast, scatter) for every other. */
static int is_root(const struct cb_comm *c, int root)
{
    return c->inter ? root == MPI_ROOT : c->rank == root;
}

/* This rank takes no part: an intercommunicator's root group away from its root. */
static int sits_out(const struct cb_comm *c, int root)
{
    return c->inter && root == MPI_PROC_NULL;
}

static int check_buf(const char *name, MPI_Comm comm, int count, MPI_Datatype t)
{
    size_t bytes;
    return cb_check_buffer(name, comm, count, t, &bytes);
}

static int check_reduce(const char *name, MPI_Comm comm, int count, MPI_Datatype t, MPI_Op op)
{
    int n;
    MPI_Datatype base = cb_type_base(t, count, &n);
    CB_CHECK(check_buf(name, comm, count, t));
    return cb_check_op(name, comm, op, base);
}

/* --coll: the families the simulator may run on the library (bit f for F_*), asked once. */
enum { F_BARRIER, F_BCAST, F_REDUCE, F_ALLREDUCE, F_ALLGATHER };
static int lib_families = -1;

static int on_library(int family, struct cb_comm *c)
{
    if (lib_families < 0)
        cb_call(OP_COLL, CB_COLL_QUERY, 0, 0, 0, NULL, NULL, &lib_families, NULL);
    if (!(lib_families >> family & 1) || c->size != cb_world_size())
        return 0;
    for (int r = 0; r < c->size; r++)
        if (c->world[r] != r)
            return 0;
    return 1;
}

/* The library's element types and operations (collective.rs's numbering); 0: not on it. */
static int lib_dtype(MPI_Datatype t)
{
    return t == MPI_INT ? 1 : t == MPI_FLOAT ? 2 : t == MPI_DOUBLE ? 3 : 0;
}

static int lib_op(MPI_Op op)
{
    return op == MPI_SUM ? 1 : op == MPI_MIN ? 2 : op == MPI_MAX ? 3 : op == MPI_PROD ? 4 : 0;
}

/* Run `family` on the library with this rank's `inlen` bytes at `in` (each rank's message is
 * `size` bytes), the result into `out`. 1 if it ran, 0 if the seed's path must run it. */
static int library(int family, struct cb_comm *c, int root, int dtype, int op, size_t size, const void *in, size_t inlen, void *out)
{
    if (!on_library(family, c))
        return 0;
    char *msg = malloc(16 + inlen);
    uint32_t head[2] = {(uint32_t)dtype, (uint32_t)op};
    uint64_t n = size;
    memcpy(msg, head, 8);
    memcpy(msg + 8, &n, 8);
    if (inlen)
        memcpy(msg + 16, in, inlen);
    int err = cb_call(OP_COLL, family, root, c->ctx, 16 + inlen, msg, out, NULL, NULL);
    free(msg);
    return err != CB_COLL_SEED;
}

/* A reduction of `n` elements of the predefined `base` on the library, if it takes them. */
static int library_reduce(int family, struct cb_comm *c, int root, const void *in, void *out, int n, MPI_Datatype base, MPI_Op op)
{
    if (!lib_dtype(base) || !lib_op(op))
        return 0;
    size_t bytes = (size_t)n * cb_type_size(base);
    return library(family, c, root, lib_dtype(base), lib_op(op), bytes, in, bytes, out);
}

/* Copy `count` elements of `stype` at `src` to `rcount` of `rtype` at `dst` (a local message). */
static void local_copy(const void *src, int count, MPI_Datatype stype, void *dst, MPI_Datatype rtype)
{
    size_t bytes = (size_t)count * cb_type_size(stype);
    char *tmp = malloc(bytes ? bytes : 1);
    cb_pack(src, count, stype, tmp);
    cb_unpack(tmp, bytes, rtype, dst);
    free(tmp);
}

int coll_bcast(const char *name, struct cb_comm *c, MPI_Comm comm, void *buf, int count, MPI_Datatype t, int root)
{
    if (sits_out(c, root))
        return MPI_SUCCESS;
    if (!is_root(c, root))
        return cb_recv(name, c, comm, 1, buf, count, t, root, T_BCAST, MPI_STATUS_IGNORE);
    for (int r = 0; r < c->size; r++)
        if (c->inter || r != root)
            CB_CHECK(cb_send(name, c, comm, 1, buf, count, t, r, T_BCAST));
    return MPI_SUCCESS;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin("MPI_Bcast", comm, &c));
    CB_CHECK(check_root("MPI_Bcast", comm, c, root));
    if (buffer == MPI_IN_PLACE) /* MPI-2.2 §5.4 gives MPI_Bcast no "in place" form on any communicator */
        return cb_fail("MPI_Bcast", comm, MPI_ERR_BUFFER, "buffer is MPI_IN_PLACE: MPI_Bcast has no in-place form, pass the buffer itself");
    CB_CHECK(check_buf("MPI_Bcast", comm, count, datatype));
    size_t bytes = (size_t)count * cb_type_size(datatype);
    if (bytes && !c->inter) {
        char *tmp = malloc(bytes);
        int mine = c->rank == root;
        if (mine)
            cb_pack(buffer, count, datatype, tmp);
        int ran = library(F_BCAST, c, root, 0, 0, bytes, tmp, mine ? bytes : 0, tmp);
        if (ran && !mine)
            cb_unpack(tmp, bytes, datatype, buffer);
        free(tmp);
        if (ran)
            return MPI_SUCCESS;
    }
    return coll_bcast("MPI_Bcast", c, comm, buffer, count, datatype, root);
}

/* Rank order: every contribution to the root, then x_i op (x_i+1 op (...)). */
int coll_reduce(const char *name, struct cb_comm *c, MPI_Comm comm, const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, int root)
{
    size_t bytes = (size_t)count * (size_t)cb_type_extent(t); /* memory layout: a user operation reads it */
    if (sits_out(c, root))
        return MPI_SUCCESS;
    if (!is_root(c, root))
        return cb_send(name, c, comm, 1, in, count, t, root, T_REDUCE);
    char *all = malloc(bytes * (size_t)c->size + 1);
    for (int r = 0; r < c->size; r++) {
        if (!c->inter && r == root)
            memcpy(all + bytes * (size_t)r, in, bytes);
        else
            CB_CHECK(cb_recv(name, c, comm, 1, all + bytes * (size_t)r, count, t, r, T_REDUCE, MPI_STATUS_IGNORE));
    }
    for (int r = c->size - 2; r >= 0; r--)
        cb_reduce_local(all + bytes * (size_t)r, all + bytes * (size_t)(c->size - 1), count, t, op);
    local_copy(all + bytes * (size_t)(c->size - 1), count, t, out, t); /* elements only: a derived type's gaps stay */
    free(all);
    return MPI_SUCCESS;
}

/* A reduction's operands, `in` and `out` of `bytes` each: packed as `n` elements of their
 * predefined type, or, for a user operation over a derived type, `n` of it in memory layout. */
struct packed_op {
    MPI_Datatype base;
    int n, layout, spread; /* spread: `n` of a pair type in C's struct layout, which MAXLOC reads */
    size_t bytes;
    char *in, *out;
};

static void pack_op(const void *in, int count, MPI_Datatype t, MPI_Op op, struct packed_op *p)
{
    p->base = cb_type_base(t, count, &p->n);
    p->spread = 0;
    /* A user operation is called with the derived datatype itself, on its memory layout. */
    p->layout = op > MPI_MINLOC && p->base != t;
    if (p->layout) {
        p->base = t;
        p->n = count;
        p->bytes = (size_t)count * (size_t)cb_type_extent(t);
    } else {
        p->spread = cb_type_extent(p->base) != (MPI_Aint)cb_type_size(p->base);
        p->bytes = (size_t)p->n * (size_t)cb_type_extent(p->base);
    }
    p->in = malloc(p->bytes + 1);
    p->out = malloc(p->bytes + 1);
    if (!in) /* an intercommunicator's root group contributes nothing */
        memset(p->in, 0, p->bytes);
    else if (p->layout)
        memcpy(p->in, in, p->bytes);
    else if (p->spread)
        local_copy(in, count, t, p->in, p->base);
    else
        cb_pack(in, count, t, p->in);
}

/* Copy `n` elements of the operands' `base` at `from` into the user's `t` at `to`. */
static void unpack_to(const struct packed_op *p, const char *from, int n, MPI_Datatype t, void *to)
{
    if (p->layout)
        local_copy(from, n, t, to, t);
    else if (p->spread)
        local_copy(from, n, p->base, to, t);
    else
        cb_unpack(from, (size_t)n * cb_type_size(p->base), t, to);
}

static void unpack_op(struct packed_op *p, int rc, int keep, MPI_Datatype t, void *recvbuf)
{
    if (rc == MPI_SUCCESS && keep)
        unpack_to(p, p->out, p->n, t, recvbuf);
    free(p->in);
    free(p->out);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    const char *name = "MPI_Reduce";
    struct cb_comm *c = NULL;
    struct packed_op p;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(check_root(name, comm, c, root));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    CB_CHECK(check_reduce(name, comm, count, datatype, op));
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    pack_op(c->inter && (is_root(c, root) || sits_out(c, root)) ? NULL : in, count, datatype, op, &p);
    int rc = MPI_SUCCESS;
    if (c->inter || !library_reduce(F_REDUCE, c, root, p.in, p.out, p.n, p.base, op))
        rc = coll_reduce(name, c, comm, p.in, p.out, p.n, p.base, op, root);
    unpack_op(&p, rc, is_root(c, root), datatype, recvbuf);
    return rc;
}

/* On an intercommunicator, each group's leader gets the reduction of the other group's data:
 * the group whose leader has the lower world rank reduces the other's first, then the other
 * way. */
static int inter_reduce_both(const char *name, struct cb_comm *c, MPI_Comm comm, struct packed_op *p, MPI_Op op)
{
    int first = c->local_world[0] < c->world[0];
    for (int phase = 0; phase < 2; phase++) {
        int root = (phase == 0) == first ? (c->rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        CB_CHECK(coll_reduce(name, c, comm, p->in, p->out, p->n, p->base, op, root));
    }
    return MPI_SUCCESS;
}

/* MPI-2.2 §5.9.6 on an intercommunicator: each group gets the reduction of the other's data,
 * which each leader broadcasts to its own group. */
static int inter_allreduce(const char *name, struct cb_comm *c, MPI_Comm comm, struct packed_op *p, MPI_Op op)
{
    CB_CHECK(inter_reduce_both(name, c, comm, p, op));
    return coll_bcast(name, cb_comm_get(c->local_comm), c->local_comm, p->out, p->n, p->base, 0);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const char *name = "MPI_Allreduce";
    struct cb_comm *c = NULL;
    struct packed_op p;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    CB_CHECK(check_reduce(name, comm, count, datatype, op));
    pack_op(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype, op, &p);
    int rc = MPI_SUCCESS;
    if (c->inter) {
        rc = inter_allreduce(name, c, comm, &p, op);
    } else if (!library_reduce(F_ALLREDUCE, c, 0, p.in, p.out, p.n, p.base, op)) {
        rc = coll_reduce(name, c, comm, p.in, p.out, p.n, p.base, op, 0);
        if (rc == MPI_SUCCESS)
            rc = coll_bcast(name, c, comm, p.out, p.n, p.base, 0);
    }
    unpack_op(&p, rc, 1, datatype, recvbuf);
    return rc;
}

int coll_gatherv(const char *name, struct cb_comm *c, MPI_Comm comm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
    void *recvbuf, const int *counts, const int *displs, MPI_Datatype recvtype, int root)
{
    if (sits_out(c, root))
        return MPI_SUCCESS;
    if (!is_root(c, root))
        return cb_send(name, c, comm, 1, sendbuf, sendcount, sendtype, root, T_GATHER);
    MPI_Aint ext = cb_type_extent(recvtype);
    for (int r = 0; r < c->size; r++) {
        char *at = (char *)recvbuf + (MPI_Aint)displs[r] * ext;
        if (c->inter || r != root)
            CB_CHECK(cb_recv(name, c, comm, 1, at, counts[r], recvtype, r, T_GATHER, MPI_STATUS_IGNORE));
        else if (sendbuf != MPI_IN_PLACE)
            local_copy(sendbuf, sendcount, sendtype, at, recvtype);
    }
    return MPI_SUCCESS;
}

static int scatterv(const char *name, struct cb_comm *c, MPI_Comm comm, const void *sendbuf, const int *counts, const int *displs,
    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    if (sits_out(c, root))
        return MPI_SUCCESS;
    if (!is_root(c, root))
        return cb_recv(name, c, comm, 1, recvbuf, recvcount, recvtype, root, T_SCATTER, MPI_STATUS_IGNORE);
    MPI_Aint ext = cb_type_extent(sendtype);
    for (int r = 0; r < c->size; r++) {
        const char *at = (const char *)sendbuf + (MPI_Aint)displs[r] * ext;
        if (c->inter || r != root)
            CB_CHECK(cb_send(name, c, comm, 1, at, counts[r], sendtype, r, T_SCATTER));
        else if (recvbuf != MPI_IN_PLACE)
            local_copy(at, counts[r], sendtype, recvbuf, recvtype);
    }
    return MPI_SUCCESS;
}

/* counts[r] = n, displs[r] = r * n for every rank: the regular forms. */
void coll_regular(struct cb_comm *c, int n, int **counts, int **displs)
{
    *counts = malloc(sizeof(int) * (size_t)c->size);
    *displs = malloc(sizeof(int) * (size_t)c->size);
    for (int r = 0; r < c->size; r++) {
        (*counts)[r] = n;
        (*displs)[r] = r * n;
    }
}

/* Only the significant side is checked: MPI ignores a rooted collective's receive arguments
 * (gather) or send arguments (scatter) away from the root, and the other side at a root that
 * passes MPI_IN_PLACE. */
static int check_pair(const char *name, MPI_Comm comm, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype, int skip_send,
    int skip_recv)
{
    if (!skip_send)
        CB_CHECK(check_buf(name, comm, scount, stype));
    return skip_recv ? MPI_SUCCESS : check_buf(name, comm, rcount, rtype);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
    MPI_Comm comm)
{
    const char *name = "MPI_Gather";
    struct cb_comm *c = NULL;
    int *counts, *displs;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(check_root(name, comm, c, root));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    CB_CHECK(check_pair(name, comm, sendcount, sendtype, recvcount, recvtype, sendbuf == MPI_IN_PLACE || sits_out(c, root), !is_root(c, root)));
    coll_regular(c, recvcount, &counts, &displs);
    int rc = coll_gatherv(name, c, comm, sendbuf, sendcount, sendtype, recvbuf, counts, displs, recvtype, root);
    free(counts);
    free(displs);
    return rc;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *name = "MPI_Gatherv";
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(check_root(name, comm, c, root));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    CB_CHECK(check_pair(name, comm, sendcount, sendtype, 0, recvtype, sendbuf == MPI_IN_PLACE || sits_out(c, root), !is_root(c, root)));
    return coll_gatherv(name, c, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
    MPI_Comm comm)
{
    const char *name = "MPI_Scatter";
    struct cb_comm *c = NULL;
    int *counts, *displs;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(check_root(name, comm, c, root));
    CB_CHECK(coll_not_in_place(name, comm, c, recvbuf, "recvbuf"));
    CB_CHECK(check_pair(name, comm, sendcount, sendtype, recvcount, recvtype, !is_root(c, root), sits_out(c, root) || (is_root(c, root) && recvbuf == MPI_IN_PLACE)));
    coll_regular(c, sendcount, &counts, &displs);
    int rc = scatterv(name, c, comm, sendbuf, counts, displs, sendtype, recvbuf, recvcount, recvtype, root);
    free(counts);
    free(displs);
    return rc;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *name = "MPI_Scatterv";
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(check_root(name, comm, c, root));
    CB_CHECK(coll_not_in_place(name, comm, c, recvbuf, "recvbuf"));
    CB_CHECK(check_pair(name, comm, 0, sendtype, recvcount, recvtype, !is_root(c, root), sits_out(c, root) || (is_root(c, root) && recvbuf == MPI_IN_PLACE)));
    return scatterv(name, c, comm, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[],
    MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *name = "MPI_Allgatherv";
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    CB_CHECK(check_pair(name, comm, sendcount, sendtype, 0, recvtype, sendbuf == MPI_IN_PLACE, 0));
    if (c->inter) /* the same block to every remote rank: an all-to-all with one send block */
        return cb_inter_allgatherv(name, comm, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
    MPI_Aint ext = cb_type_extent(recvtype);
    const void *mine = sendbuf;
    if (sendbuf == MPI_IN_PLACE && c->rank != 0) {
        mine = (char *)recvbuf + (MPI_Aint)displs[c->rank] * ext;
        sendcount = recvcounts[c->rank];
        sendtype = recvtype;
    }
    CB_CHECK(coll_gatherv(name, c, comm, mine, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, 0));
    for (int r = 0; r < c->size; r++)
        CB_CHECK(coll_bcast(name, c, comm, (char *)recvbuf + (MPI_Aint)displs[r] * ext, recvcounts[r], recvtype, 0));
    return MPI_SUCCESS;
}

/* On the library: this rank's block packed, every rank's back packed in rank order. */
static int allgather_library(struct cb_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype)
{
    size_t bytes = (size_t)recvcount * cb_type_size(recvtype);
    if (!bytes || !on_library(F_ALLGATHER, c))
        return 0;
    char *mine = malloc(bytes), *all = malloc(bytes * (size_t)c->size);
    if (sendbuf == MPI_IN_PLACE)
        cb_pack((char *)recvbuf + (MPI_Aint)c->rank * recvcount * cb_type_extent(recvtype), recvcount, recvtype, mine);
    else
        cb_pack(sendbuf, sendcount, sendtype, mine);
    int ran = library(F_ALLGATHER, c, 0, 0, 0, bytes, mine, bytes, all);
    if (ran)
        cb_unpack(all, bytes * (size_t)c->size, recvtype, recvbuf);
    free(mine);
    free(all);
    return ran;
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm)
{
    struct cb_comm *c = NULL;
    int *counts, *displs;
    CB_CHECK(coll_begin("MPI_Allgather", comm, &c));
    CB_CHECK(coll_not_in_place("MPI_Allgather", comm, c, sendbuf, "sendbuf"));
    CB_CHECK(check_pair("MPI_Allgather", comm, sendcount, sendtype, recvcount, recvtype, sendbuf == MPI_IN_PLACE, 0));
    if (allgather_library(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype))
        return MPI_SUCCESS;
    coll_regular(c, recvcount, &counts, &displs);
    int rc = CB_INNER(PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts, displs, recvtype, comm));
    free(counts);
    free(displs);
    return rc;
}

/* Step k: send to rank+k, receive from rank-k, with the send-then-receive that cannot deadlock. */
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
    MPI_Comm comm)
{
    const char *name = "MPI_Alltoall";
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    int in_place = sendbuf == MPI_IN_PLACE;
    CB_CHECK(check_pair(name, comm, sendcount, sendtype, recvcount, recvtype, in_place, 0));
    if (c->inter) {
        int *scounts, *sdispls, *rcounts, *rdispls;
        coll_regular(c, sendcount, &scounts, &sdispls);
        coll_regular(c, recvcount, &rcounts, &rdispls);
        int rc = CB_INNER(PMPI_Alltoallv(sendbuf, scounts, sdispls, sendtype, recvbuf, rcounts, rdispls, recvtype, comm));
        free(scounts), free(sdispls), free(rcounts), free(rdispls);
        return rc;
    }
    char *copy = NULL;
    if (in_place) {
        size_t bytes = (size_t)c->size * (size_t)cb_type_extent(recvtype) * (size_t)recvcount;
        copy = malloc(bytes + 1);
        memcpy(copy, recvbuf, bytes);
        sendbuf = copy;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    MPI_Aint sext = cb_type_extent(sendtype) * sendcount, rext = cb_type_extent(recvtype) * recvcount;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < c->size && rc == MPI_SUCCESS; k++) {
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        rc = cb_sendrecv(name, c, comm, 1, (const char *)sendbuf + to * sext, sendcount, sendtype, to, T_ALLTOALL,
            (char *)recvbuf + from * rext, recvcount, recvtype, from, T_ALLTOALL, MPI_STATUS_IGNORE);
    }
    free(copy);
    return rc;
}

static int scan(const char *name, const void *sendbuf, void *recvbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int exclusive)
{
    struct cb_comm *c = NULL;
    struct packed_op p;
    CB_CHECK(intra_begin(name, comm, &c));
    CB_CHECK(check_reduce(name, comm, count, t, op));
    pack_op(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, t, op, &p);
    char *acc = p.in, *prev = p.out;
    int rc = MPI_SUCCESS;
    if (c->rank > 0) {
        /* acc = (x0 op ... op x_rank-1) op x_rank */
        rc = cb_recv(name, c, comm, 1, prev, p.n, p.base, c->rank - 1, T_SCAN, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            cb_reduce_local(prev, acc, p.n, p.base, op);
    }
    if (rc == MPI_SUCCESS && c->rank + 1 < c->size)
        rc = cb_send(name, c, comm, 1, acc, p.n, p.base, c->rank + 1, T_SCAN);
    /* MPI_Exscan leaves rank 0's buffer alone: its result is undefined. */
    if (!exclusive)
        memcpy(prev, acc, p.bytes);
    unpack_op(&p, rc, !exclusive || c->rank > 0, t, recvbuf);
    return rc;
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 0);
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 1);
}

/* The reduction at local rank 0 (of every rank's data, or on an intercommunicator, MPI-2.2
 * §5.10.1, of the other group's), then scattered over the local group by `recvcounts`. */
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const char *name = "MPI_Reduce_scatter";
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin(name, comm, &c));
    CB_CHECK(coll_not_in_place(name, comm, c, sendbuf, "sendbuf"));
    struct cb_comm *group = c->inter ? cb_comm_get(c->local_comm) : c;
    MPI_Comm group_comm = c->inter ? c->local_comm : comm;
    int total = 0;
    for (int r = 0; r < group->size; r++) {
        if (recvcounts[r] < 0)
            return cb_fail(name, comm, MPI_ERR_COUNT, "recvcounts[%d] = %d is invalid: allowed 0 and up", r, recvcounts[r]);
        total += recvcounts[r];
    }
    CB_CHECK(check_reduce(name, comm, total, datatype, op));
    /* Packed: every count and displacement times the elements per datatype. */
    struct packed_op p;
    pack_op(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total, datatype, op, &p);
    int per = 1;
    if (!p.layout)
        cb_type_base(datatype, 1, &per);
    int *counts = malloc(sizeof(int) * (size_t)group->size), *displs = malloc(sizeof(int) * (size_t)group->size);
    for (int r = 0, at = 0; r < group->size; r++) {
        counts[r] = recvcounts[r] * per;
        displs[r] = at;
        at += counts[r];
    }
    int rc = c->inter ? inter_reduce_both(name, c, comm, &p, op) : coll_reduce(name, c, comm, p.in, p.out, p.n, p.base, op, 0);
    if (rc == MPI_SUCCESS)
        rc = scatterv(name, group, group_comm, p.out, counts, displs, p.base, p.in, counts[group->rank], p.base, 0);
    if (rc == MPI_SUCCESS)
        unpack_to(&p, p.in, counts[group->rank], datatype, recvbuf);
    unpack_op(&p, rc, 0, datatype, recvbuf);
    free(counts);
    free(displs);
    return rc;
}

/* MPI-2.2 §5.10.2: `recvcount` elements to every rank of the (local) group. */
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin("MPI_Reduce_scatter_block", comm, &c));
    int n = c->inter ? c->local_size : c->size;
    int *counts = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++)
        counts[r] = recvcount;
    int rc = CB_INNER(PMPI_Reduce_scatter(sendbuf, recvbuf, counts, datatype, op, comm));
    free(counts);
    return rc;
}

int PMPI_Barrier(MPI_Comm comm)
{
    struct cb_comm *c = NULL;
    CB_CHECK(coll_begin("MPI_Barrier", comm, &c));
    if (c->inter)
        return cb_inter_barrier(comm, c);
    if (library(F_BARRIER, c, 0, 0, 0, 0, NULL, 0, NULL))
        return MPI_SUCCESS;
    if (comm == MPI_COMM_WORLD)
        return cb_world_barrier();
    char none = 0;
    if (c->rank != 0) {
        CB_CHECK(cb_send("MPI_Barrier", c, comm, 1, &none, 0, MPI_BYTE, 0, T_BARRIER));
        return cb_recv("MPI_Barrier", c, comm, 1, &none, 0, MPI_BYTE, 0, T_BARRIER, MPI_STATUS_IGNORE);
    }
    for (int r = 1; r < c->size; r++)
        CB_CHECK(cb_recv("MPI_Barrier", c, comm, 1, &none, 0, MPI_BYTE, r, T_BARRIER, MPI_STATUS_IGNORE));
    for (int r = 1; r < c->size; r++)
        CB_CHECK(cb_send("MPI_Barrier", c, comm, 1, &none, 0, MPI_BYTE, r, T_BARRIER));
    return MPI_SUCCESS;
}

#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Scan = PMPI_Scan
#pragma weak MPI_Exscan = PMPI_Exscan
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
#pragma weak MPI_Barrier = PMPI_Barrier
