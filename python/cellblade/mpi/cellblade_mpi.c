/* The rank side of cellblade's MPI: every call that involves the simulated blade is a request
 * to the simulator (in `cellblade mpirun`) over the socket named by CELLBLADE_MPI_FD, answered
 * when the simulated SPE returns from the call. The request format is the simulator's
 * crates/cellblade/src/mpi/wire.rs; the numbers below mirror it.
 *
 * Arguments are checked here, where the communicator's size is known, so that an invalid rank,
 * tag, count, datatype or communicator gets its MPI error class under MPI_ERRORS_RETURN and a
 * message naming the call and the value under MPI_ERRORS_ARE_FATAL (the default).
 *
 * Non-blocking calls (Isend, Irecv) are deferred: the operation runs, synchronously, when a
 * Wait or Waitall reaches it, in the order the requests were given. Programs whose progress
 * needs a send and a receive in flight at once deadlock, and the simulator reports it.
 */
#include "mpi.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OP_INIT = 1, OP_FINALIZE, OP_SEND, OP_RECV, OP_WTIME, OP_BARRIER, OP_ABORT };

struct request {
    uint32_t op;
    int32_t a, b, c;
    uint64_t len;
};

struct answer {
    int32_t err, source, tag;
    uint32_t pad;
    uint64_t count;
    double value;
};

static int fd = -1;
static int initialized, finalized;
static int world_rank, world_size;
static double tick;
static MPI_Errhandler world_errhandler = MPI_ERRORS_ARE_FATAL;

/* The launcher closed the connection: it is ending the job and reports why. */
static void lost(void)
{
    _exit(1);
}

static void put_all(const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            lost();
        c += k;
        n -= (size_t)k;
    }
}

static void get_all(void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            lost();
        c += k;
        n -= (size_t)k;
    }
}

/* One call: send the request (and payload), read the answer (its payload into `into`). */
static struct answer call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into)
{
    struct request r = {op, a, b, c, len};
    struct answer ans;
    put_all(&r, sizeof r);
    if (payload && len)
        put_all(payload, len);
    get_all(&ans, sizeof ans);
    if (ans.count)
        get_all(into, ans.count);
    return ans;
}

static const char *class_name(int code)
{
    static const char *names[] = {"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE",
        "MPI_ERR_TAG", "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT",
        "MPI_ERR_GROUP", "MPI_ERR_OP", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG",
        "MPI_ERR_UNKNOWN", "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN",
        "MPI_ERR_IN_STATUS", "MPI_ERR_PENDING"};
    return code >= 0 && code <= MPI_ERR_LASTCODE ? names[code] : "an unknown error code";
}

static void die(const char *call, const char *what)
{
    fprintf(stderr, "cellblade mpi: %s: %s\n", call, what);
    if (fd >= 0 && initialized && !finalized) {
        struct request r = {OP_ABORT, 1, 0, 0, 0};
        put_all(&r, sizeof r);
    }
    _exit(1);
}

