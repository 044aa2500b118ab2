/*
 * The price, in SPU cycles, of PowerPC code compiled from an SPE program: each 32-bit PowerPC
 * instruction (primary opcode in bits 0-5, extended opcodes for 31, 59, 63 and AltiVec's 4) is
 * decoded into the class of SPU instructions that would do its work, and a block is priced as
 * the SPU would issue it.
 *
 * Prices: issue cycles per pipeline, cycles of the issue stall, latency, for each class: they
 * are the machine file's [spu_cost] table (the presets in machines/, each with its source), which the
 * simulator passes as the plugin's arguments (spu_cost_set); this file holds no number of its
 * own, so the machine file is the one source. The classes are those of spu_cost.h:
 * fx (simple fixed point), ws (word shift and rotate), sh (shuffle, quadword rotate), sp
 * (single precision), fi (floating-point integer), dp (double precision: its stall is the
 * cycles nothing issues after it), imul and idiv (a 32-bit multiply and divide, sequences of
 * SPU instructions), fdiv (estimate and Newton steps), lq and sq (quadword load and store),
 * load_scalar and store_scalar (load-rotate, read-modify-write), branch and branch_indirect.
 *
 * Block model: an in-order, dual-issue schedule of the block's instructions, priced once at
 * translation. An instruction issues when the one before it has issued (in the same cycle if
 * it goes to the other pipeline), its pipeline is free (issue cycles above; a DP op keeps both
 * pipelines idle for its 6 stall cycles) and its source registers are ready (latency above;
 * a load or store's address update is ready at FX latency). The block costs the cycles until
 * the next block can issue; results still in flight at its end are not waited for, except in a
 * block that branches back to its own start (a loop body): it is priced in the steady state, the
 * third of three passes with the registers carried round the loop, so a loop-carried chain
 * costs its latency. Branches: a direct branch (b, bl, bc) is assumed hinted by the SPU
 * compiler when taken (a loop's back edge) or falls through as predicted, so it costs its issue
 * slot only; a branch through lr or ctr (returns, calls through pointers, switch tables) pays
 * the 18-cycle unhinted taken-branch penalty.
 *
 * Over- and under-counting (the mapping is approximate: PowerPC code is not SPU code):
 *  - dependencies between blocks, other than round a one-block loop, are ignored (under);
 *  - fetch groups and the SPU's even-then-odd pairing rule are not modelled: any even and odd
 *    instruction in order may pair (under); memory dependencies through local store neither;
 *  - the mispredicted exit of every loop and every taken forward branch are free (under);
 *  - PowerPC has no DP vectors: vector double code issues one fmadd per lane where the SPU's
 *    2-wide DP instruction does both lanes in the same 7 cycles (over, 2x);
 *  - the SDK's intrinsics are emulated in software (spu_intrinsics.h reproduces the SPU's single
 *    precision), so an intrinsic is priced as the PowerPC instructions of its emulation, not as
 *    the one SPU instruction it is (over: spu_madd about 90 cycles for 1): see README.md;
 *  - addressing: the add of an update form (lwzu) takes no issue slot (under);
 *  - the stack frames, register saves and PIC loads of PowerPC calls are priced as they are,
 *    where the SPU's ABI differs (over or under, small);
 *  - a taken branch of a loop that is not one block (a loop with an if inside) is not seen as a
 *    loop: its carried chains are not waited for (under).
 */
#include "spu_cost.h"

#include <stdio.h>
#include <string.h>

/* Set by spu_cost_set from the machine file's table; all zero until then. */
struct spu_price spu_prices[SPU_NCLASSES];

