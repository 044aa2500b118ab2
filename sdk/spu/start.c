/* How an SPE program starts: between the C library's start-up and the program's main.
 *
 * An SPE program is a 32-bit big-endian PowerPC executable (`cellblade spu-gcc`) that runs under
 * qemu-ppc, one process per SPE context. What it can see of its local store must be what an SPU
 * sees: addresses 0 to 256 KB, holding its data, its heap and its stack, so that `(unsigned)&x`
 * sent to the PPE or another SPE names the same bytes there. So the program is linked with its
 * writable data at local-store addresses (spu-gcc: -Tdata), and before main:
 *
 * - the local store becomes the launcher's: the file CELLBLADE_LS_FD (256 KB of the blade's
 *   local stores, which the simulator's DMAs and the PPE's mapping read and write) is mapped over
 *   addresses 0 to 256 KB, carrying over what the loader and the C library's start-up already
 *   wrote there. Without it (the program started by hand) an anonymous mapping stands in, so
 *   that the program still runs with its stack in local store;
 * - main runs on a stack at the top of local store, as on the SPU, growing down towards the
 *   data: a buffer on the stack is a local-store address a DMA can use;
 * - main gets the SPE's start registers r3-r5 (speid, argp, envp: CELLBLADE_SPE_ARGS, numbers
 *   the launcher takes from spe_context_run), as `main(speid, argp, envp)` expects, and its
 *   return value is the program's exit code. A program run alone (elfspe) gets
 *   `main(argc, argv)`, its arguments copied to the top of local store;
 * - SPU instructions the program calls in local store are run as the SPU runs them
 *   (spu_code.c).
 *
 * - under `cellblade run` (CELLBLADE_SDK_FD), the program connects to the simulator, whose
 *   answer comes when its simulated SPE thread starts, and its stdio goes to the PPE (stdio.c);
 * - its exit, by main's return or exit(), is the SPU's stop 0x2000 | code.
 *
 * The C library's main and exit are replaced by --wrap=main and --wrap=exit (spu-gcc links
 * with them): crt1's reference to main reaches __wrap_main below, and __real_main is the
 * program's own; likewise every call of exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "spu_channels.h"
#include "spu_layout.h"
#include "spu_runtime.h"

extern char _end[]; /* the linker's: the end of the program's data and bss in local store */

int __real_main(unsigned long long speid, unsigned long long argp, unsigned long long envp);
void __real_exit(int code) __attribute__((noreturn));

static ucontext_t on_launcher_stack, on_ls_stack;
/* speid, argp, envp (r3-r5's first doublewords) and r4's second doubleword. */
static unsigned long long start_registers[4];
static int exit_code;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "cellblade SPE program: %s: %s\n", what, detail);
    exit(CB_SPU_START_FAILED);
}

static void run_main(void)
{
    exit_code = __real_main(start_registers[0], start_registers[1], start_registers[2]);
}

static void read_start_registers(void)
{
    const char *text = getenv("CELLBLADE_SPE_ARGS");
    if (text == NULL)
        return; /* started by hand: speid, argp and envp are 0 */
    const char *next = text;
    char *end;
    /* The fourth, r4's second doubleword, may be left out (a program started by hand). */
    for (int i = 0; i < 4; i++) {
        errno = 0;
        start_registers[i] = strtoull(next, &end, 0);
        int last = *end == '\0' && i >= 2;
        if (errno != 0 || end == next || (*end != ',' && !last) || (i == 3 && !last))
            fail("CELLBLADE_SPE_ARGS is not three or four numbers speid,argp,envp[,r4-rest]",
                 text);
        if (last)
            break;
        next = end + 1;
    }
}

/* An SPE program run alone (elfspe, `cellblade run --spe`): r3 = argc and r4 = {local-store
 * address, effective address (two words), size} of its argument block, which the start code
 * copies by DMA to the top of local store, as the SPU's did, the stack going below it. Other
 * programs' r4 (argp, which libspe2 programs choose) is taken for such a block only in elfspe's
 * exact shape: 16 to 4096 bytes, a multiple of 16, ending at the top of local store, from a
 * 16-byte-aligned address, with room for argc + 1 pointers. The block's address, or 0. */