/* Report `code` from `call` through the communicator's error handler. */
static int fail(const char *call, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(const char *call, int code, const char *fmt, ...)
{
    if (world_errhandler == MPI_ERRORS_RETURN)
        return code;
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cellblade mpi: rank %d: %s: %s: %s (MPI_ERRORS_ARE_FATAL)\n", world_rank, call, class_name(code), what);
    struct request r = {OP_ABORT, code, 0, 0, 0};
    put_all(&r, sizeof r);
    _exit(code);
}

static int need_init(const char *call)
{
    if (!initialized)
        die(call, "called before MPI_Init");
    if (finalized)
        die(call, "called after MPI_Finalize");
    return MPI_SUCCESS;
}

static int check_comm(const char *call, MPI_Comm comm)
{
    if (comm != MPI_COMM_WORLD)
        return fail(call, MPI_ERR_COMM, "communicator %d is invalid: this library offers MPI_COMM_WORLD", comm);
    return MPI_SUCCESS;
}

static int type_size(MPI_Datatype t)
{
    int kind = (t >> 8) & 0xff;
    if (kind < 1 || kind > 0x10 || (t & ~0xffff))
        return -1;
    return t & 0xff;
}

static int check_buffer(const char *call, int count, MPI_Datatype datatype, int *bytes)
{
    int size = type_size(datatype);
    if (size < 0)
        return fail(call, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    if (count < 0)
        return fail(call, MPI_ERR_COUNT, "count %d is negative", count);
    *bytes = count * size;
    return MPI_SUCCESS;
}

static int check_peer(const char *call, const char *role, int peer, int any)
{
    if (peer == MPI_PROC_NULL || (any && peer == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    if (peer < 0 || peer >= world_size)
        return fail(call, MPI_ERR_RANK, "%s rank %d is invalid: allowed 0 to %d%s", role, peer, world_size - 1,
            any ? ", MPI_ANY_SOURCE or MPI_PROC_NULL" : " or MPI_PROC_NULL");
    return MPI_SUCCESS;
}

static int check_tag(const char *call, int tag, int any)
{
    if ((tag < 0 && !(any && tag == MPI_ANY_TAG)))
        return fail(call, MPI_ERR_TAG, "tag %d is invalid: allowed 0 to %d%s", tag, MPI_TAG_UB, any ? " or MPI_ANY_TAG" : "");
    return MPI_SUCCESS;
}

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        int rc_ = (x);                                                                           \
        if (rc_ != MPI_SUCCESS)                                                                  \
            return rc_;                                                                          \
    } while (0)

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (initialized)
        die("MPI_Init", "called twice");
    const char *env = getenv("CELLBLADE_MPI_FD");
    if (!env)
        die("MPI_Init", "this program is not running under `cellblade mpirun` (CELLBLADE_MPI_FD is not set)");
    fd = atoi(env);
    initialized = 1;
    struct answer a = call(OP_INIT, 0, 0, 0, 0, NULL, NULL);
    world_rank = a.source;
    world_size = a.tag;
    tick = a.value;
    return MPI_SUCCESS;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)required;
    *provided = MPI_THREAD_SINGLE;
    return PMPI_Init(argc, argv);
}

int PMPI_Initialized(int *flag)
{
    *flag = initialized;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    *flag = finalized;
    return MPI_SUCCESS;
}

int PMPI_Finalize(void)
{
    need_init("MPI_Finalize");
    call(OP_FINALIZE, 0, 0, 0, 0, NULL, NULL);
    finalized = 1;
    close(fd);
    return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    need_init("MPI_Abort");
    struct request r = {OP_ABORT, errorcode, 0, 0, 0};
    put_all(&r, sizeof r);
    _exit(errorcode ? errorcode : 1);
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    need_init("MPI_Comm_rank");
    CHECK(check_comm("MPI_Comm_rank", comm));
    *rank = world_rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    need_init("MPI_Comm_size");
    CHECK(check_comm("MPI_Comm_size", comm));
    *size = world_size;
    return MPI_SUCCESS;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "cellblade-spe%d", world_rank);
    return MPI_SUCCESS;
}

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

double PMPI_Wtime(void)
{
    need_init("MPI_Wtime");
    return call(OP_WTIME, 0, 0, 0, 0, NULL, NULL).value;
}

double PMPI_Wtick(void)
{
    need_init("MPI_Wtick");
    return tick;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE)
        return MPI_ERR_ARG;
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE)
        return MPI_ERR_ARG;
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_name(errorcode));
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    need_init("MPI_Comm_set_errhandler");
    CHECK(check_comm("MPI_Comm_set_errhandler", comm));
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
        return fail("MPI_Comm_set_errhandler", MPI_ERR_ARG, "error handler %d is invalid: allowed MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN", errhandler);
    world_errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    need_init("MPI_Comm_get_errhandler");
    CHECK(check_comm("MPI_Comm_get_errhandler", comm));
    *errhandler = world_errhandler;
    return MPI_SUCCESS;
}

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    int s = type_size(datatype);
    if (s < 0)
        return fail("MPI_Type_size", MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    *size = s;
    return MPI_SUCCESS;
}

static int send_as(const char *name, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    int bytes;
    need_init(name);
    CHECK(check_comm(name, comm));
    CHECK(check_buffer(name, count, datatype, &bytes));
    CHECK(check_peer(name, "destination", dest, 0));
    CHECK(check_tag(name, tag, 0));
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    struct answer a = call(OP_SEND, dest, tag, comm, (uint64_t)bytes, buf, NULL);
    /* The acknowledging signal carries the receiver's code (seed 004 §3.3); truncation is the
     * receiver's error in MPI, so the send itself succeeded. */
    if (a.err != MPI_SUCCESS && a.err != MPI_ERR_TRUNCATE)
        return fail(name, a.err, "the receiver reported an error");
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_as("MPI_Send", buf, count, datatype, dest, tag, comm);
}

/* Every send is synchronous already; a ready send is a send whose receive is posted. */
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_as("MPI_Ssend", buf, count, datatype, dest, tag, comm);
}

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_as("MPI_Rsend", buf, count, datatype, dest, tag, comm);
}

static void set_status(MPI_Status *st, int source, int tag, int error, int bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->MPI_ERROR = error;
    st->cb_bytes = bytes;
}