const char *const spu_class_names[SPU_NCLASSES] = {
    [SPU_NOP] = "nop",
    [SPU_FX] = "fx",
    [SPU_WS] = "ws",
    [SPU_SH] = "sh",
    [SPU_SP] = "sp",
    [SPU_FI] = "fi",
    [SPU_DP] = "dp",
    [SPU_IMUL] = "imul",
    [SPU_IDIV] = "idiv",
    [SPU_FDIV] = "fdiv",
    [SPU_LQ] = "lq",
    [SPU_SQ] = "sq",
    [SPU_LOAD_SCALAR] = "load_scalar",
    [SPU_STORE_SCALAR] = "store_scalar",
    [SPU_BRANCH] = "branch",
    [SPU_BRANCH_INDIRECT] = "branch_indirect",
};

int spu_cost_set(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL)
        return -1;
    for (int c = 0; c < SPU_NCLASSES; c++) {
        size_t len = strlen(spu_class_names[c]);
        if ((size_t)(eq - arg) != len || strncmp(arg, spu_class_names[c], len) != 0)
            continue;
        unsigned v[4];
        char end;
        if (sscanf(eq + 1, "%u:%u:%u:%u%c", &v[0], &v[1], &v[2], &v[3], &end) != 4)
            return -2;
        spu_prices[c] = (struct spu_price){v[0], v[1], v[2], v[3]};
        return c;
    }
    return -1;
}

int spu_marker(uint32_t word, int *cls, unsigned *count)
{
    if ((word & 0xffff0000u) != SPU_MARK_WORD)
        return 0;
    uint32_t k = word & 0xffff;
    if (k == SPU_MARK_END)
        return 2;
    if ((k & 0xffe0) == SPU_MARK_SOURCE || (k & 0xffe0) == SPU_MARK_RESULT) {
        *count = SPU_REG_VR + (k & 31);
        return (k & 0xffe0) == SPU_MARK_SOURCE ? 3 : 4;
    }
    if ((k & 0xff00) != SPU_MARK_BEGIN || ((k >> 4) & 15) == 0 || (k & 15) >= SPU_NCLASSES)
        return 0;
    *cls = (int)(k & 15);
    *count = (k >> 4) & 15;
    return 1;
}

/* Opcode 31 (X and XO forms), extended opcode in bits 21-30. */
static int class_31(uint32_t xo)
{
    switch (xo) {
    case 103: case 359:                          /* lvx, lvxl */
        return SPU_LQ;
    case 231: case 487:                          /* stvx, stvxl */
        return SPU_SQ;
    case 6: case 38:                             /* lvsl, lvsr: shuffle-control generation */
        return SPU_SH;
    case 7: case 39: case 71:                    /* lvebx, lvehx, lvewx */
    case 23: case 55: case 87: case 119:         /* lwzx, lwzux, lbzx, lbzux */
    case 279: case 311: case 343: case 375:      /* lhzx, lhzux, lhax, lhaux */
    case 535: case 567: case 599: case 631:      /* lfsx, lfsux, lfdx, lfdux */
    case 534: case 790: case 20:                 /* lwbrx, lhbrx, lwarx */
        return SPU_LOAD_SCALAR;
    case 135: case 167: case 199:                /* stvebx, stvehx, stvewx */
    case 151: case 183: case 215: case 247:      /* stwx, stwux, stbx, stbux */
    case 407: case 439: case 663: case 695:      /* sthx, sthux, stfsx, stfsux */
    case 727: case 759: case 983:                /* stfdx, stfdux, stfiwx */
    case 662: case 918: case 150:                /* stwbrx, sthbrx, stwcx. */
        return SPU_STORE_SCALAR;
    case 24: case 536: case 792: case 824:       /* slw, srw, sraw, srawi */
        return SPU_WS;
    case 598: case 854: case 278: case 246:      /* sync, eieio, dcbt, dcbtst */
    case 54: case 86: case 470: case 982:        /* dcbst, dcbf, dcbi, icbi */
        return SPU_NOP;
    }
    switch (xo & 0x1ff) {                        /* XO form: bit 21 is OE */
    case 235: case 75: case 11:                  /* mullw, mulhw, mulhwu */
        return SPU_IMUL;
    case 491: case 459:                          /* divw, divwu */
        return SPU_IDIV;
    }
    return SPU_FX; /* add, subf, logical, compare, extend, count zeros, moves to/from SPRs */
}

