"""SPE and PPE programs written in Python, run on the simulated blade.

A program is a generator function that takes a handle. It ``yield``\\ s every operation that
takes simulated time, built by a method of the handle named after ``spu_mfcio.h`` (SPE) or
libspe2 (PPE), and the value of the ``yield`` is the operation's result::

    from cellblade.programs import Blade

    def reader(spu):
        buf = spu.ls_alloc(16384, 128)
        yield spu.mfc_get(buf, 0, 16384, 3)        # 16 KB from XDRAM0
        spu.mfc_write_tag_mask(1 << 3)
        yield spu.mfc_read_tag_status_all()
        value = yield spu.spu_read_in_mbox()         # waits for the PPE

    def writer(ppe):
        yield ppe.spe_in_mbox_write(0, 42)

    report = Blade("qs20").spe(0, reader).ppe(writer).run()
    print(report["simulated_ns"])

Python programs run on the same engine, with the same costs and hardware rules, as the
built-in Rust programs; ``yield from helper(spu, ...)`` composes them.

SPE handle (``Spu``), operations to yield: ``mfc_get/getf/getb/put/putf/putb(lsa, ea, size,
tag)``, ``mfc_getl/putl(lsa, ea, [(size, eal), ...], tag)``, ``mfc_sndsig(lsa, ea, tag)``,
``mfc_barrier(tag)``, ``mfc_read_tag_status_all()`` and ``_any()`` (result: completed tag
groups), ``spu_read_in_mbox()`` (result: the entry), ``spu_write_out_mbox(v)``,
``spu_read_signal1()`` and ``2()`` (result: the signal), ``mfc_getllar(lsa, ea)``,
``mfc_putllc(lsa, ea)`` (result: 0 stored, 1 reservation lost), ``compute(core_cycles)``.
Plain methods (no simulated time): ``mfc_write_tag_mask(mask)``,
``mfc_read_tag_status_immediate()``, ``spu_stat_in_mbox()``, ``spu_read_decrementer()``,
``ls_alloc(size, align=16)``, ``ls_write(off, data)``, ``ls_read(off, n)``, ``now_ns()``, the
``spe_id`` attribute, the static helpers ``ls_ea(spe, off)``, ``mmio_ea(spe, register)`` and
the register constants (``SPU_IN_MBOX``, ...), also available from this module.

PPE handle (``Ppe``), operations to yield: ``spe_in_mbox_write(spe, v, syscall=False)``,
``spe_signal_write(spe, which, v, syscall=False)``, ``spe_out_mbox_read(spe)`` (result: the
entry), ``spe_in_mbox_status(spe)``, ``spe_out_mbox_status(spe)``, ``mmio_read(spe,
register)`` (result: the value), ``mmio_write(spe, register, v)``; plain: ``now_ns()``.

Errors: a simulator error in an operation is raised inside the program at its ``yield``
(``ProgramError`` for an illegal DMA, ...), so it ends the run unless the program catches it.
Any exception escaping a program ends the run and ``run()`` re-raises it as it is. When every
program is blocked, ``run()`` raises ``DeadlockError`` naming what each one waits for.
A handle works only while its program runs.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, Union

from cellblade import _core, machine
from cellblade._core import Op, Ppe, Spu

__all__ = [
    "Blade",
    "Op",
    "Ppe",
    "SIGNOTIFY1",
    "SIGNOTIFY2",
    "SPU_IN_MBOX",
    "SPU_MBOX_STAT",
    "SPU_OUT_MBOX",
    "Spu",
    "ls_ea",
    "mmio_ea",
]

# Problem-state registers of an SPE: offsets for mmio_ea and the PPE's mmio_read/mmio_write.
SPU_OUT_MBOX: int = Spu.SPU_OUT_MBOX
SPU_IN_MBOX: int = Spu.SPU_IN_MBOX
SPU_MBOX_STAT: int = Spu.SPU_MBOX_STAT
SIGNOTIFY1: int = Spu.SIGNOTIFY1
SIGNOTIFY2: int = Spu.SIGNOTIFY2

SpuProgram = Callable[[Spu], Generator[Op, Any, Any]]
PpeProgram = Callable[[Ppe], Generator[Op, Any, Any]]


def ls_ea(spe: int, off: int) -> int:
    """Effective address of byte ``off`` of SPE ``spe``'s local store."""
    return Spu.ls_ea(spe, off)


def mmio_ea(spe: int, register: int) -> int:
    """Effective address of problem-state register ``register`` (``SPU_IN_MBOX``, ...) of SPE ``spe``."""
    return Spu.mmio_ea(spe, register)


class Blade:
    """A simulated blade to run Python programs on: attach programs, then ``run()`` once.

    ``preset`` is a preset name ("qs20", "qs22") or the path of a machine file (a
    ``pathlib.Path`` or a string ending in ".toml"); ``set`` holds machine-file values to
    change, as ``{"eib.hop_latency_bus_cycles": 2}`` or ``["eib.hop_latency_bus_cycles=2"]``.
    """

    def __init__(
        self,
        preset: Union[str, Any] = "qs20",
        set: Union[Mapping[str, Any], Iterable[str]] = (),  # noqa: A002 (the CLI's --set)
        trace: bool = False,
    ) -> None:
        chosen = machine.choice(preset, set)
        self._trace = trace
        self._core = _core.ProgramBlade(
            preset=chosen.get("preset"),
            toml=chosen.get("toml"),
            set=chosen["set"],
            trace=trace,
        )

    def spe(self, spe_id: int, fn: SpuProgram) -> Blade:
        """Runs ``fn(spu)`` on physical SPE ``spe_id`` (0 to 15) from time 0. Returns the blade."""
        self._core.spe(spe_id, _checked(fn, f"spe {spe_id}"))
        return self

    def ppe(self, fn: PpeProgram) -> Blade:
        """Runs ``fn(ppe)`` on the PPE from time 0 (one PPE program per blade). Returns the blade."""
        self._core.ppe(_checked(fn, "the ppe"))
        return self

    def run(self) -> dict[str, Any]:
        """Runs every program to completion.

        Returns ``simulated_ns``, ``events``, ``packets``, ``wall_s`` and, if the blade was
        made with ``trace=True``, ``trace`` (a Chrome/Perfetto trace object).
        """
        report = dict(self._core.run())
        trace = report.pop("trace")
        if self._trace:
            report["trace"] = json.loads(trace) if trace is not None else None
        return report


def _checked(fn: Callable[..., Any], who: str) -> Callable[..., Any]:
    if not callable(fn):
        raise TypeError(f"the program of {who} must be a generator function, not {fn!r}")
    if inspect.isfunction(fn) and not inspect.isgeneratorfunction(fn):
        raise TypeError(
            f"the program of {who}, {fn.__qualname__}, is not a generator function: "
            "it must yield its operations (e.g. `yield spu.mfc_get(...)`)"
        )
    return fn
