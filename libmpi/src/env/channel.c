/* The rank side of the call channel (crates/cellblade/src/mpi/channel.rs mirrors the layout):
 * MPI_Init creates a memory file, sends it with its first request over the socket named by
 * CELLBLADE_MPI_FD, and every later call goes through it: the request in its slot, the
 * request sequence number raised, then a wait for the answer's sequence number. A waiting
 * rank sleeps on the futex at once when the job's ranks and the simulator outnumber the
 * host's cores (it then shares the simulator's core: env/share_core.c), and otherwise spins on
 * the number for up to SPIN_NS of wall time first (a short call's answer comes within a few
 * microseconds when both sides have a core); the publisher wakes it only if it sleeps. It
 * never yields the core: on a host with more runnable
 * processes than cores, sched_yield gives the core to another process for the rest of a time
 * slice, and a job whose every call waits for such a turn starves; a spinning rank holds a
 * core the rank or the simulator it waits for needs; a sleeper woken on the futex runs at once
 * (the measurements: CHANGELOG.md, issue 22's sixth part). The socket carries the first call,
 * payloads larger than the data area, and tells a waiting rank that the simulator is gone
 * (POLLHUP). Without memfd, every call goes over the socket (so does
 * every call with CELLBLADE_MPI_CHANNEL=socket). */
#define _GNU_SOURCE
#include "channel.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { REQ_SEQ = 0, SIM_SLEEPS = 4, RANK_TID = 8, ANS_SEQ = 64, RANK_SLEEPS = 68, REQ_AT = 128, ANS_AT = 192, DATA_AT = 4096 };
#define DATA_BYTES (1u << 20)
#define CHANNEL_BYTES (DATA_AT + DATA_BYTES)
#define SPIN_NS 20000L
#define SLEEP_NS 100000000L

struct request {
    uint32_t op;
    int32_t a, b, c;
    uint64_t len;
};

static int fd = -1;
static char *shm;
static uint32_t seq;
static long spin_ns; /* SPIN_NS, or 0 when the rank shares the simulator's core (cb_channel_init) */
static int cpu_time;
static struct timespec cpu_mark;
/* MPI_Wtime between two other calls, answered here (cb_wtime_local): the simulator's clock
 * from the last OP_WTIME answer and what a call costs; each local call is counted and
 * reported with the next request, which the simulator charges them before (external.rs).
 * Simulated time passes for this rank only in its calls, so the values are the ones a round
 * trip per call would give. `dec` is the decrementer count at `now`, `next` the tick where it
 * steps: the division happens once a step, not once a call. */
static struct {
    int valid;
    uint64_t now, cost, hz, tps, dec, next;
} clk;
static uint64_t wtimes;

#define WORD(at) ((_Atomic uint32_t *)(shm + (at)))

/* The simulator ended the connection: the launcher is ending the job and reports why. */
void cb_state_phase(int phase, int code); /* env/fault.c */
void cb_flush_last(void);                  /* env/fault.c */

static void lost(void)
{
    cb_state_phase(4, 0); /* CB_PHASE_LOST: the launcher learns the job's end from the simulator */
    cb_flush_last();      /* what the rank printed is not lost with it, nor printed twice */
    _exit(1);
}

static void put_all(const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL); /* a gone simulator is lost(), not SIGPIPE */
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

static struct answer socket_call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into)
{
    struct request r = {op, a, b, c, len};
    struct answer ans;
    CB_UNCHARGED_BEGIN();
    /* One write for a short request and its payload: system calls are most of a call's time. */
    char small[256];
    if (payload && len && len <= sizeof small - sizeof r) {
        memcpy(small, &r, sizeof r);
        memcpy(small + sizeof r, payload, len);
        put_all(small, sizeof r + len);
    } else {
        put_all(&r, sizeof r);
        if (payload && len)
            put_all(payload, len);
    }
    get_all(&ans, sizeof ans);
    if (ans.count)
        get_all(into, ans.count);
    CB_UNCHARGED_END();
    return ans;
}

static int simulator_gone(void)
{
    struct pollfd p = {fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin until *word == want or spin_ns pass: whether it came. The clock is read every 64 looks
 * (a look is a few nanoseconds, a clock read some twenty). */
static int spin_for(_Atomic uint32_t *word, uint32_t want)
{
    if (spin_ns == 0)
        return atomic_load_explicit(word, memory_order_acquire) == want;
    int64_t end = now_ns() + spin_ns;
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) == want)
            return 1;
        cpu_relax();
        if (i % 64 == 0 && now_ns() > end)
            return 0;
    }
}

static void wait_answer(void)
{
    _Atomic uint32_t *ans = WORD(ANS_SEQ), *sleeps = WORD(RANK_SLEEPS);
    if (spin_for(ans, seq))
        return;
    while (atomic_load_explicit(ans, memory_order_acquire) != seq) {
        atomic_store(sleeps, 1);
        if (atomic_load(ans) != seq) {
            struct timespec t = {0, SLEEP_NS};
            syscall(SYS_futex, ans, FUTEX_WAIT, seq - 1, &t, NULL, 0);
        }
        atomic_store(sleeps, 0);
        if (atomic_load(ans) != seq && simulator_gone())
            lost();
    }
}

static uint64_t cpu_since_mark(void)
{
    if (!cpu_time)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    int64_t ns = (int64_t)(now.tv_sec - cpu_mark.tv_sec) * 1000000000 + (now.tv_nsec - cpu_mark.tv_nsec);
    return ns > 0 ? (uint64_t)ns : 0;
}

static void mark_cpu(void)
{
    if (cpu_time)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_mark);
}

