"""Which work is a sweep: the commands whose simulations are independent, each split into calls
of public ``cellblade`` functions for `cellblade.parallel` and put back together in the order
one call would have given.

- ``reproduce``: on this machine one call, which runs the pieces of every claim group (an
  affinity pattern, a matrix multiplication, each on the blade and on the blade without
  contention) on ``jobs`` threads of the core, the longest first; on a Dask cluster one call
  per claim group (``cellblade.reproduce_groups()``).
- ``coll OP``: one call per algorithm and size; a cell the core refuses keeps its row with the
  core's reason in "error", and only a run where no cell runs fails.
- ``affinity run``: one call per placement (each runs with the run's seed, alone or in a list,
  so the rows are the same).
- ``cellstats --sweep``: one call per point (`cellblade.sweep`).
- ``affinity search`` stays one call: its hill climb (two chips) chooses each evaluation from
  the last. The exhaustive search (one chip) evaluates its placements side by side inside the
  core instead, one thread per core, with the same result on any number of threads.

`where` is how to run the calls: ``jobs``, ``scheduler`` and ``progress`` of `parallel.run`.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import cellblade
from cellblade import parallel, schedule


def claims(
    quick: bool, machine: dict[str, Any], where: dict[str, Any], groups: list[str] | None = None
) -> list[dict[str, Any]]:
    """`cellblade.reproduce(quick, groups, **machine)`, its pieces run side by side; `groups`:
    only those claim groups (None: all)."""
    calls, where = _reproduce_calls(quick, machine, where, groups)
    return _all_or_raise(parallel.run(calls, desc="reproducing claims", **where))


def _reproduce_calls(
    quick: bool, machine: dict[str, Any], where: dict[str, Any], groups: list[str] | None = None
) -> tuple[list[parallel.Call], dict[str, Any]]:
    """The calls of `reproduce` and where to run them. Locally the core splits the work
    finer than the groups (the affinity group alone is more than half of a full run), so
    one call takes the jobs; a Dask worker runs one claim group per task, on one thread. A
    list of groups the core would refuse goes to it whole, so that its error says why."""
    known = cellblade.reproduce_groups()
    valid = groups is None or (bool(groups) and all(g in known for g in groups))
    if where.get("scheduler") is not None and valid:
        calls = [
            parallel.Call("reproduce", dict(quick=quick, claims=[g], jobs=1, **machine), label=g)
            for g in known
            if groups is None or g in groups
        ]
        return calls, where
    jobs = where.get("jobs") or parallel.default_jobs()
    label = "all groups" if groups is None else ", ".join(groups)
    call = parallel.Call(
        "reproduce", dict(quick=quick, claims=groups, jobs=jobs, **machine), label=label
    )
    return [call], {**where, "jobs": 1}


def placements(parameters: dict[str, Any], where: dict[str, Any]) -> list[dict[str, Any]]:
    """`cellblade.affinity_run(**parameters)`, one call per placement, the file's last."""
    names = parameters["placements"]
    if names == "all":
        names = [p["name"] for p in cellblade.affinity_catalog()["placements"]] + ["default"]
    calls = [
        parallel.Call(
            "affinity_run", dict(parameters, placements=[name], placement_file=None), label=name
        )
        for name in names
    ]
    if parameters.get("placement_file") is not None:
        calls.append(parallel.Call("affinity_run", dict(parameters, placements=[]), label="file"))
    return _all_or_raise(parallel.run(calls, desc=f"{parameters['pattern']} placements", **where))


