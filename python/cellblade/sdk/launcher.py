"""`cellblade run`: a Cell SDK program on the simulated blade.

The PPE program runs under qemu-user (toolchain.PPC32 or PPC64, by its ELF class) with one end
of a socket pair in ``CELLBLADE_SDK_FD``; the simulator, in a thread of this process, serves its
libspe2 calls over the other end and starts an SPE process for each context it runs
(crates/cellblade/src/sdk/job.rs). qemu-user's guest base is fixed (``-B``) so that the simulator
finds the PPE program's memory, which its SPEs' DMAs read and write, at a known place.

The run ends when the PPE process does; its exit status is the run's. The PPE process leads a
process group of its own, which the simulator puts the SPE processes in: when the PPE process
ends, the group is ended, as an SPE context ends with its program on Linux, and nothing is left
running. When the simulation fails (an illegal DMA, a deadlock, an error of the simulator) the
group is ended and the error reported; Ctrl-C, SIGTERM and SIGHUP end it too.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cellblade import _core, native
from cellblade.sdk import cost, toolchain

# Where qemu-user puts the guest's address 0 in the host: above the low 4 GiB, which a 32-bit
# guest's whole space fills, and far below where the host maps qemu itself and its libraries.
# What SPE code costs when the caller names nothing: the core's default.
DEFAULT_COMPUTE = _core.catalog()["sdk"]["default_compute"]

GUEST_BASE = {32: 0x1_0000_0000, 64: 0x2000_0000_0000}


@dataclass
class RunResult:
    """How a run ended: ``exit_code`` is the PPE program's (128 + a signal that ended it),
    ``message`` says how it ended when not by itself, ``report`` is the simulator's, and
    ``stdout``/``stderr`` what the program printed, when the run captured it."""

    exit_code: int
    message: str = ""
    report: dict[str, Any] = field(default_factory=dict)
    stdout: str | None = None
    stderr: str | None = None


class RunError(Exception):
    """A program that cannot be run, said for the user."""


def _bits_of(program: str) -> int:
    try:
        with open(program, "rb") as f:
            ident = f.read(6)
    except OSError as error:
        raise RunError(f"{program}: {error.strerror.lower()}") from None
    if ident[:4] != b"\x7fELF" or ident[5] != 2 or ident[4] not in (1, 2):
        raise RunError(
            f"{program}: not a big-endian PowerPC executable: build the PPE program with "
            "`cellblade ppu-gcc` (or ppu32-gcc)"
        )
    return 32 if ident[4] == 1 else 64


def run(
    program: str,
    args: list[str],
    machine: dict[str, Any] | None = None,
    trace: bool = False,
    capture: bool = False,
    compute: str | None = None,
) -> RunResult:
    """Run the PPE program `program` with `args`; returns when it has ended. With `capture`,
    what the program (and its SPEs, through it) prints is kept in the result instead of going
    to this process's standard output and error. `compute` is what the SPE programs' own code
    costs: "model" (the SPU cycles it takes, the default) or "zero"; the core checks it."""
    path = Path(program)
    if not path.is_file():
        raise RunError(f"{program}: no such file")
    bits = _bits_of(program)
    costs: dict[str, Any] = {}
    if compute is not None:
        costs["compute"] = compute
    if (compute or DEFAULT_COMPUTE) == "model":
        try:
            costs["cost_plugin"] = str(cost.plugin())
        except toolchain.ToolError as error:
            raise RunError(str(error)) from None
    ppe = toolchain.PPC32 if bits == 32 else toolchain.PPC64
    ours, theirs = socket.socketpair()
    env = {
        **os.environ,
        "CELLBLADE_SDK_FD": str(theirs.fileno()),
        "CELLBLADE_SDK_PARENT": str(os.getpid()),
    }
    command = [ppe.qemu, "-cpu", ppe.qemu_cpu, "-B", hex(GUEST_BASE[bits]), str(path), *args]
    try:
        pipe = subprocess.PIPE if capture else None
        process = subprocess.Popen(
            command,
            env=env,
            pass_fds=[theirs.fileno()],
            process_group=0,
            stdout=pipe,
            stderr=pipe,
        )
    except FileNotFoundError:
        raise RunError(
            f"{ppe.qemu} is not installed: SDK programs run under Debian's qemu-user "
            "(`make sdk-tools` installs it, as root)"
        ) from None
    finally:
        theirs.close()
    request = {
        "spe_command": [toolchain.PPC32.qemu, "-cpu", toolchain.PPC32.qemu_cpu],
        "ppe_pid": process.pid,
        "guest_base": GUEST_BASE[bits],
        "bits": bits,
        "trace": trace,
        **costs,
    }
    outcome: dict[str, Any] = {}
    done_r, done_w = os.pipe()

    def simulate() -> None:
        try:
            outcome["answer"] = _core.sdk_run(ours.detach(), request, machine)
        except BaseException as error:  # handed to the main thread, which reports it
            outcome["error"] = error
        finally:
            os.write(done_w, b"x")

    thread = threading.Thread(target=simulate, name="cellblade-sdk", daemon=True)
    # The program's output is read as it comes, so that a full pipe never holds it.
    printed: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda f=f, key=key: printed.update({key: f.read()}), daemon=True)
        for key, f in (("stdout", process.stdout), ("stderr", process.stderr))
        if f is not None
    ]
    for reader in readers:
        reader.start()
    previous = {s: signal.signal(s, _raise_signalled) for s in (signal.SIGTERM, signal.SIGHUP)}
    ended_by = None
    try:
        thread.start()
        # The PPE process's end is the run's, whatever the simulator is doing; the simulator's
        # failure ends the PPE process (native.py watches both).
        native.watch([process], done_r, None, lambda _: True)
    except _Signalled as sig:
        native.end([process])
        ended_by = sig.signum
    except KeyboardInterrupt:
        native.end([process])
        raise
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if "error" in outcome:
            native.end([process])
        else:
            process.wait()
        _end_group(process)
        thread.join()
        for reader in readers:
            reader.join()
        os.close(done_r)
        os.close(done_w)
    if ended_by is not None:
        name = signal.Signals(ended_by).name
        return RunResult(128 + ended_by, f"ended by {name}: the PPE and SPE processes were ended")
    if "error" in outcome:
        raise outcome["error"]
    result = outcome["answer"]["result"]
    report = {**result, "machine_toml": outcome["answer"]["machine_toml"]}
    killed = process.returncode < 0
    message = f"the PPE program {native.ended_how(process)}" if killed else ""
    text = {key: value.decode(errors="replace") for key, value in printed.items()}
    return RunResult(
        native.exit_code_of(process), message, report, text.get("stdout"), text.get("stderr")
    )


def run_spe(program: str, args: list[str], *options: Any, **named: Any) -> RunResult:
    """Run the SPE executable `program` alone, as the SDK's elfspe did: cellblade's PPE program
    (sdk/elfspe/elfspe.c) runs it in one context, its `main(argc, argv)` gets `program` and
    `args`, and the run's exit code is the SPE's. The other arguments are :func:`run`'s."""
    path = Path(program)
    if not path.is_file():
        raise RunError(f"{program}: no such file")
    if not toolchain.is_spe_executable(path):
        raise RunError(
            f"{program}: not an SPE executable (a 32-bit big-endian ELF file with its data in "
            "local store): build it with `cellblade spu-gcc`"
        )
    try:
        ppe = toolchain.elfspe()
    except toolchain.ToolError as error:
        raise RunError(str(error)) from None
    return run(str(ppe), [program, *args], *options, **named)


class _Signalled(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_signalled(signum: int, frame: object) -> None:
    raise _Signalled(signum)


def _end_group(process: subprocess.Popen) -> None:
    """End the SPE processes left in the PPE process's group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
