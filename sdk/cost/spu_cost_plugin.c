/*
 * cellblade's SPU cost plugin for qemu-user (qemu 7.2 TCG plugin API): loaded into the qemu-ppc
 * that runs an SPE program, it prices every translated block in SPU cycles once, at translation
 * (spu_cost.c), and adds that price to a 64-bit counter inline each time the block runs, so the
 * count costs one add per block executed and is the same on every run.
 *
 *   qemu-ppc -cpu G4 -plugin spu_cost_plugin.so[,counter=PATH][,fd=N],CLASS=E:O:S:L,... IMAGE
 *
 * Every class's price (CLASS=EVEN:ODD:STALL:LATENCY, one argument each, the names of
 * spu_cost.h) is an argument: the machine file's [spu_cost] table, which the simulator passes
 * (and the tests read from machines/qs20.toml); the plugin refuses to start without all of them.
 *
 * counter=PATH maps the first 8 bytes of file PATH (created and extended if needed), fd=N those
 * of an open file descriptor (a memory file the simulator passes down), MAP_SHARED: the running
 * total is a native-endian uint64 at offset 0, updated at each system call and at exit, for the
 * simulator to read at each request.
 * Without either the total is printed at exit to stderr as "cellblade-cost: N cycles".
 *
 * Intrinsics (README.md): a block that holds a marker word is charged by a callback instead of
 * the inline add, event by event: its code outside the markers, then at a begin marker the
 * counter is remembered with the marked instructions' price, and at the matching end marker it
 * is set back to that value plus the price, so what ran in between (the emulation, over any
 * number of blocks, each of which added its own price inline) is replaced by the SPU
 * instructions it stands for. Markers nest (an intrinsic built on another): the outermost pair
 * counts.
 *
 * A block is charged when it starts, whole: at a channel request (a system call, which ends its
 * block) the counter already holds the block that makes the call. A block that faults part way
 * and is run again is charged twice, the same way on every run.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qemu_plugin_api.h"
#include "spu_cost.h"

CELLBLADE_PLUGIN_EXPORT int qemu_plugin_version = CELLBLADE_QEMU_PLUGIN_VERSION;

/* The running count, in the plugin's own memory: the inline adds and the marked regions work on
 * it. The shared counter (counter= or fd=) gets its value at each system call and at exit only:
 * the simulator reads it while the SPE process waits for the answer to a request, and between
 * the request's system call and the answer's the count moves (the blocks of a marked region add
 * to it before its end takes them back), so a counter updated as the code runs would give the
 * simulator whatever it happened to read at that moment. */
static uint64_t own_counter;
static uint64_t *const counter = &own_counter;
static uint64_t *shared;
static int print_at_exit = 1;

/* The events of a block with markers, in order: an instruction outside the markers (scheduled
 * where it runs), a vector move folded into a neighbouring region, a source register of the
 * next region, the begin of a region (its class and count), the next part of the region (a
 * begin word right after another: instructions of another class, each depending on the part
 * before), the register holding its result, its end. */
enum { EV_INSN, EV_MOVE, EV_SOURCE, EV_BEGIN, EV_NEXT, EV_RESULT, EV_END };
struct event {
    int kind;
    int cls;        /* EV_BEGIN: the class; EV_MOVE: the source register */
    unsigned count; /* EV_BEGIN: how many instructions; EV_SOURCE, EV_RESULT, EV_MOVE: register */
    struct spu_insn insn;
};
struct marked_block {
    unsigned n;
    struct event ev[];
};

/* Marked code is scheduled as it runs, not block by block: a region is one SPU instruction (or
 * `count` of them) whose sources are registers of the code before it and whose result feeds the
 * code after it, across the blocks the emulation's call splits the caller into. `dyn` is that
 * schedule, in counter cycles: `frontier` is the counter value it last left (when the pipelines
 * are free), and if other code has run since (the counter moved), it starts again from the
 * counter with its registers' ready times kept, as the SPU would still wait for a result in
 * flight. One vCPU: qemu-user runs an SPE program's one thread. */
static struct spu_sched dyn;
static uint64_t frontier;
static unsigned depth;           /* how deep in marked regions */
static uint8_t sources[8];       /* the next region's source registers */
static unsigned nsources;
static int result_reg = -1;      /* the outermost region's result register, once named */
static uint64_t result_ready;    /* when the outermost region's result is ready */

static uint64_t pipes_free(void)
{
    return dyn.pipe_free[0] > dyn.pipe_free[1] ? dyn.pipe_free[0] : dyn.pipe_free[1];
}

