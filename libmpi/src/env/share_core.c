/* Sharing the simulator's core (the simulator's side: crates/cellblade/src/mpi/share_core.rs).
 * When a job's ranks and the simulator outnumber the host's cores, the simulator pins itself
 * to its core and says which in the answer to MPI_Init (FLAG_SHARE_CORE, the core in the
 * flags' upper bits). The simulator serves one rank at a time and waits for it, so a call's
 * round trip is two hand-overs: on one core each is a switch, where across cores each wakes a
 * sleeping core, some twenty microseconds on a virtual machine (CHANGELOG.md, issue 24's
 * twelfth part). So the thread that calls MPI moves to that core at MPI_Init and stays. While
 * ranks compute the simulator waits; after a few milliseconds of that it gives the ranks'
 * threads their cores back (they would take turns on one core), and says so in each one's next
 * answer (FLAG_REPIN), on which the rank moves back. Placement changes wall time, never a
 * result. */
#define _GNU_SOURCE
#include "channel.h"

#include <sched.h>

static int shared_cpu = -1;
static cpu_set_t shared;

static void to_shared_core(void)
{
    /* A refusal (the core is outside this process's cpuset) costs only speed: stop moving. */
    if (sched_setaffinity(0, sizeof(cpu_set_t), &shared) != 0)
        shared_cpu = -1;
}

void cb_share_core_start(const struct answer *init)
{
    uint32_t cpu = init->flags >> SHARE_CORE_SHIFT;
    if (!(init->flags & FLAG_SHARE_CORE) || cpu >= CPU_SETSIZE)
        return;
    shared_cpu = (int)cpu;
    CPU_ZERO(&shared);
    CPU_SET(shared_cpu, &shared);
    to_shared_core();
}

void cb_share_core_answered(const struct answer *ans)
{
    if (shared_cpu >= 0 && (ans->flags & FLAG_REPIN))
        to_shared_core();
}
