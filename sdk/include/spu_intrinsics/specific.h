/* The specific intrinsics (si_*): one SPU instruction each, on quadwords (qword), as
 * spu_internals.h named them. Each is the generic intrinsic that instruction implements,
 * applied to the quadword read as the instruction reads it; scalar counts and addresses come
 * from the preferred slot (word 0), and the si_to_* and si_from_* conversions use the SPU's
 * preferred slots: byte 3 for a char, halfword 1 (bytes 2 and 3) for a short, word 0 for a
 * word, a pointer or a float, doubleword 0 for a long long or a double.
 *
 * Immediates are taken as their instruction field holds them: ten bits, sign-extended, for the
 * word and halfword immediate forms (si_ai(q, 0x3FF) adds -1), eight for the byte forms.
 * si_fi returns its estimate unchanged, since si_frest and si_frsqest already give the
 * truncated exact value the SPU's interpolation refines toward. Not here: si_lqr (PC-relative),
 * the halts, channels and stop (the channel interface's), si_mfspr, si_mtspr, si_fscrrd,
 * si_fscrwr, and the branch hints. */
#ifndef SPU_INTRINSICS_SPECIFIC_H
#define SPU_INTRINSICS_SPECIFIC_H

#define __si_b(q) ((vec_char16)(q))
#define __si_ub(q) ((vec_uchar16)(q))
#define __si_h(q) ((vec_short8)(q))
#define __si_uh(q) ((vec_ushort8)(q))
#define __si_w(q) ((vec_int4)(q))
#define __si_uw(q) ((vec_uint4)(q))
#define __si_f(q) ((vec_float4)(q))
#define __si_d(q) ((vec_double2)(q))
#define __si_q(v) ((qword)(v))
#define __si_i10(imm) ((int)((unsigned int)(imm) << 22) >> 22)

/* Scalars from and to the preferred slots. */
__SPU_INLINE qword __si_from_bytes(const void *scalar, unsigned int size, unsigned int offset)
{
    vec_uchar16 r = {0};
    __builtin_memcpy((unsigned char *)&r + offset, scalar, size);
    return (qword)r;
}
#define __si_slot(q, type, offset)                                                          \
    __extension__({                                                                         \
        qword q_ = (q);                                                                     \
        type s_;                                                                            \
        __builtin_memcpy(&s_, (unsigned char *)&q_ + (offset), sizeof s_);                  \
        s_;                                                                                 \
    })
#define __si_from(type, value, offset)                                                      \
    __extension__({                                                                         \
        type s_ = (type)(value);                                                            \
        __si_from_bytes(&s_, sizeof s_, offset);                                            \
    })
#define si_to_char(q) __si_slot(q, signed char, 3)
#define si_to_uchar(q) __si_slot(q, unsigned char, 3)
#define si_to_short(q) __si_slot(q, signed short, 2)
#define si_to_ushort(q) __si_slot(q, unsigned short, 2)
#define si_to_int(q) __si_slot(q, signed int, 0)
#define si_to_uint(q) __si_slot(q, unsigned int, 0)
#define si_to_long(q) __si_slot(q, signed long long, 0)
#define si_to_ulong(q) __si_slot(q, unsigned long long, 0)
#define si_to_float(q) __si_slot(q, float, 0)
#define si_to_double(q) __si_slot(q, double, 0)
#define si_to_ptr(q) ((void *)__si_slot(q, unsigned int, 0))
#define si_from_char(s) __si_from(signed char, s, 3)
#define si_from_uchar(s) __si_from(unsigned char, s, 3)
#define si_from_short(s) __si_from(signed short, s, 2)
#define si_from_ushort(s) __si_from(unsigned short, s, 2)
#define si_from_int(s) __si_from(signed int, s, 0)
#define si_from_uint(s) __si_from(unsigned int, s, 0)
#define si_from_long(s) __si_from(signed long long, s, 0)
#define si_from_ulong(s) __si_from(unsigned long long, s, 0)
#define si_from_float(s) __si_from(float, s, 0)
#define si_from_double(s) __si_from(double, s, 0)
#define si_from_ptr(p) __si_from(unsigned int, (unsigned int)(p), 0)
/* The names the SDK's PPE mapping (si2vmx.h) gives the doubleword forms. */
#define si_to_llong si_to_long
#define si_to_ullong si_to_ulong
#define si_from_llong si_from_long
#define si_from_ullong si_from_ulong

