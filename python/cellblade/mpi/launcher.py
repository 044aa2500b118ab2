"""`cellblade mpirun`: start one OS process per rank and run the job on the simulated blade.

Each rank process gets one end of a socket pair (its descriptor in ``CELLBLADE_MPI_FD``); the
simulator, in this process, serves every rank's MPI calls over the other ends, through the
shared-memory channel each rank sends with its first call (crates/cellblade/src/mpi/channel.rs). Standard output
and error of the ranks are this process's. When the job ends badly (a rank crashes or exits
without ``MPI_Finalize``, ``MPI_Abort``, a deadlock, an error of the simulation, ``--timeout``,
Ctrl-C, SIGTERM or SIGHUP) every rank still running is ended at once (native.py: SIGTERM, on
which a rank flushes what it printed, then SIGKILL), and no process is left behind: the ranks
also die with this process (cb_fault.c). A rank that ends badly is reported when it ends
(watch.py), not when the simulator next serves it; and the simulator answers each rank's
MPI_Init as soon as it comes (crates/cellblade/src/mpi/external.rs), so a rank is not held
there while another computes.

A 32-bit big-endian PowerPC program (``cellblade mpicc --target=ppc32``) runs under
``qemu-ppc -cpu G4``, as the SDK's SPE programs do; under ``--compute model`` with the SPU cost
plugin (``sdk/cost/``), which adds the SPU cycles of the code the rank runs to a counter in a
memory file made here for it, handed to the plugin (``fd=``) and to the simulator, which
charges them before each MPI call. Such a rank's calls go over the socket: the plugin
publishes its count at system calls, and a call through shared memory makes none.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cellblade import _core, native
from cellblade.mpi import watch

# How long a rank gets to exit on its own after MPI_Finalize.
_GRACE_S = 5.0
# How long a rank's end waits for the simulator's own report before the launcher reports it.
_SIMULATOR_FIRST_S = 0.3
# How long the simulator gets to notice that the launcher ended the ranks.
_SIMULATOR_GRACE_S = 10.0
# Signals that end the job as Ctrl-C does; the exit status is 128 + the signal's number.
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class LaunchError(Exception):
    """A job that cannot start as asked (the program, its target and --compute disagree, or a
    tool is missing), said for the user (no backtrace)."""


# e_machine of a PowerPC ELF file (EM_PPC).
_EM_PPC = 20


class _Signalled(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


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


def is_ppc32(path: str) -> bool:
    """Whether `path` is a 32-bit big-endian PowerPC ELF program (`mpicc --target=ppc32`)."""
    with open(path, "rb") as f:
        head = f.read(20)
    return (
        len(head) == 20
        and head[:6] == b"\x7fELF\x01\x02"
        and int.from_bytes(head[18:20], "big") == _EM_PPC
    )


def _rank_command(path: str, args: list[str], model: bool, chosen: dict[str, Any]) -> list[str]:
    """The command that starts one rank: the program itself, or for a PowerPC program qemu-user,
    under --compute model with the cost plugin; its counter's descriptor, different in each
    rank, is the last word of the plugin's argument list (:func:`_with_counter`)."""
    if not is_ppc32(path):
        if model:
            raise LaunchError(
                f"{path} is a program for the host: --compute model runs each rank as a 32-bit "
                "big-endian PowerPC program under qemu-ppc, whose code the SPU cost plugin "
                "prices; build it with `cellblade mpicc --target=ppc32`"
            )
        return [path, *args]
    from cellblade.sdk import toolchain

    qemu = toolchain.PPC32.qemu
    if shutil.which(qemu) is None:
        raise LaunchError(
            f"{qemu} is not installed: a PowerPC rank (`mpicc --target=ppc32`) runs under "
            "Debian's qemu-user (`make sdk-tools` installs it, as root)"
        )
    command = [qemu, "-cpu", toolchain.PPC32.qemu_cpu]
    if model:
        import tomllib

        from cellblade.sdk import cost

        try:
            plugin = cost.plugin()
        except toolchain.ToolError as error:
            raise LaunchError(str(error)) from None
        # The machine file's [spu_cost], --set overrides applied, as the SDK's run passes it.
        table = tomllib.loads(_core.resolved_machine(chosen))["spu_cost"]
        command += ["-plugin", f"{plugin},{cost.plugin_args(table)},fd="]
    return [*command, path, *args]


def _with_counter(command: list[str], fd: int) -> list[str]:
    """A rank's command with its counter's descriptor given to the plugin (`fd=N`)."""
    return [
        f"{a}{fd}" if i > 0 and command[i - 1] == "-plugin" else a for i, a in enumerate(command)
    ]


