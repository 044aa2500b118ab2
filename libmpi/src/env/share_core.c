/* Sharing the simulator's core (the simulator's side: crates/cellblade/src/mpi/share_core.rs).
 * When a job's ranks and the simulator outnumber the host's cores, the simulator pins itself
 * to its core and says which in the answer to MPI_Init (FLAG_SHARE_CORE, the core in the
 * flags' upper bits). The simulator serves one rank at a time and waits for it, so a call's
 * round trip is two hand-overs: on one core each is a switch, where across cores each wakes a
 * sleeping core, some twenty microseconds on a virtual machine (CHANGELOG.md, issue 24's
 * twelfth part). The thread that calls MPI therefore waits on that core. A rank that computes
 * between two calls for longer than FLOAT_AFTER_NS would hold the core the simulator and the
 * other ranks wait on, so after such a stretch it takes back the cores it had (it is likely to
 * compute as long again) and returns to the shared core after a short one. Each move is one
 * system call, a few microseconds: against a stretch of a millisecond, or against the
 * hand-overs of the short calls that follow. Placement changes wall time, never a result. */
#define _GNU_SOURCE
#include "channel.h"

#include <sched.h>
#include <time.h>

#define FLOAT_AFTER_NS 1000000L

static int shared_cpu = -1;
static int on_shared;
static cpu_set_t own_cpus; /* the thread's cores before MPI_Init */
static int64_t answered_at;

static int64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void move_to(int shared)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(shared_cpu, &one);
    /* A refusal (the core is outside this process's cpuset) costs only speed: stay put for good. */
    if (sched_setaffinity(0, sizeof(cpu_set_t), shared ? &one : &own_cpus) == 0)
        on_shared = shared;
    else
        shared_cpu = -1;
}

void cb_share_core_start(const struct answer *init)
{
    uint32_t cpu = init->flags >> SHARE_CORE_SHIFT;
    if (!(init->flags & FLAG_SHARE_CORE) || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof own_cpus, &own_cpus) != 0)
        return;
    shared_cpu = (int)cpu;
    move_to(1);
    answered_at = monotonic_ns();
}

void cb_share_core_before_call(void)
{
    if (shared_cpu < 0)
        return;
    int computed_long = monotonic_ns() - answered_at > FLOAT_AFTER_NS;
    if (computed_long == on_shared)
        move_to(!computed_long);
}

void cb_share_core_answered(void)
{
    if (shared_cpu >= 0)
        answered_at = monotonic_ns();
}
