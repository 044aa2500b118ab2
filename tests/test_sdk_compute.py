"""SPE code costs simulated time (`cellblade run --compute model`, crates/cellblade/src/sdk/cost.rs):
the simulator charges the SPU cycles the cost plugin counts before each request of an SPE, so a
vectorised multiply-add loop runs at the SPU's 8 flops per cycle in simulated time, a dependent
chain at its latency, the same program gives the same bytes and time on every run, double
buffering beats single buffering, and a bad --compute is refused naming the flag."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]
KERNELS = TOP / "sdk" / "cost" / "kernels"
EXAMPLES = TOP / "examples" / "sdk"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("gcc", "powerpc-linux-gnu-gcc", "qemu-ppc")),
    reason="the host gcc, the PowerPC cross compiler or qemu-user is missing (make sdk-tools)",
)

CORE_HZ = 3.2e9  # the qs20's clock.core_mhz, the SPU's clock


def _cellblade(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cellblade", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _built(folder: Path, *commands: tuple[str, ...]) -> None:
    for command in commands:
        done = _cellblade(*command, cwd=folder)
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("kernels")
    # The PPE side: one context running the SPE executable named on its command line.
    commands = [("ppu32-gcc", "-O2", str(KERNELS / "ppe_run.c"), "-lspe2", "-o", "ppe.elf")]
    for kernel in ("sp_madd", "sp_chain", "channel_reads"):
        for n in (1000, 5000):
            source = str(KERNELS / f"{kernel}.c")
            commands.append(("spu-gcc", "-O2", f"-DN={n}", source, "-o", f"{kernel}-{n}.elf"))
    _built(folder, *commands)
    return folder


def _report(folder: Path, *args: str, out: str) -> dict:
    done = _cellblade("run", "--out", out, *args, cwd=folder)
    assert done.returncode == 0, done.stderr
    return json.loads((folder / out / "result.json").read_text())


def _cycles_per_iteration(folder: Path, kernel: str, compute: str = "model") -> float:
    """The simulated SPU cycles one more iteration of the kernel's loop takes: the slope of the
    run's simulated time between two trip counts."""
    ns = {
        n: _report(
            folder,
            "--compute",
            compute,
            "./ppe.elf",
            f"{kernel}-{n}.elf",
            out=f"{kernel}-{n}-{compute}",
        )["simulated_ns"]
        for n in (1000, 5000)
    }
    return (ns[5000] - ns[1000]) * 1e-9 * CORE_HZ / 4000


# The slopes are exact (the cycles counted are charged, the rest of the run does not move with
# the trip count); the tolerance is the float nanoseconds of the report.
REL = 1e-9


def test_a_vectorised_multiply_add_loop_runs_at_8_flops_per_simulated_cycle(kernels):
    # 8 independent 4-wide vmaddfp an iteration: 64 flops in 8 cycles on the even pipe.
    flops_per_cycle = 64 / _cycles_per_iteration(kernels, "sp_madd")
    assert flops_per_cycle == pytest.approx(8, rel=REL)


def test_a_dependent_chain_runs_at_its_latency(kernels):
    # 8 fadds each waiting for the one before: 6 cycles (SP latency) each.
    assert _cycles_per_iteration(kernels, "sp_chain") / 8 == pytest.approx(6, rel=REL)


def test_a_channel_request_is_not_charged_its_libraries_powerpc_code(kernels):
    # A decrementer read: the request's message and system calls are marked uncharged; what is
    # left is the library call around it (a call, a return through lr at the 18-cycle unhinted
    # branch, the loop): 42 cycles, not the PowerPC code of the request itself.
    assert _cycles_per_iteration(kernels, "channel_reads") < 60


def test_under_zero_the_code_costs_nothing(kernels):
    assert _cycles_per_iteration(kernels, "sp_madd", "zero") == 0


