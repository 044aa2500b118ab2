/* `cellblade run --spe SPE-EXECUTABLE ARGS`: the PPE side of an SPE program run alone, as the
 * SDK's elfspe ran one (binfmt_misc handed it every SPU executable started from the shell).
 *
 * It opens the image, runs it in one context and exits with the SPE's exit code. The arguments
 * (the executable's name first, then ARGS) go to the SPE as elfspe gave them: a block of argc + 1
 * local-store addresses (the last 0) and the strings they point at, 16-byte aligned, at most
 * 4096 bytes, in PPE memory; the SPE's start code copies it by DMA to the top of local store
 * (sdk/spu/start.c). The start registers say where (SPE_RUN_USER_REGS): r3 = argc, r4 = {the
 * block's local-store address, its effective address (two words), its size}. */
#include <errno.h>
#include <libspe2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LS_BYTES = 0x40000, ARG_MAX = 4096 };

struct start_registers {
    uint32_t r3[4], r4[4], r5[4];
};

/* The argument block for `argc` strings at `argv`, and the registers naming it; 0, or -1 when
 * the strings do not fit in ARG_MAX bytes. */
static int argument_block(int argc, char **argv, struct start_registers *regs)
{
    size_t bytes = (size_t)(argc + 1) * 4;
    for (int i = 0; i < argc; i++)
        bytes += strlen(argv[i]) + 1;
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes > ARG_MAX)
        return -1;
    unsigned char *block = NULL;
    if (posix_memalign((void **)&block, 16, bytes) != 0)
        return -1;
    memset(block, 0, bytes);
    uint32_t at = LS_BYTES - (uint32_t)bytes; /* the block's address in local store */
    uint32_t *pointers = (uint32_t *)block;
    size_t used = (size_t)(argc + 1) * 4;
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]) + 1;
        pointers[i] = at + (uint32_t)used;
        memcpy(block + used, argv[i], len);
        used += len;
    }
    uint64_t ea = (uint64_t)(uintptr_t)block;
    memset(regs, 0, sizeof *regs);
    regs->r3[0] = (uint32_t)argc;
    regs->r4[0] = at;
    regs->r4[1] = (uint32_t)(ea >> 32);
    regs->r4[2] = (uint32_t)ea;
    regs->r4[3] = (uint32_t)bytes;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "cellblade elfspe: no SPE executable given\n");
        return 1;
    }
    spe_program_handle_t *image = spe_image_open(argv[1]);
    if (image == NULL) {
        fprintf(stderr, "cellblade run --spe: %s: %s\n", argv[1],
                errno == EINVAL ? "not an SPE executable (build it with `cellblade spu-gcc`)"
                                : strerror(errno));
        return 1;
    }
    struct start_registers regs;
    if (argument_block(argc - 1, argv + 1, &regs) != 0) {
        fprintf(stderr, "cellblade run --spe: the arguments take more than %d bytes, elfspe's "
                        "limit\n", ARG_MAX);
        return 1;
    }
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        fprintf(stderr, "cellblade run --spe: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    int r = spe_context_run(spe, &entry, SPE_RUN_USER_REGS, &regs, NULL, &stop);
    spe_context_destroy(spe);
    if (r < 0 || stop.stop_reason != SPE_EXIT) {
        /* The simulator's note says what stopped it; elfspe's exit code was the stop's code. */
        fprintf(stderr, "cellblade run --spe: %s did not exit (stop reason %u, code %d)\n",
                argv[1], stop.stop_reason, stop.result.spe_exit_code);
        return r < 0 ? 1 : stop.result.spe_exit_code & 0xff;
    }
    return stop.result.spe_exit_code;
}
