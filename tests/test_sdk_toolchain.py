"""The Cell SDK's compilers (`cellblade spu-gcc`, `ppu-gcc`, ...) and how an SPE program
starts (sdk/spu/start.c): big-endian, 32-bit SPE code with its data and stack in a local store
at addresses 0 to 256 KB that the launcher passes as a file, the SPE's start registers in main,
and a program too large for local store refused at link time."""

from __future__ import annotations

import mmap
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cellblade.sdk import toolchain

pytestmark = pytest.mark.skipif(
    not all(
        shutil.which(t) for t in ("powerpc-linux-gnu-gcc", "powerpc64-linux-gnu-gcc", "qemu-ppc")
    ),
    reason="the PowerPC cross compilers and qemu-user are not installed (make sdk-tools)",
)

SPE_PROGRAM = r"""
#include <stdio.h>
int global = 0x5eed;
union split { unsigned long long ull; unsigned int ui[2]; };
int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    float on_stack[4] __attribute__((aligned(16))) = {1, 2, 3, 4};
    union split s = { .ull = argp };
    printf("speid=%llx argp=%llx envp=%llx\n", speid, argp, envp);
    printf("global=%#x stack=%#x high=%#x pointer=%u\n", (unsigned)&global,
           (unsigned)on_stack, s.ui[0], (unsigned)sizeof(void *));
    global = 0x600d;
    return 42;
}
"""


def _tool(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cellblade", name, *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def spe_program(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("spe")
    (folder / "prog.c").write_text(SPE_PROGRAM)
    built = _tool("spu-gcc", "-O2", "-Wall", "prog.c", "-o", "prog.elf", cwd=folder)
    assert built.returncode == 0, built.stderr
    assert built.stderr == ""  # -Wall says nothing of main's SPE signature
    return folder / "prog.elf"


def test_spe_program_runs_in_the_local_store_it_is_given(spe_program):
    ls = os.memfd_create("local-store")
    os.ftruncate(ls, toolchain.LS_BYTES)
    env = {
        **os.environ,
        "CELLBLADE_LS_FD": str(ls),
        "CELLBLADE_SPE_ARGS": "3,0x1122334455667788,0x10",
    }
    done = subprocess.run(
        ["qemu-ppc", "-cpu", "G4", str(spe_program)],
        env=env,
        pass_fds=[ls],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 42, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "speid=3 argp=1122334455667788 envp=10"
    fields = dict(re.findall(r"(\w+)=(0x[0-9a-f]+|\d+)", lines[1]))
    assert fields["high"] == "0x11223344"  # big-endian: the high word first
    assert fields["pointer"] == "4"
    global_at, stack_at = int(fields["global"], 16), int(fields["stack"], 16)
    assert toolchain.LS_DATA_AT <= global_at < toolchain.LS_BYTES
    # The stack is at the top of local store, growing down, as on the SPU.
    assert toolchain.LS_BYTES - 4096 < stack_at < toolchain.LS_BYTES
    with mmap.mmap(ls, toolchain.LS_BYTES) as store:
        assert store[global_at : global_at + 4] == (0x600D).to_bytes(4, "big")
        assert store[stack_at : stack_at + 16] == bytes.fromhex(
            "3f800000400000004040000040800000"
        )  # 1.0f, 2.0f, 3.0f, 4.0f, big-endian, in the launcher's local store
    os.close(ls)


def test_spe_program_started_by_hand_has_a_local_store_of_its_own(spe_program):
    done = subprocess.run(
        ["qemu-ppc", "-cpu", "G4", str(spe_program)], capture_output=True, text=True
    )
    assert done.returncode == 42, done.stderr
    assert done.stdout.startswith("speid=0 argp=0 envp=0\n")


def test_bad_start_registers_are_refused_by_name(spe_program):
    env = {**os.environ, "CELLBLADE_SPE_ARGS": "3,nine,0"}
    done = subprocess.run(
        ["qemu-ppc", "-cpu", "G4", str(spe_program)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 126
    assert (
        "CELLBLADE_SPE_ARGS is not three or four numbers speid,argp,envp[,r4-rest]: 3,nine,0"
        in done.stderr
    )


def test_a_program_too_large_for_local_store_is_refused_naming_the_sizes(tmp_path):
    (tmp_path / "big.c").write_text("char big[250000];\nint main(void) { return big[7]; }\n")
    done = _tool("spu-gcc", "big.c", "-o", "big.elf", cwd=tmp_path)
    assert done.returncode == 2
    assert "big.elf: the program does not fit in local store:" in done.stderr
    assert "of data and bss (from address 0) and at least 16384 of stack, in 262144 bytes" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "big.elf").exists()


@pytest.mark.parametrize(
    ("tool", "flags", "qemu", "pointer"),
    [
        ("ppu-gcc", [], ["qemu-ppc64", "-cpu", "970"], 8),
        ("ppu-gcc", ["-m32"], ["qemu-ppc", "-cpu", "G4"], 4),
        ("ppu32-gcc", [], ["qemu-ppc", "-cpu", "G4"], 4),
        ("ppu-g++", ["-m64"], ["qemu-ppc64", "-cpu", "970"], 8),
    ],
)
def test_ppe_programs_are_big_endian_with_the_chosen_width(tmp_path, tool, flags, qemu, pointer):
    source = "prog.cpp" if "++" in tool else "prog.c"
    (tmp_path / source).write_text(
        "#include <stdio.h>\n"
        "int main(void) { union { unsigned long long u; unsigned int w[2]; } s = { 1ull << 32 };\n"
        '  printf("%u %u ppu=%d\\n", s.w[0], (unsigned)sizeof(void *), __PPU__); return 0; }\n'
    )
    built = _tool(tool, *flags, "-O2", source, "-o", "prog", cwd=tmp_path)
    if built.returncode != 0 and "is not installed" in built.stderr:
        pytest.skip(built.stderr.strip())
    assert built.returncode == 0, built.stderr
    done = subprocess.run([*qemu, str(tmp_path / "prog")], capture_output=True, text=True)
    assert done.stdout == f"1 {pointer} ppu=1\n"


def test_spu_gcc_refuses_64_bits_and_an_empty_command(tmp_path):
    done = _tool("spu-gcc", "-m64", "x.c", cwd=tmp_path)
    assert done.returncode == 2
    assert "-m64: not for an SPE program, which is 32-bit" in done.stderr
    done = _tool("spu-gcc", cwd=tmp_path)
    assert done.returncode == 2
    assert "COMPILER-ARGUMENTS: none given" in done.stderr


def test_show_prints_the_cross_compiler_command(tmp_path):
    done = _tool("spu-gcc", "--show", "-O2", "a.c", "-o", "a", cwd=tmp_path)
    assert done.returncode == 0
    words = done.stdout.split()
    assert words[0] == "powerpc-linux-gnu-gcc"
    assert "-Wl,--wrap=main" in words and "-D__SPU__" in words
    assert f"-Wl,-Tdata={toolchain.LS_DATA_AT:#x}" in words