/* Loads and stores: the quadword at the address with its low four bits dropped. The SPU also
 * wraps addresses past the 256 KB local store; that is not reproduced, since the host process
 * (its stack, for one) need not lie within the local store's addresses. */
#define __si_ls(address) ((qword *)((unsigned int)(address) & ~15u))
#define si_lqd(ra, imm) (*__si_ls(si_to_uint(ra) + (imm)))
#define si_lqx(ra, rb) (*__si_ls(si_to_uint(ra) + si_to_uint(rb)))
#define si_lqa(imm) (*__si_ls(imm))
#define si_stqd(rt, ra, imm) ((void)(*__si_ls(si_to_uint(ra) + (imm)) = (rt)))
#define si_stqx(rt, ra, rb) ((void)(*__si_ls(si_to_uint(ra) + si_to_uint(rb)) = (rt)))
#define si_stqa(rt, imm) ((void)(*__si_ls(imm) = (rt)))

/* The shuffle patterns that insert an element at an address's offset in its quadword (the
 * others from the second operand: 0x10 + i); the inserted bytes come from the element's
 * preferred slot. */
__SPU_INLINE qword __si_insertion(unsigned int address, unsigned int size, unsigned int slot)
{
    unsigned int i;
    vec_uchar16 r;
    unsigned int at = address & 15 & ~(size - 1);
    for (i = 0; i < 16; i++)
        r[i] = (i >= at && i < at + size) ? (unsigned char)(slot + i - at) : (unsigned char)(16 + i);
    return (qword)r;
}
#define si_cbd(ra, imm) __si_insertion(si_to_uint(ra) + (imm), 1, 3)
#define si_chd(ra, imm) __si_insertion(si_to_uint(ra) + (imm), 2, 2)
#define si_cwd(ra, imm) __si_insertion(si_to_uint(ra) + (imm), 4, 0)
#define si_cdd(ra, imm) __si_insertion(si_to_uint(ra) + (imm), 8, 0)
#define si_cbx(ra, rb) __si_insertion(si_to_uint(ra) + si_to_uint(rb), 1, 3)
#define si_chx(ra, rb) __si_insertion(si_to_uint(ra) + si_to_uint(rb), 2, 2)
#define si_cwx(ra, rb) __si_insertion(si_to_uint(ra) + si_to_uint(rb), 4, 0)
#define si_cdx(ra, rb) __si_insertion(si_to_uint(ra) + si_to_uint(rb), 8, 0)

/* Immediate loads. */
#define si_il(imm) __si_q(spu_splats((int)(short)(imm)))
#define si_ila(imm) __si_q(spu_splats((unsigned int)(imm)&0x3FFFFu))
#define si_ilh(imm) __si_q(spu_splats((unsigned short)(imm)))
#define si_ilhu(imm) __si_q(spu_splats(((unsigned int)(imm)&0xFFFFu) << 16))
#define si_iohl(ra, imm) __si_q(spu_or(__si_uw(ra), (unsigned int)(imm)&0xFFFFu))
#define si_fsmbi(imm) __si_q(spu_maskb((unsigned int)(imm)))