static void on_marked_block(unsigned int vcpu, void *userdata)
{
    (void)vcpu;
    const struct marked_block *b = userdata;
    if (depth == 0 && *counter != frontier) {
        dyn.pipe_free[0] = dyn.pipe_free[1] = dyn.last = *counter;
        frontier = *counter;
    }
    for (unsigned i = 0; i < b->n; i++) {
        const struct event *e = &b->ev[i];
        switch (e->kind) {
        case EV_INSN:
            if (depth == 0) {
                spu_issue(&dyn, &e->insn);
                *counter = frontier = pipes_free();
            }
            break;
        case EV_MOVE:
            if (depth == 0)
                dyn.ready[e->count] = dyn.ready[e->cls];
            break;
        case EV_SOURCE:
            if (depth == 0 && nsources < sizeof sources)
                sources[nsources++] = (uint8_t)e->count;
            break;
        case EV_BEGIN:
            if (depth++ == 0) {
                /* the region as `count` instructions of its class, each reading the sources */
                struct spu_insn in = {.cls = e->cls, .nsrc = 0, .ndst = 0, .dst_fx = 0};
                uint64_t t = dyn.last;
                for (unsigned k = 0; k < nsources && k < 4; k++)
                    in.src[in.nsrc++] = sources[k];
                for (unsigned k = 0; k < e->count; k++)
                    t = spu_issue(&dyn, &in);
                result_ready = t + spu_prices[e->cls].latency;
                result_reg = -1;
                *counter = frontier = pipes_free();
            }
            nsources = 0;
            break;
        case EV_NEXT:
            if (depth == 1) {
                /* The next part issues in its place in the order, without holding up what
                 * follows (spu-gcc would put independent work between the two), and its result
                 * is ready its latency after the part before's result. */
                struct spu_insn in = {.cls = e->cls, .nsrc = 0, .ndst = 0, .dst_fx = 0};
                uint64_t t = dyn.last, before = result_ready;
                for (unsigned k = 0; k < e->count; k++)
                    t = spu_issue(&dyn, &in);
                result_ready = (t > before ? t : before) + spu_prices[e->cls].latency;
                *counter = frontier = pipes_free();
            }
            break;
        case EV_RESULT:
            if (depth == 1)
                result_reg = (int)e->count;
            break;
        case EV_END:
            if (depth > 0 && --depth == 0) {
                /* what the emulation's blocks added inline is taken back */
                *counter = frontier;
                if (result_reg >= 0)
                    dyn.ready[result_reg] = result_ready;
                result_reg = -1;
            }
            break;
        }
    }
}

/* At each system call the count is published to the shared counter. Inside a marked region (a
 * channel request, which the SPE library marks as uncharged) the region is settled first: the
 * count is set to the schedule's frontier, which its end marker sets it to again, so what runs
 * after the call up to the end marker is the region's, at no further price, and the count never
 * goes back past a value the simulator may have read. */
static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                       uint64_t a7, uint64_t a8)
{
    (void)id, (void)vcpu, (void)num, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6,
        (void)a7, (void)a8;
    if (depth > 0)
        *counter = frontier;
    if (shared)
        *shared = *counter;
}

/* A block with markers: its events, or NULL if it has none. A vector move (vor vD,vA,vA) that
 * copies a region's result out of the emulation's return register (after its end, before the
 * next region, from the result register or a copy of it) or an operand into the emulation's
 * argument registers (before a region, into one of its source registers) is the emulation's
 * calling convention, code the SPU would not run (its instruction takes any registers): it is
 * folded into the schedule as a renaming, at no cost. */
static struct marked_block *marked(const uint32_t *words, unsigned n)
{
    unsigned markers = 0;
    int cls, dst, src;
    unsigned count;
    for (unsigned i = 0; i < n; i++)
        markers += spu_marker(words[i], &cls, &count) != 0;
    if (!markers)
        return NULL;
    struct marked_block *b = malloc(sizeof *b + n * sizeof(struct event));
    uint8_t *fold = calloc(n ? n : 1, 1);
    if (b == NULL || fold == NULL)
        abort();
    for (unsigned i = 0; i < n; i++) {
        int kind = spu_marker(words[i], &cls, &count);
        if (kind == 4) { /* a result register: its copies up to the next region's markers */
            uint64_t alias = 0;
            alias |= 1ull << (count - SPU_REG_VR);
            for (unsigned j = i + 1; j < n; j++) {
                int k = spu_marker(words[j], &cls, &count);
                if (k == 1 || k == 3)
                    break;
                if (k || !spu_vector_move(words[j], &dst, &src))
                    continue;
                if (alias >> (src - SPU_REG_VR) & 1) {
                    fold[j] = 1;
                    alias |= 1ull << (dst - SPU_REG_VR);
                } else {
                    alias &= ~(1ull << (dst - SPU_REG_VR));
                }
            }
        }
        if (kind == 3 && (i == 0 || spu_marker(words[i - 1], &cls, &count) != 3)) {
            /* the first source word: the moves into the sources since the last marker */
            uint64_t wanted = 0;
            for (unsigned j = i; j < n && spu_marker(words[j], &cls, &count) == 3; j++)
                wanted |= 1ull << (count - SPU_REG_VR);
            for (unsigned j = i; j-- > 0;) {
                int k = spu_marker(words[j], &cls, &count);
                if (k == 1 || k == 2)
                    break;
                if (!k && spu_vector_move(words[j], &dst, &src) && (wanted >> (dst - SPU_REG_VR) & 1)) {
                    fold[j] = 1;
                    wanted &= ~(1ull << (dst - SPU_REG_VR));
                }
            }
        }
    }
    b->n = 0;
    for (unsigned i = 0; i < n; i++) {
        struct event *e = &b->ev[b->n++];
        memset(e, 0, sizeof *e);
        int kind = spu_marker(words[i], &cls, &count);
        if (kind == 1 && i > 0 && b->n > 1 && b->ev[b->n - 2].kind == EV_BEGIN) {
            e->kind = EV_NEXT;
            e->cls = cls;
            e->count = count;
        } else if (kind == 1) {
            e->kind = EV_BEGIN;
            e->cls = cls;
            e->count = count;
        } else if (kind == 2) {
            e->kind = EV_END;
        } else if (kind == 3 || kind == 4) {
            e->kind = kind == 3 ? EV_SOURCE : EV_RESULT;
            e->count = count;
        } else if (fold[i]) {
            spu_vector_move(words[i], &dst, &src);
            e->kind = EV_MOVE;
            e->count = (unsigned)dst;
            e->cls = src;
        } else {
            e->kind = EV_INSN;
            spu_cost_decode(words[i], &e->insn);
        }
    }
    free(fold);
    return b;
}

