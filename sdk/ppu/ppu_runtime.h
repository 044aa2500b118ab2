/* What the PPE library's files share: each thread's connection to the simulator. */
#ifndef CB_PPU_RUNTIME_H
#define CB_PPU_RUNTIME_H

/* The calling thread's socket to the simulator, connected on first use (the main thread's is
 * CELLBLADE_SDK_FD; a thread the program creates gets its own, threads.c); -1 with errno set
 * and a message when the program does not run under `cellblade run`. */
int cb_ppu_connection(void);
#endif
