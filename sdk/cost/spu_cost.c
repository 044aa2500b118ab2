/*
 * The price, in SPU cycles, of PowerPC code compiled from an SPE program: each 32-bit PowerPC
 * instruction (primary opcode in bits 0-5, extended opcodes for 31, 59, 63 and AltiVec's 4) is
 * decoded into the class of SPU instructions that would do its work, and a block is priced as
 * the SPU would issue it.
 *
 * Prices (issue cycles per pipeline; latencies given for the record, the block model below does
 * not use them). Source [T]: IBM Cell SDK 3.0 Programming Tutorial, "Pipelines and dual-issue
 * rules", Table 1 "SPU Instruction Latency and Pipeline, by Instruction Class" and its notes
 * (https://arcb.csc.ncsu.edu/~mueller/cluster/ps3/SDK3.0/docs/accessibility/sdkpt/cbet_3pipedr.html);
 * [F]: same tutorial, "Floating-point operations" (cbet_3floatp.html). [E]: an estimate of
 * cellblade's, no source gives it.
 *
 *   class            even odd stall  latency  what                                      source
 *   fx                 1   0    0       2     FX simple fixed point, even pipe            [T]
 *   ws                 1   0    0       4     WS word shift/rotate, even pipe             [T]
 *   sh                 0   1    0       4     SH shuffle/quadword rotate, odd pipe        [T]
 *   sp                 1   0    0       6     SP single precision, fully pipelined        [T][F]
 *   fi                 1   0    0       7     FI floating-point integer, even pipe        [T]
 *   dp                 1   0    6      13     DP: 6 issue-stall cycles, nothing issues    [T] note 2
 *   imul               5   0    0      11     mpyh+mpyh+mpyu (FI) + 2 a (FX)              [T] + [E]
 *   idiv              40   0    0       -     software divide, no SPU instruction         [E]
 *   fdiv               5   1    0       -     frest (SH) + fi + 2 Newton steps (SP)       [T] + [E]
 *   lq                 0   1    0       6     LS load quadword, odd pipe                  [T]
 *   sq                 0   1    0       6     LS store quadword, odd pipe                 [T]
 *   load_scalar        0   2    0      10     lqd (LS) + rotqby (SH) to the preferred slot [T]
 *   store_scalar       0   3    0       -     lqd + shufb (SH) + stqd: read-modify-write  [T]
 *   branch             0   1    0       4     BR, hinted or falling through: no penalty   [T] note 1
 *   branch_indirect    0   1   18       4     BR, unhinted taken: 18-cycle penalty        [T] note 1
 *
 * Block model: cycles = max(even issue, odd issue) + stalls, i.e. perfect dual issue and
 * register dependencies ignored. Branches: a direct branch (b, bl, bc) is assumed hinted by the
 * SPU compiler when taken (a loop's back edge) or falls through as predicted, so it costs its
 * issue slot only; a branch through lr or ctr (returns, calls through pointers, switch tables)
 * pays the 18-cycle unhinted taken-branch penalty.
 *
 * Over- and under-counting (the mapping is approximate: PowerPC code is not SPU code):
 *  - dependencies are ignored: a dependent chain costs its issue slots, not its latencies
 *    (under-counts chains by up to the latency: 6x for SP, about 2x for DP);
 *  - the mispredicted exit of every loop and every taken forward branch are free (under);
 *  - every scalar instruction is priced as one SPU instruction on one slot, where the SPU needs
 *    none for loop counters kept in registers the same way (about right) but PowerPC scalar
 *    double code issues one fmadd per lane where the SPU's dfma does two (over, 2x);
 *  - the SDK's intrinsics are emulated in software (spu_intrinsics.h reproduces the SPU's single
 *    precision), so an intrinsic is priced as the PowerPC instructions of its emulation, not as
 *    the one SPU instruction it is (over, often 10x or more): see README.md;
 *  - addressing: update forms (lwzu) and the SPU's address arithmetic are not counted (under).
 */
#include "spu_cost.h"

const struct spu_price spu_prices[SPU_NCLASSES] = {
    [SPU_NOP] = {0, 0, 0},
    [SPU_FX] = {1, 0, 0},
    [SPU_WS] = {1, 0, 0},
    [SPU_SH] = {0, 1, 0},
    [SPU_SP] = {1, 0, 0},
    [SPU_FI] = {1, 0, 0},
    [SPU_DP] = {1, 0, 6},
    [SPU_IMUL] = {5, 0, 0},
    [SPU_IDIV] = {40, 0, 0},
    [SPU_FDIV] = {5, 1, 0},
    [SPU_LQ] = {0, 1, 0},
    [SPU_SQ] = {0, 1, 0},
    [SPU_LOAD_SCALAR] = {0, 2, 0},
    [SPU_STORE_SCALAR] = {0, 3, 0},
    [SPU_BRANCH] = {0, 1, 0},
    [SPU_BRANCH_INDIRECT] = {0, 1, 18},
};

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

uint64_t spu_cost_block(const uint8_t *code, unsigned n)
{
    uint64_t even = 0, odd = 0, stall = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *p = code + 4 * i;
        uint32_t word = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        const struct spu_price *price = &spu_prices[spu_cost_class(word)];
        even += price->even;
        odd += price->odd;
        stall += price->stall;
    }
    return (even > odd ? even : odd) + stall;
}
