/* How a rank fails so that `cellblade mpirun` can say so at once (launcher.py and watch.py).
 *
 * - A rank dies with its launcher: PR_SET_PDEATHSIG, set before main; a launcher that died
 *   before the prctl is caught by comparing getppid() with the pid it gave (CELLBLADE_MPI_PARENT).
 * - The rank's state page (one CB_STATE_BYTES slot per rank of a file the launcher maps too,
 *   CELLBLADE_MPI_STATE_FD): the program's last MPI call and its communicator (not the sends
 *   and receives a collective makes), written when the call starts, so that a crash inside it
 *   before it reaches the simulator (packing a bad buffer) names it; whether the rank waits in
 *   it now, and whether it finalized or aborted (and its code). The launcher reads it when a
 *   rank's process ends and when --timeout expires, without waiting for the simulator.
 * - The socket to the simulator is close-on-exec: a program the rank starts cannot keep a dead
 *   job's connection open.
 * - Every way out of the library flushes stdio first (_exit does not), and so does a death by
 *   a signal that would lose it: a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), the
 *   SIGTERM, SIGINT or SIGHUP by which the launcher, the terminal or a user ends the rank, and
 *   the other signals whose default ends a process (an alarm, SIGUSR1, ...). The
 *   handler flushes, then dies of the same signal, so the launcher names it. Every last flush
 *   (the handler's, the library's before _exit, the C library's at exit) runs with those
 *   signals blocked: a second signal arriving mid-flush would flush the same buffer again and
 *   print its lines twice (a rank ended by the launcher while it was already going). Flushing is not
 *   async-signal-safe: a crash inside stdio may crash again (the default action is back by
 *   then) or block on a lock another thread holds, which the alarm ends.
 *   Only signals whose action is the default get it; a program's own handler replaces it.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* launcher.py's STATE_BYTES and the layout watch.py reads. */
#define CB_STATE_BYTES 128
#define CB_CALL_BYTES 96
struct cb_state {
    char call[CB_CALL_BYTES]; /* NUL-terminated */
    volatile int32_t phase;   /* CB_PHASE_* */
    volatile int32_t code;    /* MPI_Abort's error code */
    volatile int32_t inside;  /* 1 while the rank waits in `call` for the simulator */
};

static struct cb_state *state;
static const char *current = "none, before MPI_Init";
static MPI_Comm current_comm = MPI_COMM_NULL; /* the communicator the user passed to it */
static const char *current_for;                /* a wait's request: the call that made it */
static int inner;                              /* > 0: the library calls MPI itself (CB_INNER) */
/* What the page says now: a loop of the same cheap call (MPI_Comm_rank) does not rewrite it. */
static const char *written_call, *written_for;
static MPI_Comm written_comm = MPI_COMM_NULL;

/* Signals whose default action ends the process and loses what stdio holds (not SIGPIPE: the
 * output it is about cannot go anywhere). */
static const int flushed_on[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP,
                                 SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU};

/* Blocks the signals of flushed_on but `except` (0: none), so that no handler flushes again. */
static void block_flushed(int except)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof flushed_on / sizeof flushed_on[0]; i++)
        if (flushed_on[i] != except)
            sigaddset(&set, flushed_on[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
}

static void flush_and_die(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGALRM, &dfl, NULL);
    block_flushed(SIGALRM);
    alarm(2); /* a flush that blocks on a lock another thread holds still ends */
    fflush(NULL);
    sigaction(sig, &dfl, NULL);
    sigset_t own;
    sigemptyset(&own);
    sigaddset(&own, sig);
    raise(sig); /* pending until unblocked, then delivered with its default action */
    sigprocmask(SIG_UNBLOCK, &own, NULL);
}

/* Registered first, so it runs last of the atexit handlers, just before the C library's own
 * flush at exit. */
static void block_before_exit_flush(void)
{
    block_flushed(0);
}

