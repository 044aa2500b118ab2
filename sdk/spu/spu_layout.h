/* Where an SPE program's local store is, shared by its start (start.c) and by spu-gcc's link
 * (python/cellblade/sdk/toolchain.py mirrors these numbers). */
#ifndef CB_SPU_LAYOUT_H
#define CB_SPU_LAYOUT_H

/* An SPE's local store: 256 KB at addresses 0 .. CB_LS_BYTES, as on the SPU. */
#define CB_LS_BYTES 0x40000u
/* Where the program's data starts: the ELF header and program headers sit below it in the
 * first page of the data segment (the C library finds them there), as the SPU's text and
 * start-up code take the bottom of its local store. */
#define CB_LS_DATA_AT 0x1000u
/* The host's page, the granularity of the local store's mapping. */
#define CB_PAGE 0x10000u
/* The least stack a program is given below the top of local store: the C library's printf,
 * which an SPE program's stdio runs on this stack, needs several kilobytes. */
#define CB_SPU_MIN_STACK 0x4000u
/* The exit status of a program that could not start (it says why on standard error). */
#define CB_SPU_START_FAILED 126
#endif
