"""cellblade: a calibrated discrete-event simulator of an IBM dual-Cell BE blade.

The simulator is the compiled core (``cellblade._core``); this package is a thin front that
passes each request's fields to the core as a dict and returns plain Python data::

    import cellblade
    result = cellblade.run_stats("dmaget", spes=8, size=16384)
    print(result["aggregate_bandwidth_gbps"])
    rows = cellblade.affinity_run("rd1", ["identity", "evenodd", "default"])
    print([(row["placement"], row["min_bandwidth_gbps"]) for row in rows])
    rows = cellblade.coll_run("allreduce", spes=8, sizes=[64, 1024])
    print([(row["algorithm"], row["size_bytes"], row["latency_ns"]) for row in rows])

``machine`` is a preset name ("qs20", "qs22") or the path of a machine file (a
``pathlib.Path``, or a string ending in ".toml"); ``overrides`` are machine-file values to
change, as ``{"eib.hop_latency_bus_cycles": 2}`` or ``["eib.hop_latency_bus_cycles=2"]``.
An argument left at ``None`` takes the core's default for the chosen function; the names,
defaults and limits are the core's (``catalog()``). A list of results is a ``Results`` list
whose ``machine_toml`` is the machine file it ran on; a dict result has a "machine_toml" key.
Errors raise ``ConfigError``, ``ProgramError`` or ``DeadlockError``, all ``CellbladeError``;
``err.field`` names the argument an error is about (None when it is about none).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union

from cellblade import _core
from cellblade._core import CellbladeError, ConfigError, DeadlockError, ProgramError

if TYPE_CHECKING:
    from cellblade import schedule
    from cellblade.machine import Machine, Overrides
    from cellblade.programs import Blade

# Loaded on first use, so that `import cellblade` (and `cellblade --help`) stays quick: the
# machine files' reader (pathlib), the schedule type (dataclasses) and the program API.
_LAZY = {
    "Blade": ("cellblade.programs", "Blade"),
    "Machine": ("cellblade.machine", "Machine"),
    "Overrides": ("cellblade.machine", "Overrides"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'cellblade' has no attribute {name!r}")


def _machine(machine: Machine | None, overrides: Overrides) -> dict[str, Any]:
    from cellblade.machine import choice

    return choice(machine, overrides)


def _read(path: str | os.PathLike | None, field: str) -> str | None:
    from cellblade.machine import read_text

    return read_text(path, field)


__all__ = [
    "Blade",
    "Results",
    "CellbladeError",
    "ConfigError",
    "DeadlockError",
    "ProgramError",
    "affinity_catalog",
    "affinity_run",
    "affinity_search",
    "bench",
    "calibrate",
    "leave_one_out",
    "identify_policies",
    "catalog",
    "coll_list",
    "coll_run",
    "coll_schedule",
    "preset",
    "reproduce",
    "reproduce_groups",
    "resolved_machine",
    "run_stats",
]

Placement = Union[str, Iterable[int], None]

CATALOG: dict[str, Any] = _core.catalog()
DEFAULT_COLL_SIZE: int = CATALOG["coll"]["default_size"]
DEFAULT_ITERATIONS: int = CATALOG["stats"]["defaults"]["iterations"]
DEFAULT_WARMUP: int = CATALOG["stats"]["defaults"]["warmup"]


class Results(list):
    """Result rows (a list) and ``machine_toml``, the machine file they ran on."""

    def __init__(self, rows: Iterable[Any] = (), machine_toml: str | None = None) -> None:
        super().__init__(rows)
        self.machine_toml = machine_toml


def catalog() -> dict[str, Any]:
    """The core's names, defaults and limits: presets, CellStats functions and defaults,
    collective operations, element types and sizes, affinity SPE counts, trials and samples."""
    return _core.catalog()


def preset(name: str) -> str:
    """The text of a preset machine file, ready to copy and edit."""
    return _core.preset_toml(name)


def run_stats(
    function: str,
    *,
    spes: int | None = None,
    shared: bool | None = None,
    cell: int | None = None,
    xdram: int | None = None,
    spe_target: bool | None = None,
    size: int | None = None,
    stride: int | None = None,
    list_elements: int | None = None,
    iterations: int | None = None,
    warmup: int | None = None,
    syscall: bool | None = None,
    trace: str | os.PathLike | None = None,
    seed: int | None = None,
    placement: str | None = None,
    placement_file: str | os.PathLike | None = None,
    machine: Machine | None = None,
    overrides: Overrides = (),
) -> dict[str, Any]:
    """Runs one CellStats experiment (seed 002, section 3) and returns its result.

    ``shared`` picks one buffer for all SPEs (CellStats -n) or one each (-N); ``spe_target``
    is -s (the peer is an SPE, or the buffer is in SPE 0's local store); ``syscall`` makes the
    PPE use the library call instead of a direct MMIO write for mailboxes and signals;
    ``placement`` (a name) or ``placement_file`` puts thread rank i on the placement's SPE;
    ``trace`` is a file the run's Chrome/Perfetto trace streams to (the result's
    ``trace_dropped_events`` counts events past its limit).
    """
    request = {
        "spes": spes,
        "shared": shared,
        "cell": cell,
        "xdram": xdram,
        "spe_target": spe_target,
        "size": size,
        "stride": stride,
        "list_elements": list_elements,
        "iterations": iterations,
        "warmup": warmup,
        "syscall": syscall,
        "trace": None if trace is None else os.fspath(trace),
        "seed": seed,
        "placement": placement,
        "placement_file": _read(placement_file, "placement_file"),
    }
    # The function is required: None is passed on, for the core to refuse.
    return _call(_core.run_stats, request, machine, overrides, function=function)


def calibrate(machine: Machine | None = None, overrides: Overrides = ()) -> list[dict[str, Any]]:
    """Simulated against published values: one dict per calibration point."""
    return _call(_core.calibrate, {}, machine, overrides)


def leave_one_out(
    parameters: Iterable[str] = (), machine: Machine | None = None, overrides: Overrides = ()
) -> list[dict[str, Any]]:
    """Each fitted machine parameter refitted on each other row of its group: one dict per
    refit (parameter, value, fitted_on, refit_on, refit_value, searched, and the group's rows
    with the machine file's value and with the refit one). `parameters`: machine-file keys
    (every fitted one with a group when empty)."""
    return _call(_core.leave_one_out, {"parameters": list(parameters)}, machine, overrides)


def identify_policies(
    quick: bool = False,
    jobs: int | None = None,
    machine: Machine | None = None,
    overrides: Overrides = (),
) -> dict[str, Any]:
    """Every data-arbiter policy of the family (half-way rule x grant order x direction limit),
    its free parameters fitted on seed 001 Table 1 #1-#5 and #8, judged on the held-out rows and
    claims: a dict with `policies` (one per policy: label, fitted, training, table1, claims,
    held_out_holding, held_out_total, gives_9_10_11), `best` and `machine` (indices). `quick`:
    Table 1's held-out rows only."""
    request: dict[str, Any] = {"quick": quick}
    if jobs is not None:
        request["jobs"] = jobs
    return _call(_core.identify_policies, request, machine, overrides)


def affinity_catalog() -> dict[str, list[dict[str, Any]]]:
    """Seed 001's communication patterns (name, description, phases, default_size_bytes) and
    named placements (name, mapping: the physical SPE of each rank)."""
    return _core.affinity_catalog()


def affinity_run(
    pattern: str,
    placements: str | Iterable[str] = "all",
    *,
    spes: int | None = None,
    size: int | None = None,
    trials: int | None = None,
    seed: int | None = None,
    placement_file: str | os.PathLike | None = None,
    machine: Machine | None = None,
    overrides: Overrides = (),
) -> list[dict[str, Any]]:
    """Runs communication pattern `pattern` under each placement (seed 001 section 5): one dict
    per placement, with its minimum bandwidth over ranks averaged over ``trials``.

    ``placements`` is "all" (the named placements and the default scheduler) or names from
    ``affinity_catalog()`` and "default"; ``placement_file`` is the path of a placement file
    (the seed's initialization file: ``#`` comments, then one line of physical SPE ids in rank
    order, or lines of ``rank spe``), run after them. ``size`` is the largest message in bytes.
    """
    request = {
        "pattern": pattern,
        "placements": placements if isinstance(placements, str) else list(placements),
        "placement_file": _read(placement_file, "placement_file"),
        "spes": spes,
        "size": size,
        "trials": trials,
        "seed": seed,
    }
    return _call(_core.affinity_run, request, machine, overrides)


def affinity_search(
    pattern: str,
    *,
    spes: int | None = None,
    objective: str | None = None,
    size: int | None = None,
    seed: int | None = None,
    default_samples: int | None = None,
    machine: Machine | None = None,
    overrides: Overrides = (),
) -> dict[str, Any]:
    """Searches the placements of `pattern` for the best and the worst under ``objective``
    ("min_bandwidth" or "latency"), beside EvenOdd and ``default_samples`` draws of the default
    scheduler."""
    request = {
        "pattern": pattern,
        "spes": spes,
        "objective": objective,
        "size": size,
        "seed": seed,
        "default_samples": default_samples,
    }
    return _call(_core.affinity_search, request, machine, overrides)


def coll_list() -> list[dict[str, Any]]:
    """The collective algorithms (seed 000): name ("op.algorithm"), op, description, spes ("any"
    or "power of two") and source."""
    return _core.coll_list()


def coll_schedule(
    algorithm: str | schedule.Generator,
    *,
    spes: int | None = None,
    size: int | None = None,
    root: int | None = None,
    placement: Placement = None,
    machine: Machine | None = None,
    overrides: Overrides = (),
) -> dict[str, Any]:
    """The schedule of collective `algorithm` on ``spes`` ranks for ``size``-byte messages:
    rounds of transfers (dst, src, bytes, src_offset, dst_offset, action: copy, reduce or
    notify), the physical SPE of each rank under ``placement``, and the schedule's text form.

    ``placement`` is None (rank i on SPE i), a placement name ("evenodd", ...; see
    ``affinity_catalog()``) or the physical SPE id (0-15; 8-15 are on chip 1) of each rank.

    ``algorithm`` may also be a schedule generator (see ``cellblade.schedule``): its schedule
    is checked, structure and result (the data-only interpreter), and returned the same way.
    """
    if callable(algorithm):
        request = {
            "schedule": _generated(algorithm, None, spes, root, size),
            "placement": _placement(placement),
        }
        return _call(_core.coll_check, request, machine, overrides)
    request = {
        "algorithm": algorithm,
        "spes": spes,
        "size": size,
        "root": root,
        "placement": _placement(placement),
    }
    return _call(_core.coll_schedule, request, machine, overrides)


def coll_run(
    op: str,
    *,
    spes: int | None = None,
    sizes: Iterable[int] | None = None,
    algorithms: str | Iterable[str | schedule.Generator] = "all",
    root: int | None = None,
    placement: Placement = None,
    dtype: str | None = None,
    reduce_op: str | None = None,
    iterations: int | None = None,
    machine: Machine | None = None,
    overrides: Overrides = (),
) -> list[dict[str, Any]]:
    """Runs the algorithms of collective `op` (barrier, broadcast, reduce, allreduce,
    allgather) on the simulated blade for each message size in bytes (barriers take none):
    one dict per algorithm and size, with the slowest rank's latency and whether every rank
    got the right result.

    ``algorithms`` is "all" (every one of `op` that takes ``spes``) or a list of names from
    ``coll_list()`` (or "all") and schedule generators (see ``cellblade.schedule``), which
    run, verify and are timed like the built-ins; ``placement`` as for ``coll_schedule``; ``dtype`` is
    int32, float32 or float64; ``reduce_op`` is sum, min, max or prod; ``iterations`` is the
    number of timed calls (None: the core's default).
    """
    sizes = None if sizes is None else list(sizes)
    if isinstance(algorithms, str):
        names, generators = algorithms, []
    else:
        names = [a for a in algorithms if not callable(a)]
        generators = [a for a in algorithms if callable(a)]
        names = "all" if names == ["all"] else names
    schedules = [
        _generated(generator, op, spes, root, size)
        for generator in generators
        for size in ([0] if op == "barrier" else [None] if sizes is None else sizes)
    ]
    request = {
        "op": op,
        "spes": spes,
        "sizes": sizes,
        "algorithms": names,
        "schedules": schedules or None,
        "root": root,
        "placement": _placement(placement),
        "dtype": dtype,
        "reduce_op": reduce_op,
        "iterations": iterations,
    }
    return _call(_core.coll_run, request, machine, overrides)


def reproduce(
    quick: bool = False,
    machine: Machine | None = None,
    overrides: Overrides = (),
    claims: Iterable[str] | None = None,
    jobs: int | None = None,
) -> list[dict[str, Any]]:
    """The papers' findings re-checked on the simulated blade: one dict per claim. ``claims``
    names claim groups of ``reproduce_groups()`` to run (None: all), so that the groups can run
    apart and their claims be concatenated in the order of ``reproduce_groups()``. ``jobs``:
    how many of the independent simulations behind the claims run at once, on threads of this
    process (None: one per core); the claims are the same whatever it is."""
    request = {"quick": quick, "claims": None if claims is None else list(claims), "jobs": jobs}
    return _call(_core.reproduce, request, machine, overrides)


def reproduce_groups() -> list[str]:
    """The claim groups of ``reproduce``, in the order it states their claims."""
    return _core.reproduce_groups()


def progress() -> tuple[int, int]:
    """How far the core calls under way in this process that report it (``reproduce``) are:
    work done and work in all, in the calls' own units, summed over them; (0, 0) when none
    reports. Read from another thread while they run (they release the GIL)."""
    return _core.progress()


def resolved_machine(machine: Machine | None = None, overrides: Overrides = ()) -> str:
    """The machine file a run with these arguments uses, overrides applied, as TOML."""
    return _core.resolved_machine(_machine(machine, overrides))


def sdk_run(
    program: str | os.PathLike,
    args: Iterable[str] = (),
    machine: Machine | None = None,
    overrides: Overrides = (),
    compute: str | None = None,
) -> dict[str, Any]:
    """Run a Cell SDK program (a PPE executable built with ``cellblade ppu-gcc -lspe2``) on the
    simulated blade, as ``cellblade run`` does: ``{"exit_code", "message", "stdout", "stderr",
    "simulated_ns", "events", "packets", "wall_s", "notes", "machine_toml"}``, the output being
    what the program and its SPEs printed. ``compute`` is what the SPE programs' own code costs:
    ``"model"`` (the SPU cycles it takes; the default) or ``"zero"``."""
    from cellblade.sdk import launcher

    chosen = _machine(machine, overrides)
    try:
        result = launcher.run(os.fspath(program), list(args), chosen, capture=True, compute=compute)
    except launcher.RunError as error:
        raise ConfigError(str(error)) from None
    return {
        "exit_code": result.exit_code,
        "message": result.message,
        "stdout": result.stdout,
        "stderr": result.stderr,
        **result.report,
    }


def bench(quick: bool = False) -> dict[str, Any]:
    """The simulator's own speed (packets per second) over fixed workloads."""
    return _core.bench({"quick": quick})["result"]


def _call(
    program, request: dict[str, Any], machine: Machine, overrides: Overrides, **required: Any
) -> Any:
    """Calls core program `program` with the request's fields (those left at None take the
    core's defaults) and returns its result with the machine it ran on."""
    fields = {key: _plain(value) for key, value in request.items() if value is not None}
    answer = program({**required, **fields}, _machine(machine, overrides))
    result, machine_toml = answer["result"], answer["machine_toml"]
    if isinstance(result, list):
        return Results(result, machine_toml)
    if machine_toml is not None:
        result["machine_toml"] = machine_toml
    return result


def _plain(value: Any) -> Any:
    """`value` as plain Python data for the core: numpy scalars and arrays become numbers and
    lists (``tolist``), tuples and lists are converted element by element."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _generated(
    generator: schedule.Generator,
    op: str | None,
    spes: int | None,
    root: int | None,
    size: int | None,
) -> dict[str, Any]:
    """A generator's schedule for one call (the core's defaults for what is None), or
    ConfigError saying what is wrong with it."""
    spes = CATALOG["coll"]["default_spes"] if spes is None else spes
    root = 0 if root is None else root
    size = DEFAULT_COLL_SIZE if size is None else size
    from cellblade import schedule

    try:
        document = schedule.generate(generator, op, spes, root, size)
    except (TypeError, ValueError) as error:
        raise ConfigError(str(error)) from None
    return document


def _placement(placement: Placement) -> str | list[int] | None:
    return placement if placement is None or isinstance(placement, str) else list(placement)
