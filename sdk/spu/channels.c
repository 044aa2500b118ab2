/* The SPU's channel intrinsics (spu_channels.h), each a request to the simulator, which performs
 * the channel's operation at the SPE's simulated time and answers when the channel would let the
 * SPU go on (a read of an empty mailbox answers once a word is there).
 *
 * The MFC command parameters (MFC_LSA ... MFC_TagID) are the SPU's own until MFC_Cmd is written,
 * as on the SPU, where the MFC takes the command whole from the queue: they are kept here and
 * go to the simulator with the command. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spu_channels.h"
#include "spu_layout.h"
#include "spu_runtime.h"

static int simulator = -1;
static uint32_t parameters[MFC_TagID - MFC_LSA + 1];

int cb_spu_connect(void)
{
    const char *fd = getenv("CELLBLADE_SDK_FD");
    if (fd == NULL)
        return 0;
    simulator = atoi(fd);
    cb_spu_call(CB_SPU_HELLO, 0, 0, 0, 0, 0, NULL, 0);
    return 1;
}

int cb_spu_connected(void)
{
    return simulator >= 0;
}

uint64_t cb_spu_call(uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint64_t d, uint64_t e,
                     const void *payload, uint32_t len)
{
    if (simulator < 0) {
        fprintf(stderr, "cellblade SPE program: a channel access (request %u) outside `cellblade "
                        "run`: an SPE program reaches its MFC and mailboxes only on the simulated "
                        "blade\n", op);
        exit(CB_SPU_START_FAILED);
    }
    struct cb_request req = {op, a, b, c, d, e};
    struct cb_answer ans;
    CB_UNCHARGED_BEGIN();
    if (cb_sdk_call(simulator, &req, payload, len, &ans, NULL, 0) != 0)
        _exit(CB_SPU_START_FAILED); /* the simulator has gone: nothing is left to serve */
    CB_UNCHARGED_END();
    return ans.value;
}

/* Each channel intrinsic is one SPU instruction: the library code of its emulation here is
 * marked uncharged (spu_runtime.h), what the channel costs is the simulator's to charge. */
static unsigned int readch(int channel)
{
    if (channel >= MFC_LSA && channel <= MFC_TagID)
        return parameters[channel - MFC_LSA];
    return (unsigned int)cb_spu_call(CB_SPU_READ_CHANNEL, (uint32_t)channel, 0, 0, 0, 0, NULL, 0);
}

unsigned int spu_readch(int channel)
{
    CB_UNCHARGED_BEGIN();
    unsigned int value = readch(channel);
    CB_UNCHARGED_END();
    return value;
}

void spu_mfcdma64(volatile void *ls, unsigned int eahi, unsigned int ealo, unsigned int size,
                  unsigned int tag, unsigned int cmd)
{
    CB_UNCHARGED_BEGIN();
    uint64_t ea = ((uint64_t)eahi << 32) | ealo;
    cb_spu_call(CB_SPU_MFC, cmd & 0xff, (uint32_t)(uintptr_t)ls, tag, ea, size, NULL, 0);
    CB_UNCHARGED_END();
}

void spu_mfcdma32(volatile void *ls, unsigned int ea, unsigned int size, unsigned int tag,
                  unsigned int cmd)
{
    spu_mfcdma64(ls, 0, ea, size, tag, cmd);
}

static void writech(int channel, unsigned int value)
{
    if (channel >= MFC_LSA && channel <= MFC_TagID) {
        parameters[channel - MFC_LSA] = value;
        return;
    }
    if (channel == MFC_Cmd) {
        uint32_t *p = parameters;
        spu_mfcdma64((volatile void *)(uintptr_t)p[MFC_LSA - MFC_LSA], p[MFC_EAH - MFC_LSA],
                     p[MFC_EAL - MFC_LSA], p[MFC_Size - MFC_LSA], p[MFC_TagID - MFC_LSA], value);
        return;
    }
    cb_spu_call(CB_SPU_WRITE_CHANNEL, (uint32_t)channel, 0, 0, value, 0, NULL, 0);
}

void spu_writech(int channel, unsigned int value)
{
    CB_UNCHARGED_BEGIN();
    writech(channel, value);
    CB_UNCHARGED_END();
}

unsigned int spu_readchcnt(int channel)
{
    CB_UNCHARGED_BEGIN();
    uint64_t count = cb_spu_call(CB_SPU_CHANNEL_COUNT, (uint32_t)channel, 0, 0, 0, 0, NULL, 0);
    CB_UNCHARGED_END();
    return (unsigned int)count;
}

unsigned int spu_mfcstat(unsigned int type)
{
    spu_writech(MFC_WrTagUpdate, type);
    return spu_readch(MFC_RdTagStat);
}

uint32_t cb_spu_stop_at(uint32_t code, uint32_t npc)
{
    return (uint32_t)cb_spu_call(CB_SPU_STOP, code, npc, CB_STOP_RESUMABLE, 0, 0, NULL, 0);
}

/* spu_stop from C: there is no instruction after it in local store, so a PPE-assisted call's
 * handler is given the next PC 0. */
void spu_stop(unsigned int code)
{
    if ((code & 0xff00) == 0x2000)
        exit((int)(code & 0xff));
    cb_spu_call(CB_SPU_STOP, code, 0, CB_STOP_RESUMABLE, 0, 0, NULL, 0);
}

void cb_spu_halt(void)
{
    cb_spu_call(CB_SPU_STOP, CB_STOP_HALT, 0, 0, 0, 0, NULL, 0);
    _exit(0); /* a halted SPU does not go on; the simulator has stopped its context */
}
