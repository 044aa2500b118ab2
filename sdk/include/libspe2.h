/* The PPE's interface to the SPEs, as the Cell SDK's libspe2 (2.x) gives it: SPE contexts, their
 * programs and runs, and the mailboxes. On the simulated blade every call is a request to the
 * simulator (sdk/ppu/libspe2.c), which performs it at the PPE thread's simulated time. */
#ifndef CB_LIBSPE2_H
#define CB_LIBSPE2_H

/* As libspe2.h did, so that programs that include it alone have NULL, FILE and errno. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spe_program_handle {
    unsigned int handle_size;
    void *elf_image;
    void *toe_shadow;
} spe_program_handle_t;

typedef struct spe_context *spe_context_ptr_t;
typedef struct spe_gang_context *spe_gang_context_ptr_t;

typedef struct spe_stop_info {
    unsigned int stop_reason;
    union {
        int spe_exit_code;
        int spe_signal_code;
        int spe_runtime_error;
        int spe_runtime_exception;
        int spe_runtime_fatal;
        int spe_callback_error;
        int spe_isolation_error;
        void *__reserved_ptr;
        unsigned long long __reserved_u64;
    } result;
    int spu_status;
} spe_stop_info_t;

/* spe_context_create's flags. */
#define SPE_CFG_SIGNOTIFY1_OR 0x00000010
#define SPE_CFG_SIGNOTIFY2_OR 0x00000020
#define SPE_MAP_PS 0x00000040
#define SPE_ISOLATE 0x00000080
#define SPE_ISOLATE_EMULATE 0x00000100
#define SPE_EVENTS_ENABLE 0x00001000
#define SPE_AFFINITY_MEMORY 0x00002000
#define SPE_NOSCHED 0x00004000

/* Stop reasons. */
#define SPE_EXIT 1
#define SPE_STOP_AND_SIGNAL 2
#define SPE_RUNTIME_ERROR 3
#define SPE_RUNTIME_EXCEPTION 4
#define SPE_RUNTIME_FATAL 5
#define SPE_CALLBACK_ERROR 6
#define SPE_ISOLATION_ERROR 7

/* The runtime exceptions of SPE_RUNTIME_EXCEPTION (spe_runtime_exception). */
#define SPE_DMA_ALIGNMENT 0x0008
#define SPE_DMA_SEGMENTATION 0x0020
#define SPE_DMA_STORAGE 0x0040
#define SPE_INVALID_DMA 0x0800

/* Mailbox behaviours. */
#define SPE_MBOX_ALL_BLOCKING 1
#define SPE_MBOX_ANY_BLOCKING 2
#define SPE_MBOX_ANY_NONBLOCKING 3

/* spe_signal_write's registers. */
#define SPE_SIG_NOTIFY_REG_1 0x0001
#define SPE_SIG_NOTIFY_REG_2 0x0002

/* spe_context_run's entry and flags. */
#define SPE_DEFAULT_ENTRY UINT_MAX
#define SPE_RUN_USER_REGS 0x00000001
#define SPE_NO_CALLBACKS 0x00000002

spe_context_ptr_t spe_context_create(unsigned int flags, spe_gang_context_ptr_t gang);
int spe_context_destroy(spe_context_ptr_t spe);
spe_program_handle_t *spe_image_open(const char *filename);
int spe_image_close(spe_program_handle_t *program);
int spe_program_load(spe_context_ptr_t spe, spe_program_handle_t *program);
int spe_context_run(spe_context_ptr_t spe, unsigned int *entry, unsigned int runflags, void *argp,
                    void *envp, spe_stop_info_t *stopinfo);
int spe_in_mbox_write(spe_context_ptr_t spe, unsigned int *mbox_data, int count,
                      unsigned int behavior);
int spe_in_mbox_status(spe_context_ptr_t spe);
int spe_out_mbox_read(spe_context_ptr_t spe, unsigned int *mbox_data, int count);
int spe_out_mbox_status(spe_context_ptr_t spe);
int spe_signal_write(spe_context_ptr_t spe, unsigned int signal_reg, unsigned int data);
/* The PPE address of the context's local store, mapped into the program, and its size. */
void *spe_ls_area_get(spe_context_ptr_t spe);
int spe_ls_size_get(spe_context_ptr_t spe);

#ifdef __cplusplus
}
#endif
#endif