static uint32_t copy_argument_block(size_t used)
{
    uint32_t argc = (uint32_t)(start_registers[0] >> 32);
    uint32_t at = (uint32_t)(start_registers[1] >> 32);
    uint64_t ea = (start_registers[1] & 0xffffffffu) << 32 | start_registers[3] >> 32;
    uint32_t bytes = (uint32_t)start_registers[3];
    if (!cb_spu_connected() || bytes == 0 || bytes > 4096 || bytes % 16 != 0
        || at + (uint64_t)bytes != CB_LS_BYTES || ea % 16 != 0 || (argc + 1) * 4 > bytes)
        return 0;
    if (at < used + CB_SPU_MIN_STACK) {
        char sizes[128];
        snprintf(sizes, sizeof sizes, "%u bytes of arguments, %zu of data and %u of stack in %u",
                 bytes, used, CB_SPU_MIN_STACK, CB_LS_BYTES);
        fail("the program's arguments do not fit in local store beside it", sizes);
    }
    enum { TAG = 31, MFC_GET = 0x40, ALL = 2 };
    cb_spu_call(CB_SPU_MFC, MFC_GET, at, TAG, ea, bytes, NULL, 0);
    spu_writech(MFC_WrTagMask, 1u << TAG);
    spu_writech(MFC_WrTagUpdate, ALL);
    (void)spu_readch(MFC_RdTagStat);
    return at;
}

/* Map the launcher's local store (or an anonymous one) over addresses 0 .. CB_LS_BYTES. */
static void map_local_store(size_t used)
{
    const char *fd_text = getenv("CELLBLADE_LS_FD");
    if (fd_text == NULL) {
        size_t from = (used + CB_PAGE - 1) & ~(size_t)(CB_PAGE - 1);
        if (from < CB_LS_BYTES
            && mmap((void *)from, CB_LS_BYTES - from, PROT_READ | PROT_WRITE,
                    MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
            fail("mapping an anonymous local store", strerror(errno));
        return;
    }
    /* The loader's and the C library's bytes, read through a volatile pointer: address 0 is a
     * real local-store address here, which the compiler must not treat as a null pointer. */
    volatile unsigned char *ls = (volatile unsigned char *)(uintptr_t)0;
    unsigned char *saved = malloc(used);
    if (saved == NULL)
        fail("saving the loaded data", strerror(errno));
    for (size_t i = 0; i < used; i++)
        saved[i] = ls[i];
    /* Executable, as the SPU runs code from its local store (spu_code.c). */
    if (mmap((void *)(uintptr_t)0, CB_LS_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_FIXED | MAP_SHARED,
             atoi(fd_text), 0)
        == MAP_FAILED)
        fail("mapping the local store CELLBLADE_LS_FD", strerror(errno));
    for (size_t i = 0; i < used; i++)
        ls[i] = saved[i];
    free(saved);
}

int __wrap_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    size_t used = (size_t)(uintptr_t)_end;
    if (used + CB_SPU_MIN_STACK > CB_LS_BYTES) {
        char sizes[128];
        snprintf(sizes, sizeof sizes, "%zu bytes of data and %u of stack in %u bytes", used,
                 CB_SPU_MIN_STACK, CB_LS_BYTES);
        fail("the program does not fit in local store", sizes);
    }
    read_start_registers();
    map_local_store(used);
    if (cb_spu_connect())
        cb_spu_stdio_to_ppe();
    /* cellblade's own start-up after the hello, no SPE code: marked uncharged (spu_runtime.h),
     * so that a program's counted cycles are those they were before it came. */
    CB_UNCHARGED_BEGIN();
    if (cb_spu_connected())
        cb_spu_run_spu_code();
    size_t stack_from = (used + 15) & ~(size_t)15;
    uint32_t arguments = copy_argument_block(used);
    if (arguments != 0) {
        /* On the SPU argc is r3's first word and argv r4's; main(int argc, char **argv) on
         * the PowerPC reads both from speid's two words (r3 and r4 of its 32-bit ABI). */
        start_registers[0] = (start_registers[0] & 0xffffffff00000000ull) | arguments;
    }
    size_t stack_top = arguments != 0 ? arguments : CB_LS_BYTES;
    CB_UNCHARGED_END();
    if (getcontext(&on_ls_stack) != 0)
        fail("getcontext", strerror(errno));
    on_ls_stack.uc_stack.ss_sp = (void *)stack_from;
    on_ls_stack.uc_stack.ss_size = stack_top - stack_from;
    on_ls_stack.uc_link = &on_launcher_stack;
    makecontext(&on_ls_stack, run_main, 0);
    if (swapcontext(&on_launcher_stack, &on_ls_stack) != 0)
        fail("swapcontext", strerror(errno));
    return exit_code;
}

void __wrap_exit(int code)
{
    fflush(NULL);
    if (cb_spu_connected())
        cb_spu_call(CB_SPU_STOP, 0x2000u | ((unsigned)code & 0xff), 0, 0, 0, 0, NULL, 0);
    __real_exit(code);
}
