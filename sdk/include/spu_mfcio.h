/* The MFC and channel interface of an SPE program, as the Cell SDK's spu_mfcio.h gives it: DMA
 * commands, tag groups, mailboxes, signals and the decrementer, each a macro over the channel
 * intrinsics of spu_channels.h. */
#ifndef CB_SPU_MFCIO_H
#define CB_SPU_MFCIO_H

#include <stdint.h>

#include "spu_intrinsics.h"

/* MFC command opcodes. */
#define MFC_PUT_CMD 0x20
#define MFC_PUTB_CMD 0x21
#define MFC_PUTF_CMD 0x22
#define MFC_PUTL_CMD 0x24
#define MFC_PUTLB_CMD 0x25
#define MFC_PUTLF_CMD 0x26
#define MFC_GET_CMD 0x40
#define MFC_GETB_CMD 0x41
#define MFC_GETF_CMD 0x42
#define MFC_GETL_CMD 0x44
#define MFC_GETLB_CMD 0x45
#define MFC_GETLF_CMD 0x46
#define MFC_SNDSIG_CMD 0xA0
#define MFC_SNDSIGB_CMD 0xA1
#define MFC_SNDSIGF_CMD 0xA2
#define MFC_PUTLLUC_CMD 0xB0
#define MFC_PUTLLC_CMD 0xB4
#define MFC_PUTQLLUC_CMD 0xB8
#define MFC_BARRIER_CMD 0xC0
#define MFC_EIEIO_CMD 0xC8
#define MFC_SYNC_CMD 0xCC
#define MFC_GETLLAR_CMD 0xD0

/* MFC_RdAtomicStat's bits: the last lock-line command's outcome. */
#define MFC_PUTLLC_STATUS 0x00000001
#define MFC_PUTLLUC_STATUS 0x00000002
#define MFC_GETLLAR_STATUS 0x00000004

/* MFC_WrTagUpdate's conditions. */
#define MFC_TAG_UPDATE_IMMEDIATE 0
#define MFC_TAG_UPDATE_ANY 1
#define MFC_TAG_UPDATE_ALL 2

/* The largest single transfer and the tag groups. */
#define MFC_MAX_DMA_SIZE 0x4000
#define MFC_TAG_INVALID 0xFFFFFFFFu

/* A command word: transfer class id, replacement class id, opcode. */
#define MFC_CMD_WORD(tid, rid, opcode) (((tid) << 24) | ((rid) << 16) | (opcode))

/* Effective addresses as the halves the channels take. */
#define mfc_ea2h(ea) ((unsigned int)((uint64_t)(ea) >> 32))
#define mfc_ea2l(ea) ((unsigned int)(uint64_t)(ea))
#define mfc_hl2ea(h, l) (((uint64_t)(h) << 32) | (uint32_t)(l))

#define cb_mfc_dma(ls, ea, size, tag, tid, rid, opcode)                                        \
    spu_mfcdma64((ls), mfc_ea2h(ea), mfc_ea2l(ea), (size), (tag),                              \
                 MFC_CMD_WORD((tid), (rid), (opcode)))
#define mfc_put(ls, ea, size, tag, tid, rid) cb_mfc_dma(ls, ea, size, tag, tid, rid, MFC_PUT_CMD)
#define mfc_putb(ls, ea, size, tag, tid, rid) cb_mfc_dma(ls, ea, size, tag, tid, rid, MFC_PUTB_CMD)
#define mfc_putf(ls, ea, size, tag, tid, rid) cb_mfc_dma(ls, ea, size, tag, tid, rid, MFC_PUTF_CMD)
#define mfc_get(ls, ea, size, tag, tid, rid) cb_mfc_dma(ls, ea, size, tag, tid, rid, MFC_GET_CMD)
#define mfc_getb(ls, ea, size, tag, tid, rid) cb_mfc_dma(ls, ea, size, tag, tid, rid, MFC_GETB_CMD)
#define mfc_getf(ls, ea, size, tag, tid, rid) cb_mfc_dma(ls, ea, size, tag, tid, rid, MFC_GETF_CMD)