/* Integer arithmetic. The subtractions are "from": si_sf(a, b) is b - a. */
#define si_a(ra, rb) __si_q(spu_add(__si_w(ra), __si_w(rb)))
#define si_ai(ra, imm) __si_q(spu_add(__si_w(ra), __si_i10(imm)))
#define si_ah(ra, rb) __si_q(spu_add(__si_h(ra), __si_h(rb)))
#define si_ahi(ra, imm) __si_q(spu_add(__si_h(ra), (short)__si_i10(imm)))
#define si_sf(ra, rb) __si_q(spu_sub(__si_w(rb), __si_w(ra)))
#define si_sfi(ra, imm) __si_q(spu_sub(__si_i10(imm), __si_w(ra)))
#define si_sfh(ra, rb) __si_q(spu_sub(__si_h(rb), __si_h(ra)))
#define si_sfhi(ra, imm) __si_q(spu_sub((short)__si_i10(imm), __si_h(ra)))
#define si_addx(ra, rb, rt) __si_q(spu_addx(__si_w(ra), __si_w(rb), __si_w(rt)))
#define si_cg(ra, rb) __si_q(spu_genc(__si_w(ra), __si_w(rb)))
#define si_cgx(ra, rb, rt) __si_q(spu_gencx(__si_w(ra), __si_w(rb), __si_w(rt)))
#define si_sfx(ra, rb, rt) __si_q(spu_subx(__si_w(rb), __si_w(ra), __si_w(rt)))
#define si_bg(ra, rb) __si_q(spu_genb(__si_w(rb), __si_w(ra)))
#define si_bgx(ra, rb, rt) __si_q(spu_genbx(__si_w(rb), __si_w(ra), __si_w(rt)))
#define si_mpy(ra, rb) __si_q(spu_mulo(__si_h(ra), __si_h(rb)))
#define si_mpyu(ra, rb) __si_q(spu_mulo(__si_uh(ra), __si_uh(rb)))
#define si_mpyi(ra, imm) __si_q(spu_mulo(__si_h(ra), (short)__si_i10(imm)))
#define si_mpyui(ra, imm) __si_q(spu_mulo(__si_uh(ra), (unsigned short)__si_i10(imm)))
#define si_mpya(ra, rb, rc) __si_q(spu_madd(__si_h(ra), __si_h(rb), __si_w(rc)))
#define si_mpyh(ra, rb) __si_q(spu_mulh(__si_h(ra), __si_h(rb)))
#define si_mpys(ra, rb) __si_q(spu_mulsr(__si_h(ra), __si_h(rb)))
#define si_mpyhh(ra, rb) __si_q(spu_mule(__si_h(ra), __si_h(rb)))
#define si_mpyhhu(ra, rb) __si_q(spu_mule(__si_uh(ra), __si_uh(rb)))
#define si_mpyhha(ra, rb, rt) __si_q(spu_mhhadd(__si_h(ra), __si_h(rb), __si_w(rt)))
#define si_mpyhhau(ra, rb, rt) __si_q(spu_mhhadd(__si_uh(ra), __si_uh(rb), __si_uw(rt)))
#define si_clz(ra) __si_q(spu_cntlz(__si_uw(ra)))
#define si_cntb(ra) __si_q(spu_cntb(__si_ub(ra)))
#define si_fsmb(ra) __si_q(spu_maskb(si_to_uint(ra)))
#define si_fsmh(ra) __si_q(spu_maskh(si_to_uint(ra)))
#define si_fsm(ra) __si_q(spu_maskw(si_to_uint(ra)))
#define si_gbb(ra) __si_q(spu_gather(__si_ub(ra)))
#define si_gbh(ra) __si_q(spu_gather(__si_uh(ra)))
#define si_gb(ra) __si_q(spu_gather(__si_uw(ra)))
#define si_avgb(ra, rb) __si_q(spu_avg(__si_ub(ra), __si_ub(rb)))
#define si_absdb(ra, rb) __si_q(spu_absd(__si_ub(ra), __si_ub(rb)))
#define si_sumb(ra, rb) __si_q(spu_sumb(__si_ub(ra), __si_ub(rb)))
#define si_xsbh(ra) __si_q(spu_extend(__si_b(ra)))
#define si_xshw(ra) __si_q(spu_extend(__si_h(ra)))
#define si_xswd(ra) __si_q(spu_extend(__si_w(ra)))

