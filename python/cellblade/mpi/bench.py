"""The MPI workload of `cellblade bench`: examples/mpi/latency.c, an osu_latency-like ping-pong
written for this project, built with mpicc and run as 2 rank processes through the launcher.
It gives the wall time of the job, the simulated packets per second of the simulator serving
it, and the wall-clock cost of one MPI call's round trip between a rank process and the
simulator (issue 15's target: under 5 us), which the program times itself over MPI_Wtime calls.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cellblade.mpi import compiler, launcher

SOURCE = Path(__file__).resolve().parents[3] / "examples" / "mpi" / "latency.c"
# The target for one round trip, in microseconds of wall time.
TARGET_ROUNDTRIP_US = 5.0


def _run_captured(exe: Path, args: list[str], out: Path) -> launcher.JobResult:
    """Run the job with the ranks' standard output (inherited from this process) in `out`."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(out, "w") as f:
            os.dup2(f.fileno(), 1)
            return launcher.mpirun(str(exe), args, n=2)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def run(quick: bool = False) -> dict[str, Any]:
    """Build and run the workload; {"skipped": why} without the source or a C compiler."""
    if not SOURCE.exists():
        return {"skipped": f"{SOURCE} is not there (a source checkout has it)"}
    largest, calls = (64 << 10, 5000) if quick else (1 << 20, 20000)
    with tempfile.TemporaryDirectory() as tmp:
        exe, out = Path(tmp) / "latency", Path(tmp) / "out.txt"
        try:
            built = compiler.mpicc(["-O2", str(SOURCE), "-o", str(exe)])
        except (OSError, RuntimeError) as error:
            return {"skipped": f"mpicc failed: {error}"}
        if built != 0:
            return {"skipped": f"mpicc exited with {built}"}
        start = time.perf_counter()
        job = _run_captured(exe, [str(largest), str(calls)], out)
        wall = time.perf_counter() - start
        lines = [line.split() for line in out.read_text().splitlines()]
    if job.exit_code != 0:
        raise RuntimeError(f"the MPI workload failed: {job.message}")
    rows = [{"bytes": int(b), "latency_us": float(us)} for b, us in lines if b != "roundtrip_us"]
    batches = [float(us) for b, us in lines if b == "roundtrip_us"]
    report = job.report
    return {
        "program": "examples/mpi/latency.c",
        "ranks": 2,
        "sizes": rows,
        "wall_s": wall,
        "simulator_wall_s": report["wall_s"],
        "simulated_ns": report["simulated_ns"],
        "packets": report["packets"],
        "packets_per_second": report["packets"] / report["wall_s"],
        "roundtrip_us": statistics.median(batches),
        "roundtrip_batches_us": batches,
        "roundtrip_calls": calls,
        "target_roundtrip_us": TARGET_ROUNDTRIP_US,
    }


def describe(r: dict[str, Any]) -> str:
    """The workload's figures in a few lines."""
    if "skipped" in r:
        return f"MPI workload skipped: {r['skipped']}"
    sizes = r["sizes"]
    shown = ", ".join(
        f"{s['bytes']} B {s['latency_us']:.2f}"
        for s in sizes
        if s["bytes"] in (0, 1, 1024, 65536, 1 << 20)
    )
    return (
        f"MPI ping-pong ({r['program']}, {r['ranks']} rank processes, 0 B to {sizes[-1]['bytes']} B): "
        f"wall {r['wall_s']:.2f} s (simulator {r['simulator_wall_s']:.2f} s), "
        f"{r['packets_per_second']:.3g} simulated packets/s\n"
        f"  simulated latency (us): {shown}\n"
        f"  one MPI call's round trip, rank process to simulator: {r['roundtrip_us']:.2f} us of wall time "
        f"(median of 5 batches of {r['roundtrip_calls'] // 5} MPI_Wtime calls, "
        f"{min(r['roundtrip_batches_us']):.2f} to {max(r['roundtrip_batches_us']):.2f}; target under {r['target_roundtrip_us']:g} us)"
    )
