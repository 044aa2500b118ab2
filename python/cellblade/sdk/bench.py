"""The Cell SDK workload of `cellblade bench`: how much host wall time a simulated channel
operation of an SDK program costs (issue 40's targets: at most 10 us with one SPE context, 50 us
with 16).

examples/sdk/bench runs SPES contexts, each from a PPE thread of its own, ROUNDS rounds of a
128-byte GET and its tag wait (three channel operations a round: the command, the tag update,
the tag status) or of a mailbox ping-pong with its PPE thread (two on the SPE: the read and the
write; the PPE's own calls come on top and are not counted, so the figure is the larger). The
per-operation cost is the slope between two round counts, which takes out the processes'
start-up; medians of three runs, interleaved (one with --quick).

And the cost of pricing SPE code (issue 41: a compute-bound SPE program under `--compute model`
at least a quarter of its speed under `zero`): sdk/cost/kernels/sp_madd.c, eight vector
multiply-adds an iteration, run from sdk/cost/kernels/ppe_run.c, its wall time per iteration
(the slope between two trip counts) under each; printed, not asserted.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cellblade.sdk import toolchain

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sdk" / "bench"
KERNELS = Path(__file__).resolve().parents[3] / "sdk" / "cost" / "kernels"
# Channel operations an SPE makes per round of each workload (examples/sdk/bench/spe.c).
OPS_PER_ROUND = {"dma": 3, "mailbox": 2}
TARGET_US = {1: 10.0, 16: 50.0}


def _wall(folder: Path, workload: str, spes: int, rounds: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cellblade", "run", "./ppe.elf", workload, str(spes), str(rounds)],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the SDK bench ({workload}, {spes} SPEs) failed: {done.stderr}")
    return time.perf_counter() - start


def _compute_speed(folder: Path, quick: bool) -> dict[str, Any]:
    """Wall seconds per million iterations of the multiply-add kernel under model and zero."""
    few, many = (100_000, 1_000_000) if quick else (200_000, 4_000_000)
    built = [
        (
            "ppu32-gcc",
            ["-O2", str(KERNELS / "ppe_run.c"), "-lspe2", "-o", str(folder / "ppe_run.elf")],
        ),
        *(
            (
                "spu-gcc",
                ["-O2", f"-DN={n}", str(KERNELS / "sp_madd.c"), "-o", str(folder / f"madd{n}.elf")],
            )
            for n in (few, many)
        ),
    ]
    for name, args in built:
        done = subprocess.run(toolchain.command(name, args), capture_output=True, text=True)
        if done.returncode != 0:
            return {"skipped": f"building the multiply-add kernel failed: {done.stderr.strip()}"}

    def wall(compute: str, n: int) -> float:
        start = time.perf_counter()
        command = [sys.executable, "-m", "cellblade", "run", "--compute", compute]
        done = subprocess.run(
            [*command, "./ppe_run.elf", f"madd{n}.elf"], cwd=folder, capture_output=True
        )
        if done.returncode != 0:
            raise RuntimeError(f"the multiply-add kernel ({compute}) failed: {done.stderr!r}")
        return time.perf_counter() - start

    per = {"model": [], "zero": []}
    for _ in range(1 if quick else 3):
        for compute in per:  # interleaved, so that a busy host slows both alike
            per[compute].append((wall(compute, many) - wall(compute, few)) / (many - few) * 1e6)
    s = {compute: statistics.median(v) for compute, v in per.items()}
    return {
        "program": "sdk/cost/kernels/sp_madd.c",
        "s_per_million_iterations": s,
        "model_speed_of_zero": s["zero"] / s["model"],
    }


def run(quick: bool = False) -> dict[str, Any]:
    """The per-operation costs; {"skipped": why} without the sources or the tools."""
    if not EXAMPLE.exists():
        return {"skipped": f"{EXAMPLE} is not there (a source checkout has it)"}
    few, many = (100, 600) if quick else (200, 2200)
    rows = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        try:
            toolchain.build_pair(folder, EXAMPLE / "spe.c", EXAMPLE / "ppe.c")
        except toolchain.ToolError as error:
            return {"skipped": str(error)}
        for workload in OPS_PER_ROUND:
            for spes in TARGET_US:
                slopes = []
                for _ in range(1 if quick else 3):
                    extra = _wall(folder, workload, spes, many) - _wall(folder, workload, spes, few)
                    ops = (many - few) * spes * OPS_PER_ROUND[workload]
                    slopes.append(extra / ops * 1e6)
                rows.append(
                    {
                        "workload": workload,
                        "spes": spes,
                        "us_per_channel_op": statistics.median(slopes),
                        "target_us": TARGET_US[spes],
                    }
                )
        compute = _compute_speed(folder, quick)
    return {"program": "examples/sdk/bench", "rows": rows, "compute": compute}


def describe(r: dict[str, Any]) -> str:
    """The workload's figures in a line each."""
    if "skipped" in r:
        return f"SDK workload skipped: {r['skipped']}"
    lines = [
        f"SDK program ({r['program']}), {row['workload']} on {row['spes']} SPE"
        f"{'s' if row['spes'] > 1 else ''}: {row['us_per_channel_op']:.1f} us of wall time per "
        f"simulated channel operation (target: at most {row['target_us']:.0f} us)"
        for row in r["rows"]
    ]
    c = r.get("compute", {"skipped": "not measured"})
    if "skipped" in c:
        lines.append(f"SPE compute speed skipped: {c['skipped']}")
    else:
        s = c["s_per_million_iterations"]
        lines.append(
            f"SPE compute-bound program ({c['program']}): {s['model']:.3f} s per million "
            f"iterations under --compute model, {s['zero']:.3f} under zero: model runs at "
            f"{c['model_speed_of_zero']:.2f} of zero's speed (target: at least 0.25)"
        )
    return "\n".join(lines)