/* Opcodes 59 (single) and 63 (double): A form, extended opcode in bits 26-30. */
static int class_float(uint32_t word, int arith)
{
    uint32_t a = (word >> 1) & 0x1f;
    switch (a) {
    case 18: case 22:                            /* fdiv, fsqrt */
        return SPU_FDIV;
    case 20: case 21: case 25: case 28: case 29: case 30: case 31:
        return arith;                            /* fsub fadd fmul fmsub fmadd fnmsub fnmadd */
    case 23:                                     /* fsel: compare + select */
        return SPU_FX;
    case 24: case 26:                            /* fres, frsqrte: estimates (odd pipe) */
        return SPU_SH;
    }
    /* X form (extended opcode in bits 21-30) on opcode 63 */
    switch ((word >> 1) & 0x3ff) {
    case 12: case 14: case 15: case 814: case 815: case 846:
        return SPU_FI;                           /* frsp, fctiw[z], fctid[z], fcfid */
    }
    return SPU_FX; /* fmr, fneg, fabs, fnabs, fcmpu, fcmpo, mffs, mtfsf: logical or compare */
}

/* Opcode 4, AltiVec. VA form (extended opcode in bits 26-31, 32 and above), else VX/VC form
 * (bits 21-31). */
static int class_altivec(uint32_t word)
{
    uint32_t va = word & 0x3f;
    if (va >= 32) {
        switch (va) {
        case 46: case 47:                        /* vmaddfp, vnmsubfp */
            return SPU_SP;
        case 42:                                 /* vsel: selb, even */
            return SPU_FX;
        case 43: case 44:                        /* vperm, vsldoi: shufb, shlqby */
            return SPU_SH;
        }
        return SPU_FI;                           /* vmhaddshs, vmladduhm, vmsum*: multiplies */
    }
    uint32_t vx = word & 0x7ff;
    uint32_t vc = word & 0x3ff;                  /* compares: bit 21 is Rc */
    switch (vc) {
    case 198: case 454: case 710: case 966:      /* vcmpeqfp, vcmpgefp, vcmpgtfp, vcmpbfp */
        return SPU_SP;
    }
    switch (vx) {
    case 10: case 74: case 1034: case 1098:      /* vaddfp, vsubfp, vmaxfp, vminfp */
        return SPU_SP;
    case 266: case 330:                          /* vrefp, vrsqrtefp: frest, frsqest */
        return SPU_SH;
    case 778: case 842: case 906: case 970:      /* vcfux, vcfsx, vctuxs, vctsxs */
    case 522: case 586: case 650: case 714:      /* vrfin, vrfiz, vrfip, vrfim */
    case 8: case 72: case 136: case 264: case 328: case 392:    /* vmulo*, vmule* */
    case 520: case 584: case 648: case 776: case 840: case 904: /* (cont.) */
        return SPU_FI;
    case 260: case 324: case 388: case 516: case 580: case 644: /* vslb/h/w, vsrb/h/w */
    case 772: case 836: case 900: case 4: case 68: case 132:    /* vsrab/h/w, vrlb/h/w */
        return SPU_WS;
    case 452: case 708: case 1036: case 1100:    /* vsl, vsr, vslo, vsro: quadword shifts */
    case 524: case 588: case 652:                /* vspltb, vsplth, vspltw */
    case 12: case 76: case 140: case 268: case 332: case 396:   /* vmrgh*, vmrgl* */
    case 14: case 78: case 142: case 206: case 270: case 334:   /* vpk* */
    case 398: case 462: case 782: case 846: case 526: case 590: /* vpk*, vupk* */
    case 654: case 718:                          /* vupklsb, vupklsh */
        return SPU_SH;
    }
    return SPU_FX; /* integer add/sub, logical, integer compares, splat immediates, avg, max */
}

