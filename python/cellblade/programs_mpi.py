"""MPI programs written in Python, run on the simulated SPEs with an mpi4py-like communicator.

A job of N ranks (at most 16, one per SPE, as seed 004 places them) runs a generator function
per rank. The function takes the communicator; every call that takes simulated time is
``yield``\\ ed and the value of the ``yield`` is its result, as with the SPE programs of
``cellblade.programs``::

    import numpy as np
    from cellblade.programs_mpi import ANY_SOURCE, SUM, Job, Status

    def program(comm):
        if comm.rank == 0:
            yield comm.send({"step": 1}, dest=1, tag=5)        # any picklable object
            yield comm.Send(np.arange(4.0), dest=1, tag=6)      # a buffer: its bytes
        elif comm.rank == 1:
            st = Status()
            obj = yield comm.recv(source=ANY_SOURCE, tag=5, status=st)
            buf = np.empty(4)
            yield comm.Recv(buf, source=0, tag=6)
        total = yield comm.allreduce(comm.rank, op=SUM)
        return total                                            # in the report's "results"

    report = Job(4).run(program)
    print(report["simulated_ns"], report["results"])

Every operation runs seed 004's synchronous-mode protocol on the rank's simulated SPE (the
core's ``cellblade::mpi::Rank``, the one ``cellblade mpirun`` runs C programs on) with the
real bytes: objects are pickled, buffers (NumPy arrays, ``bytes``, ``bytearray``) sent as
their bytes. A Python program's ``Send``/``Recv`` cost exactly what the C program's
``MPI_Send``/``MPI_Recv`` of the same sizes cost. The lowercase ``recv`` receives a message of
unknown size as mpi4py does, by probing first (one more poll of the entry than ``Recv``).
Collectives are the seed's (section 3.4, as the C library builds them): linear from or to the
root, reductions combined in rank order ``x0 op (x1 op (... op xN-1))``, ``allreduce`` a reduce
to rank 0 then a broadcast, ``allgather`` a gather to rank 0 then a broadcast per rank.

Communicator (``comm``): attributes ``rank``, ``size``; ``Get_rank()``, ``Get_size()``,
``Wtime()`` (simulated seconds, from the decrementer), ``Wtick()``, plain. To yield:
``send(obj, dest, tag=0)``, ``recv(buf=None, source=ANY_SOURCE, tag=ANY_TAG, status=None)``,
``Send(buf, dest, tag=0)``, ``Recv(buf, source=ANY_SOURCE, tag=ANY_TAG, status=None)``,
``Sendrecv(sendbuf, dest, sendtag=0, recvbuf=None, source=ANY_SOURCE, recvtag=ANY_TAG,
status=None)`` (cannot deadlock, seed 004 section 7), ``probe``/``iprobe(source, tag,
status)``, ``barrier()``/``Barrier()``, ``bcast(obj, root=0)``, ``reduce(sendobj, op=SUM,
root=0)``, ``allreduce(sendobj, op=SUM)``, ``gather(sendobj, root=0)``, ``scatter(sendobj,
root=0)``, ``allgather(sendobj)``, the buffer forms ``Bcast(buf, root)``, ``Reduce(sendbuf,
recvbuf, op, root)``, ``Allreduce(sendbuf, recvbuf, op)``, ``Gather(sendbuf, recvbuf,
root)``, ``Scatter(sendbuf, recvbuf, root)``, ``Allgather(sendbuf, recvbuf)``, and
``compute(core_cycles)`` (work on the SPU; computing between calls is otherwise free, as in
``mpirun``). Operations: ``SUM``, ``PROD``, ``MIN``, ``MAX`` (elementwise on arrays).
``PROC_NULL`` as a destination or source does nothing, as in MPI. Non-blocking, not yielded
(they return a ``Request``, posted before the program's next yielded operation runs):
``isend(obj, dest, tag)``, ``irecv(buf=None, source, tag)`` (a 32 KB buffer when none,
mpi4py's default), ``Isend(buf, dest, tag)``, ``Irecv(buf, source, tag)``; to yield:
``request.wait(status)``/``Wait``, ``test``/``Test`` (``(False, None)``/``False`` while not
done), ``Request.waitall(requests, statuses)``/``Waitall``, ``Request.waitany(requests,
status)``/``Waitany``. They run on the core's progress engine, as the C library's do: requests
are in flight together (``programs_mpi_requests``). Not provided: communicators other than the world, ``alltoall``
and the lowercase ``sendrecv`` (a pickled receive needs a size the synchronous exchange cannot
probe for).

Errors: a bad rank, tag, root or buffer is a ``ConfigError`` naming the argument
(``err.field``), raised where the call is made; a message longer than the receive buffer is an
``MPIError`` (``error_class`` ``ERR_TRUNCATE``) at the receiver; a deadlock ends the run with
``DeadlockError`` naming every rank's pending call. An exception escaping a rank ends the run
and ``run()`` re-raises it.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, Optional, Union

from cellblade import _core, machine
from cellblade._core import MpiRank
from cellblade.machine import field_error
from cellblade.programs_mpi_comm import Comm
from cellblade.programs_mpi_requests import Request
from cellblade.programs_mpi_types import (
    ANY_SOURCE,
    ANY_TAG,
    ERR_TRUNCATE,
    MAX,
    MIN,
    PROC_NULL,
    PROD,
    SUM,
    TAG_UB,
    MPIError,
    Op,
    Status,
    _is_int,
)

__all__ = [
    "ANY_SOURCE",
    "ANY_TAG",
    "ERR_TRUNCATE",
    "MAX",
    "MIN",
    "PROC_NULL",
    "PROD",
    "SUM",
    "TAG_UB",
    "Comm",
    "Job",
    "MPIError",
    "Op",
    "Request",
    "Status",
]

RankProgram = Callable[[Comm], Generator[Any, Any, Any]]


def _run(top: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Run a rank program whose operations may be generators themselves (``data = yield
    comm.recv()``): each is run in place, its return value the value of its ``yield``, and an
    exception it raises is thrown in at that ``yield``. Core operations pass through."""
    stack = [top]
    value: Any = None
    error: Optional[BaseException] = None
    while True:
        try:
            item = stack[-1].throw(error) if error is not None else stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value, error = stop.value, None
            continue
        except BaseException as exc:
            stack.pop()
            if not stack:
                raise
            value, error = None, exc
            continue
        if inspect.isgenerator(item):
            stack.append(item)
            value, error = None, None
            continue
        try:
            value, error = (yield item), None
        except GeneratorExit:
            raise
        except BaseException as exc:
            value, error = None, exc