/* Logic. */
#define si_and(ra, rb) __si_q(spu_and(__si_ub(ra), __si_ub(rb)))
#define si_andc(ra, rb) __si_q(spu_andc(__si_ub(ra), __si_ub(rb)))
#define si_or(ra, rb) __si_q(spu_or(__si_ub(ra), __si_ub(rb)))
#define si_orc(ra, rb) __si_q(spu_orc(__si_ub(ra), __si_ub(rb)))
#define si_xor(ra, rb) __si_q(spu_xor(__si_ub(ra), __si_ub(rb)))
#define si_nand(ra, rb) __si_q(spu_nand(__si_ub(ra), __si_ub(rb)))
#define si_nor(ra, rb) __si_q(spu_nor(__si_ub(ra), __si_ub(rb)))
#define si_eqv(ra, rb) __si_q(spu_eqv(__si_ub(ra), __si_ub(rb)))
#define si_andbi(ra, imm) __si_q(spu_and(__si_ub(ra), (unsigned char)(imm)))
#define si_andhi(ra, imm) __si_q(spu_and(__si_h(ra), (short)__si_i10(imm)))
#define si_andi(ra, imm) __si_q(spu_and(__si_w(ra), __si_i10(imm)))
#define si_orbi(ra, imm) __si_q(spu_or(__si_ub(ra), (unsigned char)(imm)))
#define si_orhi(ra, imm) __si_q(spu_or(__si_h(ra), (short)__si_i10(imm)))
#define si_ori(ra, imm) __si_q(spu_or(__si_w(ra), __si_i10(imm)))
#define si_xorbi(ra, imm) __si_q(spu_xor(__si_ub(ra), (unsigned char)(imm)))
#define si_xorhi(ra, imm) __si_q(spu_xor(__si_h(ra), (short)__si_i10(imm)))
#define si_xori(ra, imm) __si_q(spu_xor(__si_w(ra), __si_i10(imm)))
#define si_orx(ra) __si_q(spu_orx(__si_uw(ra)))
#define si_selb(ra, rb, rc) __si_q(spu_sel(__si_ub(ra), __si_ub(rb), __si_ub(rc)))
#define si_shufb(ra, rb, rc) __si_q(spu_shuffle(__si_ub(ra), __si_ub(rb), __si_ub(rc)))

