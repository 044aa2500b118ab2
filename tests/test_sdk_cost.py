"""The SPU cost plugin (sdk/cost/): a qemu TCG plugin that prices the PowerPC code of an SPE
program in SPU cycles. Its decoder's class of hand-assembled instruction words and its block
schedule (through ctypes on the decoder alone), its table taken from the machine file's
[spu_cost] (the one source: the plugin has no numbers of its own), and kernels run under
`qemu-ppc -cpu G4 -plugin` with no simulator: the count is the same on every run,
grows linearly with a loop's trip count at the per-iteration cost counted by hand from the
kernel's disassembly, and gives the SPU's flop rates."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from cellblade.sdk.cost import plugin_args

TOP = Path(__file__).resolve().parents[1]
COST = TOP / "sdk" / "cost"
KERNELS = COST / "kernels"
# The cost table the simulator passes the plugin: the qs20 preset's.
TABLE = tomllib.loads((TOP / "machines" / "qs20.toml").read_text())["spu_cost"]
ARGS = plugin_args(TABLE)

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("gcc", "powerpc-linux-gnu-gcc", "qemu-ppc")),
    reason="the host gcc, the PowerPC cross compiler or qemu-user is missing (make sdk-tools)",
)

CFLAGS = ["-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cost")
    sources = [str(COST / "spu_cost_plugin.c"), str(COST / "spu_cost.c")]
    subprocess.run(
        ["gcc", *CFLAGS, "-fvisibility=hidden", "-o", folder / "plugin.so", *sources], check=True
    )
    subprocess.run(["gcc", *CFLAGS, "-o", folder / "decoder.so", sources[1]], check=True)
    return folder


@pytest.fixture(scope="module")
def decoder(built):
    lib = ctypes.CDLL(str(built / "decoder.so"))
    lib.spu_cost_class.argtypes = [ctypes.c_uint32]
    lib.spu_cost_block.argtypes = [ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint, ctypes.c_int]
    lib.spu_cost_block.restype = ctypes.c_uint64
    lib.spu_cost_set.argtypes = [ctypes.c_char_p]
    for arg in ARGS.split(","):
        assert lib.spu_cost_set(arg.encode()) >= 0, arg
    return lib


def class_names(lib) -> list[str]:
    names = ctypes.c_char_p * 16
    return [n.decode() for n in names.in_dll(lib, "spu_class_names")]


# Hand-assembled PowerPC words (from the Power ISA encodings; the kernels' disassembly checks a
# few of them) and the SPU class each must price as.
WORDS = {
    0x38630001: "fx",  # addi r3,r3,1
    0x7C642A14: "fx",  # add r3,r4,r5
    0x7C032000: "fx",  # cmpw cr0,r3,r4
    0xFC201090: "fx",  # fmr f1,f2
    0x10011080: "fx",  # vadduwm v0,v1,v2
    0x5483103A: "ws",  # rlwinm r3,r4,2,0,29
    0x7C832830: "ws",  # slw r3,r4,r5
    0x10011184: "ws",  # vslw v0,v1,v2
    0x100110EB: "sh",  # vperm v0,v1,v2,v3
    0x1000088C: "sh",  # vspltw v0,v1,0
    0xEC0C002A: "sp",  # fadds f0,f12,f0
    0x1007302E: "sp",  # vmaddfp v0,v7,v0,v6
    0x1000380A: "sp",  # vaddfp v0,v0,v7
    0x100114C6: "sp",  # vcmpeqfp. v0,v1,v2
    0xFC201018: "fi",  # frsp f1,f2
    0x10000BCA: "fi",  # vctsxs v0,v1,0
    0xFC08483A: "dp",  # fmadd f0,f8,f0,f9
    0xFC22182A: "dp",  # fadd f1,f2,f3
    0x7C6429D6: "imul",  # mullw r3,r4,r5
    0x7C642BD6: "idiv",  # divw r3,r4,r5
    0xEC221824: "fdiv",  # fdivs f1,f2,f3
    0x7C0048CE: "lq",  # lvx v0,0,r9
    0x7C2849CE: "sq",  # stvx v1,r8,r9
    0x80640000: "load_scalar",  # lwz r3,0(r4)
    0x88640000: "load_scalar",  # lbz r3,0(r4)
    0xC0240000: "load_scalar",  # lfs f1,0(r4)
    0x7C64282E: "load_scalar",  # lwzx r3,r4,r5
    0x90640000: "store_scalar",  # stw r3,0(r4)
    0xB0640000: "store_scalar",  # sth r3,0(r4)
    0xD8240000: "store_scalar",  # stfd f1,0(r4)
    0x48000008: "branch",  # b .+8
    0x4200FFE0: "branch",  # bdnz .-32
    0x4E800020: "branch_indirect",  # blr
    0x4E800421: "branch_indirect",  # bctrl
    0x7C0004AC: "nop",  # sync
}


@pytest.mark.parametrize("word", WORDS, ids=[f"{w:08x}-{c}" for w, c in WORDS.items()])
def test_each_instruction_word_is_priced_as_its_spu_class(decoder, word):
    assert class_names(decoder)[decoder.spu_cost_class(word)] == WORDS[word]


def block(lib, words: list[int], loop: bool = False) -> int:
    array = (ctypes.c_uint32 * len(words))(*words)
    return lib.spu_cost_block(array, len(words), int(loop))


FADDS_F0 = 0xEC0C002A  # fadds f0,f12,f0: each needs the one before
BDNZ_BACK = 0x4200FFE0


def test_a_block_is_scheduled_in_order_on_two_pipes_with_latencies(decoder):
    # A dependent chain: each add waits 6 cycles for the one before, the last issues at 42.
    assert block(decoder, [FADDS_F0] * 8) == 7 * 6 + 1
    # Independent vector adds issue one per cycle; a quadword load pairs with each (odd pipe).
    vadds = [0x1000F80A | (r << 21) for r in range(1, 9)]  # vaddfp vR,v0,v31
    assert block(decoder, vadds) == 8
    lvx = [0x7C0048CE | (r << 21) for r in range(10, 18)]  # lvx vR,0,r9
    assert block(decoder, [w for pair in zip(vadds, lvx) for w in pair]) == 8
    # A DP operation keeps both pipes idle 6 cycles: one every 7.
    fmadds = [0xFC08483A | (r << 21) for r in range(1, 5)]  # fmadd fR,f8,f0,f9
    assert block(decoder, fmadds) == 4 * 7
    # A return pays the unhinted taken-branch penalty.
    assert block(decoder, [0x4E800020]) == 1 + 18


def test_a_one_block_loop_is_priced_in_its_steady_state(decoder):
    # fadds f0,f0,f12 round a loop: the chain is carried, 6 cycles per add, as in one pass.
    assert block(decoder, [FADDS_F0] * 8 + [BDNZ_BACK], loop=True) == 8 * 6
    # Two independent vector FMAs per iteration: their own results come back 6 cycles later.
    fmas = [0x1007302E | (r << 21) | (r << 6) for r in (1, 2)]  # vmaddfp vR,v7,vR,v6
    assert block(decoder, fmas + [BDNZ_BACK], loop=False) == 2
    assert block(decoder, fmas + [BDNZ_BACK], loop=True) == 6
    # One DP multiply-add carried round the loop: its 13-cycle latency, not its 7 issue cycles.
    fmadd_f0 = 0xFC08483A  # fmadd f0,f8,f0,f9
    assert block(decoder, [fmadd_f0, BDNZ_BACK], loop=False) == 7 + 1
    assert block(decoder, [fmadd_f0, BDNZ_BACK], loop=True) == 13


def test_the_decoder_prices_with_the_machine_files_table_and_refuses_malformed_ones(decoder):
    class Price(ctypes.Structure):
        _fields_ = [(f, ctypes.c_uint32) for f in ("even", "odd", "stall", "latency")]

    names = class_names(decoder)
    prices = (Price * len(names)).in_dll(decoder, "spu_prices")
    in_c = {n: [getattr(p, f) for f, _ in Price._fields_] for n, p in zip(names, prices)}
    assert in_c == TABLE
    assert decoder.spu_cost_set(b"sp=1:0:0") == -2
    assert decoder.spu_cost_set(b"vector=1:0:0:6") == -1
    assert decoder.spu_cost_set(b"counter=/tmp/x") == -1
    # Every key of the section has its source in the machine file.
    section = (TOP / "machines" / "qs20.toml").read_text().split("[spu_cost]")[1]
    for line in section.splitlines():
        if " = [" in line:
            assert "# [" in line, line


def test_the_plugin_refuses_to_start_without_every_class(built):
    image = spe(built, "branchy", 1000)
    without_sp = ",".join(a for a in ARGS.split(",") if not a.startswith("sp="))
    run = subprocess.run(
        ["qemu-ppc", "-cpu", "G4", "-plugin", f"{built / 'plugin.so'},{without_sp}", str(image)],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0
    assert "cellblade-cost: no price for class sp" in run.stderr


def test_a_class_changed_in_the_table_changes_the_count(built):
    # sp_chain is 8 dependent fadds round the loop: 6 cycles of SP latency each.
    slower = ARGS.replace("sp=1:0:0:6", "sp=1:0:0:7")
    low, high = (spe(built, "sp_chain", n) for n in (1000, 3000))
    per_iteration = (cycles(built, high, table=slower) - cycles(built, low, table=slower)) / 2000
    assert per_iteration == 8 * 7


def spe(built: Path, kernel: str, n: int, *flags: str) -> Path:
    image = built / f"{kernel}-{n}"
    if not image.exists():
        subprocess.run(
            [sys.executable, "-m", "cellblade", "spu-gcc", "-O2", f"-DN={n}", *flags]
            + [str(KERNELS / f"{kernel}.c"), "-o", str(image)],
            check=True,
        )
    return image


def cycles(built: Path, image: Path, *args: str, table: str = ARGS) -> int:
    plugin = ",".join([str(built / "plugin.so"), *args, table])
    run = subprocess.run(
        ["qemu-ppc", "-cpu", "G4", "-plugin", plugin, str(image)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("cellblade-cost: ") and last.endswith(" cycles"), run.stderr
    return int(last.split()[1])


def test_the_count_is_the_same_on_every_run_and_in_the_counter_file(built, tmp_path):
    image = spe(built, "branchy", 1000)
    counts = {cycles(built, image) for _ in range(3)}
    assert len(counts) == 1
    counter = tmp_path / "counter"
    plugin = f"{built / 'plugin.so'},counter={counter},{ARGS}"
    run = subprocess.run(["qemu-ppc", "-cpu", "G4", "-plugin", plugin, str(image)], check=True)
    assert run.returncode == 0
    assert int.from_bytes(counter.read_bytes()[:8], sys.byteorder) == counts.pop()


def test_the_counter_can_be_a_memory_file_the_caller_passes_down(built):
    image = spe(built, "sp_chain", 1000)
    expected = cycles(built, image)
    fd = os.memfd_create("cellblade-cost")
    try:
        plugin = f"{built / 'plugin.so'},fd={fd},{ARGS}"
        run = subprocess.run(
            ["qemu-ppc", "-cpu", "G4", "-plugin", plugin, str(image)],
            pass_fds=(fd,),
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        assert "cellblade-cost" not in run.stderr  # the count went to the counter, not stderr
        assert int.from_bytes(os.pread(fd, 8, 0), sys.byteorder) == expected
    finally:
        os.close(fd)


# Per-iteration SPU cycles of each kernel's loop, counted by hand from
# `powerpc-linux-gnu-objdump -d` of its build (the loop is one block ending in bdnz, which
# pairs with the last even-pipe instruction or issues one cycle after a DP stall):
HAND = {
    # 8 independent vmaddfp, one per cycle on the even pipe; each waits on its own result of
    # the iteration before, 8 >= 6 cycles earlier: 8 cycles for 64 flops.
    "sp_madd": 8,
    # 4 fmadd, 7 issue cycles each (1 + 6 stalled), the bdnz after the last stall: 29.
    "dp_madd": 29,
    # 8 fadds each needing the one before, 6 cycles apart, round the loop too: 48.
    "sp_chain": 48,
    # 8 independent vaddfp: 8 cycles for 32 flops.
    "sp_vadd": 8,
    # lwz (odd 2) and lwzu (odd 2) load-rotates, add waits for the second (t+2+10), stwu
    # (odd 3) waits for the add (t+14) and updates the address the next lwz needs (t+16),
    # bdnz on the odd pipe at t+17: the next lwz at t+18.
    "scalar_sum": 18,
}
FLOPS = {"sp_madd": 64, "dp_madd": 8, "sp_chain": 8, "sp_vadd": 32}


def slope(built: Path, kernel: str) -> float:
    low, high = (cycles(built, spe(built, kernel, n)) for n in (1000, 3000))
    return (high - low) / 2000


@pytest.mark.parametrize("kernel", HAND)
def test_a_loop_costs_its_trip_count_times_the_hand_counted_iteration(built, kernel):
    assert slope(built, kernel) == HAND[kernel]


def test_the_flop_rates_are_the_spus(built):
    rate = {k: FLOPS[k] / slope(built, k) for k in FLOPS}
    # 4-wide single-precision FMA, one per cycle: 8 flops per cycle.
    assert rate["sp_madd"] == 8
    # Scalar DP fmadd (PowerPC has no DP vectors): 2 flops per 7 cycles where the SPU's
    # 2-wide dfma gives 4; 29 cycles for 4 of them with the loop branch.
    assert rate["dp_madd"] * 7 == pytest.approx(2 * 28 / 29)
    # A dependent chain of scalar adds: one flop per 6 cycles, 24 times slower per flop than
    # independent vector adds (4 flops per cycle).
    assert rate["sp_vadd"] == 4 and rate["sp_chain"] == 1 / 6


def test_an_intrinsic_is_priced_as_the_spu_instruction_it_is(built):
    # sp_madd_intrinsic: 8 spu_madd an iteration, each emulated in software (about 90 cycles of
    # PowerPC code apiece, 728 an iteration before the markers) between the header's markers.
    def per_iteration(table: str) -> float:
        low, high = (spe(built, "sp_madd_intrinsic", n) for n in (1000, 3000))
        return (cycles(built, high, table=table) - cycles(built, low, table=table)) / 2000

    plain = per_iteration(ARGS)
    # Each marked region is issued as one SP instruction: one more issue cycle for the class
    # adds exactly 8 an iteration, whatever the emulation runs.
    assert per_iteration(ARGS.replace("sp=1:0:0:6", "sp=2:0:0:6")) - plain == 8
    # 8 fmas, one a cycle on the even pipe, and the loop's addic. (even): 9 with gcc 12. The
    # PowerPC's copies of the operands into the emulation's argument registers and of its
    # result out of v2 (13 vor an iteration, which made it 21) are the call's, not the SPU's:
    # the plugin folds them into the schedule as renamings. sp_madd's plain vector code is 8.
    assert plain == 9


def test_a_chain_of_intrinsics_waits_for_each_result(built):
    # sp_chain_intrinsic: 8 spu_madd an iteration, each on the one before: the region's result
    # register is ready the SP latency after it issues, and the next region's source waits.
    def per_iteration(table: str) -> float:
        low, high = (spe(built, "sp_chain_intrinsic", n) for n in (1000, 3000))
        return (cycles(built, high, table=table) - cycles(built, low, table=table)) / 2000

    assert per_iteration(ARGS) == 8 * 6
    assert per_iteration(ARGS.replace("sp=1:0:0:6", "sp=1:0:0:9")) == 8 * 9


def test_a_double_precision_intrinsic_is_priced_as_one_dfma(built):
    # dp_madd_intrinsic: 4 spu_madd on vector doubles an iteration, two PowerPC fmadd each
    # (305 cycles an iteration unmarked, with the vector doubles' moves through memory).
    def per_iteration(table: str) -> float:
        low, high = (spe(built, "dp_madd_intrinsic", n) for n in (1000, 3000))
        return (cycles(built, high, table=table) - cycles(built, low, table=table)) / 2000

    plain = per_iteration(ARGS)
    # Each is one DP instruction (1 issue + 6 stall), scheduled as one: one more stall cycle
    # adds 4 an iteration (a second issue cycle would lie inside the stall and add nothing, as
    # for a plain fmadd).
    assert per_iteration(ARGS.replace("dp=1:0:6:13", "dp=1:0:7:13")) - plain == 4
    # 4 x 7 for the dfmas and the moves of the operands and results through memory around the
    # marks (71 with gcc 12; their registers are memory, so no latency is tracked): within three
    # times the SPU's 28.
    assert 28 <= plain <= 3 * 28


# Each marked family in intrinsic_family.c: eight applications an iteration, two after each
# other on each of four vectors, so an iteration is the larger of the eight issues (and the
# loop's addic.: 9) and the chain of two (twice the class's latency). The class, from gcc's SPU
# machine description (spu.md) and the SDK tutorial's Table 1, and the count with the qs20 table:
FAMILIES = {
    # fceq, fcgt, fcmeq, fcmgt: simple fixed point (spu.md fx2), 2-cycle latency
    "cmpgt": ("(vector float)spu_cmpgt(v, m)", "fx", 9),
    "cmpabseq": ("(vector float)spu_cmpabseq(v, m)", "fx", 9),
    # csflt, cflts: floating-point integer (fp7), 7 cycles: the chain of two, 14
    "convtf": ("spu_convtf((vector signed int)v, 0)", "fi", 14),
    "convts": ("(vector float)spu_convts(v, 0)", "fi", 14),
    "convtu": ("(vector float)spu_convtu(v, 0)", "fi", 14),
    # mpyhh, mpy, mpyh: 16-bit multiplies, floating-point integer
    "mule": (
        "(vector float)spu_mule((vector unsigned short)v, (vector unsigned short)m)",
        "fi",
        14,
    ),
    "mulo": ("(vector float)spu_mulo((vector signed short)v, (vector signed short)m)", "fi", 14),
    "mulh": ("(vector float)spu_mulh((vector signed short)v, (vector signed short)m)", "fi", 14),
    # shufb, quadword shifts and rotates, gather: odd pipe (shuf), 4 cycles: 8 issues, 9
    "shuffle": ("spu_shuffle(v, m, p)", "sh", 9),
    "rlqwbyte": ("spu_rlqwbyte(v, 4)", "sh", 9),
    "slqw": ("spu_slqw(v, 3)", "sh", 9),
    "rlmaskqwbyte": ("spu_rlmaskqwbyte(v, -4)", "sh", 9),
    "gather": ("(vector float)spu_gather((vector unsigned int)v)", "sh", 9),
    # cntb, sumb: even pipe, 4 cycles (fxb), priced as the word-shift class (same pipe and
    # latency); clz: simple fixed point (fx2)
    "cntb": ("(vector float)spu_cntb((vector unsigned char)v)", "ws", 9),
    "sumb": ("(vector float)spu_sumb((vector unsigned char)v, (vector unsigned char)m)", "ws", 9),
    "cntlz": ("(vector float)spu_cntlz((vector unsigned int)v)", "fx", 9),
    # absdb, avgb: even pipe, 4 cycles (fxb), as cntb
    "absd": ("(vector float)spu_absd((vector unsigned char)v, (vector unsigned char)m)", "ws", 9),
    "avg": ("(vector float)spu_avg((vector unsigned char)v, (vector unsigned char)m)", "ws", 9),
    # cg, cgx, bg, bgx, addx, sfx, xsbh, xshw: simple fixed point (fx2)
    "genc": ("(vector float)spu_genc((vector unsigned int)v, (vector unsigned int)m)", "fx", 9),
    "genbx": (
        "(vector float)spu_genbx((vector unsigned int)v, (vector unsigned int)m, (vector unsigned int)m)",
        "fx",
        9,
    ),
    "addx": (
        "(vector float)spu_addx((vector signed int)v, (vector signed int)m, (vector signed int)m)",
        "fx",
        9,
    ),
    "extend": ("(vector float)spu_extend((vector signed short)v)", "fx", 9),
    # frest (odd, 4) then fi (even, 7) on its estimate: 11 a link, 22 for the chain of two
    "re": ("spu_re(v)", "sh+fi", 22),
    "rsqrte": ("spu_rsqrte(v)", "sh+fi", 22),
}


def family_slope(built: Path, name: str, table: str = ARGS) -> float:
    counts = []
    for n in (1000, 3000):
        image = built / f"family-{name}-{n}"
        if not image.exists():
            op = FAMILIES[name][0]
            subprocess.run(
                [sys.executable, "-m", "cellblade", "spu-gcc", "-O2", f"-DN={n}"]
                + [f"-DOP(v)={op}", str(KERNELS / "intrinsic_family.c"), "-o", str(image)],
                check=True,
            )
        counts.append(cycles(built, image, table=table))
    return (counts[1] - counts[0]) / 2000


def slower(cls: str, latency: int) -> str:
    """The table with one class's latency raised."""
    even, odd, stall, old = TABLE[cls]
    return ARGS.replace(
        f"{cls}={even}:{odd}:{stall}:{old}", f"{cls}={even}:{odd}:{stall}:{latency}"
    )


