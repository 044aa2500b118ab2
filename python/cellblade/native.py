"""The processes of one job of native programs, watched and ended together.

`cellblade mpirun` (mpi/launcher.py) starts one process per rank, and the Cell SDK's programs
will start PPE and SPE processes the same way; the simulator serves them from a thread of this
process. A process that dies must end the job when it dies, whatever the others do (compute,
sleep, block in a system call, wait for the simulator), so the launcher does not learn of it
from the simulator, which hears of a process only when it next serves it: `watch` holds a
pidfd per process, readable the moment that process ends, beside the simulator's own "done".
`end` then takes the rest down: SIGTERM first, on which the C libraries flush what the program
printed and die of it (libmpi/src/env/fault.c), SIGKILL for one that does not go, every process
reaped. What a death means (a failure, or a process that finished its part) is the caller's
`judge`.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

Verdict = TypeVar("Verdict")

# How long a process gets after SIGTERM before SIGKILL: flushing its output is all it does.
END_GRACE_S = 1.0


class TimedOut(Exception):
    """`watch`'s timeout passed before the job ended."""


def watch(
    procs: Sequence[subprocess.Popen],
    done_fd: int,
    timeout: float | None,
    judge: Callable[[int], Verdict | None],
) -> Verdict | None:
    """Wait until `done_fd` is readable (returns None: the caller's own report is the job's
    outcome) or a process ends for which `judge(its index)`, called once it is reaped, returns
    a verdict (returned). Raises TimedOut after `timeout` seconds of wall time."""
    deadline = None if timeout is None else time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(done_fd, selectors.EVENT_READ, -1)
        pidfds = []
        try:
            for index, proc in enumerate(procs):
                fd = os.pidfd_open(proc.pid)
                pidfds.append(fd)
                sel.register(fd, selectors.EVENT_READ, index)
            while True:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                events = sel.select(left)
                if not events and deadline is not None and time.monotonic() >= deadline:
                    raise TimedOut
                if any(key.data == -1 for key, _ in events):
                    return None
                for key, _ in events:
                    sel.unregister(key.fd)
                    procs[key.data].wait()
                    verdict = judge(key.data)
                    if verdict is not None:
                        return verdict
        finally:
            for fd in pidfds:
                os.close(fd)


def end(procs: Sequence[subprocess.Popen], grace: float = END_GRACE_S) -> None:
    """End every process still running, all at once: SIGTERM, then SIGKILL to those still
    there after `grace` seconds; returns when every one is reaped."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def ended_how(proc: subprocess.Popen) -> str:
    """ "was killed by SIGSEGV" or "exited with code 3", for an ended process."""
    code = proc.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


def exit_code_of(proc: subprocess.Popen) -> int:
    """The ended process's status as a shell gives it (128 + the signal's number)."""
    return 128 - proc.returncode if proc.returncode < 0 else proc.returncode
