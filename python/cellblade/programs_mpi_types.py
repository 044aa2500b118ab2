"""The values of MPI rank programs written in Python (``cellblade.programs_mpi``, which
documents them): constants, operations, the status, the MPI error, and how buffers become bytes."""

from __future__ import annotations

import numbers
import operator
import pickle
from collections.abc import Callable
from typing import Any, Optional

import numpy as np

from cellblade._core import MpiRank, ProgramError
from cellblade.machine import field_error

ANY_SOURCE: int = MpiRank.ANY_SOURCE
ANY_TAG: int = MpiRank.ANY_TAG
TAG_UB: int = MpiRank.TAG_UB
ERR_TRUNCATE: int = MpiRank.ERR_TRUNCATE
# MPI_PROC_NULL of the C library's mpi.h: the library handles it, the core never sees it.
PROC_NULL: int = -2

# Contexts on the wire, as the C library numbers them for MPI_COMM_WORLD: its messages on
# 2 * ctx, its collectives on 2 * ctx + 1, so the two never match each other.
_P2P, _COLL = 0, 1
# The C library's collective tags (libmpi/src/coll/coll.c), so a collective's messages are the same.
_T_BCAST, _T_REDUCE, _T_GATHER, _T_SCATTER = 1, 2, 3, 4


class MPIError(ProgramError):
    """An MPI error a rank's call reports (as mpi4py's ``MPI.Exception``); ``error_class``
    is its MPI class (``ERR_TRUNCATE``)."""

    def __init__(self, message: str, error_class: int, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.error_class = error_class
        self.field = field

    def Get_error_class(self) -> int:
        return self.error_class


class Op:
    """A reduction operation: ``fn`` on Python objects, ``ufunc`` elementwise on arrays."""

    def __init__(self, name: str, fn: Callable[[Any, Any], Any], ufunc: np.ufunc) -> None:
        self.name, self._fn, self.ufunc = name, fn, ufunc

    def __call__(self, a: Any, b: Any) -> Any:
        if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
            return self.ufunc(a, b)
        return self._fn(a, b)

    def __repr__(self) -> str:
        return f"<cellblade.programs_mpi.{self.name}>"


SUM = Op("SUM", operator.add, np.add)
PROD = Op("PROD", operator.mul, np.multiply)
MIN = Op("MIN", min, np.minimum)
MAX = Op("MAX", max, np.maximum)


class Status:
    """What a receive or probe matched (``MPI_Status``): source, tag, bytes, error."""

    def __init__(self) -> None:
        self.source, self.tag, self.count, self.error = ANY_SOURCE, ANY_TAG, 0, 0

    def _set(self, source: int, tag: int, count: int, error: int) -> None:
        self.source, self.tag, self.count, self.error = source, tag, count, error

    def Get_source(self) -> int:
        return self.source

    def Get_tag(self) -> int:
        return self.tag

    def Get_error(self) -> int:
        return self.error

    def Get_count(self, datatype: Any = None) -> int:
        """Bytes received, or elements of ``datatype`` (a NumPy dtype or its name)."""
        if datatype is None:
            return self.count
        return self.count // np.dtype(datatype).itemsize

    def __repr__(self) -> str:
        return (
            f"Status(source={self.source}, tag={self.tag}, count={self.count}, error={self.error})"
        )


def _dumps(obj: Any) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _bytes_of(buf: Any, field: str) -> bytes:
    """A buffer's bytes in C order (a NumPy array, bytes, bytearray, memoryview)."""
    try:
        return memoryview(buf).tobytes()
    except TypeError:
        raise TypeError(
            f"{field} must be a buffer (a NumPy array, bytes or bytearray), not {type(buf).__name__}"
        ) from None


def _writable(buf: Any, field: str) -> memoryview:
    """A receive buffer as writable bytes: contiguous and not read-only."""
    try:
        view = memoryview(buf)
    except TypeError:
        raise TypeError(
            f"{field} must be a writable buffer (a NumPy array or bytearray), not {type(buf).__name__}"
        ) from None
    if view.readonly:
        raise field_error(field, f"{field} is read-only: a receive needs a writable buffer")
    if not view.c_contiguous:
        raise field_error(
            field, f"{field} is not contiguous: a receive needs a C-contiguous buffer"
        )
    return view.cast("B")


def _fold(values: list[Any], op: Op) -> Any:
    """``x0 op (x1 op (... op xN-1))``: rank order, as the C library combines."""
    acc = values[-1]
    for value in reversed(values[:-1]):
        acc = op(value, acc)
    return acc


def _array(buf: Any, field: str) -> np.ndarray:
    if not isinstance(buf, np.ndarray):
        raise TypeError(
            f"{field} must be a NumPy array (a reduction needs its dtype), not {type(buf).__name__}"
        )
    return buf


def _result(recvbuf: Any, send: np.ndarray, field: str) -> np.ndarray:
    out = _array(recvbuf, field)
    if out.shape != send.shape or out.dtype != send.dtype:
        raise field_error(
            field,
            f"{field} of shape {out.shape} and dtype {out.dtype} is not allowed: "
            f"the shape {send.shape} and dtype {send.dtype} of sendbuf",
        )
    _writable(out, field)
    return out