@pytest.mark.parametrize("name", FAMILIES)
def test_each_marked_family_costs_its_spu_class(built, name):
    _, cls, expected = FAMILIES[name]
    # About 30 to 600 cycles of PowerPC emulation apiece, charged as the SPU instruction.
    assert family_slope(built, name) == expected
    # The class's latency sets the chain: 20 cycles for the last part of each makes the chain
    # of two 40 (spu_re: frest's 4 and fi's 20, twice: 48).
    last = cls.split("+")[-1]
    chain = 2 * (20 + (TABLE["sh"][3] if "+" in cls else 0))
    assert family_slope(built, name, slower(last, 20)) == max(9, chain)


# The combine loop of a reduction (kernels/reduce_combine.c: the seeds' SIMD-ized add, built at
# -O3 as seed 003 §7 built it) costs, a quadword, what the collectives charge for it: gamma (seed
# 003 §3.1) comes out of the code that reduces, not only out of the machine file.
COMBINE = {
    "vector signed int": "reduce_core_cycles_per_quadword",
    "vector float": "reduce_sp_core_cycles_per_quadword",
}


def combine_cycles(built: Path, element: str, quadwords: int, table: str = ARGS) -> int:
    name = element.replace(" ", "_")
    image = built / f"combine-{name}-{quadwords}"
    if not image.exists():
        subprocess.run(
            [sys.executable, "-m", "cellblade", "spu-gcc", "-O3", f"-DN={quadwords}"]
            + [f"-DTYPE={element}", str(KERNELS / "reduce_combine.c"), "-o", str(image)],
            check=True,
        )
    return cycles(built, image, table=table)