/* DMA lists: the list (mfc_list_element_t, in local store) gives each element's size and low
 * address word; `ea`'s high word is every element's. */
typedef struct mfc_list_element {
    uint64_t notify : 1;
    uint64_t reserved : 16;
    uint64_t size : 15;
    uint64_t eal : 32;
} mfc_list_element_t;
#define cb_mfc_list(ls, ea, list, size, tag, tid, rid, opcode)                                 \
    spu_mfcdma64((ls), mfc_ea2h(ea), (unsigned int)(uintptr_t)(list), (size), (tag),           \
                 MFC_CMD_WORD((tid), (rid), (opcode)))
#define mfc_getl(ls, ea, list, size, tag, tid, rid)                                            \
    cb_mfc_list(ls, ea, list, size, tag, tid, rid, MFC_GETL_CMD)
#define mfc_putl(ls, ea, list, size, tag, tid, rid)                                            \
    cb_mfc_list(ls, ea, list, size, tag, tid, rid, MFC_PUTL_CMD)

/* Lock-line atomics: a 128-byte line, no tag. */
#define mfc_getllar(ls, ea, tid, rid) cb_mfc_dma(ls, ea, 128, 0, tid, rid, MFC_GETLLAR_CMD)
#define mfc_putllc(ls, ea, tid, rid) cb_mfc_dma(ls, ea, 128, 0, tid, rid, MFC_PUTLLC_CMD)
#define mfc_putlluc(ls, ea, tid, rid) cb_mfc_dma(ls, ea, 128, 0, tid, rid, MFC_PUTLLUC_CMD)
#define mfc_read_atomic_status() spu_readch(MFC_RdAtomicStat)

/* Tag groups. */
#define mfc_write_tag_mask(mask) spu_writech(MFC_WrTagMask, (mask))
#define mfc_read_tag_mask() spu_readch(MFC_RdTagMask)
#define mfc_write_tag_update(ts) spu_writech(MFC_WrTagUpdate, (ts))
#define mfc_write_tag_update_immediate() mfc_write_tag_update(MFC_TAG_UPDATE_IMMEDIATE)
#define mfc_write_tag_update_any() mfc_write_tag_update(MFC_TAG_UPDATE_ANY)
#define mfc_write_tag_update_all() mfc_write_tag_update(MFC_TAG_UPDATE_ALL)
#define mfc_stat_tag_update() spu_readchcnt(MFC_WrTagUpdate)
#define mfc_read_tag_status() spu_readch(MFC_RdTagStat)
#define mfc_read_tag_status_immediate() spu_mfcstat(MFC_TAG_UPDATE_IMMEDIATE)
#define mfc_read_tag_status_any() spu_mfcstat(MFC_TAG_UPDATE_ANY)
#define mfc_read_tag_status_all() spu_mfcstat(MFC_TAG_UPDATE_ALL)
#define mfc_stat_tag_status() spu_readchcnt(MFC_RdTagStat)

/* Mailboxes. */
#define spu_read_in_mbox() spu_readch(SPU_RdInMbox)
#define spu_stat_in_mbox() spu_readchcnt(SPU_RdInMbox)
#define spu_write_out_mbox(data) spu_writech(SPU_WrOutMbox, (data))
#define spu_stat_out_mbox() spu_readchcnt(SPU_WrOutMbox)
#define spu_write_out_intr_mbox(data) spu_writech(SPU_WrOutIntrMbox, (data))
#define spu_stat_out_intr_mbox() spu_readchcnt(SPU_WrOutIntrMbox)

/* Signal notification. */
#define spu_read_signal1() spu_readch(SPU_RdSigNotify1)
#define spu_stat_signal1() spu_readchcnt(SPU_RdSigNotify1)
#define spu_read_signal2() spu_readch(SPU_RdSigNotify2)
#define spu_stat_signal2() spu_readchcnt(SPU_RdSigNotify2)

/* The decrementer. */
#define spu_read_decrementer() spu_readch(SPU_RdDec)
#define spu_write_decrementer(count) spu_writech(SPU_WrDec, (count))

#endif
