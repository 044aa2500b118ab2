/* What the PPE library's files share: each thread's connection to the simulator. */
#ifndef CB_PPU_RUNTIME_H
#define CB_PPU_RUNTIME_H

/* The calling thread's socket to the simulator, connected on first use (the main thread's is
 * CELLBLADE_SDK_FD; a thread the program creates gets its own, threads.c); -1 with errno set
 * and a message when the program does not run under `cellblade run`. */
int cb_ppu_connection(void);

#include <stddef.h>
#include <stdint.h>

#include "libspe2.h"

/* An SPE context as the PPE library keeps it. */
struct spe_context {
    spe_program_handle_t handle;
    uint32_t number; /* the simulator's */
    unsigned int flags; /* spe_context_create's */
    /* The context's local store mapped here (spe_ls_area_get), and its size. */
    void *ls;
    size_t ls_size;
    /* Its problem-state areas handed out by spe_ps_area_get (ps_area.c), by enum ps_area. */
    void *ps[SPE_SIG_NOTIFY_2_AREA + 1];
};
/* The context's problem-state areas go with it (spe_context_destroy). */
void cb_ppu_ps_release(spe_context_ptr_t spe);
/* Run the PPE-assisted call `callnum` (0 to 255) of an SPE stopped with 0x2100 + callnum: its
 * handler's return value (0: done, the SPE goes on), or -1 with errno ENOSYS when none is
 * registered (callbacks.c). */
int cb_ppu_library_call(spe_context_ptr_t spe, unsigned int callnum, unsigned int npc);
#endif
