"""The Cell SDK's compilers, under their own names: `cellblade spu-gcc`, `ppu-gcc`, ...

Neither the PPE's nor the SPU's GCC is packaged any more, so both sides are built by Debian's
PowerPC cross compilers and run under qemu-user (``sdk/README.md`` says why):

- PPE programs are PowerPC programs, as on the blade: 64-bit by default as ``ppu-gcc``, 32-bit
  with ``-m32`` or as ``ppu32-gcc`` (the SDK's make.footer builds ``PROGRAM_ppu`` so), with VMX
  (AltiVec), big-endian, linked statically so that qemu-user needs no PowerPC system beside them.
- SPE programs are 32-bit big-endian PowerPC programs whose data, heap and stack live at
  local-store addresses 0 to 256 KB (``sdk/spu/start.c``): their data is linked at
  :data:`LS_DATA_AT`, their ``main`` is reached through ``--wrap=main`` so that it runs on a
  local-store stack with the SPE's start registers (and ``exit`` through ``--wrap=exit``, the SPU's
  stop), and a program whose data leaves less than
  :data:`SPU_MIN_STACK` of local store is refused at link time, naming the sizes, as the SPU
  linker refused a program that overflowed local store. ``__SPU__`` is defined, as spu-gcc did.

The SDK sources (``sdk/``) are compiled on first use for each compiler into the cache
(``cellblade.c_library``).
"""

from __future__ import annotations

import hashlib
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cellblade import c_library

PACKAGE = Path(__file__).resolve().parent
# A source checkout's sdk/ (python/cellblade/sdk is three levels below the top), then the copy
# the build installs into the package (scripts/build-extension.sh).
_SDK_ROOTS = (PACKAGE.parents[2] / "sdk", PACKAGE / "sdk")

# sdk/spu/spu_layout.h's numbers.
LS_BYTES = 0x40000
LS_DATA_AT = 0x1000
SPU_MIN_STACK = 0x4000

# Flags that stop before linking: no library to add, nothing to check.
_NO_LINK = {"-c", "-E", "-S", "-M", "-MM"}


@dataclass(frozen=True)
class Target:
    """One kind of program the tools build: its cross compiler's prefix, the processor it is
    compiled for and the qemu-user command and CPU that run it."""

    prefix: str
    cpu_flags: tuple[str, ...]
    qemu: str
    qemu_cpu: str


# The SPE side and a 32-bit PPE program run on a G4 (the 7450: 32-bit, AltiVec, as the PPE's
# VMX); a 64-bit PPE program on a 970, the 64-bit processor of the PPE's generation with VMX.
PPC32 = Target("powerpc-linux-gnu-", ("-mcpu=7450", "-maltivec"), "qemu-ppc", "G4")
PPC64 = Target("powerpc64-linux-gnu-", ("-mcpu=970", "-maltivec"), "qemu-ppc64", "970")


@dataclass(frozen=True)
class Tool:
    """A command of the SDK: which side it builds for and which language's driver it is."""

    side: str  # "spu" or "ppu"
    language: str  # "gcc", "g++", "ar", or "embedspu" (an SPE executable as a PPE object)
    bits: int | None  # None: -m32/-m64 decide (ppu-gcc), 64 when neither is given


TOOLS = {
    "spu-gcc": Tool("spu", "gcc", 32),
    "spu-g++": Tool("spu", "g++", 32),
    "ppu-gcc": Tool("ppu", "gcc", None),
    "ppu-g++": Tool("ppu", "g++", None),
    "ppu32-gcc": Tool("ppu", "gcc", 32),
    "ppu32-g++": Tool("ppu", "g++", 32),
    "ppu-embedspu": Tool("ppu", "embedspu", None),
    "ppu32-embedspu": Tool("ppu", "embedspu", 32),
    "embedspu": Tool("ppu", "embedspu", None),
    "ppu-ar": Tool("ppu", "ar", 64),
    "spu-ar": Tool("spu", "ar", 32),
}


class ToolError(Exception):
    """What a tool refused, said for the user (no backtrace)."""


def sdk_root() -> Path:
    return c_library.source_root("the Cell SDK sources", _SDK_ROOTS, "spu/start.c")


def _bits(tool: Tool, args: list[str]) -> int:
    if tool.bits is not None:
        if tool.side == "spu" and "-m64" in args:
            raise ToolError(
                "-m64: not for an SPE program, which is 32-bit (its addresses are local-store ones)"
            )
        return tool.bits
    chosen = [a for a in args if a in ("-m32", "-m64")]
    return 32 if chosen and chosen[-1] == "-m32" else 64


def target_of(tool: Tool, args: list[str]) -> Target:
    return PPC32 if _bits(tool, args) == 32 else PPC64


def _executable(target: Target, language: str) -> str:
    name = target.prefix + language
    if shutil.which(name) is None:
        raise ToolError(
            f"{name} is not installed: the Cell SDK tools need Debian's PowerPC cross "
            "compilers and qemu-user (`make sdk-tools` installs them, as root)"
        )
    return name


