/* The PPE's interface to the SPEs, as the Cell SDK's libspe2 (2.x) gives it: SPE contexts and
 * gangs, their programs and runs, the mailboxes, signals and CPU information. On the simulated
 * blade every call is a request to the simulator (sdk/ppu/libspe2.c), which performs it at the
 * PPE thread's simulated time. The types and numbers are libspe2's (libspe2-types.h), since
 * programs store and compare them; a call libspe2 has and cellblade does not yet is declared
 * unavailable (the end of this file), so that a program using it fails to compile naming it. */
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

/* Events (spe_event_*): what a handler waits for and what it returns. */
typedef union spe_event_data {
    void *ptr;
    unsigned int u32;
    unsigned long long u64;
} spe_event_data_t;
typedef struct spe_event_unit {
    unsigned int events;
    spe_context_ptr_t spe;
    spe_event_data_t data;
} spe_event_unit_t;
typedef void *spe_event_handler_ptr_t;
typedef int spe_event_handler_t;

/* The problem-state areas of spe_ps_area_get, and their registers as a program reads and
 * writes them (libspe2's cbea_map.h: the offsets are the hardware's). A 32-bit load or store of
 * one is that register's access on the simulated blade (sdk/ppu/ps_area.c says how). */
enum ps_area {
    SPE_MSSYNC_AREA,
    SPE_MFC_COMMAND_AREA,
    SPE_CONTROL_AREA,
    SPE_SIG_NOTIFY_1_AREA,
    SPE_SIG_NOTIFY_2_AREA
};

typedef struct spe_mssync_area {
    unsigned int MFC_MSSync;
} spe_mssync_area_t;

typedef struct spe_mfc_command_area {
    unsigned char reserved_0_3[4];
    unsigned int MFC_LSA;
    unsigned int MFC_EAH;
    unsigned int MFC_EAL;
    unsigned int MFC_Size_Tag;
    union {
        unsigned int MFC_ClassID_CMD;
        unsigned int MFC_CMDStatus;
    };
    unsigned char reserved_18_103[236];
    unsigned int MFC_QStatus;
    unsigned char reserved_108_203[252];
    unsigned int Prxy_QueryType;
    unsigned char reserved_208_21B[20];
    unsigned int Prxy_QueryMask;
    unsigned char reserved_220_22B[12];
    unsigned int Prxy_TagStatus;
} spe_mfc_command_area_t;

typedef struct spe_spu_control_area {
    unsigned char reserved_0_3[4];
    unsigned int SPU_Out_Mbox;
    unsigned char reserved_8_B[4];
    unsigned int SPU_In_Mbox;
    unsigned char reserved_10_13[4];
    unsigned int SPU_Mbox_Stat;
    unsigned char reserved_18_1B[4];
    unsigned int SPU_RunCntl;
    unsigned char reserved_20_23[4];
    unsigned int SPU_Status;
    unsigned char reserved_28_33[12];
    unsigned int SPU_NPC;
} spe_spu_control_area_t;

typedef struct spe_sig_notify_1_area {
    unsigned char reserved_0_B[12];
    unsigned int SPU_Sig_Notify_1;
} spe_sig_notify_1_area_t;

typedef struct spe_sig_notify_2_area {
    unsigned char reserved_0_B[12];
    unsigned int SPU_Sig_Notify_2;
} spe_sig_notify_2_area_t;

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

/* The runtime errors of SPE_RUNTIME_ERROR (spe_runtime_error). */
#define SPE_SPU_STOPPED_BY_STOP 0x02
#define SPE_SPU_HALT 0x04
#define SPE_SPU_WAITING_ON_CHANNEL 0x08
#define SPE_SPU_SINGLE_STEP 0x10
#define SPE_SPU_INVALID_INSTR 0x20
#define SPE_SPU_INVALID_CHANNEL 0x40

/* The runtime exceptions of SPE_RUNTIME_EXCEPTION (spe_runtime_exception). */
#define SPE_DMA_ALIGNMENT 0x0008
#define SPE_DMA_SEGMENTATION 0x0020
#define SPE_DMA_STORAGE 0x0040
#define SPE_INVALID_DMA 0x0800

/* Event types. */
#define SPE_EVENT_OUT_INTR_MBOX 0x00000001
#define SPE_EVENT_IN_MBOX 0x00000002
#define SPE_EVENT_TAG_GROUP 0x00000004
#define SPE_EVENT_SPE_STOPPED 0x00000008
#define SPE_EVENT_ALL_EVENTS                                                                       \
    (SPE_EVENT_OUT_INTR_MBOX | SPE_EVENT_IN_MBOX | SPE_EVENT_TAG_GROUP | SPE_EVENT_SPE_STOPPED)

/* Proxy DMA tag-status behaviours. */
#define SPE_TAG_ALL 1
#define SPE_TAG_ANY 2
#define SPE_TAG_IMMEDIATE 3

/* Callback registration modes. */
#define SPE_CALLBACK_NEW 1
#define SPE_CALLBACK_UPDATE 2

