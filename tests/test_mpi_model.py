"""`mpirun --compute model`: every rank a 32-bit big-endian PowerPC program (`mpicc
--target=ppc32`) under qemu-ppc with the SPU cost plugin, its counted cycles charged before each
MPI call (crates/cellblade/src/mpi/external.rs); libmpi/tests/model_ranks.c and
examples/mpi/matmul.c."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from conftest import MPI_SOURCES, run_cli

from cellblade import machine

ROOT = Path(__file__).parent.parent

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("gcc", "powerpc-linux-gnu-gcc", "qemu-ppc")),
    reason="the host gcc, the PowerPC cross compiler or qemu-user is missing (make sdk-tools)",
)

# What model_ranks.c's rank 0 prints before its loop's time, on 4 ranks: the sums of
# (0.5 r, -1.25, 1e300 / (r + 1)) and of (r + 1, -70000 r), the least -70000 r; each wrong if
# a double or an int were read in the wrong byte order.
REDUCED = "dsum 3 -5 2.08333e+300 isum 10 -420000 imin -210000 ok 1 loop "


@pytest.fixture(scope="module")
def ppc(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpi_model")

    def make(source: Path, *flags: str) -> str:
        exe = out / (source.stem + "".join(flags).replace("=", "").replace("-", "_"))
        if not exe.exists():
            done = run_cli("mpicc", "--target=ppc32", "-O2", *flags, str(source), "-o", str(exe))
            assert done.returncode == 0, done.stderr
        return str(exe)

    return make


def loop_ticks(exe: str, n: int, *flags: str) -> int:
    done = run_cli("mpirun", "-n", "4", "--compute", "model", *flags, exe, str(n))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(REDUCED), done.stdout
    return int(re.search(r"loop (\d+) ticks", done.stdout)[1])


@pytest.mark.parametrize("coll", ["seed", "library"])
def test_a_powerpc_rank_communicates_and_reduces_doubles_and_ints_in_its_byte_order(ppc, coll):
    """The seed's collectives reduce on the ranks; the library's in the simulator, which reads
    the big-endian operands as they are."""
    exe = ppc(MPI_SOURCES / "model_ranks.c")
    done = run_cli("mpirun", "-n", "4", "--compute", "model", "--coll", coll, exe, "10")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.startswith(REDUCED), done.stdout


def test_a_powerpc_rank_runs_without_the_model_through_shared_memory(ppc):
    """Under --compute zero a PowerPC rank keeps the shared-memory channel: its words are
    big-endian and its futex waits are qemu's; the loop costs nothing."""
    exe = ppc(MPI_SOURCES / "model_ranks.c")
    done = run_cli("mpirun", "-n", "4", "--compute", "zero", "--coll", "library", exe, "100000")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(REDUCED), done.stdout
    assert int(re.search(r"loop (\d+) ticks", done.stdout)[1]) <= 1  # one MPI_Wtime's cost


def test_a_loops_charged_cycles_are_the_same_on_every_run_and_scale_with_its_iterations(ppc):
    """The loop is x = x * K + i, unrolled four times by gcc: a chain of mullw (the machine
    file's imul, latency 11) and add (fx, latency 2), 13 SPU cycles an iteration."""
    exe = ppc(MPI_SOURCES / "model_ranks.c")
    clock = tomllib.loads(machine.machine_file("qs20"))["clock"]
    cycles_per_tick = clock["core_mhz"] * 1e6 / clock["decrementer_hz"]
    n = 100_000
    t1, t1_again, t2, t3 = (loop_ticks(exe, k) for k in (n, n, 2 * n, 3 * n))
    assert t1 == t1_again
    per_iteration = [(b - a) * cycles_per_tick / n for a, b in ((t1, t2), (t2, t3))]
    assert per_iteration == pytest.approx([13, 13], abs=0.01)
    # The price is the machine file's: a multiply of latency 20 makes the chain 22 a step.
    slow = [loop_ticks(exe, k, "--set", "spu_cost.imul=[5, 0, 0, 20]") for k in (n, 2 * n)]
    assert (slow[1] - slow[0]) * cycles_per_tick / n == pytest.approx(22, abs=0.01)


