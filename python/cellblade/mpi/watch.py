"""What `cellblade mpirun` watches while the simulator runs a job (launcher.py).

The simulator learns of a rank only when it next serves it, which may be hours of wall time
after the rank crashed if another rank computes meanwhile. So the launcher watches the rank
processes itself, as it watches any job's native processes (native.py), and each rank's state
page (a shared file written by libmpi/src/env/fault.c) says how far the rank got: the program's
last MPI call, written when the call starts, whether it waits in that call now, whether it
finalized, aborted (with its code) or was ended because the simulator had gone.
"""

from __future__ import annotations

import mmap
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from cellblade import native

# cb_fault.c's struct cb_state: CALL_BYTES of call name ("MPI_Send on MPI_COMM_WORLD"), then
# phase, code and inside (int32 each).
STATE_BYTES = 128
CALL_BYTES = 96
PHASE_NONE, PHASE_RUNNING, PHASE_FINALIZED, PHASE_ABORTED, PHASE_LOST = range(5)
BEFORE_INIT = "none, before MPI_Init"
# Exit status of a job ended by --timeout (as coreutils' timeout).
TIMEOUT_EXIT = 124


@dataclass(frozen=True)
class RankState:
    call: str
    phase: int
    code: int
    inside: bool


class StatePages:
    """One state page per rank in a memory file the ranks map (CELLBLADE_MPI_STATE_FD)."""

    def __init__(self, ranks: int, byteorder: str = sys.byteorder) -> None:
        """`byteorder`: the ranks' ("big" for PowerPC ranks under qemu-user)."""
        self.ranks = ranks
        self.byteorder = byteorder
        self.fd = os.memfd_create("cellblade-mpi-state", 0)
        os.ftruncate(self.fd, ranks * STATE_BYTES)
        self._map = mmap.mmap(self.fd, ranks * STATE_BYTES)

    def read(self, rank: int) -> RankState:
        page = self._map[rank * STATE_BYTES : (rank + 1) * STATE_BYTES]
        call = page[:CALL_BYTES].split(b"\0", 1)[0].decode(errors="replace") or BEFORE_INIT
        ints = [
            int.from_bytes(
                page[CALL_BYTES + 4 * i : CALL_BYTES + 4 * i + 4], self.byteorder, signed=True
            )
            for i in range(3)
        ]
        return RankState(call, ints[0], ints[1], bool(ints[2]))

    def close(self) -> None:
        self._map.close()
        os.close(self.fd)


@dataclass(frozen=True)
class Verdict:
    """A job the launcher ended on its own: its exit status and what to tell the user."""

    exit_code: int
    message: str


def _death(rank: int, proc: subprocess.Popen, state: RankState) -> Verdict | None:
    """The job's verdict when rank `rank`'s process has ended, or None when that is no failure
    the launcher reports itself (it finalized, or the simulator ended it and will say why)."""
    if state.phase in (PHASE_FINALIZED, PHASE_LOST):
        return None
    if state.phase == PHASE_ABORTED:
        code = state.code
        return Verdict(
            code if 0 < code < 256 else 1,
            f"rank {rank} called MPI_Abort with error code {code}: the other ranks were ended",
        )
    return Verdict(
        native.exit_code_of(proc) or 1,
        f"rank {rank} {native.ended_how(proc)} without calling MPI_Finalize "
        f"(its last call: {state.call}): the other ranks were ended",
    )


def _timed_out(timeout: float, pages: StatePages, procs: list[subprocess.Popen]) -> Verdict:
    parts = []
    for rank, proc in enumerate(procs):
        s = pages.read(rank)
        if proc.poll() is not None:
            parts.append(f"rank {rank} had ended ({s.call})")
        elif s.phase == PHASE_FINALIZED:
            parts.append(f"rank {rank} is past MPI_Finalize")
        elif s.inside:
            parts.append(f"rank {rank} waits in {s.call}")
        else:
            parts.append(f"rank {rank} computes after {s.call}")
    return Verdict(
        TIMEOUT_EXIT,
        f"the job ran past --timeout {timeout:g} s (wall time): {'; '.join(parts)}: "
        "every rank was ended",
    )


# One rank's part of the simulator's deadlock report (mpi/tracker.rs): "rank 0 waits in X".
_WAITS = re.compile(r"rank (\d+) waits in (.*)", re.S)
# Where a point-to-point call the simulator saw went: "to 1, tag 5" (world ranks, user tags);
# MPI_Sendrecv has both, "to 1, tag 3, from 1, tag 4".
_PEER = re.compile(r"(,? (to|from) -?\d+, tag -?\d+)+$")
# The simulator's words for the sends and receives a collective of its own makes
# ("MPI_Barrier (MPI_Recv from 1, tag 1073741824)"): not the program's.
_INNER_P2P = re.compile(r" \(MPI_I?(Send|Recv|Ssend)[^)]*\)")


def user_call(seen: str, state: RankState) -> str:
    """The call a rank is in, in the program's terms: its own call and communicator from its
    state page, where the simulator saw the sends and receives the library made for it (an
    MPI_Allreduce's MPI_Recv on the collective context, a blocking send's MPI_Wait)."""
    call, _, comm = state.call.partition(" on ")
    if seen == call or seen.startswith(call + " "):
        detail = _INNER_P2P.sub("", seen[len(call) :])  # the simulator's words for this very call
    else:
        peer = _PEER.search(seen)
        p2p = "send" in call.lower() or "recv" in call.lower()
        detail = peer.group(0) if peer and p2p else ""
    if comm not in ("", "MPI_COMM_WORLD"):  # the simulator's ranks are MPI_COMM_WORLD's
        detail = _PEER.sub("", detail)
    return f"{call}{detail}" + (f" on {comm}" if comm else "")


def in_user_terms(report: str, pages: StatePages) -> str:
    """The simulator's deadlock report with each waiting rank's call as the program wrote it."""
    head, sep, body = report.partition(" ns: ")
    if not sep:
        return report
    parts = []
    for part in body.split("; "):
        m = _WAITS.fullmatch(part)
        state = pages.read(int(m.group(1))) if m and int(m.group(1)) < pages.ranks else None
        # The call it waits in is its last one (a rank told of the end may have left it since).
        if state is not None and state.phase in (PHASE_RUNNING, PHASE_LOST):
            part = f"rank {m.group(1)} waits in {user_call(m.group(2), state)}"
        parts.append(part)
    return head + sep + "; ".join(parts)


def watch(
    procs: list[subprocess.Popen],
    pages: StatePages,
    done_fd: int,
    timeout: float | None,
) -> Verdict | None:
    """Wait until the simulator is done (`done_fd` readable) or the launcher must end the job:
    a rank ended badly, or `timeout` seconds of wall time passed. Returns that verdict, or None
    when the simulator's report is the job's outcome."""
    try:
        return native.watch(procs, done_fd, timeout, lambda r: _death(r, procs[r], pages.read(r)))
    except native.TimedOut:
        return _timed_out(timeout, pages, procs)  # type: ignore[arg-type]