def _library(target: Target, side: str, archive: str) -> Path:
    """The cache directory holding a side's library (sdk/spu or sdk/ppu with sdk/common)."""
    root = sdk_root()
    return c_library.archive_dir(
        f"the {side.upper()} library",
        root,
        (side, "common"),
        [
            _executable(target, "gcc"),
            *target.cpu_flags,
            "-O2",
            "-Wall",
            "-I",
            str(root / side),
            "-I",
            str(root / "include"),
        ],
        target.prefix + "ar",
        archive,
    )


def command(name: str, args: list[str]) -> list[str]:
    """The cross-compiler command `cellblade NAME ARGS` runs."""
    tool = TOOLS[name]
    target = target_of(tool, args)
    own = [a for a in args if a not in ("-m32", "-m64")]
    if tool.language == "ar":
        return [_executable(target, "ar"), *own]
    if tool.language == "embedspu":
        return embed_command(target, own)
    root = sdk_root()
    # -flax-vector-conversions: the GCC of the SDK's time (4.1) converted between vector types
    # of one size silently, as `vector unsigned int m = vec_cmpgt(a, b)` (a vector bool int)
    # in Sony's tutorial relies on; today's refuses without it.
    head = [
        _executable(target, tool.language),
        *target.cpu_flags,
        "-flax-vector-conversions",
        "-I",
        str(root / "include"),
    ]
    if tool.side == "spu":
        # The SDK's spu-gcc (GCC 4.1) unrolled no loop at -O2 or -O3 unless told to; today's
        # PowerPC back end unrolls small loops from -O2 on, which would price an SPE loop as
        # code spu-gcc never made (a reduction's combine loop: 10 cycles a quadword, not 11).
        # A build's own -funroll-loops comes later and still unrolls.
        head += ["-D__SPU__", "-fno-unroll-loops"]
    else:
        head += ["-D__PPU__"]
    if _NO_LINK.intersection(args):
        return head + own
    tail = ["-static", "-Wl,--no-warn-rwx-segments"]
    if tool.side == "spu":
        tail += [
            f"-Wl,-Tdata={LS_DATA_AT:#x}",
            "-Wl,--wrap=main",
            "-Wl,--wrap=exit",
            "-L",
            str(_library(target, "spu", "libcellblade_spu.a")),
            "-lcellblade_spu",
        ]
    else:
        # Where -lspe2 finds libspe2 (sdk/ppu), for the width built.
        tail += ["-L", str(_library(target, "ppu", "libspe2.a"))]
        if "-lspe2" in own:
            # A program's threads, and their waits on mutexes and condition variables, are the
            # simulator's to see (sdk/ppu/threads.c). And the
            # library again after the program's objects: Makefiles of the time name -lspe2
            # before their sources, which a shared libspe2 allowed and a static one does not.
            wrapped = ["create", "join", "mutex_lock", "cond_wait", "cond_signal", "cond_broadcast"]
            tail += [f"-Wl,--wrap=pthread_{name}" for name in wrapped] + ["-lspe2"]
    # An SPE main takes (speid, argp, envp), which GCC's -Wmain (in -Wall) would question.
    return head + own + tail + (["-Wno-main"] if tool.side == "spu" else [])


def embed_command(target: Target, args: list[str]) -> list[str]:
    """`ppu-embedspu SYMBOL SPE-EXECUTABLE OBJECT`: the PPE object that holds the SPE executable
    and defines ``spe_program_handle_t SYMBOL`` for spe_program_load. The compiler builds it from
    a source in the cache naming the executable (.incbin), so the bytes are not copied twice."""
    flags = [a for a in args if a.startswith("-")]
    words = [a for a in args if not a.startswith("-")]
    if len(words) != 3:
        raise ToolError(
            f"{len(words)} arguments besides flags: ppu-embedspu takes SYMBOL SPE-EXECUTABLE OBJECT"
        )
    symbol, executable, output = words
    if not symbol.isidentifier() or not symbol.isascii():
        raise ToolError(f"SYMBOL {symbol!r}: not a C identifier")
    spe = Path(executable)
    if not spe.is_file():
        raise ToolError(f"SPE-EXECUTABLE {executable}: no such file")
    if spe.read_bytes()[:6] != b"\x7fELF\x01\x02":
        raise ToolError(
            f"SPE-EXECUTABLE {executable}: not an SPE executable (build it with `cellblade spu-gcc`)"
        )
    quoted = str(spe.resolve()).replace("\\", "\\\\").replace('"', '\\"')
    source = (
        "typedef struct { unsigned int handle_size; void *elf_image; void *toe_shadow; } handle_t;\n"
        f'__asm__(".section .rodata\\n.balign 128\\ncb_embedded_{symbol}:\\n'
        f'.incbin \\"{quoted}\\"\\n.previous");\n'
        f"extern const unsigned char cb_embedded_{symbol}[];\n"
        f"handle_t {symbol} = {{ sizeof(handle_t), (void *)cb_embedded_{symbol}, 0 }};\n"
    )
    folder = c_library.cache_root() / "embedspu"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = folder / f"{symbol}-{digest}.c"
    if not path.exists():
        path.write_text(source)
    return [_executable(target, "gcc"), *target.cpu_flags, *flags, "-c", str(path), "-o", output]