/* Shifts and rotates: element counts per element, quadword counts from the preferred slot. */
#define si_shlh(ra, rb) __si_q(spu_sl(__si_uh(ra), __si_uh(rb)))
#define si_shlhi(ra, imm) __si_q(spu_sl(__si_uh(ra), (unsigned int)(imm)))
#define si_shl(ra, rb) __si_q(spu_sl(__si_uw(ra), __si_uw(rb)))
#define si_shli(ra, imm) __si_q(spu_sl(__si_uw(ra), (unsigned int)(imm)))
#define si_roth(ra, rb) __si_q(spu_rl(__si_uh(ra), __si_h(rb)))
#define si_rothi(ra, imm) __si_q(spu_rl(__si_uh(ra), (int)(imm)))
#define si_rot(ra, rb) __si_q(spu_rl(__si_uw(ra), __si_w(rb)))
#define si_roti(ra, imm) __si_q(spu_rl(__si_uw(ra), (int)(imm)))
#define si_rothm(ra, rb) __si_q(spu_rlmask(__si_uh(ra), __si_h(rb)))
#define si_rothmi(ra, imm) __si_q(spu_rlmask(__si_uh(ra), (int)(imm)))
#define si_rotm(ra, rb) __si_q(spu_rlmask(__si_uw(ra), __si_w(rb)))
#define si_rotmi(ra, imm) __si_q(spu_rlmask(__si_uw(ra), (int)(imm)))
#define si_rotmah(ra, rb) __si_q(spu_rlmaska(__si_h(ra), __si_h(rb)))
#define si_rotmahi(ra, imm) __si_q(spu_rlmaska(__si_h(ra), (int)(imm)))
#define si_rotma(ra, rb) __si_q(spu_rlmaska(__si_w(ra), __si_w(rb)))
#define si_rotmai(ra, imm) __si_q(spu_rlmaska(__si_w(ra), (int)(imm)))
#define si_shlqbi(ra, rb) __si_q(spu_slqw(__si_ub(ra), si_to_uint(rb)))
#define si_shlqbii(ra, imm) __si_q(spu_slqw(__si_ub(ra), (unsigned int)(imm)))
#define si_shlqby(ra, rb) __si_q(spu_slqwbyte(__si_ub(ra), si_to_uint(rb)))
#define si_shlqbyi(ra, imm) __si_q(spu_slqwbyte(__si_ub(ra), (unsigned int)(imm)))
#define si_shlqbybi(ra, rb) __si_q(spu_slqwbytebc(__si_ub(ra), si_to_uint(rb)))
#define si_rotqbi(ra, rb) __si_q(spu_rlqw(__si_ub(ra), si_to_int(rb)))
#define si_rotqbii(ra, imm) __si_q(spu_rlqw(__si_ub(ra), (int)(imm)))
#define si_rotqby(ra, rb) __si_q(spu_rlqwbyte(__si_ub(ra), si_to_int(rb)))
#define si_rotqbyi(ra, imm) __si_q(spu_rlqwbyte(__si_ub(ra), (int)(imm)))
#define si_rotqbybi(ra, rb) __si_q(spu_rlqwbytebc(__si_ub(ra), si_to_int(rb)))
#define si_rotqmbi(ra, rb) __si_q(spu_rlmaskqw(__si_ub(ra), si_to_int(rb)))
#define si_rotqmbii(ra, imm) __si_q(spu_rlmaskqw(__si_ub(ra), (int)(imm)))
#define si_rotqmby(ra, rb) __si_q(spu_rlmaskqwbyte(__si_ub(ra), si_to_int(rb)))
#define si_rotqmbyi(ra, imm) __si_q(spu_rlmaskqwbyte(__si_ub(ra), (int)(imm)))
#define si_rotqmbybi(ra, rb) __si_q(spu_rlmaskqwbytebc(__si_ub(ra), si_to_int(rb)))

/* Comparisons. */
#define si_ceqb(ra, rb) __si_q(spu_cmpeq(__si_ub(ra), __si_ub(rb)))
#define si_ceqbi(ra, imm) __si_q(spu_cmpeq(__si_ub(ra), (unsigned char)(imm)))
#define si_ceqh(ra, rb) __si_q(spu_cmpeq(__si_h(ra), __si_h(rb)))
#define si_ceqhi(ra, imm) __si_q(spu_cmpeq(__si_h(ra), (short)__si_i10(imm)))
#define si_ceq(ra, rb) __si_q(spu_cmpeq(__si_w(ra), __si_w(rb)))
#define si_ceqi(ra, imm) __si_q(spu_cmpeq(__si_w(ra), __si_i10(imm)))
#define si_cgtb(ra, rb) __si_q(spu_cmpgt(__si_b(ra), __si_b(rb)))
#define si_cgtbi(ra, imm) __si_q(spu_cmpgt(__si_b(ra), (signed char)(imm)))
#define si_cgth(ra, rb) __si_q(spu_cmpgt(__si_h(ra), __si_h(rb)))
#define si_cgthi(ra, imm) __si_q(spu_cmpgt(__si_h(ra), (short)__si_i10(imm)))
#define si_cgt(ra, rb) __si_q(spu_cmpgt(__si_w(ra), __si_w(rb)))
#define si_cgti(ra, imm) __si_q(spu_cmpgt(__si_w(ra), __si_i10(imm)))
#define si_clgtb(ra, rb) __si_q(spu_cmpgt(__si_ub(ra), __si_ub(rb)))
#define si_clgtbi(ra, imm) __si_q(spu_cmpgt(__si_ub(ra), (unsigned char)(imm)))
#define si_clgth(ra, rb) __si_q(spu_cmpgt(__si_uh(ra), __si_uh(rb)))
#define si_clgthi(ra, imm) __si_q(spu_cmpgt(__si_uh(ra), (unsigned short)__si_i10(imm)))
#define si_clgt(ra, rb) __si_q(spu_cmpgt(__si_uw(ra), __si_uw(rb)))
#define si_clgti(ra, imm) __si_q(spu_cmpgt(__si_uw(ra), (unsigned int)__si_i10(imm)))
#define si_fceq(ra, rb) __si_q(spu_cmpeq(__si_f(ra), __si_f(rb)))
#define si_fcmeq(ra, rb) __si_q(spu_cmpabseq(__si_f(ra), __si_f(rb)))
#define si_fcgt(ra, rb) __si_q(spu_cmpgt(__si_f(ra), __si_f(rb)))
#define si_fcmgt(ra, rb) __si_q(spu_cmpabsgt(__si_f(ra), __si_f(rb)))
#define si_dfceq(ra, rb) __si_q(spu_cmpeq(__si_d(ra), __si_d(rb)))
#define si_dfcmeq(ra, rb) __si_q(spu_cmpabseq(__si_d(ra), __si_d(rb)))
#define si_dfcgt(ra, rb) __si_q(spu_cmpgt(__si_d(ra), __si_d(rb)))
#define si_dfcmgt(ra, rb) __si_q(spu_cmpabsgt(__si_d(ra), __si_d(rb)))
#define si_dftsv(ra, imm) __si_q(spu_testsv(__si_d(ra), (imm)))

