/* Point-to-point (MPI-1.3 chapter 3): every call is a request to the simulator (in `cellblade
 * mpirun`) through the channel of env/channel.c, answered when the simulated SPE returns from
 * the call (cb_answer).
 *
 * Non-blocking calls (Isend, Irecv) are requests in the simulator's progress engine
 * (crates/cellblade/src/mpi/nonblocking.rs), in flight together on the simulated SPE: Wait,
 * Waitany and Test run its passes, and a deadlock among them is reported like any other.
 *
 * MPI_Request_free hands the request to the simulator, which finishes it in the background
 * (nb_wire.rs). A freed send needs nothing more from this side; a freed receive keeps its slot
 * until the simulator flags (FLAG_FREED_DONE, in the answer to whichever call completed it) that
 * it is done: the call then fetches its bytes (OP_COLLECT) into the program's buffer before it
 * returns, and MPI_Finalize fetches the rest after waiting for them.
 */
#include "internal.h"
#include "channel.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int freed_recvs; /* freed receives whose bytes have not come yet */
static void collect_freed(int which);

/* One call to the simulator (env/channel.c); freed receives it completed are delivered at once. */
struct answer cb_answer(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into)
{
    cb_state_inside(1);
    struct answer ans = cb_channel_call(op, a, b, c, len, payload, into);
    cb_state_inside(0);
    if (freed_recvs && (ans.flags & FLAG_FREED_DONE) && op != OP_INIT && op != OP_COLLECT)
        collect_freed(COLLECT_NOW);
    return ans;
}

void cb_collect_freed_all(void)
{
    if (freed_recvs)
        collect_freed(COLLECT_ALL);
}

