/* Blocking point-to-point (MPI-1.3 chapter 3): every call is a request to the simulator (in
 * `cellblade mpirun`) through the channel of env/channel.c, answered when the simulated SPE
 * returns from the call (cb_answer, pt2pt/requests.c). The nonblocking requests are
 * pt2pt/requests.c; the helpers both use are declared in pt2pt/pt2pt.h.
 */
#include "internal.h"
#include "channel.h"
#include "pt2pt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int p2p_wire_ctx(struct cb_comm *c, int coll)
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

void p2p_set_status(MPI_Status *st, int source, int tag, int error, int bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->MPI_ERROR = error;
    st->count = bytes;
    st->cancelled = 0;
}

/* A buffer's bytes, packed when its type is derived; `*tmp` is to be freed. */
const char *p2p_packed(const void *buf, int count, MPI_Datatype t, size_t bytes, char **tmp)
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
    const char *data = p2p_packed(buf, count, t, bytes, &tmp);
    struct answer a = cb_answer(op, c->world[dest], tag, p2p_wire_ctx(c, coll), bytes, data, NULL);
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
int p2p_received(const char *name, struct cb_comm *c, MPI_Comm comm, struct answer a, void *buf, MPI_Datatype t, char *tmp, size_t cap, MPI_Status *st)
{
    if (a.err == CB_CANCELLED) {
        free(tmp);
        p2p_set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        if (st != MPI_STATUS_IGNORE)
            st->cancelled = 1;
        return MPI_SUCCESS;
    }
    if (tmp) {
        cb_unpack(tmp, a.count, t, buf);
        free(tmp);
    }
    p2p_set_status(st, local_rank(c, a.source), a.tag, a.err, (int)a.count);
    if (a.err == MPI_ERR_TRUNCATE)
        return cb_fail(name, comm, MPI_ERR_TRUNCATE, "a message of %.0f bytes from rank %d (tag %d) does not fit the %zu-byte buffer",
            a.value, local_rank(c, a.source), a.tag, cap);
    return a.err;
}

int cb_recv(const char *name, struct cb_comm *c, MPI_Comm comm, int coll, void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Status *st)
{
    if (source == MPI_PROC_NULL) {
        p2p_set_status(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * cb_type_size(t);
    char *tmp = !cb_type_direct(t) ? malloc(bytes ? bytes : 1) : NULL;
    int from = source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source];
    struct answer a = cb_answer(OP_RECV, from, tag, p2p_wire_ctx(c, coll), bytes, NULL, tmp ? tmp : buf);
    return p2p_received(name, c, comm, a, buf, t, tmp, bytes, st);
}

int cb_sendrecv(const char *name, struct cb_comm *c, MPI_Comm comm, int coll, const void *sbuf, int scount, MPI_Datatype stype, int dest,
    int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Status *st)
{
    if (dest == MPI_PROC_NULL)
        return cb_recv(name, c, comm, coll, rbuf, rcount, rtype, source, rtag, st);
    if (source == MPI_PROC_NULL) {
        p2p_set_status(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return cb_send(name, c, comm, coll, sbuf, scount, stype, dest, stag);
    }
    size_t sbytes = (size_t)scount * cb_type_size(stype), rbytes = (size_t)rcount * cb_type_size(rtype);
    char *stmp;
    const char *data = p2p_packed(sbuf, scount, stype, sbytes, &stmp);
    char *msg = malloc(16 + sbytes);
    int32_t head[2] = {source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source], rtag};
    uint64_t cap = rbytes;
    memcpy(msg, head, 8);
    memcpy(msg + 8, &cap, 8);
    memcpy(msg + 16, data, sbytes);
    free(stmp);
    char *rtmp = !cb_type_direct(rtype) ? malloc(rbytes ? rbytes : 1) : NULL;
    struct answer a = cb_answer(OP_SENDRECV, c->world[dest], stag, p2p_wire_ctx(c, coll), 16 + sbytes, msg, rtmp ? rtmp : rbuf);
    free(msg);
    return p2p_received(name, c, comm, a, rbuf, rtype, rtmp, rbytes, st);
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

/* The call's communicator and buffer. A NULL buffer of a predefined type with bytes in it:
 * packing would read through NULL (the simulator would send what its buffer last held), and a
 * receive would write through it. NULL is MPI_BOTTOM, which a derived datatype of absolute
 * addresses starts from. */
static int check_comm_buffer(const char *name, const void *buf, int count, MPI_Datatype t, MPI_Comm comm, struct cb_comm **c, size_t *bytes)
{
    cb_need_init(name);
    CB_CHECK(cb_check_comm(name, comm, c));
    CB_CHECK(cb_check_buffer(name, comm, count, t, bytes));
    if (buf == NULL && *bytes > 0 && cb_predefined(t))
        return cb_fail(name, comm, MPI_ERR_BUFFER,
            "the buffer is NULL with count %d (%zu bytes): allowed only with count 0, or as MPI_BOTTOM with a derived datatype", count, *bytes);
    return MPI_SUCCESS;
}

int p2p_check_send(const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, struct cb_comm **c)
{
    size_t bytes;
    CB_CHECK(check_comm_buffer(name, buf, count, t, comm, c, &bytes));
    /* The simulator would refuse it and end the job; a receive needs room only for what comes. */
    if (cb_largest_message && bytes > cb_largest_message)
        return cb_fail(name, comm, MPI_ERR_NO_MEM,
            "a %zu-byte message does not fit the rank's message buffers on the simulated blade (its main-memory heap, or its local "
            "store in ls mode): they hold at most %llu bytes",
            bytes,
            (unsigned long long)cb_largest_message);
    CB_CHECK(check_peer(name, comm, *c, "destination", dest, 0));
    return check_tag(name, comm, tag, 0);
}

int p2p_check_recv(const char *name, const void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm, struct cb_comm **c)
{
    size_t bytes;
    CB_CHECK(check_comm_buffer(name, buf, count, t, comm, c, &bytes));
    CB_CHECK(check_peer(name, comm, *c, "source", source, 1));
    return check_tag(name, comm, tag, 1);
}

static int send_as(uint32_t op, const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    struct cb_comm *c = NULL;
    CB_CHECK(p2p_check_send(name, buf, count, t, dest, tag, comm, &c));
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
    CB_CHECK(p2p_check_recv(name, buf, count, t, source, tag, comm, &c));
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
    CB_CHECK(p2p_check_send(name, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c));
    CB_CHECK(p2p_check_recv(name, recvbuf, recvcount, recvtype, source, recvtag, comm, &c));
    return cb_sendrecv(name, c, comm, 0, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, status);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
    MPI_Status *status)
{
    const char *name = "MPI_Sendrecv_replace";
    struct cb_comm *c = NULL;
    CB_CHECK(p2p_check_send(name, buf, count, datatype, dest, sendtag, comm, &c));
    CB_CHECK(p2p_check_recv(name, buf, count, datatype, source, recvtag, comm, &c));
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
    CB_CHECK(p2p_check_recv(name, NULL, 0, MPI_BYTE, source, tag, comm, &c));
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        p2p_set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    int from = source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source];
    struct answer a = cb_answer(op, from, tag, p2p_wire_ctx(c, 0), 0, NULL, NULL);
    *flag = a.source != NO_MATCH;
    if (*flag)
        p2p_set_status(status, local_rank(c, a.source), a.tag, MPI_SUCCESS, (int)a.value);
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
        *count = status->count % size ? MPI_UNDEFINED : (int)(status->count / size);
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