def test_matmul_from_the_c_program_alone_is_verified_and_deterministic(ppc):
    """examples/mpi/matmul.c built for the model charges nothing by hand (MATMUL_CHARGE is 0 on
    the PowerPC): its time is the plugin's count of the compiled loop; n = 64 for speed (the
    seed's n = 512 and 1024 are in the MPI guide)."""
    exe = ppc(ROOT / "examples" / "mpi" / "matmul.c")
    runs = [run_cli("mpirun", "-n", "8", "--compute", "model", exe, "64") for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert re.fullmatch(r"n 64, 7 workers: [\d.]+ ms, [\d.]+ Gflop/s, verified\n", runs[0].stdout)
    charged = ppc(ROOT / "examples" / "mpi" / "matmul.c", "-DMATMUL_CHARGE=1")
    both = run_cli("mpirun", "-n", "8", "--compute", "model", charged, "64")
    rate = lambda out: float(re.search(r"([\d.]+) Gflop/s", out)[1])  # noqa: E731
    # Charged by hand as well, the loop is paid twice: slower.
    assert rate(both.stdout) < rate(runs[0].stdout)


def test_the_rank_librarys_own_code_is_not_charged_again(ppc, tmp_path):
    """The simulator charges each MPI call as the seed's library costs; the ppc32 build's MPI
    functions mark their own PowerPC code uncharged (compiler.marked_calls_source), so a
    ping-pong costs what it costs under --compute zero, plus the benchmark's loop and the
    calls' branches (before the marks: 6.2 us for 0.65)."""
    model = run_cli(
        "mpirun", "-n", "2", "--compute", "model", ppc(ROOT / "examples/mpi/latency.c"), "1024"
    )
    host = tmp_path / "latency"
    assert (
        run_cli("mpicc", "-O2", str(ROOT / "examples/mpi/latency.c"), "-o", str(host)).returncode
        == 0
    )
    zero = run_cli("mpirun", "-n", "2", str(host), "1024")
    assert model.returncode == zero.returncode == 0, model.stderr + zero.stderr
    latency = lambda out: [float(line.split()[1]) for line in out.splitlines()]  # noqa: E731
    for m, z in zip(latency(model.stdout), latency(zero.stdout), strict=True):
        assert 0 <= m - z < 0.02, (m, z)


def test_model_refuses_a_host_program_and_says_how_to_build_one(build):
    done = run_cli("mpirun", "-n", "2", "--compute", "model", build("compute_burst"))
    assert done.returncode == 2
    assert done.stderr == (
        f"cellblade: error: {build('compute_burst')} is a program for the host: --compute model "
        "runs each rank as a 32-bit big-endian PowerPC program under qemu-ppc, whose code the SPU "
        "cost plugin prices; build it with `cellblade mpicc --target=ppc32`\n"
    )


def test_without_qemu_or_the_cross_compiler_the_model_is_refused_naming_the_tool(ppc, tmp_path):
    exe = ppc(MPI_SOURCES / "model_ranks.c")
    # A PATH with python but neither qemu-ppc nor powerpc-linux-gnu-gcc.
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bare)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cellblade.cli", *args], capture_output=True, text=True, env=env
        )

    done = cli("mpirun", "-n", "2", "--compute", "model", exe, "1")
    assert done.returncode == 2
    assert done.stderr.startswith("cellblade: error: qemu-ppc is not installed: a PowerPC rank")
    done = cli(
        "mpicc", "--target=ppc32", str(MPI_SOURCES / "model_ranks.c"), "-o", str(tmp_path / "x")
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "cellblade: error: powerpc-linux-gnu-gcc is not installed: a rank for `mpirun --compute model`"
    )
    done = run_cli("mpicc", "--target=spu", "x.c")
    assert (done.returncode, done.stderr) == (
        2,
        "cellblade: error: target 'spu' is not allowed: allowed host, ppc32\n",
    )