static int recv_as(const char *name, void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int bytes;
    need_init(name);
    CHECK(check_comm(name, comm));
    CHECK(check_buffer(name, count, datatype, &bytes));
    CHECK(check_peer(name, "source", source, 1));
    CHECK(check_tag(name, tag, 1));
    if (source == MPI_PROC_NULL) {
        set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    struct answer a = call(OP_RECV, source, tag, comm, (uint64_t)bytes, NULL, buf);
    set_status(status, a.source, a.tag, a.err, (int)a.count);
    if (a.err == MPI_ERR_TRUNCATE)
        return fail(name, MPI_ERR_TRUNCATE, "a message of %.0f bytes from rank %d (tag %d) does not fit the %d-byte buffer", a.value, a.source, a.tag, bytes);
    return a.err;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_as("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int size = type_size(datatype);
    if (size < 0)
        return fail("MPI_Get_count", MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    if (size == 0)
        *count = 0;
    else
        *count = status->cb_bytes % size ? MPI_UNDEFINED : status->cb_bytes / size;
    return MPI_SUCCESS;
}

/* Deferred non-blocking operations (see the top of this file). */
#define MAX_REQUESTS 4096
static struct pending {
    int used, is_send;
    const char *name;
    void *buf;
    int count, peer, tag;
    MPI_Datatype datatype;
    MPI_Comm comm;
} pending[MAX_REQUESTS];

static int defer(const char *name, int is_send, const void *buf, int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    int bytes;
    need_init(name);
    CHECK(check_comm(name, comm));
    CHECK(check_buffer(name, count, datatype, &bytes));
    CHECK(check_peer(name, is_send ? "destination" : "source", peer, !is_send));
    CHECK(check_tag(name, tag, !is_send));
    for (int i = 0; i < MAX_REQUESTS; i++) {
        if (!pending[i].used) {
            pending[i] = (struct pending){1, is_send, name, (void *)buf, count, peer, tag, datatype, comm};
            *request = i + 1;
            return MPI_SUCCESS;
        }
    }
    return fail(name, MPI_ERR_REQUEST, "more than %d requests are pending", MAX_REQUESTS);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return defer("MPI_Isend", 1, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return defer("MPI_Issend", 1, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return defer("MPI_Irecv", 0, buf, count, datatype, source, tag, comm, request);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    need_init("MPI_Wait");
    if (*request == MPI_REQUEST_NULL) {
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return MPI_SUCCESS;
    }
    if (*request < 1 || *request > MAX_REQUESTS || !pending[*request - 1].used)
        return fail("MPI_Wait", MPI_ERR_REQUEST, "request %d is invalid", *request);
    struct pending p = pending[*request - 1];
    pending[*request - 1].used = 0;
    *request = MPI_REQUEST_NULL;
    if (p.is_send) {
        set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
        return send_as(p.name, p.buf, p.count, p.datatype, p.peer, p.tag, p.comm);
    }
    return recv_as(p.name, p.buf, p.count, p.datatype, p.peer, p.tag, p.comm, status);
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

int PMPI_Barrier(MPI_Comm comm)
{
    need_init("MPI_Barrier");
    CHECK(check_comm("MPI_Barrier", comm));
    call(OP_BARRIER, 0, 0, comm, 0, NULL, NULL);
    return MPI_SUCCESS;
}

/* The standard names are weak aliases of the profiling names, so a profiling library can
 * define MPI_X and call PMPI_X. */
#pragma weak MPI_Init = PMPI_Init
#pragma weak MPI_Init_thread = PMPI_Init_thread
#pragma weak MPI_Initialized = PMPI_Initialized
#pragma weak MPI_Finalize = PMPI_Finalize
#pragma weak MPI_Finalized = PMPI_Finalized
#pragma weak MPI_Abort = PMPI_Abort
#pragma weak MPI_Comm_rank = PMPI_Comm_rank
#pragma weak MPI_Comm_size = PMPI_Comm_size
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
#pragma weak MPI_Get_version = PMPI_Get_version
#pragma weak MPI_Wtime = PMPI_Wtime
#pragma weak MPI_Wtick = PMPI_Wtick
#pragma weak MPI_Error_string = PMPI_Error_string
#pragma weak MPI_Error_class = PMPI_Error_class
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
#pragma weak MPI_Type_size = PMPI_Type_size
#pragma weak MPI_Send = PMPI_Send
#pragma weak MPI_Ssend = PMPI_Ssend
#pragma weak MPI_Rsend = PMPI_Rsend
#pragma weak MPI_Recv = PMPI_Recv
#pragma weak MPI_Get_count = PMPI_Get_count
#pragma weak MPI_Isend = PMPI_Isend
#pragma weak MPI_Issend = PMPI_Issend
#pragma weak MPI_Irecv = PMPI_Irecv
#pragma weak MPI_Wait = PMPI_Wait
#pragma weak MPI_Waitall = PMPI_Waitall
#pragma weak MPI_Barrier = PMPI_Barrier
