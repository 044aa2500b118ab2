"""The MPI workload of `cellblade bench`.

examples/mpi/latency.c, an osu_latency-like ping-pong written for this project, built with
mpicc and run as 2 rank processes through the launcher: the job's wall time and the simulated
packets per second of the simulator serving it.

examples/mpi/calls.c, one rank making many `MPIX_Compute_cycles(0)` calls (each answered at
once, with no simulated work): the wall-clock cost of one call's round trip between a rank process and the
simulator (issue 15's target: under 5 us), as the program times it, and the part of it that is
the simulator's own work (its wall time less the time it waited for requests). Runs alternate
between the shared-memory channel and the socket alone (CELLBLADE_MPI_CHANNEL=socket, the
channel before it), so that both see the same host load; the figures are the medians.
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
from cellblade.units import format_number

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "mpi"
SOURCE = EXAMPLES / "latency.c"
CALLS_SOURCE = EXAMPLES / "calls.c"
# The target for one round trip, in microseconds of wall time.
TARGET_ROUNDTRIP_US = 5.0


def _run_captured(
    exe: Path, args: list[str], out: Path, n: int, env: dict[str, str] | None = None
) -> launcher.JobResult:
    """Run the job with the ranks' standard output (inherited from this process) in `out` and
    `env` added to the ranks' environment."""
    sys.stdout.flush()
    saved_out = os.dup(1)
    saved_env = {key: os.environ.get(key) for key in env or {}}
    try:
        os.environ.update(env or {})
        with open(out, "w") as f:
            os.dup2(f.fileno(), 1)
            job = launcher.mpirun(str(exe), args, n=n)
    finally:
        os.dup2(saved_out, 1)
        os.close(saved_out)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if job.exit_code != 0:
        raise RuntimeError(f"the MPI workload {exe.name} failed: {job.message}")
    return job


def _build(source: Path, exe: Path) -> str | None:
    """Build `source`; why not, or None."""
    try:
        built = compiler.mpicc(["-O2", str(source), "-o", str(exe)])
    except (OSError, RuntimeError) as error:
        return f"mpicc failed: {error}"
    return None if built == 0 else f"mpicc exited with {built}"


def _calls(exe: Path, out: Path, calls: int, socket_only: bool) -> dict[str, float]:
    """One run of calls.c: the rank's wall time per call and the simulator's own work per call."""
    env = {"CELLBLADE_MPI_CHANNEL": "socket"} if socket_only else {}
    job = _run_captured(exe, [str(calls)], out, n=1, env=env)
    words = out.read_text().split()
    report = job.report
    return {
        "us_per_call": float(words[3]),
        "simulator_us_per_call": (report["wall_s"] - report["wait_s"]) * 1e6 / calls,
    }


def _roundtrip(exe: Path, tmp: Path, quick: bool) -> dict[str, Any]:
    runs, calls = (3, 20_000) if quick else (5, 100_000)
    # The socket alone can cost 160 us a call when the two sides sit on different cores.
    socket_calls = calls // 5
    shared, socket = [], []
    for _ in range(runs):
        shared.append(_calls(exe, tmp / "calls.txt", calls, socket_only=False))
        socket.append(_calls(exe, tmp / "calls.txt", socket_calls, socket_only=True))

    def median(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    shm_us, sock_us = median(shared, "us_per_call"), median(socket, "us_per_call")
    own = median(shared, "simulator_us_per_call")
    return {
        "roundtrip_us": shm_us,
        "roundtrip_runs_us": [r["us_per_call"] for r in shared],
        "roundtrip_calls": calls,
        "simulator_us_per_call": own,
        "channel_us": shm_us - own,
        "socket_roundtrip_us": sock_us,
        "socket_runs_us": [r["us_per_call"] for r in socket],
        "socket_calls": socket_calls,
        "socket_over_shared": sock_us / shm_us,
        "target_roundtrip_us": TARGET_ROUNDTRIP_US,
    }


def run(quick: bool = False) -> dict[str, Any]:
    """Build and run the workloads; {"skipped": why} without the sources or a C compiler."""
    for source in (SOURCE, CALLS_SOURCE):
        if not source.exists():
            return {"skipped": f"{source} is not there (a source checkout has it)"}
    largest = 64 << 10 if quick else 1 << 20
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        exe, calls_exe, out = tmp / "latency", tmp / "calls", tmp / "out.txt"
        why = _build(SOURCE, exe) or _build(CALLS_SOURCE, calls_exe)
        if why:
            return {"skipped": why}
        start = time.perf_counter()
        job = _run_captured(exe, [str(largest)], out, n=2)
        wall = time.perf_counter() - start
        lines = [line.split() for line in out.read_text().splitlines()]
        roundtrip = _roundtrip(calls_exe, tmp, quick)
    rows = [{"bytes": int(b), "latency_us": float(us)} for b, us in lines]
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
        "roundtrip_program": "examples/mpi/calls.c",
        **roundtrip,
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
    runs = len(r["roundtrip_runs_us"])
    return (
        f"MPI ping-pong ({r['program']}, {r['ranks']} rank processes, 0 B to {sizes[-1]['bytes']} B): "
        f"wall {r['wall_s']:.2f} s (simulator {r['simulator_wall_s']:.2f} s), "
        f"{format_number(r['packets_per_second'])} simulated packets/s\n"
        f"  simulated latency (us): {shown}\n"
        f"  one MPI call's round trip, rank process to simulator ({r['roundtrip_program']}, median of "
        f"{runs} runs of {r['roundtrip_calls']} MPIX_Compute_cycles(0) calls): {r['roundtrip_us']:.2f} us of wall time "
        f"({min(r['roundtrip_runs_us']):.2f} to {max(r['roundtrip_runs_us']):.2f}; "
        f"target under {r['target_roundtrip_us']:g} us), of which the simulator's own work "
        f"{r['simulator_us_per_call']:.2f} us and the channel {r['channel_us']:.2f} us\n"
        f"  the socket alone, runs interleaved: {r['socket_roundtrip_us']:.2f} us "
        f"({min(r['socket_runs_us']):.2f} to {max(r['socket_runs_us']):.2f}, {r['socket_calls']} calls a run): "
        f"{r['socket_over_shared']:.2f} times the shared-memory channel's"
    )