static int check_peer(const char *call, MPI_Comm comm, struct cb_comm *c, const char *role, int peer, int any)
{
    if (peer == MPI_PROC_NULL || (any && peer == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    if (peer < 0 || peer >= c->size)
        return cb_fail(call, comm, MPI_ERR_RANK, "%s rank %d is invalid: allowed 0 to %d%s", role, peer, c->size - 1,
            any ? ", MPI_ANY_SOURCE or MPI_PROC_NULL" : " or MPI_PROC_NULL");
    return MPI_SUCCESS;
}

static int check_tag(const char *call, MPI_Comm comm, int tag, int any)
{
    if (tag < 0 && !(any && tag == MPI_ANY_TAG))
        return cb_fail(call, comm, MPI_ERR_TAG, "tag %d is invalid: allowed 0 to %d%s", tag, CB_TAG_UB, any ? " or MPI_ANY_TAG" : "");
    return MPI_SUCCESS;
}

static int wire_ctx(struct cb_comm *c, int coll)
{
    return 2 * c->ctx + coll;
}

static int local_rank(struct cb_comm *c, int world)
{
    for (int r = 0; r < c->size; r++)
        if (c->world[r] == world)
            return r;
    return MPI_UNDEFINED;
}

static void set_status(MPI_Status *st, int source, int tag, int error, int bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->MPI_ERROR = error;
    st->cb_bytes = bytes;
    st->cb_cancelled = 0;
}

/* A buffer's bytes, packed when its type is derived; `*tmp` is to be freed. */
static const char *packed(const void *buf, int count, MPI_Datatype t, size_t bytes, char **tmp)
{
    *tmp = NULL;
    if (cb_type_direct(t))
        return buf;
    *tmp = malloc(bytes ? bytes : 1);
    cb_pack(buf, count, t, *tmp);
    return *tmp;
}

/* A blocking send as `op`: OP_SEND (buffered when short enough) or OP_SSEND (never buffered). */
static int send_op(uint32_t op, const char *name, struct cb_comm *c, MPI_Comm comm, int coll, const void *buf, int count, MPI_Datatype t, int dest,
    int tag)
{
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    size_t bytes = (size_t)count * cb_type_size(t);
    char *tmp;
    const char *data = packed(buf, count, t, bytes, &tmp);
    struct answer a = cb_answer(op, c->world[dest], tag, wire_ctx(c, coll), bytes, data, NULL);
    free(tmp);
    /* The acknowledging signal carries the receiver's code (seed 004 §3.3); truncation is the
     * receiver's error in MPI, so the send itself succeeded. */
    if (a.err != MPI_SUCCESS && a.err != MPI_ERR_TRUNCATE)
        return cb_fail(name, comm, a.err, "the receiver reported an error");
    return MPI_SUCCESS;
}

int cb_send(const char *name, struct cb_comm *c, MPI_Comm comm, int coll, const void *buf, int count, MPI_Datatype t, int dest, int tag)
{
    return send_op(OP_SEND, name, c, comm, coll, buf, count, t, dest, tag);
}

/* Deliver an answer's bytes (already in `into`, or in the packed `tmp`) and status. */
static int received(const char *name, struct cb_comm *c, MPI_Comm comm, struct answer a, void *buf, MPI_Datatype t, char *tmp, size_t cap, MPI_Status *st)
{
    if (a.err == CB_CANCELLED) {
        free(tmp);
        set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        if (st != MPI_STATUS_IGNORE)
            st->cb_cancelled = 1;
        return MPI_SUCCESS;
    }
    if (tmp) {
        cb_unpack(tmp, a.count, t, buf);
        free(tmp);
    }
    set_status(st, local_rank(c, a.source), a.tag, a.err, (int)a.count);
    if (a.err == MPI_ERR_TRUNCATE)
        return cb_fail(name, comm, MPI_ERR_TRUNCATE, "a message of %.0f bytes from rank %d (tag %d) does not fit the %zu-byte buffer",
            a.value, local_rank(c, a.source), a.tag, cap);
    return a.err;
}

int cb_recv(const char *name, struct cb_comm *c, MPI_Comm comm, int coll, void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Status *st)
{
    if (source == MPI_PROC_NULL) {
        set_status(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * cb_type_size(t);
    char *tmp = !cb_type_direct(t) ? malloc(bytes ? bytes : 1) : NULL;
    int from = source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source];
    struct answer a = cb_answer(OP_RECV, from, tag, wire_ctx(c, coll), bytes, NULL, tmp ? tmp : buf);
    return received(name, c, comm, a, buf, t, tmp, bytes, st);
}

int cb_sendrecv(const char *name, struct cb_comm *c, MPI_Comm comm, int coll, const void *sbuf, int scount, MPI_Datatype stype, int dest,
    int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Status *st)
{
    if (dest == MPI_PROC_NULL)
        return cb_recv(name, c, comm, coll, rbuf, rcount, rtype, source, rtag, st);
    if (source == MPI_PROC_NULL) {
        set_status(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return cb_send(name, c, comm, coll, sbuf, scount, stype, dest, stag);
    }
    size_t sbytes = (size_t)scount * cb_type_size(stype), rbytes = (size_t)rcount * cb_type_size(rtype);
    char *stmp;
    const char *data = packed(sbuf, scount, stype, sbytes, &stmp);
    char *msg = malloc(16 + sbytes);
    int32_t head[2] = {source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source], rtag};
    uint64_t cap = rbytes;
    memcpy(msg, head, 8);
    memcpy(msg + 8, &cap, 8);
    memcpy(msg + 16, data, sbytes);
    free(stmp);
    char *rtmp = !cb_type_direct(rtype) ? malloc(rbytes ? rbytes : 1) : NULL;
    struct answer a = cb_answer(OP_SENDRECV, c->world[dest], stag, wire_ctx(c, coll), 16 + sbytes, msg, rtmp ? rtmp : rbuf);
    free(msg);
    return received(name, c, comm, a, rbuf, rtype, rtmp, rbytes, st);
}

int cb_call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into, int *source, uint64_t *count)
{
    struct answer ans = cb_answer(op, a, b, c, len, payload, into);
    if (source)
        *source = ans.source;
    if (count)
        *count = ans.count;
    return ans.err;
}

int cb_world_barrier(void)
{
    cb_answer(OP_BARRIER, 0, 0, 0, 0, NULL, NULL);
    return MPI_SUCCESS;
}

static int check_send(const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, struct cb_comm **c)
{
    size_t bytes;
    cb_need_init(name);
    CB_CHECK(cb_check_comm(name, comm, c));
    CB_CHECK(cb_check_buffer(name, comm, count, t, &bytes));
    /* Packing would read through NULL; the simulator would send what its buffer last held.
     * NULL is MPI_BOTTOM, which a derived datatype of absolute addresses starts from. */
    if (buf == NULL && bytes > 0 && cb_predefined(t))
        return cb_fail(name, comm, MPI_ERR_BUFFER,
            "the buffer is NULL with count %d (%zu bytes): allowed only with count 0, or as MPI_BOTTOM with a derived datatype", count, bytes);
    CB_CHECK(check_peer(name, comm, *c, "destination", dest, 0));
    return check_tag(name, comm, tag, 0);
}

static int check_recv(const char *name, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm, struct cb_comm **c)
{
    size_t bytes;
    cb_need_init(name);
    CB_CHECK(cb_check_comm(name, comm, c));
    CB_CHECK(cb_check_buffer(name, comm, count, t, &bytes));
    CB_CHECK(check_peer(name, comm, *c, "source", source, 1));
    return check_tag(name, comm, tag, 1);
}

static int send_as(uint32_t op, const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    struct cb_comm *c = NULL;
    CB_CHECK(check_send(name, buf, count, t, dest, tag, comm, &c));
    return send_op(op, name, c, comm, 0, buf, count, t, dest, tag);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_as(OP_SEND, "MPI_Send", buf, count, datatype, dest, tag, comm);
}

/* A synchronous send is never buffered; a ready send is a send whose receive is posted. */
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_as(OP_SSEND, "MPI_Ssend", buf, count, datatype, dest, tag, comm);
}

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_as(OP_SEND, "MPI_Rsend", buf, count, datatype, dest, tag, comm);
}