def _counter() -> int:
    """A rank's cost counter: eight bytes of a memory file, at zero (sdk/cost.rs's Counter)."""
    fd = os.memfd_create("cellblade-spu-cost", os.MFD_CLOEXEC)
    os.ftruncate(fd, 8)
    return fd


def _machine(machine: str | Path, overrides: list[str]) -> dict[str, Any]:
    text = str(machine)
    if isinstance(machine, Path) or text.endswith(".toml"):
        return {"toml": Path(machine).read_text(), "set": overrides}
    return {"preset": text, "set": overrides}


def _request(
    n: int,
    mode: str | None,
    placement: str | Path | list[int] | None,
    trace: bool | str | Path,
    depth: int | None,
    coll: str | None = None,
    compute: str | None = None,
    params_toml: str | None = None,
) -> dict[str, Any]:
    """The job's request (crates/cellblade/src/mpi/request.rs); fields left out take the core's
    defaults. A placement that names a file is the file's text; a trace that names a file
    streams there."""
    request: dict[str, Any] = {"ranks": n, "trace": trace is True}
    if isinstance(trace, (str, Path)):
        request["trace_file"] = str(trace)
    if mode is not None:
        request["mode"] = mode
    if depth is not None:
        request["depth"] = depth
    if coll is not None:
        request["coll"] = coll
    if compute is not None:
        request["compute"] = compute
    if params_toml is not None:
        request["params_toml"] = params_toml
    if isinstance(placement, Path) or (isinstance(placement, str) and os.path.isfile(placement)):
        request["placement_file"] = Path(placement).read_text()
    elif placement is not None:
        request["placement"] = placement
    return request


def wants_auto(coll: str | None) -> bool:
    """Whether `coll` lets the model choose a family's algorithm ("auto" or "OP=auto")."""
    return coll is not None and "auto" in coll.replace("=", ",").split(",")


def mpirun(
    program: str,
    args: list[str] = (),  # type: ignore[assignment]
    n: int = 1,
    mode: str | None = None,
    machine: str | Path = "qs20",
    overrides: list[str] = (),  # type: ignore[assignment]
    placement: str | Path | list[int] | None = None,
    trace: bool | str | Path = False,
    depth: int | None = None,
    coll: str | None = None,
    compute: str | None = None,
    timeout: float | None = None,
    params_toml: str | None = None,
) -> JobResult:
    """Run `program ARGS` as `n` ranks; returns when every rank has ended. `placement` gives
    each rank's SPE: a named placement, the SPE ids in rank order ([0, 8, 1, 9]) or a
    placement file. `coll` puts collectives on the collective library ("library", "auto" or
    "OP=ALGO,..."; see the README's MPI section). `compute` is what computation between calls
    costs: "zero", "model" (the SPU cycles of a PowerPC program's code, built with
    `mpicc --target=ppc32`; LaunchError for any other) or "cpu[:FACTOR]". Left out, `mode`, `depth`, `coll` and `compute` are the
    core's defaults (``catalog()["mpi"]``). `trace`: True keeps the trace in the report, a
    path streams it to that file. `timeout`: seconds of wall time after which the job is ended
    (exit status 124), its report naming each rank's last MPI call. `params_toml`: the model's
    parameters `auto` collectives choose by (default: `model.params_for` this machine, measured
    once and cached)."""
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout {timeout!r} is invalid: allowed a number of seconds above 0")
    if params_toml is None and wants_auto(coll):
        from cellblade import model

        params_toml = model.params_for(machine, list(overrides))
    request = _request(n, mode, placement, trace, depth, coll, compute, params_toml)
    chosen = _machine(machine, list(overrides))
    if not 1 <= n <= _core.catalog()["mpi"]["max_ranks"]:
        _core.mpi_run([], request, chosen)  # the core refuses the count, naming the field
    path = _resolve(program)
    model = (compute or _core.catalog()["mpi"]["default_compute"]) == "model"
    command = _rank_command(path, list(args), model, chosen)
    ppc = command[0] != path
    pairs = [socket.socketpair() for _ in range(n)]
    counters = [_counter() for _ in range(n)] if model else []
    procs: list[subprocess.Popen] = []
    # A PowerPC rank writes its state page's numbers big-endian.
    pages = watch.StatePages(n, "big" if ppc else sys.byteorder)
    handlers = _catch_ending_signals()
    try:
        for rank, (_, child) in enumerate(pairs):
            env = dict(
                os.environ,
                CELLBLADE_MPI_FD=str(child.fileno()),
                CELLBLADE_MPI_RANK=str(rank),
                CELLBLADE_MPI_STATE_FD=str(pages.fd),
                CELLBLADE_MPI_PARENT=str(os.getpid()),
            )
            if model:
                # The plugin publishes its count at system calls: every call over the socket.
                env["CELLBLADE_MPI_CHANNEL"] = "socket"
            passed = [child.fileno(), pages.fd, *counters[rank : rank + 1]]
            mine = _with_counter(command, counters[rank]) if model else command
            procs.append(subprocess.Popen(mine, env=env, pass_fds=passed))
            child.close()
        fds = [parent.detach() for parent, _ in pairs]
        owned, counters = counters, []  # the simulator owns them from here, also if it fails
        outcome = _simulate(procs, fds, request, chosen, pages, timeout, owned)
        if isinstance(outcome, watch.Verdict):
            return JobResult(outcome.exit_code, outcome.message, {"outcome": "ended"})
        return _finish(outcome, procs, pages)
    except _Signalled as sig:
        native.end(procs)
        name = signal.Signals(sig.signum).name
        return JobResult(128 + sig.signum, f"ended by {name}: every rank was ended")
    finally:
        for parent, child in pairs:
            parent.close()
            child.close()
        for fd in counters:
            os.close(fd)
        native.end(procs)  # a finished job's ranks have exited: this ends a failed job's
        pages.close()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _catch_ending_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP end the job as Ctrl-C does (only the main thread may set handlers:
    elsewhere the ranks still die with this process)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def raise_it(signum: int, _frame: Any) -> None:
        raise _Signalled(signum)

    return {s: signal.signal(s, raise_it) for s in _ENDING_SIGNALS}


