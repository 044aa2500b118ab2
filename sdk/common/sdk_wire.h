/* What an SDK program's processes say to the simulator (crates/cellblade/src/sdk/wire.rs, which
 * these numbers mirror): a request, then its answer, on the process's socket, big-endian. */
#ifndef CB_SDK_WIRE_H
#define CB_SDK_WIRE_H
#include <stddef.h>
#include <stdint.h>

enum {
    /* An SPE program's (sdk/spu/). */
    CB_SPU_HELLO = 1, CB_SPU_MFC, CB_SPU_WRITE_CHANNEL, CB_SPU_READ_CHANNEL, CB_SPU_CHANNEL_COUNT,
    CB_SPU_STOP, CB_SPU_PPE_CALL,
    /* A PPE program's (sdk/ppu/libspe2.c). */
    CB_PPE_HELLO = 32, CB_CONTEXT_CREATE, CB_PROGRAM_LOAD, CB_CONTEXT_RUN, CB_CONTEXT_RESUME,
    CB_CONTEXT_DESTROY, CB_IN_MBOX_WRITE, CB_OUT_MBOX_READ, CB_OUT_MBOX_STATUS, CB_IN_MBOX_STATUS,
    CB_THREAD_CREATE, CB_THREAD_EXIT, CB_THREAD_JOIN, CB_SIGNAL_WRITE, CB_LS_AREA, CB_LS_MAPPED,
    CB_OUT_INTR_MBOX_READ, CB_OUT_INTR_MBOX_STATUS, CB_CPU_INFO, CB_GANG_CREATE, CB_GANG_DESTROY, CB_MFCIO,
    CB_MFCIO_TAG_STATUS, CB_PPE_WAIT_HOST, CB_EVENT_WAIT, CB_STOP_INFO_READ, CB_PS_ACCESS
};
/* CB_PS_ACCESS's b: the problem-state area (libspe2's enum ps_area), with this bit when the
 * access is a library call through spufs (spe_mssync_*) rather than a load or store. */
#define CB_PS_THROUGH_SPUFS 0x100
/* CB_CONTEXT_RUN's answers. */
#define CB_RUN_STOPPED 0
#define CB_RUN_CALL 1
/* A PPE-assisted library call (a stop 0x2100 + n): a = n, value = the SPU's next PC. The PPE
 * thread answers with CB_CONTEXT_RESUME, b = the handler's return value (0: the SPE goes on). */
#define CB_RUN_LIBRARY_CALL 2
/* CB_SPU_STOP's code for a halt (wire.rs STOP_HALT): beyond a stop code's 14 bits. */
#define CB_STOP_HALT 0x10000
/* CB_SPU_STOP's c for a stop the SPE goes on from when run again (b = its next PC); an exit by
 * exit() or main's return ends the program, c = 0. */
#define CB_STOP_RESUMABLE 1
/* The PPE-assisted calls (CB_SPU_PPE_CALL's a). */
#define CB_CALL_WRITE 1

struct cb_request {
    uint32_t op, a, b, c;
    uint64_t d, e;
};

struct cb_answer {
    int32_t status;
    uint32_t a;
    uint64_t value;
    uint32_t len; /* payload bytes that came with it (at most the room given) */
};

/* One call on socket `fd`: the request and `len` payload bytes, then the answer and its payload
 * into `into` (at most `room` bytes). Returns 0, or -1 with errno set when the simulator has gone
 * (the caller's process then ends: nobody is left to serve it). */
int cb_sdk_call(int fd, const struct cb_request *req, const void *payload, uint32_t len,
                struct cb_answer *ans, void *into, uint32_t room);
/* The same, with descriptor `passed` sent beside the request (SCM_RIGHTS). */
int cb_sdk_call_passing(int fd, const struct cb_request *req, int passed, struct cb_answer *ans);
/* A call whose answer brings a descriptor (SCM_RIGHTS): *passed is it, or -1. */
int cb_sdk_call_receiving(int fd, const struct cb_request *req, struct cb_answer *ans,
                          int *passed);
/* Send a request that gets no answer read here (the caller reads it with cb_sdk_answer). */
int cb_sdk_send(int fd, const struct cb_request *req, const void *payload, uint32_t len);
int cb_sdk_answer(int fd, struct cb_answer *ans, void *into, uint32_t room);
#endif