def output_of(args: list[str]) -> Path:
    """The file a linking command writes (-o, else a.out)."""
    for i, a in enumerate(args):
        if a == "-o" and i + 1 < len(args):
            return Path(args[i + 1])
        if a.startswith("-o") and len(a) > 2:
            return Path(a[2:])
    return Path("a.out")


def local_store_bytes(elf: Path) -> int:
    """The bytes of local store a linked SPE program's data and bss take, from address 0: the
    end of the highest segment loaded below :data:`LS_BYTES`."""
    data = elf.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 2:
        raise ToolError(f"{elf}: not a 32-bit big-endian ELF file (an SPE program)")
    (phoff,) = struct.unpack_from(">I", data, 28)
    phentsize, phnum = struct.unpack_from(">HH", data, 42)
    end = 0
    for i in range(phnum):
        kind, _, vaddr, _, _, memsz = struct.unpack_from(">IIIIII", data, phoff + i * phentsize)
        if kind == 1 and vaddr < LS_BYTES:  # PT_LOAD in local store
            end = max(end, vaddr + memsz)
    return end


def check_fits(elf: Path) -> None:
    """Refuse (and remove) an SPE program that leaves less than the least stack in local store."""
    used = local_store_bytes(elf)
    if used + SPU_MIN_STACK > LS_BYTES:
        elf.unlink()
        raise ToolError(
            f"{elf}: the program does not fit in local store: {used} bytes of data and bss "
            f"(from address 0) and at least {SPU_MIN_STACK} of stack, in {LS_BYTES} bytes"
        )


def build_pair(
    folder: Path,
    spe_source: str | Path,
    ppe_source: str | Path,
    ppe_flags: tuple[str, ...] = ("-m32",),
) -> None:
    """Build an SDK program's two sides in `folder`, as a user would with `cellblade spu-gcc`
    and `cellblade ppu-gcc`: ``spe.elf`` from `spe_source` and ``ppe.elf`` from `ppe_source`
    (with `ppe_flags`, -m32 or -m64, and -lspe2), both at -O2 -Wall; sources relative to
    `folder`. Raises ToolError naming the side that failed and the compiler's message."""
    for name, source, output, extra in (
        ("spu-gcc", spe_source, "spe.elf", []),
        ("ppu-gcc", ppe_source, "ppe.elf", [*ppe_flags, "-lspe2"]),
    ):
        args = ["-O2", "-Wall", str(source), "-o", output, *extra]
        done = subprocess.run(command(name, args), cwd=folder, capture_output=True, text=True)
        if done.returncode == 0 and TOOLS[name].side == "spu":
            check_fits(Path(folder) / output)
        if done.returncode != 0:
            raise ToolError(f"building {source} with {name} failed: {done.stderr.strip()}")


def elfspe() -> Path:
    """The PPE program that runs an SPE executable alone (sdk/elfspe/elfspe.c, `cellblade run
    --spe`), built with ppu32-gcc into the cache on first use, again when its source or the PPE
    library changes."""
    root = sdk_root()
    source = root / "elfspe" / "elfspe.c"
    library = _library(PPC32, "ppu", "libspe2.a")
    digest = hashlib.sha256(source.read_bytes() + str(library).encode()).hexdigest()[:16]
    built = c_library.cache_root() / f"elfspe-{digest}" / "elfspe.elf"
    if built.exists():
        return built
    built.parent.mkdir(parents=True, exist_ok=True)
    partial = built.with_suffix(".partial")
    done = subprocess.run(
        command("ppu32-gcc", ["-O2", "-Wall", str(source), "-o", str(partial), "-lspe2"]),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise ToolError(f"building cellblade's elfspe failed: {done.stderr.strip()}")
    partial.replace(built)
    return built


def is_spe_executable(elf: Path) -> bool:
    """Whether `elf` is an SPE executable as `cellblade spu-gcc` links one: a 32-bit big-endian
    ELF file with a segment loaded in local store (a PPE executable has none below 256 KB)."""
    try:
        return local_store_bytes(elf) > 0
    except (ToolError, struct.error):
        return False


def run(name: str, args: list[str]) -> int:
    """Compile (and link) like the SDK's tool ``name``; the compiler's exit code."""
    done = subprocess.run(command(name, args))
    tool = TOOLS[name]
    if (
        done.returncode == 0
        and (tool.side, tool.language) in (("spu", "gcc"), ("spu", "g++"))
        and not _NO_LINK.intersection(args)
    ):
        check_fits(output_of(args))
    return done.returncode