/* Floating point: the double multiply-adds take their addend from the third operand. */
#define si_fa(ra, rb) __si_q(spu_add(__si_f(ra), __si_f(rb)))
#define si_fs(ra, rb) __si_q(spu_sub(__si_f(ra), __si_f(rb)))
#define si_fm(ra, rb) __si_q(spu_mul(__si_f(ra), __si_f(rb)))
#define si_fma(ra, rb, rc) __si_q(spu_madd(__si_f(ra), __si_f(rb), __si_f(rc)))
#define si_fms(ra, rb, rc) __si_q(spu_msub(__si_f(ra), __si_f(rb), __si_f(rc)))
#define si_fnms(ra, rb, rc) __si_q(spu_nmsub(__si_f(ra), __si_f(rb), __si_f(rc)))
#define si_dfa(ra, rb) __si_q(spu_add(__si_d(ra), __si_d(rb)))
#define si_dfs(ra, rb) __si_q(spu_sub(__si_d(ra), __si_d(rb)))
#define si_dfm(ra, rb) __si_q(spu_mul(__si_d(ra), __si_d(rb)))
#define si_dfma(ra, rb, rt) __si_q(spu_madd(__si_d(ra), __si_d(rb), __si_d(rt)))
#define si_dfms(ra, rb, rt) __si_q(spu_msub(__si_d(ra), __si_d(rb), __si_d(rt)))
#define si_dfnms(ra, rb, rt) __si_q(spu_nmsub(__si_d(ra), __si_d(rb), __si_d(rt)))
#define si_dfnma(ra, rb, rt) __si_q(spu_nmadd(__si_d(ra), __si_d(rb), __si_d(rt)))
#define si_frest(ra) __si_q(spu_re(__si_f(ra)))
#define si_frsqest(ra) __si_q(spu_rsqrte(__si_f(ra)))
#define si_fi(ra, rb) ((void)(ra), __si_q(rb))
#define si_csflt(ra, imm) __si_q(spu_convtf(__si_w(ra), (imm)))
#define si_cuflt(ra, imm) __si_q(spu_convtf(__si_uw(ra), (imm)))
#define si_cflts(ra, imm) __si_q(spu_convts(__si_f(ra), (imm)))
#define si_cfltu(ra, imm) __si_q(spu_convtu(__si_f(ra), (imm)))
#define si_frds(ra) __si_q(spu_roundtf(__si_d(ra)))
#define si_fesd(ra) __si_q(spu_extend(__si_f(ra)))

/* No-ops and barriers (control.h's). */
#define si_nop() ((void)0)
#define si_lnop() ((void)0)
#define si_sync() spu_sync()
#define si_syncc() spu_sync_c()
#define si_dsync() spu_dsync()

#endif
