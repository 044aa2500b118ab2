/* Nonblocking point-to-point requests (MPI-1.3 §3.7-3.8): Isend, Irecv, their waits and
 * tests, MPI_Request_free and MPI_Cancel.
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
#include "pt2pt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    int cancelled; /* MPI_Cancel retracted it: its status says so */
    int buffered; /* an Ibsend, done for the program: the simulator's send goes on until released */
    /* A generalized request (MPI_Grequest_start): no simulator handle; done when the program
     * says so; `gfreed` once MPI_Request_free let go of it before that. */
    int greq, gfreed;
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *gfree;
    MPI_Grequest_cancel_function *gcancel;
    void *extra;
} *pending; /* grown on demand: a program may keep any number of requests pending */
static int pending_cap;

/* A free slot (the table grows on demand), as *request and *q. */
static int new_slot(const char *name, MPI_Comm comm, MPI_Request *request, struct pending **q)
{
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
    *request = i + 1;
    *q = &pending[i];
    return MPI_SUCCESS;
}

/* A request of `op` (OP_ISEND, OP_ISSEND: never buffered, or OP_IRECV), checked and in its
 * slot but not started. */
static int make(const char *name, uint32_t op, const void *buf, int count, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    int is_send = op != OP_IRECV;
    struct cb_comm *c = NULL;
    if (is_send)
        CB_CHECK(p2p_check_send(name, buf, count, t, peer, tag, comm, &c));
    else
        CB_CHECK(p2p_check_recv(name, buf, count, t, peer, tag, comm, &c));
    struct pending *q;
    CB_CHECK(new_slot(name, comm, request, &q));
    *q = (struct pending){1, is_send, 0, MPI_SUCCESS, 0, -1, name, (void *)buf, count, peer, tag, t, comm, {0, 0, 0, 0, 0}, op, 0, 0, 0, 0};
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
    q->cancelled = 0;
    int buffered = op == CB_OP_BSEND; /* MPI_Bsend_init: as MPI_Ibsend, done at once */
    if (buffered)
        op = OP_ISEND;
    if (peer == MPI_PROC_NULL) {
        q->done = 1;
        p2p_set_status(&q->status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return;
    }
    /* The buffer's address leads: requests on one buffer share its simulated copy (nb_wire.rs). */
    uint64_t at[2] = {(uint64_t)(uintptr_t)buf, (uint64_t)count * cb_type_size(t)};
    if (is_send) {
        char *tmp, *msg = malloc(8 + at[1]);
        memcpy(msg, &at[0], 8);
        memcpy(msg + 8, p2p_packed(buf, count, t, at[1], &tmp), at[1]);
        q->handle = cb_answer(op, c->world[peer], tag, p2p_wire_ctx(c, 0), 8 + at[1], msg, NULL).tag;
        free(tmp);
        free(msg);
        if (buffered) {
            q->done = q->buffered = 1;
            p2p_set_status(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        }
    } else {
        int from = peer == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[peer];
        q->handle = cb_answer(OP_IRECV, from, tag, p2p_wire_ctx(c, 0), sizeof at, at, NULL).tag;
    }
}

static int post(const char *name, uint32_t op, const void *buf, int count, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    CB_CHECK(make(name, op, buf, count, t, peer, tag, comm, request));
    start(&pending[*request - 1]);
    return MPI_SUCCESS;
}

/* MPI_Ibsend (pt2pt/persistent.c): a send that is complete for the program at once, its message
 * on its way; until the program releases the request, MPI_Cancel may still retract it. */
int cb_request_buffered(const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return post(name, CB_OP_BSEND, buf, count, t, dest, tag, comm, request);
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
    /* A report names the request's own call and communicator ("MPI_Wait for MPI_Recv_init on
     * halo"), or the one communicator of several. */
    int one_comm = 1;
    for (int k = 1; k < n; k++)
        one_comm &= qs[k]->comm == qs[0]->comm;
    if (one_comm)
        cb_state_request(n == 1 ? qs[0]->name : NULL, qs[0]->comm);
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
        p2p_set_status(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        q->status.cancelled = q->cancelled;
        q->rc = MPI_SUCCESS;
        free(into);
    } else if (!c) {
        q->rc = cb_fail(q->name, MPI_COMM_WORLD, MPI_ERR_COMM, "communicator %d was freed", q->comm);
        free(into);
    } else if (!cb_type_direct(q->datatype)) {
        q->rc = p2p_received(q->name, c, q->comm, a, q->buf, q->datatype, into, (size_t)q->count * cb_type_size(q->datatype), &q->status);
    } else {
        memcpy(q->buf, into, a.count);
        free(into);
        q->rc = p2p_received(q->name, c, q->comm, a, q->buf, q->datatype, NULL, (size_t)q->count * cb_type_size(q->datatype), &q->status);
    }
    return k;
}

/* A done generalized request: its status from the query function, then the free function; the
 * first error either returns is the wait's (MPI-2.2 §12.2). */
static int greq_release(struct pending *q, MPI_Request *request, MPI_Status *status)
{
    MPI_Status st = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    int rc = q->query(q->extra, &st);
    int freed = q->gfree(q->extra);
    rc = rc != MPI_SUCCESS ? rc : freed;
    st.MPI_ERROR = rc;
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    q->used = 0;
    *request = MPI_REQUEST_NULL;
    return rc;
}

/* A generalized request nobody completed: with one thread per rank, a wait would never end. */
static int greq_never(const char *name, MPI_Request r)
{
    return cb_fail(name, MPI_COMM_WORLD, MPI_ERR_REQUEST,
        "generalized request %d is not complete, and nothing can complete it while the rank waits (one thread per "
        "rank): call MPI_Grequest_complete first", r);
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
    MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    cb_need_init("MPI_Grequest_start");
    struct pending *q;
    CB_CHECK(new_slot("MPI_Grequest_start", MPI_COMM_WORLD, request, &q));
    *q = (struct pending){.used = 1, .handle = -1, .name = "MPI_Grequest_start", .comm = MPI_COMM_WORLD, .greq = 1,
        .query = query_fn, .gfree = free_fn, .gcancel = cancel_fn, .extra = extra_state};
    return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    struct pending *q = request < 1 || request > pending_cap ? NULL : &pending[request - 1];
    if (!q || !q->used || !q->greq || q->done)
        return cb_fail("MPI_Grequest_complete", MPI_COMM_WORLD, MPI_ERR_REQUEST,
            "request %d is not a pending generalized request", request);
    q->done = 1;
    if (q->gfreed) { /* MPI_Request_free let it go: nobody waits for its status */
        q->gfree(q->extra);
        q->used = 0;
    }
    return MPI_SUCCESS;
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    status->cancelled = flag != 0;
    return MPI_SUCCESS;
}

/* The bytes of `count` basic elements of `datatype`, as MPI_Get_elements reads them back. */
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Status_set_elements", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    if (count < 0)
        return cb_fail("MPI_Status_set_elements", MPI_COMM_WORLD, MPI_ERR_COUNT, "count %d is negative", count);
    status->count = (int)cb_type_element_bytes(datatype, count);
    return MPI_SUCCESS;
}

/* Hand back a done request's status and code, and free it. */
static int release(struct pending *q, MPI_Request *request, MPI_Status *status)
{
    if (q->greq)
        return greq_release(q, request, status);
    if (status != MPI_STATUS_IGNORE)
        *status = q->status;
    if (q->buffered) { /* the message (or its cancellation) finishes in the background */
        q->buffered = 0;
        cb_answer(OP_REQUEST_FREE, q->handle, 0, 0, 0, NULL, NULL);
    }
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
        p2p_set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    struct pending *q = request_of("MPI_Wait", *request);
    if (!q)
        return MPI_ERR_REQUEST;
    if (q->greq && !q->done)
        return greq_never("MPI_Wait", *request);
    if (!q->done)
        complete(OP_WAIT, &q, 1);
    return release(q, request, status);
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    cb_need_init("MPI_Waitall");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        int r = CB_INNER(PMPI_Wait(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]));
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
    *flag = !q || q->done || (!q->greq && complete(OP_TEST, &q, 1) == 0);
    if (!*flag)
        return MPI_SUCCESS;
    if (!q) {
        p2p_set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
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
        if (!q->done && (q->greq || complete(OP_TEST, &q, 1) != 0))
            all = 0;
    }
    *flag = all;
    return all ? CB_INNER(PMPI_Waitall(count, requests, statuses)) : MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    cb_need_init("MPI_Waitany");
    /* Heap arrays: a program may pass any number of entries. */
    struct pending **qs = malloc(sizeof *qs * (size_t)(count > 0 ? count : 1));
    int *at = malloc(sizeof *at * (size_t)(count > 0 ? count : 1)), n = 0, rc = MPI_SUCCESS, done = -1, greqs = 0;
    for (int i = 0; i < count && done < 0 && rc == MPI_SUCCESS; i++) {
        if (requests[i] == MPI_REQUEST_NULL || cb_request_inactive(requests[i]))
            continue;
        struct pending *q = request_of("MPI_Waitany", requests[i]);
        if (!q)
            rc = MPI_ERR_REQUEST;
        else if (q->done)
            done = i;
        else if (q->greq)
            greqs++; /* only the program completes it, and it is waiting here */
        else {
            qs[n] = q;
            at[n++] = i;
        }
    }
    if (rc == MPI_SUCCESS && done < 0 && n > 0)
        done = at[complete(OP_WAITANY, qs, n)];
    else if (rc == MPI_SUCCESS && done < 0 && greqs)
        rc = greq_never("MPI_Waitany", MPI_REQUEST_NULL);
    free(qs);
    free(at);
    if (rc != MPI_SUCCESS)
        return rc;
    if (done < 0) {
        *index = MPI_UNDEFINED;
        p2p_set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    *index = done;
    return release(&pending[requests[done] - 1], &requests[done], status);
}

int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    cb_need_init("MPI_Testany");
    *index = MPI_UNDEFINED;
    *flag = 1;
    for (int i = 0; i < count; i++) {
        if (requests[i] == MPI_REQUEST_NULL || cb_request_inactive(requests[i]))
            continue;
        int rc = CB_INNER(PMPI_Test(&requests[i], flag, status));
        if (*flag || rc != MPI_SUCCESS) {
            *index = i;
            return rc;
        }
    }
    if (*index == MPI_UNDEFINED)
        p2p_set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
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
    if (q->greq && !q->done) { /* its free function runs when the program completes it */
        q->gfreed = 1;
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (q->greq)
        return release(q, request, MPI_STATUS_IGNORE);
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

/* MPI-1.3 §3.8.4: a pending receive or send that no receive has matched yet completes as
 * cancelled (the simulator retracts a send from the receiver's entry or queue, cancel.rs); a
 * matched one completes as it would have. */
int PMPI_Cancel(MPI_Request *request)
{
    cb_need_init("MPI_Cancel");
    struct pending *q = request_of("MPI_Cancel", *request);
    if (!q)
        return MPI_ERR_REQUEST;
    if (q->greq)
        return q->gcancel(q->extra, q->done);
    if ((!q->done || q->buffered) && q->active + !q->persistent && q->peer != MPI_PROC_NULL)
        q->cancelled = cb_answer(OP_CANCEL, q->handle, 0, 0, 0, NULL, NULL).value != 0;
    if (q->buffered)
        q->status.cancelled = q->cancelled;
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    *flag = status->cancelled;
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
            p2p_received(q->name, c, q->comm, r, q->buf, q->datatype, tmp, qcap, MPI_STATUS_IGNORE);
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
        p2p_set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    struct pending *q = request_of("MPI_Request_get_status", request);
    if (!q)
        return MPI_ERR_REQUEST;
    *flag = q->done || (!q->greq && complete(OP_TEST, &q, 1) == 0);
    if (*flag && q->greq && status != MPI_STATUS_IGNORE) /* its query function says, without freeing it */
        q->query(q->extra, status);
    else if (*flag && status != MPI_STATUS_IGNORE)
        *status = q->status;
    return MPI_SUCCESS;
}

/* Weak aliases of the profiling names, as in pt2pt.c. */
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
#pragma weak MPI_Grequest_start = PMPI_Grequest_start
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