/* qemu ends a translated block at 512 instructions (TCG_MAX_INSNS); longer ones are priced in
 * parts. */
#define MAX_BLOCK 512

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    uint32_t words[MAX_BLOCK];
    size_t n = qemu_plugin_tb_n_insns(tb);
    uint64_t cycles = 0;
    unsigned k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        if (qemu_plugin_insn_size(insn) != 4)
            continue;
        const uint8_t *p = qemu_plugin_insn_data(insn);
        words[k++] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (k == MAX_BLOCK) {
            cycles += spu_cost_block(words, k, 0);
            k = 0;
        }
    }
    if (k == n) {
        struct marked_block *b = marked(words, k);
        if (b != NULL) { /* never freed: qemu keeps a translated block as long as the program runs */
            qemu_plugin_register_vcpu_tb_exec_cb(tb, on_marked_block, QEMU_PLUGIN_CB_NO_REGS, b);
            return;
        }
    }
    int loop = 0;
    if (k == n && n > 0) { /* a block that branches back to its own start: a loop's body */
        uint64_t last = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, n - 1));
        loop = spu_branch_target(words[n - 1], last) == (int64_t)qemu_plugin_tb_vaddr(tb);
    }
    cycles += spu_cost_block(words, k, loop);
    if (cycles)
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter, cycles);
}

static void on_guest_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    if (shared)
        *shared = *counter;
    if (print_at_exit)
        fprintf(stderr, "cellblade-cost: %" PRIu64 " cycles\n", *counter);
}

static int map_counter(int fd, const char *what)
{
    off_t size = lseek(fd, 0, SEEK_END);
    if (size < (off_t)sizeof(uint64_t) && ftruncate(fd, sizeof(uint64_t)) != 0) {
        fprintf(stderr, "cellblade-cost: cannot extend %s\n", what);
        return -1;
    }
    void *page = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) {
        fprintf(stderr, "cellblade-cost: cannot map %s\n", what);
        return -1;
    }
    shared = page;
    print_at_exit = 0;
    return 0;
}

CELLBLADE_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                int argc, char **argv)
{
    (void)info;
    int given[SPU_NCLASSES] = {0};
    for (int i = 0; i < argc; i++) {
        int cls = spu_cost_set(argv[i]);
        if (cls >= 0) {
            given[cls] = 1;
        } else if (cls == -2) {
            fprintf(stderr, "cellblade-cost: %s: a class's price is CLASS=EVEN:ODD:STALL:LATENCY\n", argv[i]);
            return -1;
        } else if (strncmp(argv[i], "counter=", 8) == 0) {
            int fd = open(argv[i] + 8, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
            if (fd < 0) {
                fprintf(stderr, "cellblade-cost: cannot open %s\n", argv[i] + 8);
                return -1;
            }
            int rc = map_counter(fd, argv[i] + 8);
            close(fd);
            if (rc)
                return -1;
        } else if (strncmp(argv[i], "fd=", 3) == 0) {
            char *end;
            long fd = strtol(argv[i] + 3, &end, 10);
            if (*end || fd < 0 || map_counter((int)fd, argv[i]))
                return -1;
        } else {
            fprintf(stderr, "cellblade-cost: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    for (int c = 0; c < SPU_NCLASSES; c++) {
        if (!given[c]) {
            fprintf(stderr,
                    "cellblade-cost: no price for class %s: pass every class as "
                    "CLASS=EVEN:ODD:STALL:LATENCY (the machine file's [spu_cost])\n",
                    spu_class_names[c]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
    return 0;
}
