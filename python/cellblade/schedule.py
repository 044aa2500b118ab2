"""Collective algorithms written in Python: a schedule generator is a function
``generate(spes, root, size) -> Schedule`` that lays out rounds of transfers, as the built-in
algorithms do in Rust (seed 000's algorithms are all of this form). The core checks the
schedule, runs it through the data-only interpreter and on the simulated blade, exactly like a
built-in::

    from cellblade.schedule import Schedule, copy

    def ring(spes, root, size):
        \"\"\"All-gather around a ring: in round k, rank r gets block r-k-1 from rank r-1.\"\"\"
        s = Schedule("allgather.ring", "allgather", spes, root, size)
        for k in range(spes - 1):
            s.round(copy(r, (r - 1) % spes, (r - k - 1) % spes * size, size)
                    for r in range(spes))
        return s

    cellblade.coll_run("allgather", spes=8, sizes=[1024], algorithms=["allgather.rdb", ring])

Each rank's working buffer starts with its input: the whole vector for broadcast (at the root),
reduce and all-reduce; its own block at ``rank * size`` for all-gather. A transfer's offsets are
bytes into that buffer; all sizes and offsets are whole quadwords (multiples of 16). Within a
round every transfer reads the buffers as the round found them.
"""

from __future__ import annotations

import os
import runpy
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from cellblade import _core

SPES_PER_CHIP: int = _core.catalog()["spes_per_chip"]


@dataclass(frozen=True)
class Transfer:
    """``dst`` gets ``bytes`` from ``src``'s buffer at ``src_offset`` into its own at
    ``dst_offset``: a copy, a reduce (combined into what ``dst`` holds) or a bare notify. ``via``
    is how the transfer is announced and acknowledged: "ls" (local-store notification arrays),
    "mailbox", or, for notifies only, "signal" (OR-mode signal bits) and "atomic" (a counter in
    main memory). ``src == dst`` is a copy within one rank's buffer by its SPU."""

    dst: int
    src: int
    action: str
    bytes: int = 0
    src_offset: int = 0
    dst_offset: int = 0
    via: str = "ls"


def copy(
    dst: int, src: int, offset: int, nbytes: int, *, dst_offset: int | None = None, via: str = "ls"
) -> Transfer:
    """``dst`` copies ``nbytes`` at ``offset`` of ``src``'s buffer (to ``dst_offset``, by default
    the same offset)."""
    return Transfer(
        dst, src, "copy", nbytes, offset, offset if dst_offset is None else dst_offset, via
    )


def reduce(
    dst: int, src: int, offset: int, nbytes: int, *, dst_offset: int | None = None, via: str = "ls"
) -> Transfer:
    """``dst`` combines ``nbytes`` at ``offset`` of ``src``'s buffer into its own."""
    return Transfer(
        dst, src, "reduce", nbytes, offset, offset if dst_offset is None else dst_offset, via
    )


def notify(dst: int, src: int, *, via: str = "ls") -> Transfer:
    """``src`` tells ``dst`` it has reached this round (barriers)."""
    return Transfer(dst, src, "notify", via=via)


def local(rank: int, src_offset: int, dst_offset: int, nbytes: int) -> Transfer:
    """``rank``'s SPU copies ``nbytes`` within its own buffer."""
    return Transfer(rank, rank, "copy", nbytes, src_offset, dst_offset)


@dataclass
class Schedule:
    """Rounds of transfers for ``spes`` ranks. ``algorithm`` is the name results carry
    ("op.name"); ``buffer`` is each rank's buffer in bytes (None: what the operation needs);
    ``ordered`` False lets a rank announce its later sends without waiting for acknowledgements
    (the seed's "simple" broadcast); ``protocol`` "receiver_initiated" carries each transfer
    as CML's messages (the receiver's request, the data, a completion) instead of the seed's
    "notify" (announce, get, acknowledge)."""

    algorithm: str
    op: str
    spes: int
    root: int
    size: int
    buffer: int | None = None
    ordered: bool = True
    protocol: str = "notify"
    rounds: list[list[Transfer]] = field(default_factory=list)

    def round(self, transfers: Iterable[Transfer]) -> None:
        """Adds a round (an empty one is left out)."""
        transfers = list(transfers)
        if transfers:
            self.rounds.append(transfers)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the core reads."""
        document = asdict(self)
        if self.buffer is None:
            del document["buffer"]
        return document


Generator = Callable[[int, int, int], Schedule]


def generate(
    generator: Generator, op: str | None, spes: int, root: int, size: int
) -> dict[str, Any]:
    """Calls ``generator`` and checks that it answered with a Schedule (of operation ``op``,
    unless None)."""
    name = getattr(generator, "__name__", repr(generator))
    try:
        schedule = generator(spes, root, size)
    except Exception as error:  # the user's code: say where, keep the cause for tracebacks
        raise ValueError(
            f"schedule generator {name} failed for spes={spes}, root={root}, "
            f"size={size}: {type(error).__name__}: {error}"
        ) from error
    if not isinstance(schedule, Schedule):
        raise TypeError(
            f"schedule generator {name} returned {type(schedule).__name__}, "
            "expected a cellblade.schedule.Schedule"
        )
    document = schedule.to_dict()
    if op is not None and document["op"] != op:
        raise ValueError(
            f"schedule generator {schedule.algorithm} builds a schedule for "
            f"operation {document['op']}, the run is for {op}"
        )
    return document


def load(spec: str) -> Generator:
    """The generator named by "FILE.py:FUNCTION" (the CLI's --generator)."""
    path, colon, name = spec.rpartition(":")
    if not colon or not path.endswith(".py") or not name:
        raise ValueError(f"invalid value {spec!r}: expected FILE.py:FUNCTION")
    if not os.path.isfile(path):
        raise ValueError(f"invalid value {spec!r}: no file {path}")
    namespace = runpy.run_path(path)
    generator = namespace.get(name)
    if not callable(generator):
        raise ValueError(f"invalid value {spec!r}: {path} defines no function {name}")
    return generator


def short(algorithm: str) -> str:
    """The algorithm's name without its operation: "allgather.rdb" -> "rdb"."""
    return algorithm.partition(".")[2] or algorithm


def crosses_bif(placement: list[int], transfer: dict[str, Any]) -> bool:
    """Whether a schedule transfer goes between the chips: its ranks' SPEs (0-7 on chip 0,
    8-15 on chip 1) are on different chips."""
    chips = {placement[transfer[end]] // SPES_PER_CHIP for end in ("src", "dst")}
    return len(chips) == 2
