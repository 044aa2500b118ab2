/* The rank library's channel to the simulator (env/channel.c): requests and answers in the
 * format of crates/cellblade/src/mpi/wire.rs, through shared memory (channel.rs) after the
 * first one. */
#ifndef CB_CHANNEL_H
#define CB_CHANNEL_H
#include <stdint.h>

/* wire.rs's request codes, in its order. */
enum {
    OP_INIT = 1, OP_FINALIZE, OP_SEND, OP_RECV, OP_WTIME, OP_BARRIER, OP_ABORT, OP_SENDRECV, OP_PROBE, OP_IPROBE, OP_COMPUTE, OP_COLL,
    OP_ISEND, OP_IRECV, OP_WAIT, OP_TEST, OP_WAITANY, OP_SSEND, OP_ISSEND, OP_REQUEST_FREE, OP_COLLECT, OP_CANCEL
};
/* code::CANCELLED (mod.rs): the status error of a receive MPI_Cancel cancelled. */
#define CB_CANCELLED 0x100
/* OP_COLLECT's a: the freed receives done now, or all (at MPI_Finalize, waiting for them). */
#define COLLECT_NOW 0
#define COLLECT_ALL 1
#define NO_MATCH (-32766)
/* In the answer to OP_INIT: measure the CPU time between calls (`mpirun --compute cpu`). */
#define FLAG_CPU_TIME 1u
/* In the answer to any later call: freed receives are done; OP_COLLECT fetches their bytes. */
#define FLAG_FREED_DONE 2u
/* In the answer to OP_INIT: the job outnumbers the host's cores; the thread that calls MPI
 * waits on the simulator's core, the flags' bits from SHARE_CORE_SHIFT on, and sleeps at once
 * (env/share_core.c). */
#define FLAG_SHARE_CORE 4u
#define SHARE_CORE_SHIFT 8
/* In the answer to any later call: the simulator gave this thread its former cores back while
 * it computed; it returns to the shared core. */
#define FLAG_REPIN 8u

/* Under `mpirun --compute model` a rank is a PowerPC program counted by the SPU cost plugin
 * (sdk/cost/README.md): its calls go over the socket, each between these two markers of the
 * plugin's, one SPU instruction of class nop (the SDK's channel requests carry the same pair,
 * sdk/spu/spu_runtime.h). The simulator charges the MPI call itself, so the library's message
 * building, its system calls and its waiting for the answer (whose loops run as many times as
 * the host's scheduling makes them) are no SPU code: the first system call inside settles the
 * count at the marker and the rest is free. No-ops on other processors. */
#if defined(__powerpc__) && !defined(__powerpc64__)
#define CB_UNCHARGED_BEGIN() __asm__ __volatile__("cmpwi 7,2,0x5010" ::: "cr7", "memory")
#define CB_UNCHARGED_END() __asm__ __volatile__("cmpwi 7,2,0x5FFF" ::: "cr7", "memory")
#else
#define CB_UNCHARGED_BEGIN() ((void)0)
#define CB_UNCHARGED_END() ((void)0)
#endif

struct answer {
    int32_t err, source, tag;
    uint32_t flags;
    uint64_t count;
    double value;
};

/* Connect over the socket `sock` (OP_INIT, with the shared-memory channel beside it). */
struct answer cb_channel_init(int sock);
extern uint64_t cb_largest_message; /* env/channel.c */
/* One call: the request (and `len` payload bytes), then the answer (its payload into `into`). */
struct answer cb_channel_call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into);
/* Tell the simulator the job aborts with `code` (no answer is awaited); a no-op before init. */
void cb_channel_abort(int code);
void cb_channel_close(void);
/* MPI_Wtime: answered here (1, *value set) while no other call has been made since an
 * OP_WTIME answer brought the simulator's clock. */
int cb_wtime_local(double *value);
/* env/share_core.c: after the answer to OP_INIT, and after each later answer. */
void cb_share_core_start(const struct answer *init);
void cb_share_core_answered(const struct answer *ans);
/* pt2pt/requests.c: one call to the simulator, delivering the freed receives it completed; and
 * at MPI_Finalize, every freed receive's bytes. */
struct answer cb_answer(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into);
void cb_collect_freed_all(void);
#endif