def coll_cells(parameters: dict[str, Any], where: dict[str, Any]) -> list[dict[str, Any]]:
    """`cellblade.coll_run(**parameters)`, one call per algorithm and size, rows in the order
    the core gives them (algorithms, then generators; sizes within each)."""
    op, spes = parameters["op"], parameters["spes"]
    algorithms = _expand(parameters["algorithms"], op, spes)
    generators = [a for a in algorithms if callable(a)]
    sizes = [None] if op == "barrier" else list(parameters["sizes"])
    check_generator_ops(generators, op, spes, parameters["root"], sizes[0] or 0)
    cells = [
        (a, size)
        for a in [*(a for a in algorithms if not callable(a)), *generators]
        for size in sizes
    ]
    if not cells:
        raise cellblade.ConfigError(f"no {op} algorithm takes {spes} SPEs")
    calls = [
        parallel.Call(
            "coll_run",
            dict(parameters, algorithms=[algorithm], sizes=None if size is None else [size]),
            label=f"{_name(algorithm)} {size or ''}".strip(),
        )
        for algorithm, size in cells
    ]
    results = parallel.run(calls, desc=f"{op} on {spes} SPEs", **where)
    if all(isinstance(r, parallel.Failed) for r in results):
        raise results[0].error()
    # A generator's rows carry the name its schedule gives; a refused cell takes it from them.
    names = {
        id(a): rows[0]["algorithm"]
        for (a, _), rows in zip(cells, results)
        if not isinstance(rows, parallel.Failed) and rows
    }
    rows = []
    for (algorithm, size), result in zip(cells, results):
        if isinstance(result, parallel.Failed):
            rows.append(
                {
                    "op": op,
                    "spes": spes,
                    "size_bytes": size or 0,
                    "algorithm": names.get(id(algorithm), _name(algorithm)),
                    "latency_ns": None,
                    "verified": None,
                    "error": result.message,
                }
            )
        else:
            rows.extend(result)
    return rows


def _expand(algorithms: str | list, op: str, spes: int) -> list:
    """ "all" (alone or in a list) as the algorithms of `op` that take `spes` SPEs, as the core
    lists them."""
    if algorithms != "all" and "all" not in algorithms:
        return list(algorithms)
    takes = spes & (spes - 1) == 0  # a power of two
    everyone = [
        a["name"] for a in cellblade.coll_list() if a["op"] == op and (a["spes"] == "any" or takes)
    ]
    return everyone + ([] if algorithms == "all" else [a for a in algorithms if a != "all"])


def check_generator_ops(
    generators: list[Callable], op: str, spes: int, root: int, size: int
) -> None:
    """A generator of another operation is a bad request (ConfigError), not a cell that
    cannot run."""
    for generator in generators:
        try:
            schedule.generate(generator, None, spes, root, size)
        except (TypeError, ValueError):
            continue  # it fails at this size whatever the operation: its cells say why
        try:
            schedule.generate(generator, op, spes, root, size)
        except ValueError as error:
            raise cellblade.ConfigError(str(error)) from None


def reproduce_speedup(quick: bool, progress: bool, repeats: int = 1) -> dict[str, Any]:
    """`reproduce` on one core, on every core and on two local Dask worker processes (by claim
    group; when dask.distributed is installed; their start is not timed), `repeats` times in
    turn so that a change of load on the machine falls on all three alike: the wall times of
    each round, their medians, the ratios of the medians to one core's, and whether every run
    gave the same claims."""
    cores = parallel.default_jobs()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        Client = LocalCluster = None
    with contextlib.ExitStack() as stack:
        where = {"one_core": {"jobs": 1}, "all_cores": {"jobs": cores}}
        if LocalCluster is not None:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=2,
                    processes=True,
                    threads_per_worker=1,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
            )
            # Timed once the workers have imported cellblade, as on a cluster that is running.
            with Client(cluster.scheduler_address) as client:
                client.run(importlib.import_module, "cellblade")
            where["dask"] = {"scheduler": cluster.scheduler_address}
        times: dict[str, list[float]] = {name: [] for name in where}
        answers = set()
        for _ in range(repeats):
            for name, place in where.items():
                calls, place = _reproduce_calls(quick, {}, place)
                start = time.perf_counter()
                results = parallel.run(calls, progress=progress, desc=f"reproduce, {name}", **place)
                times[name].append(time.perf_counter() - start)
                answers.add(json.dumps(_all_or_raise(results)))
    median = {name: statistics.median(values) for name, values in times.items()}
    return {
        "quick": quick,
        "groups": len(cellblade.reproduce_groups()),
        "cores": cores,
        "repeats": repeats,
        "wall_s": times,
        "one_core_s": median["one_core"],
        "all_cores_s": median["all_cores"],
        "all_cores_speedup": median["one_core"] / median["all_cores"],
        "dask_s": median.get("dask"),
        "dask_speedup": median["one_core"] / median["dask"] if "dask" in median else None,
        "identical": len(answers) == 1,
    }


def _all_or_raise(results: list[Any]) -> list[Any]:
    """The items of every call's list, in order; the first refusal raised."""
    for result in results:
        if isinstance(result, parallel.Failed):
            raise result.error()
    return [item for items in results for item in items]


def _name(algorithm: str | Callable) -> str:
    return getattr(algorithm, "__name__", repr(algorithm)) if callable(algorithm) else algorithm
