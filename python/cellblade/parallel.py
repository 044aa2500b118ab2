"""Independent simulations side by side: on every core of this machine, or on a Dask cluster.

A sweep is a list of `Call`s, each the name of a public ``cellblade`` function with plain
keyword arguments. `run` returns their results in the order of the calls, whatever the number
of workers and wherever they ran, so a sweep's output is the same bytes on one core, on all of
them and on a cluster (``tests/test_parallel.py`` checks all three)::

    calls = [Call("run_stats", {"function": "dmaget", "spes": n, "size": 4096}) for n in (1, 2, 4)]
    results = parallel.run(calls, jobs=2)

Locally the calls run in a pool of threads, not processes. The core releases the GIL for the
whole of a simulation, so N threads run N simulations at once, and a thread costs nothing to
start and needs no pickling (the schedule generators of ``coll_run`` are plain Python
functions loaded from a file, which a process pool could not send). Measured on the 2-core
development machine, ``reproduce --quick`` by its two claim groups, best of three (the machine
was shared, load about 7, so medians were noise): one core 6.34 s, two threads 4.44 s, two
processes 4.95 s, the difference being the processes' start-up. A schedule generator
runs in Python (holding the GIL) only while it lays out its schedule, which is short; the
simulation of that schedule releases it like any other. SPE and PPE programs written as Python
generators (``cellblade.programs``) hold the GIL for the whole run: they are not public
functions of this kind and are not run here; run several of them in separate processes.

On a Dask distributed cluster (``scheduler="tcp://HOST:PORT"``, or the environment variable
CELLBLADE_SCHEDULER), each call is one task (``client.map``) that a worker runs in its own
process, in one of its threads; results are gathered in the order of the calls. Every worker
needs cellblade installed, and files named in the arguments (``--machine``, placement files)
must be readable at the same path on the workers.

A call that the core refuses (`ConfigError`, `ProgramError`: a size that does not fit the
local store, an algorithm that needs a power of two) does not stop the others: its place in
the results holds a `Failed` with the core's message, for the sweep to show in its cell.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tqdm import tqdm

import cellblade
from cellblade.units import format_time

SCHEDULER_VARIABLE = "CELLBLADE_SCHEDULER"
REFRESH_S = 0.25  # how often a progress bar's clock moves while nothing finishes
CONNECT_TIMEOUT = "10s"  # how long to wait for a Dask scheduler before saying it is unreachable


@dataclass(frozen=True)
class Call:
    """``cellblade.<function>(**kwargs)``; ``label`` is what a progress bar says it runs."""

    function: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""


@dataclass(frozen=True)
class Failed:
    """A call the core refused: ``kind`` is the exception's class name (ConfigError or
    ProgramError), ``message`` the core's words ("does not fit: needs N bytes ..."), ``field``
    the request field it is about (None: none), which the CLI turns into its flag."""

    kind: str
    message: str
    field: str | None = None

    def error(self) -> cellblade.CellbladeError:
        """The exception the call raised."""
        error = getattr(cellblade, self.kind)(self.message)
        error.field = self.field
        return error


_REFUSALS = (cellblade.ConfigError, cellblade.ProgramError)


def execute(call: Call) -> Any:
    """Runs one call here (in this process and thread); a refusal by the core becomes `Failed`.
    A call names a public function of `cellblade` ("coll_run") or of one of its modules
    ("model.simulate")."""
    module_name, _, name = call.function.rpartition(".")
    module = importlib.import_module(f"cellblade.{module_name}") if module_name else cellblade
    public = getattr(module, "__all__", None)
    function = getattr(module, name, None)
    if (
        name.startswith("_")
        or (public is not None and name not in public)
        or not callable(function)
    ):
        raise ValueError(f"{call.function!r} is not a public cellblade function")
    try:
        return function(**call.kwargs)
    except _REFUSALS as error:
        return Failed(type(error).__name__, str(error), error.field)


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def scheduler_address(given: str | None) -> str | None:
    """The Dask scheduler to use: `given`, else $CELLBLADE_SCHEDULER, else None (local)."""
    return given or os.environ.get(SCHEDULER_VARIABLE) or None


def run(
    calls: Sequence[Call],
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool | str = False,
    desc: str = "",
) -> list[Any]:
    """The results of `calls` in their order (`Failed` where the core refused one): on
    `scheduler` (a Dask address) when given, else on `jobs` local threads (default: every
    core). `progress` True shows a tqdm bar on stderr saying `desc` and the call being run;
    "lines" (for a log, not a terminal) a line per finished call once the run has taken
    LINES_AFTER_S."""
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs {jobs} is not allowed: at least 1")
    from tqdm import tqdm  # loaded where a sweep runs, not when the CLI starts

    bar = (
        StageLines(len(calls), desc)
        if progress == "lines"
        else tqdm(
            total=len(calls),
            desc=desc,
            unit="run",
            disable=not progress,
            file=sys.stderr,
            leave=False,
            dynamic_ncols=True,
        )
    )
    try:
        if scheduler is not None:
            return _on_dask(calls, scheduler, bar)
        return _on_threads(calls, jobs or default_jobs(), bar)
    finally:
        bar.close()


LINES_AFTER_S = 2.0  # a run shorter than this says nothing on stderr
LINES_EVERY_S = 5.0  # a sweep of many short calls says where it is this often, not per call
LINES_STILL_S = 15.0  # a call that runs long (reproduce is one call) says so this often


class StageLines:
    """A progress report for a log: `desc: k/N done, T s` on stderr as calls finish, once the
    run has lasted LINES_AFTER_S: at most one line each LINES_EVERY_S, and always the last (a
    sweep of 143 cells in a log is a few lines, not 143); while nothing finishes, the same line
    each LINES_STILL_S, so a log shows the run is alive. The part of tqdm's interface `run`
    uses."""

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.desc, self.done = total, desc, 0
        self.start = time.monotonic()
        self.said = -LINES_EVERY_S  # when the last line was printed, in seconds of the run
        self.disable = False
        self.work: float | None = None  # the share of a one-call run's work done (`_show_work`)

    def set_postfix_str(self, label: str, refresh: bool = False) -> None:
        pass

    def update(self, n: int = 1) -> None:
        self.done += n
        elapsed = time.monotonic() - self.start
        due = elapsed - self.said >= LINES_EVERY_S or self.done >= self.total
        if n and elapsed >= LINES_AFTER_S and due:
            self._say(elapsed)

    def refresh(self) -> None:
        elapsed = time.monotonic() - self.start
        if elapsed >= LINES_AFTER_S and elapsed - self.said >= LINES_STILL_S:
            self._say(elapsed)

    def _say(self, elapsed: float) -> None:
        self.said = elapsed
        where = f"{self.done}/{self.total} done"
        if self.work is not None and self.done < self.total:
            where = f"{100 * self.work:.0f}% of the work done"
        print(f"{self.desc}: {where}, {format_time(elapsed, 's')} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


def busy() -> bool:
    """Whether simulations started by `run` are still running in worker threads (after an
    interrupt: the CLI then exits without waiting for them). A thread still starting counts:
    Ctrl-C can land while `submit` starts one, before `is_alive` says so, and the executor's
    exit hook would then wait for its whole simulation."""
    return any(t.name.startswith(_THREAD_PREFIX) for t in threading.enumerate())


_THREAD_PREFIX = "cellblade-sim"


def _on_threads(calls: Sequence[Call], jobs: int, bar: tqdm) -> list[Any]:
    # Even one job runs on a worker thread: the main thread only waits, so Ctrl-C reaches it
    # at once and the progress bar's clock keeps moving during a long simulation.
    pool = ThreadPoolExecutor(
        max_workers=max(1, min(jobs, len(calls))), thread_name_prefix=_THREAD_PREFIX
    )
    try:
        futures = [pool.submit(execute, call) for call in calls]
        _follow(futures, calls, bar)
        return [future.result() for future in futures]
    finally:
        # On an interrupt the calls not started are dropped; running ones cannot be stopped
        # from here (the CLI exits without joining them, see `busy`).
        pool.shutdown(wait=False, cancel_futures=True)


def _follow(futures: list[Future], calls: Sequence[Call], bar: tqdm) -> None:
    """Waits for `futures`, moving the bar as each finishes and its clock in between."""
    pending = set(futures)
    index = {future: i for i, future in enumerate(futures)}
    while pending:
        running = min(index[f] for f in pending)
        _describe(bar, calls[running])
        done, pending = wait(pending, timeout=REFRESH_S, return_when=FIRST_COMPLETED)
        bar.update(len(done))
        if not done:
            if len(calls) == 1:
                _show_work(bar)
            bar.refresh()


# A one-call run whose call reports its work shows the share done and the time left.
WORK_BAR = "{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}"


def _show_work(bar: tqdm | StageLines) -> None:
    """The work done so far by the one call of a run, when it reports it (`cellblade.progress`):
    a run of one call otherwise shows nothing but its clock until it ends."""
    done, total = cellblade.progress()
    if not total or bar.disable:
        return
    if isinstance(bar, StageLines):
        bar.work = done / total
        return
    bar.bar_format, bar.total, bar.n = WORK_BAR, total, done


def _describe(bar: tqdm, call: Call) -> None:
    if call.label and not bar.disable:
        bar.set_postfix_str(call.label, refresh=False)


def _on_dask(calls: Sequence[Call], address: str, bar: tqdm) -> list[Any]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise cellblade.ConfigError(
            f"scheduler {address}: dask.distributed is not installed "
            "(pip install 'cellblade[dask]')"
        ) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        raise cellblade.ConfigError(f"scheduler {address}: cannot connect: {error}") from None
    with client:
        futures = client.map(execute, list(calls), pure=False)
        for _ in as_completed(futures):
            bar.update()
        return client.gather(futures)
