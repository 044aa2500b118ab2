"""The communicator of MPI rank programs written in Python (``cellblade.programs_mpi``, which
documents it): mpi4py-like calls that return what a rank program yields, built on the core's
rank operations (``cellblade._core.MpiRank``); arguments are checked where the call is made."""

from __future__ import annotations

import pickle
from collections.abc import Generator, Sequence
from typing import Any, Optional

import numpy as np

from cellblade._core import MpiRank
from cellblade.machine import field_error
from cellblade.programs_mpi_requests import NonBlocking
from cellblade.programs_mpi_types import (
    _COLL,
    _P2P,
    _T_BCAST,
    _T_GATHER,
    _T_REDUCE,
    _T_SCATTER,
    ANY_SOURCE,
    ANY_TAG,
    ERR_TRUNCATE,
    PROC_NULL,
    SUM,
    TAG_UB,
    MPIError,
    Op,
    Status,
    _array,
    _bytes_of,
    _dumps,
    _fold,
    _is_int,
    _result,
    _writable,
)


class Comm(NonBlocking):
    """``MPI_COMM_WORLD`` of a rank program (what the program function receives)."""

    def __init__(self, handle: MpiRank) -> None:
        self._h = handle
        self.rank: int = handle.id
        self.size: int = handle.size

    def __repr__(self) -> str:
        return f"<cellblade Comm rank {self.rank} of {self.size}>"

    def Get_rank(self) -> int:
        return self.rank

    def Get_size(self) -> int:
        return self.size

    def Wtime(self) -> float:
        """Simulated seconds since the run began, read from the decrementer."""
        return self._h.wtime()

    def Wtick(self) -> float:
        """One decrementer period, in seconds."""
        return self._h.wtick()

    def compute(self, core_cycles: int) -> Any:
        """Spend ``core_cycles`` of the SPU computing (to yield)."""
        return self._h.compute(core_cycles)

    # Arguments, checked where the call is made.

    def _peer(self, value: Any, field: str, wildcard: bool = False) -> int:
        extra = ", ANY_SOURCE or PROC_NULL" if wildcard else " or PROC_NULL"
        allowed = f"0 to {self.size - 1} (the job has {self.size} ranks){extra}"
        if not _is_int(value):
            raise TypeError(f"{field} must be a rank (an int): {allowed}; got {value!r}")
        if value == PROC_NULL or (wildcard and value == ANY_SOURCE) or 0 <= value < self.size:
            return int(value)
        raise field_error(field, f"{field} {value} is not allowed: {allowed}")

    def _tag(self, value: Any, field: str, wildcard: bool = False) -> int:
        allowed = f"0 to {TAG_UB}" + (" or ANY_TAG" if wildcard else "")
        if not _is_int(value):
            raise TypeError(f"{field} must be a tag (an int): {allowed}; got {value!r}")
        if 0 <= value <= TAG_UB or (wildcard and value == ANY_TAG):
            return int(value)
        raise field_error(field, f"{field} {value} is not allowed: {allowed}")

    def _root(self, value: Any) -> int:
        allowed = f"0 to {self.size - 1} (the job has {self.size} ranks)"
        if not _is_int(value):
            raise TypeError(f"root must be a rank (an int): {allowed}; got {value!r}")
        if not 0 <= value < self.size:
            raise field_error("root", f"root {value} is not allowed: {allowed}")
        return int(value)

    @staticmethod
    def _op(op: Any) -> Op:
        if not isinstance(op, Op):
            raise TypeError(f"op must be one of SUM, PROD, MIN, MAX, not {op!r}")
        return op

    # The steps operations are made of (arguments already checked).

    def _put(self, data: bytes, dest: int, tag: int, ctx: int) -> Generator[Any, Any, None]:
        if dest != PROC_NULL:
            yield self._h.send(data, dest, tag, ctx)  # the receiver's truncation is its error

    def _get(
        self, view: memoryview, source: int, tag: int, ctx: int, call: str, status: Optional[Status]
    ) -> Generator[Any, Any, None]:
        if source == PROC_NULL:
            if status is not None:
                status._set(PROC_NULL, ANY_TAG, 0, 0)
            return
        data, (src, got_tag, count, sent, error) = yield self._h.recv(view.nbytes, source, tag, ctx)
        view[:count] = data
        if status is not None:
            status._set(src, got_tag, count, error)
        if error == ERR_TRUNCATE:
            raise MPIError(
                f"rank {self.rank}: {call}: a message of {sent} bytes from rank {src} (tag {got_tag}) "
                f"does not fit the {view.nbytes}-byte buffer (MPI_ERR_TRUNCATE)",
                ERR_TRUNCATE,
                "buf",
            )

    def _get_obj(
        self, source: int, tag: int, ctx: int, status: Optional[Status]
    ) -> Generator[Any, Any, Any]:
        """A pickled object of unknown size: probe for its size, then receive it."""
        if source == PROC_NULL:
            if status is not None:
                status._set(PROC_NULL, ANY_TAG, 0, 0)
            return None
        src, got_tag, _, sent, _ = yield self._h.probe(source, tag, ctx)
        data, (src, got_tag, count, _, error) = yield self._h.recv(sent, src, got_tag, ctx)
        if status is not None:
            status._set(src, got_tag, count, error)
        return pickle.loads(data)

    def _labelled(self, call: str, steps: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
        """Run ``steps`` as the call ``call``, which a deadlock report names."""
        self._h.label(call)
        try:
            result = yield from steps
        except Exception:
            self._h.label(None)
            raise
        self._h.label(None)
        return result

    # Point-to-point.

    def send(self, obj: Any, dest: int, tag: int = 0) -> Generator[Any, Any, None]:
        """Send a picklable object (synchronous: returns once the receiver has it)."""
        dest, tag = self._peer(dest, "dest"), self._tag(tag, "tag")
        return self._put(_dumps(obj), dest, tag, _P2P)

    def recv(
        self,
        buf: Any = None,
        source: int = ANY_SOURCE,
        tag: int = ANY_TAG,
        status: Optional[Status] = None,
    ) -> Generator[Any, Any, Any]:
        """Receive a pickled object; the result is the object. ``buf`` is ignored (mpi4py's)."""
        source, tag = (
            self._peer(source, "source", wildcard=True),
            self._tag(tag, "tag", wildcard=True),
        )
        return self._labelled("comm.recv", self._get_obj(source, tag, _P2P, status))

    def Send(self, buf: Any, dest: int, tag: int = 0) -> Generator[Any, Any, None]:
        """Send a buffer's bytes (a NumPy array, bytes, bytearray)."""
        dest, tag = self._peer(dest, "dest"), self._tag(tag, "tag")
        return self._put(_bytes_of(buf, "buf"), dest, tag, _P2P)

    def Recv(
        self,
        buf: Any,
        source: int = ANY_SOURCE,
        tag: int = ANY_TAG,
        status: Optional[Status] = None,
    ) -> Generator[Any, Any, None]:
        """Receive into a writable buffer; a longer message is ``MPIError`` ``ERR_TRUNCATE``."""
        view = _writable(buf, "buf")
        source, tag = (
            self._peer(source, "source", wildcard=True),
            self._tag(tag, "tag", wildcard=True),
        )
        return self._get(view, source, tag, _P2P, "comm.Recv", status)

    def Sendrecv(
        self,
        sendbuf: Any,
        dest: int,
        sendtag: int = 0,
        recvbuf: Any = None,
        source: int = ANY_SOURCE,
        recvtag: int = ANY_TAG,
        status: Optional[Status] = None,
    ) -> Generator[Any, Any, None]:
        """Send ``sendbuf`` and receive into ``recvbuf`` in one call that cannot deadlock."""
        data, dest, sendtag = (
            _bytes_of(sendbuf, "sendbuf"),
            self._peer(dest, "dest"),
            self._tag(sendtag, "sendtag"),
        )
        view = _writable(recvbuf, "recvbuf")
        source, recvtag = (
            self._peer(source, "source", wildcard=True),
            self._tag(recvtag, "recvtag", wildcard=True),
        )
        if dest == PROC_NULL:
            return self._get(view, source, recvtag, _P2P, "comm.Sendrecv", status)
        if source == PROC_NULL:
            return self._sendrecv_to_null(data, dest, sendtag, status)
        return self._sendrecv(data, dest, sendtag, view, source, recvtag, status)

    def _sendrecv_to_null(
        self, data: bytes, dest: int, tag: int, status: Optional[Status]
    ) -> Generator[Any, Any, None]:
        if status is not None:
            status._set(PROC_NULL, ANY_TAG, 0, 0)
        yield from self._put(data, dest, tag, _P2P)

    def _sendrecv(
        self,
        data: bytes,
        dest: int,
        sendtag: int,
        view: memoryview,
        source: int,
        recvtag: int,
        status: Optional[Status],
    ) -> Generator[Any, Any, None]:
        _, got, (src, tag, count, sent, error) = yield self._h.sendrecv(
            data, dest, sendtag, view.nbytes, source, recvtag, _P2P
        )
        view[:count] = got
        if status is not None:
            status._set(src, tag, count, error)
        if error == ERR_TRUNCATE:
            raise MPIError(
                f"rank {self.rank}: comm.Sendrecv: a message of {sent} bytes from rank {src} (tag {tag}) "
                f"does not fit the {view.nbytes}-byte buffer (MPI_ERR_TRUNCATE)",
                ERR_TRUNCATE,
                "recvbuf",
            )

    def probe(
        self, source: int = ANY_SOURCE, tag: int = ANY_TAG, status: Optional[Status] = None
    ) -> Generator[Any, Any, bool]:
        """Wait for a matching message without receiving it; the result is True."""
        source, tag = (
            self._peer(source, "source", wildcard=True),
            self._tag(tag, "tag", wildcard=True),
        )
        return self._probe(source, tag, status, wait=True)

    def iprobe(
        self, source: int = ANY_SOURCE, tag: int = ANY_TAG, status: Optional[Status] = None
    ) -> Generator[Any, Any, bool]:
        """Whether a matching message is there now (one pass over the entries)."""
        source, tag = (
            self._peer(source, "source", wildcard=True),
            self._tag(tag, "tag", wildcard=True),
        )
        return self._probe(source, tag, status, wait=False)

    def _probe(
        self, source: int, tag: int, status: Optional[Status], wait: bool
    ) -> Generator[Any, Any, bool]:
        if source == PROC_NULL:
            if status is not None:
                status._set(PROC_NULL, ANY_TAG, 0, 0)
            return True
        found = yield (self._h.probe if wait else self._h.iprobe)(source, tag, _P2P)
        if found is None:
            return False
        if status is not None:
            status._set(found[0], found[1], found[3], 0)
        return True

    # Collectives (seed 004 section 3.4, as the C library builds them).

    def barrier(self) -> Any:
        """The seed's barrier: everyone reports to rank 0, which releases everyone."""
        return self._h.barrier(0)

    Barrier = barrier

    def bcast(self, obj: Any = None, root: int = 0) -> Generator[Any, Any, Any]:
        """The root's object on every rank."""
        root = self._root(root)
        return self._labelled("comm.bcast", self._bcast_obj(obj, root))

    def _bcast_obj(self, obj: Any, root: int) -> Generator[Any, Any, Any]:
        if self.rank != root:
            return (yield from self._get_obj(root, _T_BCAST, _COLL, None))
        data = _dumps(obj)
        for r in range(self.size):
            if r != root:
                yield from self._put(data, r, _T_BCAST, _COLL)
        return obj

    def reduce(self, sendobj: Any, op: Op = SUM, root: int = 0) -> Generator[Any, Any, Any]:
        """``x0 op (x1 op (...))`` on the root, None elsewhere."""
        op, root = self._op(op), self._root(root)
        return self._labelled("comm.reduce", self._reduce_obj(sendobj, op, root))

    def _reduce_obj(self, sendobj: Any, op: Op, root: int) -> Generator[Any, Any, Any]:
        values = yield from self._gather_obj(sendobj, root, _T_REDUCE)
        return None if values is None else _fold(values, op)

    def allreduce(self, sendobj: Any, op: Op = SUM) -> Generator[Any, Any, Any]:
        """The reduction on every rank: a reduce to rank 0, then a broadcast."""
        op = self._op(op)
        return self._labelled("comm.allreduce", self._allreduce_obj(sendobj, op))

    def _allreduce_obj(self, sendobj: Any, op: Op) -> Generator[Any, Any, Any]:
        total = yield from self._reduce_obj(sendobj, op, 0)
        return (yield from self._bcast_obj(total, 0))

    def gather(self, sendobj: Any, root: int = 0) -> Generator[Any, Any, Optional[list[Any]]]:
        """Every rank's object, in rank order, on the root; None elsewhere."""
        root = self._root(root)
        return self._labelled("comm.gather", self._gather_obj(sendobj, root, _T_GATHER))

    def _gather_obj(
        self, sendobj: Any, root: int, tag: int
    ) -> Generator[Any, Any, Optional[list[Any]]]:
        if self.rank != root:
            yield from self._put(_dumps(sendobj), root, tag, _COLL)
            return None
        values = []
        for r in range(self.size):
            values.append(sendobj if r == root else (yield from self._get_obj(r, tag, _COLL, None)))
        return values

    def scatter(
        self, sendobj: Optional[Sequence[Any]] = None, root: int = 0
    ) -> Generator[Any, Any, Any]:
        """Item r of the root's sequence on rank r."""
        root = self._root(root)
        if self.rank == root and (not isinstance(sendobj, Sequence) or len(sendobj) != self.size):
            shown = (
                f"a sequence of {len(sendobj)}"
                if isinstance(sendobj, Sequence)
                else repr(type(sendobj).__name__)
            )
            raise field_error(
                "sendobj",
                f"sendobj {shown} is not allowed: a sequence of {self.size} items, one per rank",
            )
        return self._labelled("comm.scatter", self._scatter_obj(sendobj, root))

    def _scatter_obj(self, sendobj: Any, root: int) -> Generator[Any, Any, Any]:
        if self.rank != root:
            return (yield from self._get_obj(root, _T_SCATTER, _COLL, None))
        for r in range(self.size):
            if r != root:
                yield from self._put(_dumps(sendobj[r]), r, _T_SCATTER, _COLL)
        return sendobj[root]

    def allgather(self, sendobj: Any) -> Generator[Any, Any, list[Any]]:
        """Every rank's object, in rank order, on every rank."""
        return self._labelled("comm.allgather", self._allgather_obj(sendobj))

    def _allgather_obj(self, sendobj: Any) -> Generator[Any, Any, list[Any]]:
        values = yield from self._gather_obj(sendobj, 0, _T_GATHER)
        out = []
        for r in range(self.size):
            out.append((yield from self._bcast_obj(values[r] if values is not None else None, 0)))
        return out

    # Collectives over buffers (their sizes known, so no probing: the C library's messages).

    def Bcast(self, buf: Any, root: int = 0) -> Generator[Any, Any, None]:
        """The root's buffer into every rank's ``buf``."""
        view, root = _writable(buf, "buf"), self._root(root)
        return self._labelled("comm.Bcast", self._bcast_buf(view, root))

    def _bcast_buf(self, view: memoryview, root: int) -> Generator[Any, Any, None]:
        if self.rank != root:
            yield from self._get(view, root, _T_BCAST, _COLL, "comm.Bcast", None)
            return
        data = view.tobytes()
        for r in range(self.size):
            if r != root:
                yield from self._put(data, r, _T_BCAST, _COLL)

    def Reduce(
        self, sendbuf: Any, recvbuf: Any = None, op: Op = SUM, root: int = 0
    ) -> Generator[Any, Any, None]:
        """The elementwise reduction of every rank's array into the root's ``recvbuf``."""
        send, op, root = _array(sendbuf, "sendbuf"), self._op(op), self._root(root)
        out = _result(recvbuf, send, "recvbuf") if self.rank == root else None
        return self._labelled("comm.Reduce", self._reduce_buf(send, out, op, root))

    def _reduce_buf(
        self, send: np.ndarray, out: Optional[np.ndarray], op: Op, root: int
    ) -> Generator[Any, Any, None]:
        if out is None:
            yield from self._put(send.tobytes(), root, _T_REDUCE, _COLL)
            return
        values = []
        for r in range(self.size):
            if r == root:
                values.append(send)
                continue
            part = np.empty_like(send)
            yield from self._get(
                _writable(part, "recvbuf"), r, _T_REDUCE, _COLL, "comm.Reduce", None
            )
            values.append(part)
        np.copyto(out, _fold(values, op))

    def Allreduce(self, sendbuf: Any, recvbuf: Any, op: Op = SUM) -> Generator[Any, Any, None]:
        """The elementwise reduction into every rank's ``recvbuf``: a reduce, then a broadcast."""
        send, op = _array(sendbuf, "sendbuf"), self._op(op)
        out = _result(recvbuf, send, "recvbuf")
        return self._labelled("comm.Allreduce", self._allreduce_buf(send, out, op))

    def _allreduce_buf(
        self, send: np.ndarray, out: np.ndarray, op: Op
    ) -> Generator[Any, Any, None]:
        yield from self._reduce_buf(send, out if self.rank == 0 else None, op, 0)
        yield from self._bcast_buf(_writable(out, "recvbuf"), 0)

    def Gather(self, sendbuf: Any, recvbuf: Any = None, root: int = 0) -> Generator[Any, Any, None]:
        """Every rank's buffer, in rank order, into the root's ``recvbuf`` (``size`` times as large)."""
        data, root = _bytes_of(sendbuf, "sendbuf"), self._root(root)
        view = self._parts(recvbuf, len(data)) if self.rank == root else None
        return self._labelled("comm.Gather", self._gather_buf(data, view, root))

    def _parts(self, buf: Any, part: int) -> memoryview:
        view = _writable(buf, "recvbuf")
        if view.nbytes != part * self.size:
            raise field_error(
                "recvbuf",
                f"recvbuf of {view.nbytes} bytes is not allowed: {self.size} parts of {part} bytes",
            )
        return view

    def _gather_buf(
        self, data: bytes, view: Optional[memoryview], root: int
    ) -> Generator[Any, Any, None]:
        if view is None:
            yield from self._put(data, root, _T_GATHER, _COLL)
            return
        n = len(data)
        for r in range(self.size):
            if r == root:
                view[r * n : (r + 1) * n] = data
            else:
                yield from self._get(
                    view[r * n : (r + 1) * n], r, _T_GATHER, _COLL, "comm.Gather", None
                )

    def Scatter(self, sendbuf: Any, recvbuf: Any, root: int = 0) -> Generator[Any, Any, None]:
        """Part r of the root's ``sendbuf`` (``size`` equal parts) into rank r's ``recvbuf``."""
        view, root = _writable(recvbuf, "recvbuf"), self._root(root)
        data = None
        if self.rank == root:
            data = _bytes_of(sendbuf, "sendbuf")
            if len(data) != view.nbytes * self.size:
                raise field_error(
                    "sendbuf",
                    f"sendbuf of {len(data)} bytes is not allowed: {self.size} parts of {view.nbytes} bytes",
                )
        return self._labelled("comm.Scatter", self._scatter_buf(data, view, root))

    def _scatter_buf(
        self, data: Optional[bytes], view: memoryview, root: int
    ) -> Generator[Any, Any, None]:
        if data is None:
            yield from self._get(view, root, _T_SCATTER, _COLL, "comm.Scatter", None)
            return
        n = view.nbytes
        for r in range(self.size):
            if r == root:
                view[:] = data[r * n : (r + 1) * n]
            else:
                yield from self._put(data[r * n : (r + 1) * n], r, _T_SCATTER, _COLL)

    def Allgather(self, sendbuf: Any, recvbuf: Any) -> Generator[Any, Any, None]:
        """Every rank's buffer, in rank order, into every rank's ``recvbuf``."""
        data = _bytes_of(sendbuf, "sendbuf")
        view = self._parts(recvbuf, len(data))
        return self._labelled("comm.Allgather", self._allgather_buf(data, view))

    def _allgather_buf(self, data: bytes, view: memoryview) -> Generator[Any, Any, None]:
        yield from self._gather_buf(data, view if self.rank == 0 else None, 0)
        n = len(data)
        for r in range(self.size):
            yield from self._bcast_buf(view[r * n : (r + 1) * n], 0)