int spu_cost_class(uint32_t word)
{
    uint32_t op = word >> 26;
    switch (op) {
    case 4:
        return class_altivec(word);
    case 7:                                      /* mulli */
        return SPU_IMUL;
    case 16: case 18:                            /* bc, b */
        return SPU_BRANCH;
    case 19:
        switch ((word >> 1) & 0x3ff) {
        case 16: case 528:                       /* bclr, bcctr */
            return SPU_BRANCH_INDIRECT;
        case 150:                                /* isync */
            return SPU_NOP;
        }
        return SPU_FX;                           /* condition-register logical */
    case 20: case 21: case 23:                   /* rlwimi, rlwinm, rlwnm */
        return SPU_WS;
    case 31:
        return class_31((word >> 1) & 0x3ff);
    case 32: case 33: case 34: case 35: case 40: case 41: case 42: case 43:
    case 48: case 49: case 50: case 51:          /* lwz[u] lbz[u] lhz[u] lha[u] lfs[u] lfd[u] */
    case 46:                                     /* lmw (priced as one load) */
        return SPU_LOAD_SCALAR;
    case 36: case 37: case 38: case 39: case 44: case 45:
    case 52: case 53: case 54: case 55: case 47: /* stw[u] stb[u] sth[u] stfs[u] stfd[u] stmw */
        return SPU_STORE_SCALAR;
    case 59:
        return class_float(word, SPU_SP);
    case 63:
        return class_float(word, SPU_DP);
    }
    return SPU_FX; /* addi, addis, addic, subfic, cmpi, cmpli, ori, oris, xori, andi., sc */
}

static void add(uint8_t *list, int *n, int reg)
{
    list[(*n)++] = (uint8_t)reg;
}

#define RT(w) (((w) >> 21) & 31)
#define RA(w) (((w) >> 16) & 31)
#define RB(w) (((w) >> 11) & 31)
#define RC(w) (((w) >> 6) & 31)