def combine_slope(built: Path, element: str, table: str = ARGS) -> float:
    # Over two spans of 1,000 quadwords, which must agree: between them the arrays outgrow 64 KB
    # and the code before the loop takes one more address instruction (2 cycles, once).
    counts = [combine_cycles(built, element, n, table) for n in (1000, 2000, 3000, 4000)]
    spans = {counts[1] - counts[0], counts[3] - counts[2]}
    assert len(spans) == 1, counts
    return spans.pop() / 1000


@pytest.mark.parametrize("element", COMBINE)
def test_the_reduction_loop_costs_what_the_collectives_charge(built, element):
    spu = tomllib.loads((TOP / "machines" / "qs20.toml").read_text())["spu"]
    assert combine_slope(built, element) == spu[COMBINE[element]]


def test_a_double_precision_combine_is_one_dfa_a_quadword(built):
    # spu_add on vector double is one dfa: a DP issue held one cycle longer costs one cycle more
    # a quadword. The loop costs more than the machine file's 7 (the DP issue interval, a
    # pipelined loop's): this one waits out dfa's latency before its store (guide, "Cell SDK
    # programs", cost table).
    plain = combine_slope(built, "vector double")
    longer = combine_slope(built, "vector double", ARGS.replace("dp=1:0:6:13", "dp=1:0:7:13"))
    assert longer - plain == 1
    assert plain > 7
