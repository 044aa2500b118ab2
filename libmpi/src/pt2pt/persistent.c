/* The point-to-point calls built on the nonblocking requests of pt2pt/requests.c (MPI-1.3
 * §3.4, §3.6, §3.7.5, §3.9): buffered and ready sends, persistent requests, Waitsome and
 * Testsome.
 *
 * A buffered send completes whatever the receiver does: it is a nonblocking send handed to
 * the simulator and freed at once (MPI_Request_free: the simulator finishes it in the
 * background, holding its bytes), so it moves through the simulated protocol like any other.
 * The attached buffer bounds each message (its bytes and MPI_BSEND_OVERHEAD must fit it), as
 * MPI requires of a program. A ready send is a standard one: MPI allows it to be, and a
 * correct program has posted its receive already. Persistent requests keep their slot in the
 * request table between completions (cb_request_make, cb_request_start).
 */
#include <stdlib.h>
#include "internal.h"
#include "channel.h"

static void *attached;
static int attached_size;

int PMPI_Buffer_attach(void *buffer, int size)
{
    cb_need_init("MPI_Buffer_attach");
    if (attached)
        return cb_fail("MPI_Buffer_attach", MPI_COMM_WORLD, MPI_ERR_BUFFER, "a buffer is attached already (MPI_Buffer_detach it first)");
    if (size < 0)
        return cb_fail("MPI_Buffer_attach", MPI_COMM_WORLD, MPI_ERR_ARG, "size %d is negative", size);
    attached = buffer;
    attached_size = size;
    return MPI_SUCCESS;
}

/* Every buffered message is in the simulator already: nothing to wait for. */
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    cb_need_init("MPI_Buffer_detach");
    *(void **)buffer_addr = attached;
    *size = attached_size;
    attached = NULL;
    attached_size = 0;
    return MPI_SUCCESS;
}

static int check_room(const char *name, int count, MPI_Datatype t, int dest, MPI_Comm comm)
{
    size_t bytes;
    cb_need_init(name);
    CB_CHECK(cb_check_buffer(name, comm, count, t, &bytes));
    if (dest != MPI_PROC_NULL && (!attached || bytes + MPI_BSEND_OVERHEAD > (size_t)attached_size))
        return cb_fail(name, comm, MPI_ERR_BUFFER, "a %zu-byte message needs %zu bytes of attached buffer (MPI_Buffer_attach), %d are attached",
            bytes, bytes + MPI_BSEND_OVERHEAD, attached_size);
    return MPI_SUCCESS;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_Request r;
    CB_CHECK(check_room("MPI_Bsend", count, datatype, dest, comm));
    CB_CHECK(CB_INNER(PMPI_Isend(buf, count, datatype, dest, tag, comm, &r)));
    return CB_INNER(PMPI_Request_free(&r));
}

/* The request a buffered send returns is complete at once (its message is on its way), yet
 * MPI_Cancel may retract the message until the program releases the request. */
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    CB_CHECK(check_room("MPI_Ibsend", count, datatype, dest, comm));
    return cb_request_buffered("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return CB_INNER(PMPI_Isend(buf, count, datatype, dest, tag, comm, request));
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    cb_need_init("MPI_Send_init");
    return cb_request_make("MPI_Send_init", OP_ISEND, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    CB_CHECK(check_room("MPI_Bsend_init", count, datatype, dest, comm));
    return cb_request_make("MPI_Bsend_init", CB_OP_BSEND, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    cb_need_init("MPI_Ssend_init");
    return cb_request_make("MPI_Ssend_init", OP_ISSEND, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    cb_need_init("MPI_Rsend_init");
    return cb_request_make("MPI_Rsend_init", OP_ISEND, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    cb_need_init("MPI_Recv_init");
    return cb_request_make("MPI_Recv_init", OP_IRECV, buf, count, datatype, source, tag, comm, request);
}

int PMPI_Start(MPI_Request *request)
{
    cb_need_init("MPI_Start");
    return cb_request_start("MPI_Start", *request);
}

int PMPI_Startall(int count, MPI_Request requests[])
{
    cb_need_init("MPI_Startall");
    for (int i = 0; i < count; i++)
        CB_CHECK(cb_request_start("MPI_Startall", requests[i]));
    return MPI_SUCCESS;
}

/* Those of `requests` done now, after one pass each (MPI_UNDEFINED when none is active). */
static int some(int count, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[], int active)
{
    int rc = MPI_SUCCESS;
    *outcount = 0;
    for (int i = 0; i < count; i++) {
        if (requests[i] == MPI_REQUEST_NULL || cb_request_inactive(requests[i]))
            continue;
        MPI_Status st;
        int flag, r = CB_INNER(PMPI_Test(&requests[i], &flag, &st));
        if (!flag && r == MPI_SUCCESS)
            continue;
        active = 1;
        indices[*outcount] = i;
        if (statuses != MPI_STATUSES_IGNORE)
            statuses[*outcount] = st;
        ++*outcount;
        if (r != MPI_SUCCESS)
            rc = MPI_ERR_IN_STATUS;
    }
    if (!active)
        *outcount = MPI_UNDEFINED;
    return rc;
}

int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    cb_need_init("MPI_Testsome");
    int active = 0;
    for (int i = 0; i < incount; i++)
        active |= requests[i] != MPI_REQUEST_NULL && !cb_request_inactive(requests[i]);
    return some(incount, requests, outcount, indices, statuses, active);
}

/* Wait for one (MPI_Waitany), then take every other one done by then. */
int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    cb_need_init("MPI_Waitsome");
    int index;
    MPI_Status st;
    int rc = CB_INNER(PMPI_Waitany(incount, requests, &index, &st));
    if (index == MPI_UNDEFINED) {
        *outcount = MPI_UNDEFINED;
        return rc;
    }
    int more = 0, r = some(incount, requests, &more, indices + 1, statuses == MPI_STATUSES_IGNORE ? statuses : statuses + 1, 1);
    indices[0] = index;
    if (statuses != MPI_STATUSES_IGNORE)
        statuses[0] = st;
    *outcount = 1 + more;
    return rc != MPI_SUCCESS || r != MPI_SUCCESS ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
#pragma weak MPI_Bsend = PMPI_Bsend
#pragma weak MPI_Ibsend = PMPI_Ibsend
#pragma weak MPI_Irsend = PMPI_Irsend
#pragma weak MPI_Send_init = PMPI_Send_init
#pragma weak MPI_Bsend_init = PMPI_Bsend_init
#pragma weak MPI_Ssend_init = PMPI_Ssend_init
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
#pragma weak MPI_Recv_init = PMPI_Recv_init
#pragma weak MPI_Start = PMPI_Start
#pragma weak MPI_Startall = PMPI_Startall
#pragma weak MPI_Testsome = PMPI_Testsome
#pragma weak MPI_Waitsome = PMPI_Waitsome
