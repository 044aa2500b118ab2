"""The Cell SDK workload of `cellblade bench`: how much host wall time a simulated channel
operation of an SDK program costs (issue 40's targets: at most 10 us with one SPE context, 50 us
with 16).

examples/sdk/bench runs SPES contexts, each from a PPE thread of its own, ROUNDS rounds of a
128-byte GET and its tag wait (three channel operations a round: the command, the tag update,
the tag status) or of a mailbox ping-pong with its PPE thread (two on the SPE: the read and the
write; the PPE's own calls come on top and are not counted, so the figure is the larger). The
per-operation cost is the slope between two round counts, which takes out the processes'
start-up; medians of three runs, interleaved (one with --quick).
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
# Channel operations an SPE makes per round of each workload (examples/sdk/bench/spe.c).
OPS_PER_ROUND = {"dma": 3, "mailbox": 2}
TARGET_US = {1: 10.0, 16: 50.0}


def _build(folder: Path) -> str | None:
    for name, args in (
        ("spu-gcc", ["-O2", str(EXAMPLE / "spe.c"), "-o", str(folder / "spe.elf")]),
        ("ppu32-gcc", ["-O2", str(EXAMPLE / "ppe.c"), "-lspe2", "-o", str(folder / "ppe.elf")]),
    ):
        try:
            command = toolchain.command(name, args)
        except toolchain.ToolError as error:
            return str(error)
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            return f"building {EXAMPLE.name} failed: {done.stderr.strip()}"
    return None


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


def run(quick: bool = False) -> dict[str, Any]:
    """The per-operation costs; {"skipped": why} without the sources or the tools."""
    if not EXAMPLE.exists():
        return {"skipped": f"{EXAMPLE} is not there (a source checkout has it)"}
    few, many = (100, 600) if quick else (200, 2200)
    rows = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        why = _build(folder)
        if why:
            return {"skipped": why}
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
    return {"program": "examples/sdk/bench", "rows": rows}


def describe(r: dict[str, Any]) -> str:
    """The workload's figures in a line each."""
    if "skipped" in r:
        return f"SDK workload skipped: {r['skipped']}"
    return "\n".join(
        f"SDK program ({r['program']}), {row['workload']} on {row['spes']} SPE"
        f"{'s' if row['spes'] > 1 else ''}: {row['us_per_channel_op']:.1f} us of wall time per "
        f"simulated channel operation (target: at most {row['target_us']:.0f} us)"
        for row in r["rows"]
    )
