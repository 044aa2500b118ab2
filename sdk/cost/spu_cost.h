/* The PowerPC-to-SPU cost decoder of the cost plugin (see spu_cost.c and README.md). */
#ifndef CELLBLADE_SPU_COST_H
#define CELLBLADE_SPU_COST_H

#include <stdint.h>

/* Cost classes: what the SPU would issue for one PowerPC instruction. */
enum spu_class {
    SPU_NOP,          /* no SPU work: sync, cache hints, isync */
    SPU_FX,           /* simple fixed point: add, logical, compare, move */
    SPU_WS,           /* word shift and rotate */
    SPU_SH,           /* shuffle, quadword shift/rotate, splat, merge, pack */
    SPU_SP,           /* single-precision floating point, 4-wide */
    SPU_FI,           /* floating-point integer: conversions, 16-bit multiplies */
    SPU_DP,           /* double-precision floating point */
    SPU_IMUL,         /* 32-bit multiply: three 16-bit multiplies and two adds */
    SPU_IDIV,         /* integer divide: no SPU instruction, a software routine */
    SPU_FDIV,         /* floating divide or square root: estimate and Newton steps */
    SPU_LQ,           /* quadword load (lvx) */
    SPU_SQ,           /* quadword store (stvx) */
    SPU_LOAD_SCALAR,  /* byte/half/word/float/double load: load quadword + rotate */
    SPU_STORE_SCALAR, /* scalar store: load quadword + shuffle + store quadword */
    SPU_BRANCH,       /* direct branch, conditional or not: hinted or fall-through, no penalty */
    SPU_BRANCH_INDIRECT, /* branch through lr/ctr: unhinted, the taken-branch penalty */
    SPU_NCLASSES
};

struct spu_price {
    uint32_t even;  /* issue cycles on the even pipeline */
    uint32_t odd;   /* issue cycles on the odd pipeline */
    uint32_t stall; /* cycles in which nothing issues on either pipeline */
};

extern const struct spu_price spu_prices[SPU_NCLASSES];
extern const char *const spu_class_names[SPU_NCLASSES];

/* The class of one PowerPC instruction word (host byte order, already byte-swapped). */
int spu_cost_class(uint32_t word);
/* SPU cycles of a block of n words in guest (big-endian) byte order. */
uint64_t spu_cost_block(const uint8_t *code, unsigned n);

#endif