static int recv_as(const char *name, void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    struct cb_comm *c = NULL;
    CB_CHECK(check_recv(name, count, t, source, tag, comm, &c));
    return cb_recv(name, c, comm, 0, buf, count, t, source, tag, status);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_as("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    const char *name = "MPI_Sendrecv";
    struct cb_comm *c = NULL;
    CB_CHECK(check_send(name, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c));
    CB_CHECK(check_recv(name, recvcount, recvtype, source, recvtag, comm, &c));
    return cb_sendrecv(name, c, comm, 0, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, status);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
    MPI_Status *status)
{
    const char *name = "MPI_Sendrecv_replace";
    struct cb_comm *c = NULL;
    CB_CHECK(check_send(name, buf, count, datatype, dest, sendtag, comm, &c));
    CB_CHECK(check_recv(name, count, datatype, source, recvtag, comm, &c));
    size_t bytes = (size_t)count * cb_type_size(datatype);
    char *copy = malloc(bytes ? bytes : 1);
    cb_pack(buf, count, datatype, copy);
    int rc = cb_sendrecv(name, c, comm, 0, copy, (int)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag, status);
    free(copy);
    return rc;
}

static int probe_as(const char *name, int op, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    struct cb_comm *c = NULL;
    CB_CHECK(check_recv(name, 0, MPI_BYTE, source, tag, comm, &c));
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    int from = source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source];
    struct answer a = cb_answer(op, from, tag, wire_ctx(c, 0), 0, NULL, NULL);
    *flag = a.source != NO_MATCH;
    if (*flag)
        set_status(status, local_rank(c, a.source), a.tag, MPI_SUCCESS, (int)a.value);
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int flag;
    return probe_as("MPI_Probe", OP_PROBE, source, tag, comm, &flag, status);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe_as("MPI_Iprobe", OP_IPROBE, source, tag, comm, flag, status);
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Get_count", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    size_t size = cb_type_size(datatype);
    if (size == 0)
        *count = 0;
    else
        *count = status->cb_bytes % size ? MPI_UNDEFINED : (int)(status->cb_bytes / size);
    return MPI_SUCCESS;
}

/* Non-blocking operations (see the top of this file): each is a request in the simulator's
 * progress engine, named by its handle there; one to or from MPI_PROC_NULL is done at once. */
static struct pending {
    int used, is_send, done, rc;
    int freed; /* a receive the program freed: its bytes are still to come */
    int handle; /* the simulator's */
    const char *name;
    void *buf;
    int count, peer, tag;
    MPI_Datatype datatype;
    MPI_Comm comm;
    MPI_Status status;
    uint32_t op;
    int persistent, active; /* MPI_Send_init ...: the slot outlives each completion (pt2pt/persistent.c) */
} *pending; /* grown on demand: a program may keep any number of requests pending */
static int pending_cap;