/* Publish a request in the slot (its payload in the data area, or after it on the socket). */
static void publish(uint32_t op, int a, int b, int c, uint64_t len, const void *payload)
{
    struct request r = {op, a, b, c, len};
    uint64_t cpu_ns = cpu_since_mark();
    memcpy(shm + REQ_AT, &r, sizeof r);
    memcpy(shm + REQ_AT + sizeof r, &cpu_ns, sizeof cpu_ns);
    memcpy(shm + REQ_AT + sizeof r + 8, &wtimes, sizeof wtimes);
    wtimes = 0;
    clk.valid = 0; /* the call takes simulated time: the next MPI_Wtime asks */
    int big = len > DATA_BYTES;
    if (payload && len && !big)
        memcpy(shm + DATA_AT, payload, len);
    atomic_store(WORD(REQ_SEQ), ++seq);
    if (atomic_load(WORD(SIM_SLEEPS)))
        syscall(SYS_futex, WORD(REQ_SEQ), FUTEX_WAKE, 1, NULL, NULL, 0);
    if (payload && len && big)
        put_all(payload, len);
}

/* floor(a * m / d) and its ceiling, exact without 128-bit arithmetic (which a 32-bit target
 * such as the PowerPC of `mpirun --compute model` lacks): a = q d + r, so a m / d = q m + r m / d,
 * where r m < d m fits 64 bits (m and d are the decrementer's rate and the simulator's ticks per
 * second, some 1.4e7 and 2.56e10: their product is below 2^59). */
static uint64_t mul_div(uint64_t a, uint64_t m, uint64_t d, int up)
{
    uint64_t r = a % d * m;
    return a / d * m + r / d + (up && r % d != 0);
}

static void clock_step(void)
{
    clk.dec = mul_div(clk.now, clk.hz, clk.tps, 0);
    /* the first tick of the next count: ceil((dec + 1) * tps / hz) */
    clk.next = mul_div(clk.dec + 1, clk.tps, clk.hz, 1);
}

int cb_wtime_local(double *value)
{
    if (!clk.valid)
        return 0;
    clk.now += clk.cost;
    if (clk.now >= clk.next)
        clock_step();
    wtimes++;
    *value = (double)clk.dec / (double)clk.hz; /* as rank.rs's wtime() */
    return 1;
}

/* An OP_WTIME answer's payload: {now, cost of a call (both in simulator ticks), decrementer
 * hz, ticks per second}. With measured CPU time charged between calls, every call asks. */
static void wtime_learn(const uint64_t clock[4])
{
    if (cpu_time || !clock[2] || !clock[3])
        return;
    clk.now = clock[0], clk.cost = clock[1], clk.hz = clock[2], clk.tps = clock[3];
    clock_step();
    clk.valid = 1;
}

struct answer cb_channel_call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into)
{
    if (!shm)
        return socket_call(op, a, b, c, len, payload, into);
    publish(op, a, b, c, len, payload);
    wait_answer();
    struct answer ans;
    memcpy(&ans, shm + ANS_AT, sizeof ans);
    if (ans.count > DATA_BYTES)
        get_all(into, ans.count);
    else if (ans.count)
        memcpy(into, shm + DATA_AT, ans.count);
    if (op == OP_WTIME && ans.count == 4 * sizeof(uint64_t))
        wtime_learn(into);
    cb_share_core_answered(&ans);
    mark_cpu();
    return ans;
}

/* The largest message the rank's buffers on the blade hold (the payload of MPI_Init's answer;
 * crates/cellblade/src/mpi/external.rs): a larger send is refused here, through the error
 * handler, before its bytes are copied. 0 until MPI_Init. */
uint64_t cb_largest_message;

struct answer cb_channel_init(int sock)
{
    fd = sock;
    struct request r = {OP_INIT, 0, 0, 0, 0};
    /* CELLBLADE_MPI_CHANNEL=socket keeps every call on the socket, to compare the two. */
    const char *only = getenv("CELLBLADE_MPI_CHANNEL");
    int file = only && strcmp(only, "socket") == 0 ? -1 : memfd_create("cellblade-mpi", MFD_CLOEXEC);
    char *map = MAP_FAILED;
    if (file >= 0 && ftruncate(file, CHANNEL_BYTES) == 0)
        map = mmap(NULL, CHANNEL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
    if (map == MAP_FAILED) {
        if (file >= 0)
            close(file);
        return socket_call(OP_INIT, 0, 0, 0, 0, NULL, &cb_largest_message);
    }
    *(uint32_t *)(map + RANK_TID) = (uint32_t)syscall(SYS_gettid); /* whom the simulator may move */
    struct iovec iov = {&r, sizeof r};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &file, sizeof file);
    ssize_t sent;
    while ((sent = sendmsg(fd, &msg, 0)) < 0 && errno == EINTR)
        ;
    close(file);
    if (sent != (ssize_t)sizeof r)
        lost();
    shm = map;
    struct answer ans;
    get_all(&ans, sizeof ans);
    if (ans.count == sizeof cb_largest_message)
        get_all(&cb_largest_message, sizeof cb_largest_message);
    cpu_time = (ans.flags & FLAG_CPU_TIME) != 0;
    spin_ns = ans.flags & FLAG_SHARE_CORE ? 0 : SPIN_NS;
    cb_share_core_start(&ans);
    mark_cpu();
    return ans;
}

void cb_channel_abort(int code)
{
    if (fd < 0)
        return;
    if (shm)
        publish(OP_ABORT, code, 0, 0, 0, NULL);
    else {
        struct request r = {OP_ABORT, code, 0, 0, 0};
        put_all(&r, sizeof r);
    }
}

void cb_channel_close(void)
{
    if (shm)
        munmap(shm, CHANNEL_BYTES);
    shm = NULL;
    close(fd);
    fd = -1;
}