def _simulate(
    procs: list[subprocess.Popen],
    fds: list[int],
    request: dict[str, Any],
    machine: dict[str, Any],
    pages: watch.StatePages,
    timeout: float | None,
    counters: list[int],
) -> dict[str, Any] | watch.Verdict:
    """Run the simulation in a thread while this one watches the rank processes (watch.py) and
    takes Ctrl-C and the ending signals even while the simulator waits for a rank that
    computes: then the ranks are ended, which closes their sockets and ends the simulation.
    Returns the simulator's report (the job's outcome with its machine_toml), or the verdict
    of a job the launcher ended itself."""
    outcome: dict[str, Any] = {}
    done_r, done_w = os.pipe()

    def run() -> None:
        try:
            answer = _core.mpi_run(fds, request, machine, counters)
            outcome["report"] = {**answer["result"], "machine_toml": answer["machine_toml"]}
        except BaseException as error:  # handed to the main thread
            outcome["error"] = error
        finally:  # the watcher may have stopped listening: then nobody needs the word
            try:
                os.write(done_w, b"x")
            except OSError:
                pass
            os.close(done_w)

    worker = threading.Thread(target=run, name="cellblade-mpirun", daemon=True)
    worker.start()
    try:
        verdict = watch.watch(procs, pages, done_r, timeout)
    except BaseException:
        native.end(procs)
        worker.join(_SIMULATOR_GRACE_S)
        raise
    finally:
        os.close(done_r)
    if verdict is not None:
        # The simulator may be ending the job itself (a refused request, the rank's loss seen):
        # its word is the more precise one when it comes at once.
        worker.join(_SIMULATOR_FIRST_S)
        if worker.is_alive():
            native.end(procs)
            worker.join(_SIMULATOR_GRACE_S)
            return verdict
    worker.join()
    error = outcome.get("error")
    if isinstance(error, _core.DeadlockError):
        raise _core.DeadlockError(watch.in_user_terms(str(error), pages)) from None
    if error is not None:
        raise error
    return outcome["report"]


def _finish(
    report: dict[str, Any], procs: list[subprocess.Popen], pages: watch.StatePages
) -> JobResult:
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
                    native.exit_code_of(p),
                    f"rank {rank} {native.ended_how(p)} after MPI_Finalize",
                    report,
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
    # The simulator saw the rank's last request; its state page names the program's call,
    # also one it died in before reaching the simulator.
    after = watch.user_call(report["after"], pages.read(rank))
    try:
        p.wait(timeout=_GRACE_S)
    except subprocess.TimeoutExpired:
        return JobResult(
            1,
            f"rank {rank} closed its connection without MPI_Finalize (last call: {after}): the other ranks were ended",
            report,
        )
    return JobResult(
        native.exit_code_of(p) or 1,
        f"rank {rank} {native.ended_how(p)} without calling MPI_Finalize (its last call: {after}): the other ranks were ended",
        report,
    )