void spu_cost_decode(uint32_t w, struct spu_insn *in)
{
    uint32_t op = w >> 26, xo = (w >> 1) & 0x3ff;
    int cls = spu_cost_class(w);
    in->cls = cls;
    in->nsrc = in->ndst = 0;
    in->dst_fx = 0;
    uint8_t *s = in->src, *d = in->dst;
    int *ns = &in->nsrc, *nd = &in->ndst;
    switch (op) {
    case 4:                                      /* AltiVec: VRT <- VRA, VRB (, VRC) */
        add(d, nd, SPU_REG_VR + RT(w));
        add(s, ns, SPU_REG_VR + RA(w));
        add(s, ns, SPU_REG_VR + RB(w));
        if ((w & 0x3f) >= 32)
            add(s, ns, SPU_REG_VR + RC(w));
        return;
    case 7: case 8: case 12: case 13: case 14: case 15: /* mulli subfic addic addi addis */
        add(d, nd, RT(w));
        if (RA(w) || op < 14)
            add(s, ns, RA(w));
        return;
    case 10: case 11:                            /* cmpli, cmpi */
        add(d, nd, SPU_REG_CR);
        add(s, ns, RA(w));
        return;
    case 16:                                     /* bc */
        if (!((w >> 23) & 1))                    /* BO tests the condition */
            add(s, ns, SPU_REG_CR);
        if (!((w >> 22) & 1)) {                  /* BO decrements CTR */
            add(s, ns, SPU_REG_CTR);
            add(d, nd, SPU_REG_CTR);
        }
        return;
    case 19:
        if (xo == 16 || xo == 528)
            add(s, ns, SPU_REG_CR);
        return;
    case 20: case 21: case 23: case 24: case 25: case 26: case 27: case 28: case 29:
        add(d, nd, RA(w));                       /* rotates and logical immediates: RA <- RS */
        add(s, ns, RT(w));
        if (op == 20)
            add(s, ns, RA(w));
        if (op == 23)
            add(s, ns, RB(w));
        if (op == 28 || op == 29)
            add(d, nd, SPU_REG_CR);
        return;
    case 59: case 63:
        if (op == 63 && (xo == 0 || xo == 32)) { /* fcmpu, fcmpo */
            add(d, nd, SPU_REG_CR);
            add(s, ns, SPU_REG_FPR + RA(w));
            add(s, ns, SPU_REG_FPR + RB(w));
            return;
        }
        add(d, nd, SPU_REG_FPR + RT(w));
        add(s, ns, SPU_REG_FPR + RB(w));
        if (((w >> 1) & 0x1f) >= 18) {           /* A form */
            add(s, ns, SPU_REG_FPR + RA(w));
            add(s, ns, SPU_REG_FPR + RC(w));
        }
        return;
    case 31: {
        int file = 0;
        if (cls == SPU_LQ || xo == 6 || xo == 38 || xo == 7 || xo == 39 || xo == 71 ||
            cls == SPU_SQ || xo == 135 || xo == 167 || xo == 199)
            file = SPU_REG_VR;
        else if ((xo >= 535 && xo <= 759) && xo != 662 && xo != 598)
            file = SPU_REG_FPR;
        if (RA(w))
            add(s, ns, RA(w));
        if ((cls == SPU_LOAD_SCALAR || cls == SPU_STORE_SCALAR) && ((xo >> 5) & 1) && RA(w) &&
            xo != 662 && xo != 790 && xo != 534 && xo != 918 && xo != 39 && xo != 167) {
            in->dst_fx |= (uint8_t)(1u << *nd); /* update form (lwzux ...): RA <- the address */
            add(d, nd, RA(w));
        }
        if (cls == SPU_LOAD_SCALAR || cls == SPU_LQ || xo == 6 || xo == 38) {
            add(s, ns, RB(w));
            add(d, nd, file + RT(w));
        } else if (cls == SPU_STORE_SCALAR || cls == SPU_SQ) {
            add(s, ns, RB(w));
            add(s, ns, file + RT(w));
        } else if (xo == 0 || xo == 32) {        /* cmp, cmpl */
            add(d, nd, SPU_REG_CR);
            add(s, ns, RB(w));
        } else if (xo == 339 || xo == 19) {      /* mfspr, mfcr */
            *ns = 0;
            add(d, nd, RT(w));
            if (xo == 339 && RA(w) == 9)
                add(s, ns, SPU_REG_CTR);
        } else if (xo == 467) {                  /* mtspr */
            *ns = 0;
            add(s, ns, RT(w));
            if (RA(w) == 9)
                add(d, nd, SPU_REG_CTR);
        } else if (xo == 28 || xo == 60 || xo == 124 || xo == 284 || xo == 316 || xo == 412 ||
                   xo == 444 || xo == 476 || xo == 24 || xo == 536 || xo == 792 || xo == 824 ||
                   xo == 26 || xo == 922 || xo == 954) {
            *ns = 0;                             /* logical, shifts, extends: RA <- RS, RB */
            add(d, nd, RA(w));
            add(s, ns, RT(w));
            if (xo != 824 && xo != 26 && xo != 922 && xo != 954)
                add(s, ns, RB(w));
        } else if (cls != SPU_NOP) {             /* XO arithmetic: RT <- RA, RB */
            add(s, ns, RB(w));
            add(d, nd, RT(w));
        }
        if ((w & 1) && cls != SPU_STORE_SCALAR)  /* record form */
            add(d, nd, SPU_REG_CR);
        return;
    }
    }
    if (op >= 32 && op <= 55) {                  /* D-form loads and stores */
        int fp = op >= 48 ? SPU_REG_FPR : 0;
        if (RA(w))
            add(s, ns, RA(w));
        if (cls == SPU_LOAD_SCALAR)
            add(d, nd, fp + RT(w));
        else
            add(s, ns, fp + RT(w));
        if ((op & 1) && op != 47 && op != 46 && RA(w)) {
            in->dst_fx |= (uint8_t)(1u << *nd); /* update form: RA <- the address */
            add(d, nd, RA(w));
        }
    }
}

