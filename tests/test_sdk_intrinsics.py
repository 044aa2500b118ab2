"""The SPU intrinsics (sdk/include/spu_intrinsics.h) against answers worked by hand: each
known-answer program in sdk/tests/ is built as SPE code is, by the 32-bit big-endian PowerPC
cross compiler, at -O0 and -O2 and as C++, runs under qemu-ppc, and prints "No Errors"."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SDK = Path(__file__).parent.parent / "sdk"
PROGRAMS = sorted(path.stem for path in (SDK / "tests").glob("*.c"))
CC = "powerpc-linux-gnu-gcc"  # Debian package gcc-powerpc-linux-gnu
CXX = "powerpc-linux-gnu-g++"  # Debian package g++-powerpc-linux-gnu
QEMU = "qemu-ppc"  # Debian package qemu-user
# -maltivec as SPE code is built: GCC lowers the generic vectors to AltiVec where it can.
FLAGS = ["-static", "-maltivec", "-Wall", "-Wextra", "-Werror", f"-I{SDK / 'include'}"]
VARIANTS = {
    "c-O0": [CC, "-O0"],
    "c-O2": [CC, "-O2"],
    "c++-O2": [CXX, "-x", "c++", "-O2"],
}

pytestmark = pytest.mark.skipif(
    shutil.which(CC) is None or shutil.which(QEMU) is None,
    reason=f"needs {CC} (gcc-powerpc-linux-gnu) and {QEMU} (qemu-user)",
)


def compile_program(compiler: list[str], source: Path, output: Path) -> None:
    if shutil.which(compiler[0]) is None:
        pytest.skip(f"needs {compiler[0]}")
    built = subprocess.run(
        [*compiler, *FLAGS, str(source), "-o", str(output)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr


def test_every_area_has_a_program():
    assert PROGRAMS == [
        "arith",
        "bits",
        "compare_select",
        "convert",
        "logical",
        "quadword",
        "scalar",
        "shift_rotate",
        "shuffle",
        "sp_float",
        "specific",
        "types",
    ]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", PROGRAMS)
def test_known_answers(tmp_path, name, variant):
    program = tmp_path / name
    compile_program(VARIANTS[variant], SDK / "tests" / f"{name}.c", program)
    done = subprocess.run(
        [QEMU, "-cpu", "G4", str(program)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_fast_math_keeps_the_spu_arithmetic(tmp_path):
    """-ffast-math would break the exact steps the SPU's truncation is computed with."""
    program = tmp_path / "arith"
    compile_program([CC, "-O3", "-ffast-math"], SDK / "tests" / "arith.c", program)
    done = subprocess.run(
        [QEMU, "-cpu", "G4", str(program)], capture_output=True, text=True, check=False
    )
    assert done.stdout == "No Errors\n"


@pytest.mark.parametrize(
    "compiler, standard", [(CC, "-std=gnu89"), (CC, "-std=c11"), (CXX, "-std=gnu++98")]
)
def test_the_header_builds_under_older_and_strict_standards(tmp_path, compiler, standard):
    """Cell-era Makefiles may ask for gnu89 (GCC 4's default) or C++98."""
    if shutil.which(compiler) is None:
        pytest.skip(f"needs {compiler}")
    source = tmp_path / ("header.cc" if compiler == CXX else "header.c")
    source.write_text(
        "#include <spu_intrinsics.h>\n"
        "vec_float4 f(vec_float4 a) { return spu_madd(a, spu_splats(2.0f), a); }\n"
    )
    built = subprocess.run(
        [compiler, standard, *FLAGS, "-c", str(source), "-o", str(tmp_path / "header.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr


def test_a_type_no_form_takes_fails_to_compile_naming_why(tmp_path):
    source = tmp_path / "bad.c"
    source.write_text(
        "#include <spu_intrinsics.h>\nvec_uchar16 f(vec_uchar16 a) { return spu_add(a, a); }\n"
    )
    built = subprocess.run(
        [CC, *FLAGS, "-c", str(source), "-o", str(tmp_path / "bad.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode != 0
    assert "spu_intrinsic_has_no_form_for_these_argument_types" in built.stderr
    assert "__vector(16) unsigned char" in built.stderr
