/* SPU instructions that a program writes into its local store and calls, as libspe2's own tests
 * do (`stop; nop; nop; bi $0` built in a vector on the stack). The PowerPC that runs the SPE
 * program cannot run them and traps (SIGILL); this handler runs them as the SPU does, those of
 * them that need none of the SPU's registers:
 *
 * - stop (opcode 0, the signal code in the low 14 bits): the SPU stops with its code, as
 *   spu_stop, the next PC (the address after the stop) going with it, so that a PPE-assisted
 *   call's handler reads the word there and the SPE goes on after it; an exit code (0x20xx)
 *   stops the SPU without ending the program, as on the SPU, where a run may continue past it;
 * - nop and lnop;
 * - bi $0, the return: $0 is the SPU's link register, the PowerPC's LR here.
 *
 * Any other word is the invalid instruction it is on the SPU too, as far as cellblade can tell:
 * the trap ends the program, the context's SPE_SPU_INVALID_INSTR. Only words in local store
 * (addresses 0 to 256 KB) are SPU code; a trap elsewhere is the PowerPC's own. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "spu_layout.h"
#include "spu_runtime.h"

/* The PowerPC's next instruction and link register in a signal's saved registers
 * (asm/ptrace.h's PT_NIP and PT_LNK). */
enum { SAVED_NIP = 32, SAVED_LR = 36 };

/* The SPU's instruction forms run here (the SPU ISA's 11-bit opcodes, the word's top bits). */
#define SPU_OP11(word) ((word) >> 21)
enum { SPU_STOP = 0x000, SPU_LNOP = 0x001, SPU_NOP = 0x201 };
#define SPU_BI_LR 0x35000000u /* bi $0, no interrupt-enable bits */

static void on_sigill(int signal_number, siginfo_t *info, void *saved)
{
    (void)info;
    unsigned long *regs = ((ucontext_t *)saved)->uc_mcontext.uc_regs->gregs;
    uint32_t pc = (uint32_t)regs[SAVED_NIP];
    int ran = 0;
    while (pc < CB_LS_BYTES) {
        uint32_t word = *(volatile uint32_t *)(uintptr_t)pc;
        if (SPU_OP11(word) == SPU_STOP) {
            pc += 4 + cb_spu_stop_at(word & 0x3fff, pc + 4);
        } else if (SPU_OP11(word) == SPU_NOP || SPU_OP11(word) == SPU_LNOP) {
            pc += 4;
        } else if (word == SPU_BI_LR) {
            regs[SAVED_NIP] = regs[SAVED_LR];
            return;
        } else {
            break;
        }
        ran = 1;
    }
    if (!ran) {
        /* Not SPU code cellblade runs: the trap is the program's end, as it was. */
        signal(signal_number, SIG_DFL);
        return;
    }
    regs[SAVED_NIP] = pc; /* the PowerPC goes on where the SPU code ends */
}

void cb_spu_run_spu_code(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigill;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGILL, &action, NULL);
}