/* A request of `op` (OP_ISEND, OP_ISSEND: never buffered, or OP_IRECV), checked and in its
 * slot but not started. */
static int make(const char *name, uint32_t op, const void *buf, int count, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    int is_send = op != OP_IRECV;
    struct cb_comm *c = NULL;
    if (is_send)
        CB_CHECK(check_send(name, buf, count, t, peer, tag, comm, &c));
    else
        CB_CHECK(check_recv(name, count, t, peer, tag, comm, &c));
    int i = 0;
    while (i < pending_cap && pending[i].used)
        i++;
    if (i == pending_cap) {
        int cap = pending_cap ? 2 * pending_cap : 64;
        struct pending *grown = cap > pending_cap ? realloc(pending, sizeof *pending * (size_t)cap) : NULL;
        if (!grown)
            return cb_fail(name, comm, MPI_ERR_REQUEST, "no memory for more than %d pending requests", pending_cap);
        memset(grown + pending_cap, 0, sizeof *grown * (size_t)(cap - pending_cap));
        pending = grown;
        pending_cap = cap;
    }
    struct pending *q = &pending[i];
    *q = (struct pending){1, is_send, 0, MPI_SUCCESS, 0, -1, name, (void *)buf, count, peer, tag, t, comm, {0, 0, 0, 0}, op, 0, 0};
    *request = i + 1;
    cb_type_hold(t); /* a request keeps its datatype and communicator alive */
    cb_comm_hold(comm);
    return MPI_SUCCESS;
}

