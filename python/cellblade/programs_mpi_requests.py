"""Non-blocking calls of MPI rank programs written in Python (``cellblade.programs_mpi``), on
the core's progress engine (``cellblade::mpi::Rank::isend``/``irecv``/``test``/``wait``/
``waitany``, the one the C library's ``MPI_Isend``... run): requests are in flight together,
so both ranks may ``Isend`` first, and an ``Isend``/``Irecv`` exchange costs what the C
program's does. As in mpi4py, ``isend``/``irecv``/``Isend``/``Irecv`` are not yielded: they
return a ``Request`` at once, and the request is posted before the program's next yielded
operation runs (computing between calls is free, so at the simulated time of the call; a
``Wtime()`` read before that yield does not yet include the posting, which the C library's
``MPI_Isend`` spends before it returns); ``wait``, ``test`` and ``Request.waitall``/``waitany``
are yielded. A request buffer that does not fit the rank's heap (or local store in ``ls``
mode) is the core's ``ProgramError``, raised at that next yield."""

from __future__ import annotations

import pickle
from collections.abc import Generator, Iterable
from typing import Any, Optional

from cellblade.programs_mpi_types import (
    _P2P,
    ANY_SOURCE,
    ANY_TAG,
    ERR_TRUNCATE,
    PROC_NULL,
    MPIError,
    Status,
    _bytes_of,
    _dumps,
    _writable,
)

# mpi4py's default receive buffer of `irecv` without one (`mpi4py.rc.irecv_bufsz`): a longer
# pickled message is ERR_TRUNCATE, as it is there.
IRECV_BUFSZ = 32768

# mpi4py's `MPI.UNDEFINED`: the index `waitany` gives when no request is active.
UNDEFINED = -32766


class Request:
    """A posted non-blocking operation (``MPI_Request``); yield ``wait()`` to complete it."""

    def __init__(self, comm: Any, call: str, number: Optional[int]) -> None:
        self._comm, self.call, self._number = comm, call, number
        self._view: Optional[memoryview] = None
        self._pickled = False
        self.done = number is None  # a PROC_NULL request is done at once
        self._returned = False  # a wait or successful test gave its result (MPI_REQUEST_NULL)
        self._status = (PROC_NULL, ANY_TAG, 0, 0)
        self._value: Any = None
        self._error: Optional[MPIError] = None

    def __repr__(self) -> str:
        return f"<cellblade Request {self.call} {'done' if self.done else 'pending'}>"

    def _complete(self, got: Optional[bytes], status: tuple[int, int, int, int, int]) -> None:
        source, tag, count, sent, error = status
        self.done = True
        view = self._view
        if view is None:  # a send
            self._status = (source, tag, 0, error)
            return
        assert got is not None, "a receive returns its bytes"
        view[:count] = got
        self._status = (source, tag, count, error)
        if error == ERR_TRUNCATE:
            self._error = MPIError(
                f"rank {self._comm.rank}: {self.call}: a message of {sent} bytes from rank {source} "
                f"(tag {tag}) does not fit the {view.nbytes}-byte buffer (MPI_ERR_TRUNCATE)",
                ERR_TRUNCATE,
                "buf",
            )
        elif self._pickled:
            self._value = pickle.loads(view[:count])

    def _result(self, status: Optional[Status]) -> Any:
        """The result of a completed request (raising its receive's error once)."""
        self._returned = True
        if status is not None:
            status._set(*self._status)
        error, self._error = self._error, None
        if error is not None:
            raise error
        return self._value

    def _run(self, op: Any) -> Generator[Any, Any, Any]:
        h = self._comm._h
        h.label(f"{self.call} request")
        try:
            answer = yield op
        except Exception:
            h.label(None)
            raise
        h.label(None)
        return answer

    def wait(self, status: Optional[Status] = None) -> Generator[Any, Any, Any]:
        """Run the progress engine until this request is done; the result is the received
        object (``irecv``) or None."""
        if not self.done:
            self._complete(*(yield from self._run(self._comm._h.wait(self._number))))
        return self._result(status)

    Wait = wait

    def test(self, status: Optional[Status] = None) -> Generator[Any, Any, tuple[bool, Any]]:
        """One pass of the progress engine: ``(True, result)`` if the request is done, else
        ``(False, None)``."""
        if not self.done:
            answer = yield from self._run(self._comm._h.test(self._number))
            if answer is None:
                return (False, None)
            self._complete(*answer)
        return (True, self._result(status))

    def Test(self, status: Optional[Status] = None) -> Generator[Any, Any, bool]:
        return (yield from self.test(status))[0]

    @staticmethod
    def waitall(
        requests: Iterable[Request], statuses: Optional[list[Status]] = None
    ) -> Generator[Any, Any, list[Any]]:
        """Wait for each request in turn (all progress meanwhile); the result is their results."""
        out = []
        for i, request in enumerate(list(requests)):
            out.append((yield from request.wait(statuses[i] if statuses is not None else None)))
        return out

    Waitall = waitall

    @staticmethod
    def waitany(
        requests: Iterable[Request], status: Optional[Status] = None
    ) -> Generator[Any, Any, tuple[int, Any]]:
        """Wait until one of the requests is done: ``(index, result)``; ``(UNDEFINED, None)``
        when every request has already given its result."""
        requests = list(requests)
        ready = next((i for i, r in enumerate(requests) if r.done and not r._returned), None)
        if ready is None:
            active = [i for i, r in enumerate(requests) if not r.done]
            if not active:
                return (UNDEFINED, None)
            h = requests[active[0]]._comm._h
            numbers = [requests[i]._number for i in active]
            h.label("Request.waitany")
            try:
                k, got, st = yield h.waitany(numbers)
            except Exception:
                h.label(None)
                raise
            h.label(None)
            ready = active[k]
            requests[ready]._complete(got, st)
        return (ready, requests[ready]._result(status))

    @staticmethod
    def Waitany(
        requests: Iterable[Request], status: Optional[Status] = None
    ) -> Generator[Any, Any, int]:
        return (yield from Request.waitany(requests, status))[0]


class NonBlocking:
    """The non-blocking calls of the communicator (``Comm`` mixes them in)."""

    _h: Any

    def isend(self, obj: Any, dest: int, tag: int = 0) -> Request:
        """Post a send of a pickled object; not yielded: yield the request's ``wait()``."""
        return self._send("comm.isend", _dumps(obj), dest, tag)

    def Isend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        """Post a send of a buffer's bytes (taken now)."""
        return self._send("comm.Isend", _bytes_of(buf, "buf"), dest, tag)

    def irecv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        """Post a receive of a pickled object into ``buf`` (a bytearray; 32 KB when None)."""
        view = _writable(buf, "buf") if buf is not None else memoryview(bytearray(IRECV_BUFSZ))
        request = self._receive("comm.irecv", view, source, tag)
        request._pickled = True
        return request

    def Irecv(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        """Post a receive into a writable buffer."""
        return self._receive("comm.Irecv", _writable(buf, "buf"), source, tag)

    def _send(self, call: str, data: bytes, dest: int, tag: int) -> Request:
        dest, tag = self._peer(dest, "dest"), self._tag(tag, "tag")
        number = None if dest == PROC_NULL else self._h.isend(data, dest, tag, _P2P)
        return Request(self, call, number)

    def _receive(self, call: str, view: memoryview, source: int, tag: int) -> Request:
        source = self._peer(source, "source", wildcard=True)
        tag = self._tag(tag, "tag", wildcard=True)
        number = None if source == PROC_NULL else self._h.irecv(view.nbytes, source, tag, _P2P)
        request = Request(self, call, number)
        request._view = view
        return request
