/* What the SPE start library's files share: the connection to the simulator. */
#ifndef CB_SPU_RUNTIME_H
#define CB_SPU_RUNTIME_H
#include <stdint.h>

#include "../common/sdk_wire.h"

/* Connect (CELLBLADE_SDK_FD) and say the program has started; 0 when started by hand, without
 * a simulator: then the program runs alone and a channel access ends it with a message. */
int cb_spu_connect(void);
/* Whether the program runs under the simulator. */
int cb_spu_connected(void);
/* One request; the answer's value. A simulator that has gone ends the program. */
uint64_t cb_spu_call(uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint64_t d, uint64_t e,
                     const void *payload, uint32_t len);
/* The cost plugin's markers (sdk/cost/README.md, "Intrinsics") around a request's own PowerPC
 * code: building the message and the socket's system calls are no SPU code (the SPU's channel
 * instruction is one, and the simulator charges the channel operation as the machine file
 * says), so they are marked as one instruction of class nop (class 0, count 1: no cycles). */
#define CB_UNCHARGED_BEGIN() __asm__ __volatile__("cmpwi 7,2,0x5010" ::: "cr7", "memory")
#define CB_UNCHARGED_END() __asm__ __volatile__("cmpwi 7,2,0x5FFF" ::: "cr7", "memory")
/* The SPU stops with stop-and-signal `code` (14 bits), its next PC `npc` a local-store address:
 * how many bytes the SPE skips after npc when it goes on (4 after a PPE-assisted library call
 * served, libspe2 resuming at npc + 4; else 0). An exit code (0x20xx) stops it too: a program
 * that exits ends through exit(), not here (channels.c). */
uint32_t cb_spu_stop_at(uint32_t code, uint32_t npc);
/* Run the SPU instructions a program calls in local store (spu_code.c). */
void cb_spu_run_spu_code(void);
/* stdout and stderr through the PPE (stdio.c). */
void cb_spu_stdio_to_ppe(void);
#endif
