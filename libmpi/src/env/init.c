/* The rank's life and environment (MPI-1.3 chapter 7): MPI_Init and MPI_Finalize, the table of
 * communicators (MPI_COMM_WORLD and MPI_COMM_SELF are made in MPI_Init), error classes and how
 * an error is reported (cb_fail: the communicator's error handler), the clock. Every call
 * that involves the simulated blade is a request to the simulator (pt2pt.c's cb_answer).
 *
 * Arguments are checked where the communicator's size is known, so that an invalid rank,
 * tag, count, datatype or communicator gets its MPI error class under MPI_ERRORS_RETURN and a
 * message naming the call and the value under MPI_ERRORS_ARE_FATAL (the default).
 */
#include "internal.h"
#include "channel.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int initialized, finalized;
static int world_rank, world_size;
static double tick;

/* Communicators: handle h is comms[h]; MPI_COMM_WORLD and MPI_COMM_SELF are made in MPI_Init.
 * Each has a context id agreed by its members; its messages travel on context 2*ctx and its
 * collectives' on 2*ctx+1, so the two never match each other or another communicator's. */
static struct cb_comm comms[MAX_COMMS];
static int world_self[1];

struct cb_comm *cb_comm_live(MPI_Comm comm)
{
    return comm > 0 && comm < MAX_COMMS && comms[comm].used ? &comms[comm] : NULL;
}

struct cb_comm *cb_comm_get(MPI_Comm comm)
{
    struct cb_comm *c = cb_comm_live(comm);
    return c && !c->freed ? c : NULL;
}

void cb_comm_hold(MPI_Comm comm)
{
    struct cb_comm *c = cb_comm_live(comm);
    if (c)
        c->refs++;
}

/* The last reference gone (the user's handle is one), the slot is free again. */
void cb_comm_release(MPI_Comm comm)
{
    struct cb_comm *c = cb_comm_live(comm);
    if (c && --c->refs == 0 && comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF) {
        free(c->world);
        free(c->local_world);
        c->used = 0;
    }
}

int cb_world_size(void)
{
    return world_size;
}

int cb_new_comm(int size, int rank, const int *world, int ctx, MPI_Errhandler eh, MPI_Comm *out)
{
    for (int h = 3; h < MAX_COMMS; h++)
        if (!comms[h].used) {
            int *w = malloc(sizeof(int) * (size_t)size);
            memcpy(w, world, sizeof(int) * (size_t)size);
            comms[h] = (struct cb_comm){1, size, rank, ctx, w, eh, 1, 0};
            *out = h;
            return MPI_SUCCESS;
        }
    return MPI_ERR_INTERN;
}

void cb_die(const char *call, const char *what)
{
    fprintf(stderr, "cellblade mpi: %s: %s\n", call, what);
    if (initialized && !finalized) {
        cb_state_phase(CB_PHASE_ABORTED, 1);
        cb_channel_abort(1);
    }
    cb_exit(1);
}

/* Report `code` from `call` through the communicator's error handler. */
int cb_fail(const char *call, MPI_Comm comm, int code, const char *fmt, ...)
{
    struct cb_comm *c = cb_comm_get(comm);
    MPI_Errhandler eh = c ? c->eh : comms[MPI_COMM_WORLD].eh;
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (eh >= CB_USER_EH)
        return cb_errhandler_call(eh, c ? comm : MPI_COMM_WORLD, code);
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cellblade mpi: rank %d: %s: %s: %s (MPI_ERRORS_ARE_FATAL)\n", world_rank, call, cb_error_name(code), what);
    cb_state_phase(CB_PHASE_ABORTED, code);
    cb_channel_abort(code);
    cb_exit(code);
}

void cb_need_init(const char *call)
{
    if (!initialized)
        cb_die(call, "called before MPI_Init");
    if (finalized)
        cb_die(call, "called after MPI_Finalize");
    cb_state_call(call);
}

int cb_check_comm(const char *call, MPI_Comm comm, struct cb_comm **out)
{
    struct cb_comm *c = cb_comm_get(comm);
    if (!c)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_COMM, "communicator %d is invalid", comm);
    cb_state_comm(call, comm);
    if (out)
        *out = c;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (initialized)
        cb_die("MPI_Init", "called twice");
    const char *env = getenv("CELLBLADE_MPI_FD");
    if (!env)
        cb_die("MPI_Init", "this program is not running under `cellblade mpirun` (CELLBLADE_MPI_FD is not set)");
    initialized = 1;
    cb_state_call("MPI_Init");
    cb_state_inside(1);
    struct answer a = cb_channel_init(atoi(env));
    cb_state_inside(0);
    cb_state_phase(CB_PHASE_RUNNING, 0);
    world_rank = a.source;
    world_size = a.tag;
    tick = a.value;
    int *w = malloc(sizeof(int) * (size_t)world_size);
    for (int r = 0; r < world_size; r++)
        w[r] = r;
    comms[MPI_COMM_WORLD] = (struct cb_comm){1, world_size, world_rank, 0, w, MPI_ERRORS_ARE_FATAL, 1, 0};
    world_self[0] = world_rank;
    /* Context 1 + rank: messages to oneself on MPI_COMM_SELF match no other rank's. */
    comms[MPI_COMM_SELF] = (struct cb_comm){1, 1, 0, 1 + world_rank, world_self, MPI_ERRORS_ARE_FATAL, 1, 0};
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
    cb_need_init("MPI_Finalize");
    /* MPI-2.2 §8.7.1: MPI_COMM_SELF's attributes are deleted first (then the world's, as
     * MPICH does), their delete functions called while MPI still works. */
    cb_comm_freeing(MPI_COMM_SELF);
    cb_comm_freeing(MPI_COMM_WORLD);
    cb_collect_freed_all();
    cb_answer(OP_FINALIZE, 0, 0, 0, 0, NULL, NULL);
    finalized = 1;
    cb_state_phase(CB_PHASE_FINALIZED, 0);
    cb_channel_close();
    return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    cb_need_init("MPI_Abort");
    cb_state_phase(CB_PHASE_ABORTED, errorcode);
    cb_channel_abort(errorcode);
    cb_exit(errorcode ? errorcode : 1);
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    struct cb_comm *c = NULL;
    cb_need_init("MPI_Comm_rank");
    CB_CHECK(cb_check_comm("MPI_Comm_rank", comm, &c));
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    struct cb_comm *c = NULL;
    cb_need_init("MPI_Comm_size");
    CB_CHECK(cb_check_comm("MPI_Comm_size", comm, &c));
    *size = c->inter ? c->local_size : c->size;
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
    cb_need_init("MPI_Wtime");
    double value;
    if (cb_wtime_local(&value))
        return value;
    uint64_t clock[4]; /* the simulator's clock (env/channel.c) */
    return cb_answer(OP_WTIME, 0, 0, 0, 0, NULL, clock).value;
}

static int compute(const char *name, int kind, double count)
{
    cb_need_init(name);
    if (!(count >= 0) || count > 1e18)
        return cb_fail(name, MPI_COMM_WORLD, MPI_ERR_ARG, "count %g is invalid: allowed 0 to 1e18", count);
    cb_answer(OP_COMPUTE, kind, 0, 0, (uint64_t)count, NULL, NULL);
    return MPI_SUCCESS;
}

int MPIX_Compute_cycles(double core_cycles)
{
    return compute("MPIX_Compute_cycles", 0, core_cycles);
}

int MPIX_Compute_dp_fma(double count)
{
    return compute("MPIX_Compute_dp_fma", 1, count);
}

double PMPI_Wtick(void)
{
    cb_need_init("MPI_Wtick");
    return tick;
}

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
