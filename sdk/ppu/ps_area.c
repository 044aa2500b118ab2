/* The problem-state areas (spe_ps_area_get) and the multisource synchronisation (spe_mssync_*).
 *
 * A libspe2 program reads and writes an SPE's registers through pointers to the structures of
 * libspe2.h (`volatile spe_spu_control_area_t *`), with plain loads and stores, so the accesses
 * cannot be calls into the library. Each area is therefore a page of the PPE process that no
 * access may touch (PROT_NONE): a load or store there faults, and the fault handler here makes it
 * the register's access on the simulated blade, a request to the simulator at the thread's
 * simulated time, which answers when the PPE would have the loaded value (a mailbox-status load
 * is the bus round trip the machine models; a store is posted). The handler then writes the
 * loaded value into the instruction's target register and resumes after the instruction. What
 * it decodes: the 32-bit loads and stores (lwz, lwzu, lwzx, lwzux, stw, stwu, stwx, stwux), the
 * registers being 32-bit words; anything else there (a byte or doubleword access, a memcpy) is
 * refused with a message, the program ending by its SIGSEGV as an access to nothing would. A
 * fault anywhere else is the program's own and ends it as before. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../common/sdk_wire.h"
#include "libspe2.h"
#include "ppu_runtime.h"

enum { AREA_BYTES = 4096, WINDOWS = 1024 };

/* An area handed out: its page, its context and which area it is. The handler reads the table
 * without a lock: an entry is written whole before `used` counts it, and one released keeps
 * base 0. */
struct window {
    volatile uintptr_t base;
    uint32_t context;
    int area;
};
static struct window windows[WINDOWS];
static volatile int used;
static pthread_mutex_t windows_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction before; /* the handler the program had, for faults not ours */
static int installed;

/* The saved registers of a signal (asm/ptrace.h's layout: r0-r31, then the next PC). */
static unsigned long *saved_registers(void *context)
{
#ifdef __powerpc64__
    return (unsigned long *)((ucontext_t *)context)->uc_mcontext.gp_regs;
#else
    return (unsigned long *)((ucontext_t *)context)->uc_mcontext.uc_regs->gregs;
#endif
}
enum { SAVED_NIP = 32 };

static void say(const char *text)
{
    ssize_t ignored = write(2, text, strlen(text));
    (void)ignored;
}

/* The fault is not one this handler serves: the program's own handler, or the default. */
static void not_ours(int signal_number, siginfo_t *info, void *context)
{
    if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction != NULL) {
        before.sa_sigaction(signal_number, info, context);
        return;
    }
    if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN && before.sa_handler != NULL) {
        before.sa_handler(signal_number);
        return;
    }
    signal(signal_number, SIG_DFL); /* the access faults again, and the program ends by it */
}

/* One register access: the loaded value into *value, or the store of *value; 0, or -1 when
 * the simulator refused it (a register it does not have). */
static int access_register(uint32_t context, uint32_t area, uint32_t offset, int store,
                           uint32_t *value)
{
    int simulator = cb_ppu_connection();
    if (simulator < 0)
        return -1;
    struct cb_request req = {CB_PS_ACCESS, context, area, offset, *value, (uint64_t)store};
    struct cb_answer ans;
    if (cb_sdk_call(simulator, &req, NULL, 0, &ans, NULL, 0) != 0 || ans.status < 0)
        return -1;
    if (!store)
        *value = (uint32_t)ans.value;
    return 0;
}

