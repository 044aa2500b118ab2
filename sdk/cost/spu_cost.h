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
    uint32_t stall;   /* cycles after issue in which nothing issues on either pipeline */
    uint32_t latency; /* cycles from issue until the result can be used */
};

/* Registers an instruction reads and writes, numbered in one space: GPRs 0-31, FPRs 32-63,
 * vector registers 64-95, the condition register 96, CTR 97. */
#define SPU_REG_FPR 32
#define SPU_REG_VR 64
#define SPU_REG_CR 96
#define SPU_REG_CTR 97
#define SPU_NREGS 98

struct spu_insn {
    int cls;
    int nsrc, ndst;
    uint8_t src[4], dst[2];
    uint8_t dst_fx; /* bit k: dst[k] is an address update, ready at simple fixed-point latency */
};

/* The table: the machine file's [spu_cost], set class by class with spu_cost_set. */
extern struct spu_price spu_prices[SPU_NCLASSES];
extern const char *const spu_class_names[SPU_NCLASSES];

/* Set one class from "NAME=EVEN:ODD:STALL:LATENCY": its index, -1 if NAME is no class (or there
 * is no '='), -2 if the numbers are malformed. */
int spu_cost_set(const char *arg);
/* The class of one PowerPC instruction word (host byte order, already byte-swapped). */
int spu_cost_class(uint32_t word);
/* Its class and registers. */
void spu_cost_decode(uint32_t word, struct spu_insn *out);
/* The branch target of a direct branch at address pc, or -1 (not a direct branch). */
int64_t spu_branch_target(uint32_t word, uint64_t pc);
/* SPU cycles of a block of n instruction words (host byte order); loop != 0 prices it as the
 * body of a loop that branches back to its own start, in the steady state. */
uint64_t spu_cost_block(const uint32_t *words, unsigned n, int loop);

/* The intrinsic markers (README.md, "Intrinsics"): `cmpwi cr7,r2,K`. r2 is the thread pointer
 * of the 32-bit PowerPC ABI, which compiled code never compares, so no compiler emits these
 * words; spu_intrinsics.h wraps the software emulation of an intrinsic in a begin marker
 * (K = SPU_MARK_BEGIN | count << 4 | class: the intrinsic is `count` SPU instructions of
 * `class`) and an end marker (K = SPU_MARK_END), and the plugin charges what runs between them
 * as those instructions, not as the emulation. */
#define SPU_MARK_WORD 0x2F820000u /* cmpi cr7,0,r2,0 */
#define SPU_MARK_BEGIN 0x5000u
#define SPU_MARK_END 0x5FFFu
/* Register words (K = SPU_MARK_SOURCE + V before a begin marker, SPU_MARK_RESULT + V before an
 * end marker): vector register V is a source of the region / holds its result, so that the
 * region takes part in the schedule as the SPU instruction it is (its sources' latencies, its
 * result's). */
#define SPU_MARK_SOURCE 0x5100u
#define SPU_MARK_RESULT 0x5200u
/* 0: not a marker; 1: a begin marker (class and count set); 2: an end marker; 3: a source
 * register word, 4: a result register word (*count set to the register, numbered as
 * struct spu_insn's). */
int spu_marker(uint32_t word, int *cls, unsigned *count);
/* Whether the word is a vector register move (vor vD,vA,vA), and its registers. */
int spu_vector_move(uint32_t word, int *dst, int *src);
/* Issue one instruction in a running schedule (the block scheduler's rule, exposed for the
 * plugin's schedule of marked code): returns its issue cycle. */
struct spu_sched {
    uint64_t pipe_free[2], last;
    uint64_t ready[SPU_NREGS];
};
uint64_t spu_issue(struct spu_sched *s, const struct spu_insn *in);

#endif
