/* The SPU's channels and the intrinsics that reach them (spu_readch, spu_writech,
 * spu_readchcnt, spu_mfcdma32/64, spu_mfcstat, spu_stop), as the SPU C/C++ Language Extensions
 * name them. On the simulated blade each is a call to the simulator (sdk/spu/channels.c), which
 * does what the SPU's channel does, at its simulated time: they are functions here, not the
 * single instructions they are on an SPU, so a channel need not be a constant. */
#ifndef CB_SPU_CHANNELS_H
#define CB_SPU_CHANNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Channel numbers. */
#define SPU_RdEventStat 0
#define SPU_WrEventMask 1
#define SPU_WrEventAck 2
#define SPU_RdSigNotify1 3
#define SPU_RdSigNotify2 4
#define SPU_WrDec 7
#define SPU_RdDec 8
#define MFC_WrMSSyncReq 9
#define SPU_RdEventMask 11
#define MFC_RdTagMask 12
#define SPU_RdMachStat 13
#define SPU_WrSRR0 14
#define SPU_RdSRR0 15
#define MFC_LSA 16
#define MFC_EAH 17
#define MFC_EAL 18
#define MFC_Size 19
#define MFC_TagID 20
#define MFC_Cmd 21
#define MFC_WrTagMask 22
#define MFC_WrTagUpdate 23
#define MFC_RdTagStat 24
#define MFC_RdListStallStat 25
#define MFC_WrListStallAck 26
#define MFC_RdAtomicStat 27
#define SPU_WrOutMbox 28
#define SPU_RdInMbox 29
#define SPU_WrOutIntrMbox 30

unsigned int spu_readch(int channel);
void spu_writech(int channel, unsigned int value);
unsigned int spu_readchcnt(int channel);
/* An MFC command (MFC_Cmd's word: transfer class and replacement class ids, then the opcode)
 * of `size` bytes between local-store address `ls` and effective address eahi:ealo. */
void spu_mfcdma32(volatile void *ls, unsigned int ea, unsigned int size, unsigned int tag,
                  unsigned int cmd);
void spu_mfcdma64(volatile void *ls, unsigned int eahi, unsigned int ealo, unsigned int size,
                  unsigned int tag, unsigned int cmd);
/* Write MFC_WrTagUpdate with `type`, then read MFC_RdTagStat. */
unsigned int spu_mfcstat(unsigned int type);
/* Stop and signal with `code`: 0x2000 | n is exit(n). */
void spu_stop(unsigned int code);
/* Halt: the SPU stops, its context's run ends in SPE_RUNTIME_ERROR (SPE_SPU_HALT). */
void cb_spu_halt(void) __attribute__((noreturn));
/* The conditional halts (heq, hgt, hlgt): compared as the operands' C type compares them, so
 * signed for int and unsigned for unsigned int, as the intrinsics' two forms do. */
#define spu_hcmpeq(a, b) ((a) == (b) ? cb_spu_halt() : (void)0)
#define spu_hcmpgt(a, b) ((a) > (b) ? cb_spu_halt() : (void)0)

#ifdef __cplusplus
}
#endif
#endif