class Job:
    """An MPI job of ``ranks`` ranks on a simulated blade: attach programs, then ``run()`` once.

    ``preset`` and ``set`` choose the machine as ``cellblade.programs.Blade`` does; ``mode``
    ("memory", the seed's default, or "ls"), ``placement`` (a placement name or the physical
    SPE of each rank), ``depth`` (staging chunks in flight) and ``trace`` are ``cellblade
    mpirun``'s, with its defaults and limits.
    """

    def __init__(
        self,
        ranks: int,
        preset: Union[str, Any] = "qs20",
        set: Union[Mapping[str, Any], Iterable[str]] = (),  # noqa: A002 (the CLI's --set)
        mode: Optional[str] = None,
        placement: Union[str, Iterable[int], None] = None,
        depth: Optional[int] = None,
        trace: bool = False,
    ) -> None:
        if not _is_int(ranks):
            raise TypeError(f"ranks must be an int, not {ranks!r}")
        if placement is not None and not isinstance(placement, str):
            placement = list(placement)
        fields = {
            "ranks": ranks,
            "mode": mode,
            "placement": placement,
            "depth": depth,
            "trace": trace,
        }
        self._core = _core.MpiJob(
            {k: v for k, v in fields.items() if v is not None}, machine.choice(preset, set)
        )
        self.ranks = int(ranks)
        self._trace = trace
        self._given = [False] * self.ranks
        self._results: list[Any] = [None] * self.ranks

    def rank(self, rank: int, fn: RankProgram) -> Job:
        """Runs ``fn(comm)`` as rank ``rank``. Returns the job."""
        if not _is_int(rank):
            raise TypeError(f"rank must be an int, not {rank!r}")
        if not 0 <= rank < self.ranks:
            raise field_error(
                "rank",
                f"rank {rank} is not allowed: 0 to {self.ranks - 1} (the job has {self.ranks} ranks)",
            )
        _check(fn, f"rank {rank}")
        self._core.rank(rank, self._program(fn))
        self._given[rank] = True
        return self

    def _program(self, fn: RankProgram) -> Callable[[MpiRank], Generator[Any, Any, None]]:
        def program(handle: MpiRank) -> Generator[Any, Any, None]:
            body = fn(Comm(handle))
            if not inspect.isgenerator(body):
                raise TypeError(
                    f"the program of rank {handle.id} returned {body!r}, not a generator: it must yield its operations"
                )
            self._results[handle.id] = yield from _run(body)

        return program

    def run(self, program: Optional[RankProgram] = None) -> dict[str, Any]:
        """Runs every rank to completion (``program`` on every rank given none).

        Returns ``simulated_ns``, ``events``, ``packets``, ``wall_s``, ``results`` (each
        rank's program's return value, rank order) and, with ``trace=True``, ``trace``.
        """
        if program is not None:
            for r in range(self.ranks):
                if not self._given[r]:
                    self.rank(r, program)
        report = dict(self._core.run())
        trace = report.pop("trace")
        if self._trace:
            report["trace"] = json.loads(trace) if trace is not None else None
        report["results"] = list(self._results)
        return report


def _check(fn: Any, who: str) -> None:
    if not callable(fn):
        raise TypeError(f"the program of {who} must be a generator function, not {fn!r}")
    if inspect.isfunction(fn) and not inspect.isgeneratorfunction(fn):
        raise TypeError(
            f"the program of {who}, {fn.__qualname__}, is not a generator function: "
            "it must yield its operations (e.g. `data = yield comm.recv(source=0)`)"
        )