def test_the_same_program_gives_the_same_bytes_and_simulated_time_every_run(kernels):
    # channel_reads makes 5,000 requests: the plugin publishes its count at system calls only,
    # so the simulator never reads it while a request's marked code is being taken back (a
    # counter updated as the code ran gave a different time about one run in four).
    for program in ("sp_chain-1000.elf", "channel_reads-5000.elf"):
        runs = []
        for i in range(4):
            done = _cellblade("run", "--out", f"again{i}", "./ppe.elf", program, cwd=kernels)
            assert done.returncode == 0, done.stderr
            report = json.loads((kernels / f"again{i}" / "result.json").read_text())
            report.pop("wall_s")
            runs.append((done.stdout, done.stderr, report))
            shutil.rmtree(kernels / f"again{i}")
        assert all(run == runs[0] for run in runs), program
        assert runs[0][0] == "exit 0\n" and runs[0][2]["compute"] == "model"


@pytest.fixture(scope="module")
def double_buffer(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("double_buffer")
    example = EXAMPLES / "double_buffer"
    _built(
        folder,
        ("spu-gcc", "-O2", str(example / "spe.c"), "-o", "spe.elf"),
        ("ppu32-gcc", "-O2", str(example / "ppe.c"), "-lspe2", "-o", "ppe.elf"),
    )
    return folder


def _ticks(folder: Path, mode: str, compute: str) -> tuple[int, str]:
    """The decrementer ticks the example's SPE loop took, and the rest of what it printed."""
    done = _cellblade("run", "--compute", compute, "./ppe.elf", mode, cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    ticks = next(int(line.split()[1]) for line in lines if line.endswith("decrementer ticks"))
    rest = [line for line in lines if not line.endswith("decrementer ticks")]
    return ticks, "\n".join(rest).replace(mode, "MODE")


def test_double_buffering_is_faster_than_single_buffering_in_simulated_time(double_buffer):
    runs = {
        (mode, compute): _ticks(double_buffer, mode, compute)
        for mode in ("single", "double")
        for compute in ("model", "zero")
    }
    ticks = {key: t for key, (t, _) in runs.items()}
    # With its code priced, the single-buffered loop waits for each DMA and then computes; the
    # double-buffered one computes while the next block arrives.
    assert ticks["double", "model"] < 0.8 * ticks["single", "model"]
    # The computation costs time: both are slower than with free code.
    assert ticks["single", "model"] > ticks["single", "zero"]
    assert ticks["double", "model"] > ticks["double", "zero"]
    # Both ways compute the same sum, whatever the computation costs.
    assert len({text for _, text in runs.values()}) == 1


@pytest.mark.parametrize("bad", ["cpu", "cpu:2", "fast"])
def test_a_bad_compute_is_refused_naming_the_flag_and_what_is_allowed(kernels, bad):
    done = _cellblade("run", "--compute", bad, "./ppe.elf", "sp_chain-1000.elf", cwd=kernels)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        f"cellblade: error: --compute {bad} is not allowed: model or zero"
    )
    assert "qemu-user" in done.stderr


def test_the_machine_file_table_prints_and_can_be_changed_with_set(kernels):
    shown = _cellblade("machine", "--set", "spu_cost.sp=[1, 0, 0, 7]", cwd=kernels)
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if line.startswith("spu_cost.sp "))
    assert row.split()[1:5] == ["1", "0", "0", "7"]
    # The simulator passes the table to the plugin: a chain of fadds now costs 7 a link.
    ns = {
        n: _report(
            kernels,
            "--set",
            "spu_cost.sp=[1, 0, 0, 7]",
            "./ppe.elf",
            f"sp_chain-{n}.elf",
            out=f"set-{n}",
        )["simulated_ns"]
        for n in (1000, 5000)
    }
    per_add = (ns[5000] - ns[1000]) * 1e-9 * CORE_HZ / 4000 / 8
    assert per_add == pytest.approx(7, rel=REL)