static void on_fault(int signal_number, siginfo_t *info, void *context)
{
    uintptr_t at = (uintptr_t)info->si_addr;
    const struct window *w = NULL;
    for (int i = 0; i < used; i++)
        if (windows[i].base != 0 && at - windows[i].base < AREA_BYTES)
            w = &windows[i];
    if (w == NULL) {
        not_ours(signal_number, info, context);
        return;
    }
    unsigned long *regs = saved_registers(context);
    uint32_t insn = *(const uint32_t *)regs[SAVED_NIP];
    unsigned op = insn >> 26, rt = (insn >> 21) & 31, ra = (insn >> 16) & 31;
    unsigned xo = (insn >> 1) & 0x3ff;
    int load = op == 32 || op == 33 || (op == 31 && (xo == 23 || xo == 55));
    int store = op == 36 || op == 37 || (op == 31 && (xo == 151 || xo == 183));
    int update = op == 33 || op == 37 || (op == 31 && (xo == 55 || xo == 183));
    uint32_t offset = (uint32_t)(at - w->base);
    if ((!load && !store) || offset % 4 != 0) {
        say("cellblade libspe2: an access to a problem-state area that is not a 32-bit load or "
            "store of a register: the program ends\n");
        signal(signal_number, SIG_DFL);
        return;
    }
    uint32_t value = load ? 0 : (uint32_t)regs[rt];
    if (access_register(w->context, (uint32_t)w->area, offset, store, &value) != 0) {
        say("cellblade libspe2: a problem-state register the simulated blade does not have (the "
            "run's notes name it): the program ends\n");
        signal(signal_number, SIG_DFL);
        return;
    }
    if (load)
        regs[rt] = value;
    if (update)
        regs[ra] = at;
    regs[SAVED_NIP] += 4;
}

static int install(void)
{
    if (installed)
        return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSEGV, &action, &before) != 0)
        return -1;
    installed = 1;
    return 0;
}

void *spe_ps_area_get(spe_context_ptr_t spe, enum ps_area area)
{
    if (spe == NULL) {
        errno = ESRCH;
        return NULL;
    }
    if (!(spe->flags & SPE_MAP_PS)) {
        errno = EACCES; /* libspe2 maps the areas only for contexts created with SPE_MAP_PS */
        return NULL;
    }
    if ((unsigned)area > SPE_SIG_NOTIFY_2_AREA) {
        errno = EINVAL;
        return NULL;
    }
    if (spe->ps[area] != NULL)
        return spe->ps[area];
    pthread_mutex_lock(&windows_lock);
    void *page = NULL;
    if (install() == 0 && used < WINDOWS) {
        page = mmap(NULL, AREA_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) {
            page = NULL;
        } else {
            windows[used].context = spe->number;
            windows[used].area = (int)area;
            windows[used].base = (uintptr_t)page;
            __sync_synchronize();
            used++;
        }
    } else if (used >= WINDOWS) {
        errno = ENOMEM;
    }
    pthread_mutex_unlock(&windows_lock);
    spe->ps[area] = page;
    return page;
}

void cb_ppu_ps_release(spe_context_ptr_t spe)
{
    pthread_mutex_lock(&windows_lock);
    for (int a = 0; a <= SPE_SIG_NOTIFY_2_AREA; a++) {
        if (spe->ps[a] == NULL)
            continue;
        for (int i = 0; i < used; i++)
            if (windows[i].base == (uintptr_t)spe->ps[a])
                windows[i].base = 0;
        munmap(spe->ps[a], AREA_BYTES);
        spe->ps[a] = NULL;
    }
    pthread_mutex_unlock(&windows_lock);
}

/* spe_mssync_*: with SPE_MAP_PS, a store and a load of MFC_MSSync in the mapped area, as
 * libspe2 makes them; otherwise a write and a read of spufs's mss file, one kernel call each. */
static int mssync(spe_context_ptr_t spe, int store)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    if (spe->flags & SPE_MAP_PS) {
        volatile spe_mssync_area_t *area = spe_ps_area_get(spe, SPE_MSSYNC_AREA);
        if (area == NULL)
            return -1;
        if (store) {
            area->MFC_MSSync = 1; /* any value starts it */
            return 0;
        }
        return (int)area->MFC_MSSync;
    }
    uint32_t value = 1;
    if (access_register(spe->number, SPE_MSSYNC_AREA | CB_PS_THROUGH_SPUFS, 0, store, &value) != 0) {
        errno = EIO;
        return -1;
    }
    return store ? 0 : (int)value;
}

int spe_mssync_start(spe_context_ptr_t spe)
{
    return mssync(spe, 1);
}

int spe_mssync_status(spe_context_ptr_t spe)
{
    return mssync(spe, 0);
}
