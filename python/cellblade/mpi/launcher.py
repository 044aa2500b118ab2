"""`cellblade mpirun`: start one OS process per rank and run the job on the simulated blade.

Each rank process gets one end of a socket pair (its descriptor in ``CELLBLADE_MPI_FD``); the
simulator, in this process, serves every rank's MPI calls over the other ends, through the
shared-memory channel each rank sends with its first call (crates/cellblade/src/mpi/channel.rs). Standard output
and error of the ranks are this process's. When the job ends badly (a rank crashes or exits
without ``MPI_Finalize``, ``MPI_Abort``, a deadlock, an error of the simulation, Ctrl-C) every
rank still running is ended, and no process is left behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cellblade import _core

# How long a rank gets to exit on its own once the simulation is over, and after SIGTERM.
_GRACE_S = 5.0


@dataclass
class JobResult:
    """How a job ended: ``exit_code`` is 0 or the first failing rank's; ``message`` says why."""

    exit_code: int
    message: str = ""
    report: dict[str, Any] = field(default_factory=dict)


def _resolve(program: str) -> str:
    path = program if os.sep in program else shutil.which(program)
    if path is None or not os.path.exists(path):
        raise FileNotFoundError(2, "No such file or directory", program)
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        raise PermissionError(13, "Permission denied: not an executable file", program)
    return path


def _machine(machine: str | Path, overrides: list[str]) -> dict[str, Any]:
    text = str(machine)
    if isinstance(machine, Path) or text.endswith(".toml"):
        return {"toml": Path(machine).read_text(), "set": overrides}
    return {"preset": text, "set": overrides}


def _request(
    n: int,
    mode: str | None,
    placement: str | Path | list[int] | None,
    trace: bool,
    depth: int | None,
    coll: str | None = None,
    compute: str | None = None,
) -> dict[str, Any]:
    """The job's request (crates/cellblade/src/mpi/request.rs); fields left out take the core's
    defaults. A placement that names a file is the file's text."""
    request: dict[str, Any] = {"ranks": n, "trace": trace}
    if mode is not None:
        request["mode"] = mode
    if depth is not None:
        request["depth"] = depth
    if coll is not None:
        request["coll"] = coll
    if compute is not None:
        request["compute"] = compute
    if isinstance(placement, Path) or (isinstance(placement, str) and os.path.isfile(placement)):
        request["placement_file"] = Path(placement).read_text()
    elif placement is not None:
        request["placement"] = placement
    return request


def _ended(proc: subprocess.Popen) -> str:
    code = proc.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


def _stop(procs: list[subprocess.Popen]) -> None:
    """End every rank still running: SIGTERM, then SIGKILL after a grace period; reap all."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=_GRACE_S)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def mpirun(
    program: str,
    args: list[str] = (),  # type: ignore[assignment]
    n: int = 1,
    mode: str | None = None,
    machine: str | Path = "qs20",
    overrides: list[str] = (),  # type: ignore[assignment]
    placement: str | Path | list[int] | None = None,
    trace: bool = False,
    depth: int | None = None,
    coll: str | None = None,
    compute: str | None = None,
) -> JobResult:
    """Run `program ARGS` as `n` ranks; returns when every rank has ended. `placement` gives
    each rank's SPE: a named placement, the SPE ids in rank order ([0, 8, 1, 9]) or a
    placement file. `coll` puts collectives on the collective library ("library", "auto" or
    "OP=ALGO,..."; see the README's MPI section). `compute` is what computation between calls
    costs: "zero" or "cpu[:FACTOR]". Left out, `mode`, `depth`, `coll` and `compute` are the
    core's defaults (``catalog()["mpi"]``)."""
    request = _request(n, mode, placement, trace, depth, coll, compute)
    chosen = _machine(machine, list(overrides))
    if not 1 <= n <= _core.catalog()["mpi"]["max_ranks"]:
        _core.mpi_run([], request, chosen)  # the core refuses the count, naming the field
    path = _resolve(program)
    pairs = [socket.socketpair() for _ in range(n)]
    procs: list[subprocess.Popen] = []
    try:
        for rank, (_, child) in enumerate(pairs):
            env = dict(
                os.environ, CELLBLADE_MPI_FD=str(child.fileno()), CELLBLADE_MPI_RANK=str(rank)
            )
            procs.append(subprocess.Popen([path, *args], env=env, pass_fds=[child.fileno()]))
            child.close()
        fds = [parent.detach() for parent, _ in pairs]
        report = _simulate(procs, fds, request, chosen)
        return _finish(report, procs)
    finally:
        for parent, child in pairs:
            parent.close()
            child.close()
        _stop(procs)


def _simulate(
    procs: list[subprocess.Popen], fds: list[int], request: dict[str, Any], machine: dict[str, Any]
) -> dict[str, Any]:
    """Run the simulation in a thread, so that Ctrl-C reaches this one even while the
    simulator waits for a rank that computes: then the ranks are ended, which closes their
    sockets and ends the simulation. The report is the job's outcome with its machine_toml."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            answer = _core.mpi_run(fds, request, machine)
            outcome["report"] = {**answer["result"], "machine_toml": answer["machine_toml"]}
        except BaseException as error:  # handed to the main thread
            outcome["error"] = error

    worker = threading.Thread(target=run, name="cellblade-mpirun", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        for p in procs:
            if p.poll() is None:
                p.kill()
        worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["report"]


def _finish(report: dict[str, Any], procs: list[subprocess.Popen]) -> JobResult:
    outcome = report["outcome"]
    if outcome == "finished":
        for p in procs:
            try:
                p.wait(timeout=_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
        for rank, p in enumerate(procs):
            if p.returncode is None:
                return JobResult(1, f"rank {rank} did not exit after MPI_Finalize: ended", report)
            if p.returncode != 0:
                return JobResult(
                    _exit_code(p), f"rank {rank} {_ended(p)} after MPI_Finalize", report
                )
        return JobResult(0, "", report)
    rank = report["rank"]
    if outcome == "aborted":
        code = report["code"]
        return JobResult(
            code if 0 < code < 256 else 1,
            f"rank {rank} called MPI_Abort with error code {code}: the other ranks were ended",
            report,
        )
    p = procs[rank]
    try:
        p.wait(timeout=_GRACE_S)
    except subprocess.TimeoutExpired:
        return JobResult(
            1,
            f"rank {rank} closed its connection without MPI_Finalize (last call: {report['after']}): the other ranks were ended",
            report,
        )
    return JobResult(
        _exit_code(p) or 1,
        f"rank {rank} {_ended(p)} without calling MPI_Finalize (its last call: {report['after']}): the other ranks were ended",
        report,
    )


def _exit_code(p: subprocess.Popen) -> int:
    return 128 - p.returncode if p.returncode < 0 else p.returncode