/* Hand request q to the simulator (done at once to or from MPI_PROC_NULL). */
static void start(struct pending *q)
{
    struct cb_comm *c = cb_comm_live(q->comm);
    const void *buf = q->buf;
    int count = q->count, peer = q->peer, tag = q->tag, is_send = q->is_send;
    MPI_Datatype t = q->datatype;
    uint32_t op = q->op;
    q->done = 0;
    q->rc = MPI_SUCCESS;
    q->active = 1;
    if (op == CB_OP_BSEND && peer != MPI_PROC_NULL) { /* MPI_Bsend_init: buffered, done at once */
        MPI_Request r;
        if (PMPI_Isend(buf, count, t, peer, tag, q->comm, &r) == MPI_SUCCESS)
            PMPI_Request_free(&r);
        peer = MPI_PROC_NULL;
    }
    if (peer == MPI_PROC_NULL) {
        q->done = 1;
        set_status(&q->status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return;
    }
    /* The buffer's address leads: requests on one buffer share its simulated copy (nb_wire.rs). */
    uint64_t at[2] = {(uint64_t)(uintptr_t)buf, (uint64_t)count * cb_type_size(t)};
    if (is_send) {
        char *tmp, *msg = malloc(8 + at[1]);
        memcpy(msg, &at[0], 8);
        memcpy(msg + 8, packed(buf, count, t, at[1], &tmp), at[1]);
        q->handle = cb_answer(op, c->world[peer], tag, wire_ctx(c, 0), 8 + at[1], msg, NULL).tag;
        free(tmp);
        free(msg);
    } else {
        int from = peer == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[peer];
        q->handle = cb_answer(OP_IRECV, from, tag, wire_ctx(c, 0), sizeof at, at, NULL).tag;
    }
}

static int post(const char *name, uint32_t op, const void *buf, int count, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    CB_CHECK(make(name, op, buf, count, t, peer, tag, comm, request));
    start(&pending[*request - 1]);
    return MPI_SUCCESS;
}

/* Persistent requests (pt2pt/persistent.c): made once, started many times. */
int cb_request_make(const char *name, uint32_t op, const void *buf, int count, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    CB_CHECK(make(name, op, buf, count, t, peer, tag, comm, request));
    pending[*request - 1].persistent = 1;
    return MPI_SUCCESS;
}

int cb_request_start(const char *name, MPI_Request request)
{
    struct pending *q = request < 1 || request > pending_cap ? NULL : &pending[request - 1];
    if (!q || !q->used || !q->persistent || q->freed)
        return cb_fail(name, MPI_COMM_WORLD, MPI_ERR_REQUEST, "request %d is not a persistent request", request);
    if (q->active)
        return cb_fail(name, q->comm, MPI_ERR_REQUEST, "request %d is active already: complete it first", request);
    start(q);
    return MPI_SUCCESS;
}

/* A persistent request that was never started or has completed: it counts as a null one. */
int cb_request_inactive(MPI_Request r)
{
    return r >= 1 && r <= pending_cap && pending[r - 1].used && pending[r - 1].persistent && !pending[r - 1].active;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return post("MPI_Isend", OP_ISEND, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return post("MPI_Issend", OP_ISSEND, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return post("MPI_Irecv", OP_IRECV, buf, count, datatype, source, tag, comm, request);
}

static struct pending *request_of(const char *name, MPI_Request r)
{
    if (r < 1 || r > pending_cap || !pending[r - 1].used || pending[r - 1].freed) {
        cb_fail(name, MPI_COMM_WORLD, MPI_ERR_REQUEST, "request %d is invalid", r);
        return NULL;
    }
    return &pending[r - 1];
}

/* Ask the simulator to wait for or test request q (handles: one handle, or `n` of them for
 * OP_WAITANY); on completion store its status and code in the request it names. Returns the
 * index (within `qs`) of the request done, or -1 when a test finds it not done. */
static int complete(uint32_t op, struct pending **qs, int n)
{
    int32_t *handles = malloc(sizeof *handles * (size_t)n);
    for (int k = 0; k < n; k++)
        handles[k] = qs[k]->handle;
    /* The receive buffer is known only once the simulator names the request done: bytes come
     * into a scratch buffer, then to the request's own. */
    size_t cap = 0;
    for (int k = 0; k < n; k++)
        if (!qs[k]->is_send) {
            size_t b = (size_t)qs[k]->count * cb_type_size(qs[k]->datatype);
            cap = b > cap ? b : cap;
        }
    char *into = malloc(cap ? cap : 1);
    struct answer a = op == OP_WAITANY ? cb_answer(op, 0, 0, 0, (uint64_t)n * 4, handles, into) : cb_answer(op, qs[0]->handle, 0, 0, 0, NULL, into);
    free(handles);
    if (a.source == NO_MATCH) {
        free(into);
        return -1;
    }
    int k = op == OP_WAITANY ? (int)a.value : 0;
    struct pending *q = qs[k];
    struct cb_comm *c = cb_comm_live(q->comm); /* freed by the user meanwhile is fine: the request holds it */
    q->done = 1;
    if (q->is_send) {
        set_status(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        q->rc = MPI_SUCCESS;
        free(into);
    } else if (!c) {
        q->rc = cb_fail(q->name, MPI_COMM_WORLD, MPI_ERR_COMM, "communicator %d was freed", q->comm);
        free(into);
    } else if (!cb_type_direct(q->datatype)) {
        q->rc = received(q->name, c, q->comm, a, q->buf, q->datatype, into, (size_t)q->count * cb_type_size(q->datatype), &q->status);
    } else {
        memcpy(q->buf, into, a.count);
        free(into);
        q->rc = received(q->name, c, q->comm, a, q->buf, q->datatype, NULL, (size_t)q->count * cb_type_size(q->datatype), &q->status);
    }
    return k;
}

/* Hand back a done request's status and code, and free it. */
static int release(struct pending *q, MPI_Request *request, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        *status = q->status;
    if (q->persistent) {
        q->active = 0;
        return q->rc;
    }
    q->used = 0;
    cb_type_release(q->datatype);
    cb_comm_release(q->comm);
    *request = MPI_REQUEST_NULL;
    return q->rc;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    cb_need_init("MPI_Wait");
    if (*request == MPI_REQUEST_NULL || cb_request_inactive(*request)) {
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    struct pending *q = request_of("MPI_Wait", *request);
    if (!q)
        return MPI_ERR_REQUEST;
    if (!q->done)
        complete(OP_WAIT, &q, 1);
    return release(q, request, status);
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        int r = PMPI_Wait(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
        if (r != MPI_SUCCESS)
            rc = MPI_ERR_IN_STATUS;
    }
    return rc;
}

/* One pass of the simulator's progress engine (the SPU's time for it is charged). */
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    cb_need_init("MPI_Test");
    int none = *request == MPI_REQUEST_NULL || cb_request_inactive(*request);
    struct pending *q = none ? NULL : request_of("MPI_Test", *request);
    if (!none && !q)
        return MPI_ERR_REQUEST;
    *flag = !q || q->done || complete(OP_TEST, &q, 1) == 0;
    if (!*flag)
        return MPI_SUCCESS;
    if (!q) {
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    return release(q, request, status);
}

/* Progress every request once; only when all are done are they handed back (MPI: a false flag
 * leaves every request as it was, though some may be done underneath). */
int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    cb_need_init("MPI_Testall");
    int all = 1;
    for (int i = 0; i < count; i++) {
        if (requests[i] == MPI_REQUEST_NULL || cb_request_inactive(requests[i]))
            continue;
        struct pending *q = request_of("MPI_Testall", requests[i]);
        if (!q)
            return MPI_ERR_REQUEST;
        if (!q->done && complete(OP_TEST, &q, 1) != 0)
            all = 0;
    }
    *flag = all;
    return all ? PMPI_Waitall(count, requests, statuses) : MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    cb_need_init("MPI_Waitany");
    /* Heap arrays: a program may pass any number of entries. */
    struct pending **qs = malloc(sizeof *qs * (size_t)(count > 0 ? count : 1));
    int *at = malloc(sizeof *at * (size_t)(count > 0 ? count : 1)), n = 0, rc = MPI_SUCCESS, done = -1;
    for (int i = 0; i < count && done < 0 && rc == MPI_SUCCESS; i++) {
        if (requests[i] == MPI_REQUEST_NULL || cb_request_inactive(requests[i]))
            continue;
        struct pending *q = request_of("MPI_Waitany", requests[i]);
        if (!q)
            rc = MPI_ERR_REQUEST;
        else if (q->done)
            done = i;
        else {
            qs[n] = q;
            at[n++] = i;
        }
    }
    if (rc == MPI_SUCCESS && done < 0 && n > 0)
        done = at[complete(OP_WAITANY, qs, n)];
    free(qs);
    free(at);
    if (rc != MPI_SUCCESS)
        return rc;
    if (done < 0) {
        *index = MPI_UNDEFINED;
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    *index = done;
    return release(&pending[requests[done] - 1], &requests[done], status);
}

int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    *index = MPI_UNDEFINED;
    *flag = 1;
    for (int i = 0; i < count; i++) {
        if (requests[i] == MPI_REQUEST_NULL || cb_request_inactive(requests[i]))
            continue;
        int rc = PMPI_Test(&requests[i], flag, status);
        if (*flag || rc != MPI_SUCCESS) {
            *index = i;
            return rc;
        }
    }
    if (*index == MPI_UNDEFINED)
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
    return MPI_SUCCESS;
}

/* MPI-1 §3.7.3: the handle becomes MPI_REQUEST_NULL and the operation completes in the
 * background; a send's bytes are already in the simulator, a receive's come later
 * (collect_freed). */
int PMPI_Request_free(MPI_Request *request)
{
    cb_need_init("MPI_Request_free");
    if (*request == MPI_REQUEST_NULL)
        return cb_fail("MPI_Request_free", MPI_COMM_WORLD, MPI_ERR_REQUEST, "the request is MPI_REQUEST_NULL");
    struct pending *q = request_of("MPI_Request_free", *request);
    if (!q)
        return MPI_ERR_REQUEST;
    if (q->persistent && !q->active)
        q->done = 1; /* nothing in flight: free the slot now */
    q->persistent = 0;
    if (q->done || q->is_send) {
        if (!q->done)
            cb_answer(OP_REQUEST_FREE, q->handle, 0, 0, 0, NULL, NULL);
        release(q, request, MPI_STATUS_IGNORE);
        return MPI_SUCCESS;
    }
    freed_recvs++;
    q->freed = 1;
    *request = MPI_REQUEST_NULL;
    cb_answer(OP_REQUEST_FREE, q->handle, 0, 0, 0, NULL, NULL);
    return MPI_SUCCESS;
}

/* MPI-1.3 §3.8.4: a pending receive not yet matched completes as cancelled; a send (or a
 * matched receive) completes as it would have, which MPI allows. */
int PMPI_Cancel(MPI_Request *request)
{
    cb_need_init("MPI_Cancel");
    struct pending *q = request_of("MPI_Cancel", *request);
    if (!q)
        return MPI_ERR_REQUEST;
    if (!q->is_send && !q->done && q->active + !q->persistent && q->peer != MPI_PROC_NULL)
        cb_answer(OP_CANCEL, q->handle, 0, 0, 0, NULL, NULL);
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    *flag = status->cb_cancelled;
    return MPI_SUCCESS;
}

/* Fetch the bytes of the freed receives that are done (COLLECT_NOW), or of all after waiting
 * for them (COLLECT_ALL, at MPI_Finalize), into their programs' buffers, and free their slots.
 * An error of a freed receive (truncation) has no caller to return to: it goes to the error
 * handler of the receive's communicator (MPI_ERRORS_ARE_FATAL: the job ends naming it). */
static void collect_freed(int which)
{
    size_t cap = 0;
    for (int i = 0; i < pending_cap; i++)
        if (pending[i].used && pending[i].freed)
            cap += sizeof(struct answer) + (size_t)pending[i].count * cb_type_size(pending[i].datatype);
    char *recs = malloc(cap ? cap : 1);
    struct answer a = cb_answer(OP_COLLECT, which, 0, 0, 0, NULL, recs);
    for (uint64_t at = 0; at + sizeof(struct answer) <= a.count;) {
        struct answer r;
        memcpy(&r, recs + at, sizeof r);
        const char *bytes = recs + at + sizeof r;
        at += sizeof r + r.count;
        struct pending *q = NULL;
        for (int i = 0; i < pending_cap && !q; i++)
            if (pending[i].used && pending[i].freed && pending[i].handle == (int)r.flags)
                q = &pending[i];
        if (!q)
            cb_die("MPI_Request_free", "the simulator returned a freed receive this library does not hold");
        struct cb_comm *c = cb_comm_live(q->comm);
        size_t qcap = (size_t)q->count * cb_type_size(q->datatype);
        char *tmp = NULL;
        if (!cb_type_direct(q->datatype)) {
            tmp = malloc(r.count ? r.count : 1);
            memcpy(tmp, bytes, r.count);
        } else {
            memcpy(q->buf, bytes, r.count);
        }
        if (c)
            received(q->name, c, q->comm, r, q->buf, q->datatype, tmp, qcap, MPI_STATUS_IGNORE);
        else
            free(tmp);
        MPI_Request gone = (MPI_Request)(q - pending) + 1;
        q->freed = 0;
        freed_recvs--;
        release(q, &gone, MPI_STATUS_IGNORE);
    }
    free(recs);
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    *flag = 1;
    if (request == MPI_REQUEST_NULL || cb_request_inactive(request)) {
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    struct pending *q = request_of("MPI_Request_get_status", request);
    if (!q)
        return MPI_ERR_REQUEST;
    *flag = q->done || complete(OP_TEST, &q, 1) == 0;
    if (*flag && status != MPI_STATUS_IGNORE)
        *status = q->status;
    return MPI_SUCCESS;
}

/* The standard names are weak aliases of the profiling names, so a profiling library can
 * define MPI_X and call PMPI_X. */
#pragma weak MPI_Send = PMPI_Send
#pragma weak MPI_Ssend = PMPI_Ssend
#pragma weak MPI_Rsend = PMPI_Rsend
#pragma weak MPI_Recv = PMPI_Recv
#pragma weak MPI_Sendrecv = PMPI_Sendrecv
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
#pragma weak MPI_Probe = PMPI_Probe
#pragma weak MPI_Iprobe = PMPI_Iprobe
#pragma weak MPI_Get_count = PMPI_Get_count
#pragma weak MPI_Isend = PMPI_Isend
#pragma weak MPI_Issend = PMPI_Issend
#pragma weak MPI_Irecv = PMPI_Irecv
#pragma weak MPI_Wait = PMPI_Wait
#pragma weak MPI_Waitall = PMPI_Waitall
#pragma weak MPI_Waitany = PMPI_Waitany
#pragma weak MPI_Test = PMPI_Test
#pragma weak MPI_Testall = PMPI_Testall
#pragma weak MPI_Testany = PMPI_Testany
#pragma weak MPI_Request_free = PMPI_Request_free
#pragma weak MPI_Cancel = PMPI_Cancel
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
#pragma weak MPI_Request_get_status = PMPI_Request_get_status
