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
 * total is a native-endian uint64 at offset 0, for the simulator to read at each request.
 * Without either the total is printed at exit to stderr as "cellblade-cost: N cycles".
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

static uint64_t own_counter;
static uint64_t *counter = &own_counter;
static int print_at_exit = 1;

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
    counter = page;
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
    qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
    return 0;
}
