"""Non-blocking calls of MPI rank programs written in Python (``cellblade.programs_mpi``), as
the C library makes them: the core's rank protocol has no request queue, so ``isend``,
``irecv``, ``Isend`` and ``Irecv`` only post the operation, and a wait (or test) runs the
posted operations in posting order until its own is done, a send together with a receive as
one deadlock-free sendrecv (seed 004 section 7). Exchanges through them get through, and cost
what the C program's ``MPI_Isend``/``MPI_Irecv``/``MPI_Wait`` cost; a program whose progress
needs more in flight at once deadlocks, and the run says so."""

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


class Request:
    """A posted non-blocking operation (``MPI_Request``); yield ``wait()`` to complete it."""

    def __init__(self, comm: Any, call: str, is_send: bool, peer: int, tag: int) -> None:
        self._comm, self.call, self.is_send, self.peer, self.tag = comm, call, is_send, peer, tag
        self._data = b""
        self._view: Optional[memoryview] = None
        self._pickled = False
        self.done = False
        self._status = (ANY_SOURCE, ANY_TAG, 0, 0)
        self._value: Any = None
        self._error: Optional[MPIError] = None

    def __repr__(self) -> str:
        return f"<cellblade Request {self.call} {'done' if self.done else 'pending'}>"

    def _deliver(
        self, got: bytes, source: int, tag: int, count: int, sent: int, error: int
    ) -> None:
        view = self._view
        assert view is not None, "a receive has its buffer"
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

    def wait(self, status: Optional[Status] = None) -> Generator[Any, Any, Any]:
        """Run the posted operations up to this one; the result is the received object
        (``irecv``) or None."""
        while not self.done:
            yield from self._comm._progress()
        if self in self._comm._pending:
            self._comm._pending.remove(self)
        if status is not None:
            status._set(*self._status)
        error, self._error = self._error, None
        if error is not None:
            raise error
        return self._value

    Wait = wait

    def test(self, status: Optional[Status] = None) -> Generator[Any, Any, tuple[bool, Any]]:
        """As the C library: a test runs the operation, so it is always done: (True, result)."""
        return (True, (yield from self.wait(status)))

    def Test(self, status: Optional[Status] = None) -> Generator[Any, Any, bool]:
        yield from self.wait(status)
        return True

    @staticmethod
    def waitall(
        requests: Iterable[Request], statuses: Optional[list[Status]] = None
    ) -> Generator[Any, Any, list[Any]]:
        """Wait for each request in turn; the result is their results."""
        out = []
        for i, request in enumerate(list(requests)):
            out.append((yield from request.wait(statuses[i] if statuses is not None else None)))
        return out

    Waitall = waitall


class NonBlocking:
    """The non-blocking calls of the communicator (``Comm`` mixes them in)."""

    _pending: list[Request]

    def isend(self, obj: Any, dest: int, tag: int = 0) -> Request:
        """Post a send of a pickled object; not yielded: yield the request's ``wait()``."""
        request = Request(self, "comm.isend", True, self._peer(dest, "dest"), self._tag(tag, "tag"))
        request._data = _dumps(obj)
        return self._post(request)

    def Isend(self, buf: Any, dest: int, tag: int = 0) -> Request:
        """Post a send of a buffer's bytes (taken now)."""
        request = Request(self, "comm.Isend", True, self._peer(dest, "dest"), self._tag(tag, "tag"))
        request._data = _bytes_of(buf, "buf")
        return self._post(request)

    def irecv(self, buf: Any = None, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        """Post a receive of a pickled object into ``buf`` (a bytearray; 32 KB when None)."""
        view = _writable(buf, "buf") if buf is not None else memoryview(bytearray(IRECV_BUFSZ))
        request = self._receive("comm.irecv", view, source, tag)
        request._pickled = True
        return request

    def Irecv(self, buf: Any, source: int = ANY_SOURCE, tag: int = ANY_TAG) -> Request:
        """Post a receive into a writable buffer."""
        return self._receive("comm.Irecv", _writable(buf, "buf"), source, tag)

    def _receive(self, call: str, view: memoryview, source: int, tag: int) -> Request:
        source = self._peer(source, "source", wildcard=True)
        request = Request(self, call, False, source, self._tag(tag, "tag", wildcard=True))
        request._view = view
        return self._post(request)

    def _post(self, request: Request) -> Request:
        if request.peer == PROC_NULL:
            request.done = True
            request._status = (PROC_NULL, ANY_TAG, 0, 0)
        else:
            self._pending.append(request)
        return request

    def _progress(self) -> Generator[Any, Any, None]:
        """Run the oldest posted operation, with the oldest of the other kind as one sendrecv."""
        waiting = [r for r in self._pending if not r.done]
        first = waiting[0]
        other = next((r for r in waiting if r.is_send != first.is_send), None)
        snd, rcv = (first, other) if first.is_send else (other, first)
        h = self._h
        if snd is not None and rcv is not None and rcv._view is not None:
            h.label(rcv.call)
            answer = yield h.sendrecv(
                snd._data, snd.peer, snd.tag, rcv._view.nbytes, rcv.peer, rcv.tag, _P2P
            )
            h.label(None)
            snd.done = rcv.done = True
            _, got, (source, tag, count, sent, error) = answer
            rcv._deliver(got, source, tag, count, sent, error)
            return
        first.done = True
        h.label(first.call)
        if first.is_send:
            yield h.send(first._data, first.peer, first.tag, _P2P)
        else:
            assert first._view is not None, "a receive has its buffer"
            got, (source, tag, count, sent, error) = yield h.recv(
                first._view.nbytes, first.peer, first.tag, _P2P
            )
            first._deliver(got, source, tag, count, sent, error)
        h.label(None)