/* spe_cpu_info_get's questions and answers. */
#define SPE_COUNT_PHYSICAL_CPU_NODES 1
#define SPE_COUNT_PHYSICAL_SPES 2
#define SPE_COUNT_USABLE_SPES 3
#define SPE_CPU_TYPE 4
#define SPE_CPU_IS_CELLBE 1
#define SPE_CPU_IS_CELLEDP 2

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
/* A context placed on an SPE physically next to `affinity_neighbor`'s (or, with
 * SPE_AFFINITY_MEMORY, next to the memory interface), both in `gang`. */
spe_context_ptr_t spe_context_create_affinity(unsigned int flags,
                                              spe_context_ptr_t affinity_neighbor,
                                              spe_gang_context_ptr_t gang);
spe_gang_context_ptr_t spe_gang_context_create(unsigned int flags);
int spe_gang_context_destroy(spe_gang_context_ptr_t gang);
int spe_context_destroy(spe_context_ptr_t spe);
spe_program_handle_t *spe_image_open(const char *filename);
int spe_image_close(spe_program_handle_t *program);
int spe_program_load(spe_context_ptr_t spe, spe_program_handle_t *program);
int spe_context_run(spe_context_ptr_t spe, unsigned int *entry, unsigned int runflags, void *argp,
                    void *envp, spe_stop_info_t *stopinfo);
/* The stop information of the context's last stop. */
int spe_stop_info_read(spe_context_ptr_t spe, spe_stop_info_t *stopinfo);
int spe_in_mbox_write(spe_context_ptr_t spe, unsigned int *mbox_data, int count,
                      unsigned int behavior);
int spe_in_mbox_status(spe_context_ptr_t spe);
int spe_out_mbox_read(spe_context_ptr_t spe, unsigned int *mbox_data, int count);
int spe_out_mbox_status(spe_context_ptr_t spe);
int spe_out_intr_mbox_read(spe_context_ptr_t spe, unsigned int *mbox_data, int count,
                           unsigned int behavior);
int spe_out_intr_mbox_status(spe_context_ptr_t spe);
int spe_signal_write(spe_context_ptr_t spe, unsigned int signal_reg, unsigned int data);
/* The PPE address of the context's local store, mapped into the program, and its size. */
void *spe_ls_area_get(spe_context_ptr_t spe);
int spe_ls_size_get(spe_context_ptr_t spe);
int spe_cpu_info_get(int info_requested, int cpu_node);
/* Events of contexts created with SPE_EVENTS_ENABLE: a handler waits for those registered. */
spe_event_handler_ptr_t spe_event_handler_create(void);
int spe_event_handler_destroy(spe_event_handler_ptr_t evhandler);
int spe_event_handler_register(spe_event_handler_ptr_t evhandler, spe_event_unit_t *event);
int spe_event_handler_deregister(spe_event_handler_ptr_t evhandler, spe_event_unit_t *event);
int spe_event_wait(spe_event_handler_ptr_t evhandler, spe_event_unit_t *events, int max_events,
                   int timeout);
/* Proxy DMA: the PPE queues an MFC command of the SPE (get: into its local store at `ls`). */
int spe_mfcio_put(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,
                  unsigned int tag, unsigned int tid, unsigned int rid);
int spe_mfcio_putb(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,
                   unsigned int tag, unsigned int tid, unsigned int rid);
int spe_mfcio_putf(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,
                   unsigned int tag, unsigned int tid, unsigned int rid);
int spe_mfcio_get(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,
                  unsigned int tag, unsigned int tid, unsigned int rid);
int spe_mfcio_getb(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,
                   unsigned int tag, unsigned int tid, unsigned int rid);
int spe_mfcio_getf(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,
                   unsigned int tag, unsigned int tid, unsigned int rid);
int spe_mfcio_tag_status_read(spe_context_ptr_t spe, unsigned int mask, unsigned int behavior,
                              unsigned int *tag_status);
/* A problem-state area of a context created with SPE_MAP_PS (EACCES otherwise). */
void *spe_ps_area_get(spe_context_ptr_t spe, enum ps_area area);
/* MFC multisource synchronisation: start it; then the status is nonzero while the context's
 * MFC still has transfers to complete. */
int spe_mssync_start(spe_context_ptr_t spe);
int spe_mssync_status(spe_context_ptr_t spe);
/* PPE-assisted calls: `handler(ls_base, ls_address)` serves an SPE's stop 0x2100 + callnum
 * (callnum 4 to 255; 0 to 3 are the library's), ls_address being the SPU's next PC, the word
 * after the stop. Its return value 0 lets the SPE go on after that word; any other value ends
 * the run with SPE_CALLBACK_ERROR. */
int spe_callback_handler_register(void *handler, unsigned int callnum, unsigned int mode);
int spe_callback_handler_deregister(unsigned int callnum);
void *spe_callback_handler_query(unsigned int callnum);

/* What libspe2 has and cellblade does not yet: using one fails at compile time, naming it. */
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define CB_SPE_MISSING(name) __attribute__((unavailable(name " is not implemented by cellblade")))
#endif
#endif
#ifndef CB_SPE_MISSING
#define CB_SPE_MISSING(name) __attribute__((error(name " is not implemented by cellblade")))
#endif

#ifdef __cplusplus
}
#endif
#endif