void cb_flush_last(void)
{
    block_flushed(0);
    fflush(NULL);
}

static void flush_on_signals(void)
{
    for (size_t i = 0; i < sizeof flushed_on / sizeof flushed_on[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(flushed_on[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
            continue; /* ignored, or the program (or its launcher) handles it */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = flush_and_die;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(flushed_on[i], &sa, NULL);
    }
}

__attribute__((constructor)) static void cb_fault_start(void)
{
    const char *parent = getenv("CELLBLADE_MPI_PARENT");
    if (parent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != (pid_t)atol(parent))
            _exit(1); /* the launcher died before the prctl took effect */
    }
    const char *sock = getenv("CELLBLADE_MPI_FD");
    if (parent) {
        flush_on_signals();
        atexit(block_before_exit_flush);
    }
    if (sock)
        fcntl(atoi(sock), F_SETFD, FD_CLOEXEC);
    const char *fd = getenv("CELLBLADE_MPI_STATE_FD"), *rank = getenv("CELLBLADE_MPI_RANK");
    if (!fd || !rank)
        return;
    int f = atoi(fd);
    long r = atol(rank);
    size_t bytes = (size_t)(r + 1) * CB_STATE_BYTES;
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    close(f);
    if (map != MAP_FAILED)
        state = (struct cb_state *)((char *)map + r * CB_STATE_BYTES);
}

/* "MPI_Allreduce on MPI_COMM_WORLD": the call, and its communicator by the name the program
 * gave it (MPI_Comm_set_name) or its handle. watch.py splits it at " on ". */
static void describe_call(char *out)
{
    const char *name = current_comm != MPI_COMM_NULL && cb_comm_get(current_comm) ? cb_comm_name(current_comm) : NULL;
    char call[CB_CALL_BYTES];
    snprintf(call, sizeof call, "%s%s%s", current, current_for ? " for " : "", current_for ? current_for : "");
    if (current_comm == MPI_COMM_NULL)
        snprintf(out, CB_CALL_BYTES, "%s", call);
    else if (name && name[0])
        snprintf(out, CB_CALL_BYTES, "%s on %s", call, name);
    else
        snprintf(out, CB_CALL_BYTES, "%s on communicator %d", call, current_comm);
}

static void publish(void)
{
    if (!state || state->inside || (current == written_call && current_comm == written_comm && current_for == written_for))
        return;
    describe_call(state->call);
    written_call = current, written_comm = current_comm, written_for = current_for;
}

void cb_state_inner_begin(void)
{
    inner++;
}

int cb_state_inner_done(int rc)
{
    inner--;
    return rc;
}

void cb_state_call(const char *call)
{
    if (inner)
        return;
    current = call;
    current_comm = MPI_COMM_NULL;
    current_for = NULL;
    /* The same call again: its communicator comes next (cb_state_comm). Not a wait's request:
     * the next wait may have none (MPI_REQUEST_NULL), so it must not inherit it. */
    if (call != written_call || written_for)
        publish();
}

void cb_state_comm(const char *call, MPI_Comm comm)
{
    if (inner || current_comm != MPI_COMM_NULL || strcmp(call, current) != 0) /* a call's inner ones */
        return;
    current_comm = comm;
    publish();
}

void cb_state_request(const char *made_by, MPI_Comm comm)
{
    current_for = made_by;
    current_comm = comm;
}

void cb_state_inside(int inside)
{
    if (!state)
        return;
    if (inside) { /* the name the program gave the communicator may be new */
        describe_call(state->call);
        written_call = current, written_comm = current_comm, written_for = current_for;
    }
    __atomic_store_n(&state->inside, inside, __ATOMIC_RELEASE);
}

void cb_state_phase(int phase, int code)
{
    if (!state)
        return;
    state->code = code;
    __atomic_store_n(&state->phase, phase, __ATOMIC_RELEASE);
}

void cb_exit(int code)
{
    cb_flush_last();
    _exit(code);
}