int64_t spu_branch_target(uint32_t w, uint64_t pc)
{
    uint32_t op = w >> 26;
    if (op == 16 && !(w & 2)) {
        int32_t bd = (int32_t)(int16_t)(w & 0xfffc);
        return (int64_t)(pc + (int64_t)bd) & 0xffffffff;
    }
    if (op == 18 && !(w & 2)) {
        int32_t li = (int32_t)((w & 0x03fffffc) << 6) >> 6;
        return (int64_t)(pc + (int64_t)li) & 0xffffffff;
    }
    return -1;
}

int spu_vector_move(uint32_t w, int *dst, int *src)
{
    /* vor vD,vA,vB (opcode 4, VX 1156) with vA == vB */
    if ((w >> 26) != 4 || (w & 0x7ff) != 1156 || RA(w) != RB(w))
        return 0;
    *dst = SPU_REG_VR + (int)RT(w);
    *src = SPU_REG_VR + (int)RA(w);
    return 1;
}

/* The SPU's issue rule for one instruction: it issues when its pipeline is free, its sources
 * are ready and the one before it has issued (in the same cycle if on the other pipeline). */
uint64_t spu_issue(struct spu_sched *s, const struct spu_insn *in)
{
    const struct spu_price *p = &spu_prices[in->cls];
    if (!p->even && !p->odd)
        return s->last;
    int pipe = p->even ? 0 : 1;
    uint64_t t = s->last > s->pipe_free[pipe] ? s->last : s->pipe_free[pipe];
    if (p->even && p->odd && s->pipe_free[1] > t)
        t = s->pipe_free[1];
    for (int k = 0; k < in->nsrc; k++)
        if (s->ready[in->src[k]] > t)
            t = s->ready[in->src[k]];
    s->last = t;
    if (p->even)
        s->pipe_free[0] = t + p->even;
    if (p->odd)
        s->pipe_free[1] = t + (p->even ? p->even : 0) + p->odd;
    if (p->stall) {
        uint64_t resume = t + 1 + p->stall;
        s->pipe_free[0] = s->pipe_free[0] > resume ? s->pipe_free[0] : resume;
        s->pipe_free[1] = s->pipe_free[1] > resume ? s->pipe_free[1] : resume;
    }
    for (int k = 0; k < in->ndst; k++)
        s->ready[in->dst[k]] = t + ((in->dst_fx >> k) & 1 ? spu_prices[SPU_FX].latency : p->latency);
    return t;
}

/* One pass of the in-order, dual-issue schedule over the block (spu_issue's rule); the ready
 * times carry over between passes. Returns when the next block can start issuing. */
static uint64_t schedule(const uint32_t *words, unsigned n, uint64_t start, struct spu_sched *s)
{
    s->pipe_free[0] = s->pipe_free[1] = s->last = start;
    for (unsigned i = 0; i < n; i++) {
        struct spu_insn in;
        spu_cost_decode(words[i], &in);
        spu_issue(s, &in);
    }
    return s->pipe_free[0] > s->pipe_free[1] ? s->pipe_free[0] : s->pipe_free[1];
}

uint64_t spu_cost_block(const uint32_t *words, unsigned n, int loop)
{
    struct spu_sched s = {{0, 0}, 0, {0}}; /* every pipe free, every register ready */
    uint64_t once = schedule(words, n, 0, &s);
    if (!loop)
        return once;
    /* A loop body in the steady state: the third pass's length, once the registers carried
     * round the loop arrive as late as they will. */
    uint64_t twice = schedule(words, n, once, &s);
    uint64_t thrice = schedule(words, n, twice, &s);
    return thrice - twice;
}
