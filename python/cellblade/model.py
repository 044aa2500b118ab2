"""The performance model of seed 003 from Python: measure the extended PLogP parameters on the
simulated blade, predict collectives with the seed's equations and with the schedule price,
validate against simulation, and choose an algorithm automatically::

    from cellblade import model
    params = model.measure()                      # {"params": {...}, "toml": "..."}
    rows = model.predict("allreduce", params["toml"], spes=16, sizes=[1024], simulate=True)
    report = model.validate(params["toml"])                # on every core; jobs=, scheduler=

Parameters travel as the TOML text of a parameter file (``model measure --out`` writes one).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import cellblade
from cellblade import _core
from cellblade.machine import choice, override_list

# The environment variable that names the parameter cache's directory.
CACHE_ENV = "CELLBLADE_CACHE_DIR"


def cache_dir() -> Path:
    """Where measured parameters are cached: $CELLBLADE_CACHE_DIR, else the user's cache
    directory ($XDG_CACHE_HOME/cellblade, or ~/.cache/cellblade), under ``model``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cellblade" / "model"


def _answer(
    program: Callable,
    request: dict[str, Any],
    machine: cellblade.Machine | None = None,
    overrides: cellblade.Overrides = (),
) -> Any:
    """The result of core program `program` (fields left at None take the core's defaults)."""
    fields = {key: value for key, value in request.items() if value is not None}
    return program(fields, choice(machine, overrides))["result"]


def measure(
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
    sizes: list[int] | None = None,
    iterations: int | None = None,
) -> dict[str, Any]:
    """Runs the section 3.3 micro-benchmarks: ``{"params": {...}, "toml": text}``."""
    return _answer(
        _core.model_measure, {"sizes": sizes, "iterations": iterations}, machine, overrides
    )


def _write_whole(path: Path, text: str) -> None:
    """Writes `text` to `path` through a temporary file renamed into place, so a concurrent
    reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def params_for(
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
    params_file: Path | None = None,
    cache: Path | None = None,
) -> str:
    """The parameter TOML: `params_file` if given, else the measurement of this machine, cached
    under `cache` (default ``cache_dir()``) by a hash of the resolved machine file and the
    parameter file's version (a changed machine or method is re-measured)."""
    if params_file is not None:
        from cellblade.machine import read_text

        return read_text(params_file, "params_file")
    machine_toml = cellblade.resolved_machine(machine, overrides)
    # The parameter file's version too: a file measured by an older method is measured again.
    version = cellblade.CATALOG["model"]["params_version"]
    key = hashlib.sha256(f"{version}\n{machine_toml}".encode()).hexdigest()[:16]
    path = (cache_dir() if cache is None else Path(cache)) / f"params-{key}.toml"
    if path.exists():
        return path.read_text(encoding="utf-8")
    text = measure(machine, overrides)["toml"]
    _write_whole(path, text)
    return text


def predict(
    op: str,
    params_toml: str,
    algorithms: list[str] | None = None,
    spes: int | None = None,
    sizes: list[int] | None = None,
    placement: list[int] | None = None,
    dtype: str | None = None,
    simulate: bool = False,
    iterations: int | None = None,
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
) -> dict[str, Any]:
    """Seed equation, schedule price and (with `simulate`) simulated latency per algorithm and
    size: ``{"op", "rows": [...], "warnings": [...]}``."""
    request = {
        "params_toml": params_toml,
        "op": op,
        "algorithms": algorithms,
        "spes": spes,
        "sizes": sizes,
        "placement": placement,
        "dtype": dtype,
        "simulate": simulate,
        "iterations": iterations,
    }
    return _answer(_core.model_predict, request, machine, overrides)


def price(
    schedule: dict[str, Any] | Callable,
    params_toml: str,
    spes: int = 8,
    size: int = 1024,
    root: int = 0,
    placement: list[int] | None = None,
    dtype: str | None = None,
) -> dict[str, Any]:
    """The price of any schedule (a JSON-form dict, or a Python generator called with
    `spes`, `root` and `size`): ``{"latency_ns", "extrapolated"}``."""
    if callable(schedule):
        schedule = schedule(spes, root, size).to_dict()
    request = {
        "params_toml": params_toml,
        "schedule": schedule,
        "placement": placement,
        "dtype": dtype,
    }
    return _answer(_core.model_price, request)


def choose(
    op: str,
    spes: int,
    size: int,
    params_toml: str,
    placement: list[int] | None = None,
    dtype: str | None = None,
    root: int | None = None,
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
) -> dict[str, Any]:
    """The algorithm the model picks: ``{"algorithm", "predicted_ns", "candidates"}``;
    `placement` is the physical SPE of each rank (None: rank i on SPE i)."""
    request = {
        "params_toml": params_toml,
        "op": op,
        "spes": spes,
        "size": size,
        "root": root,
        "placement": placement,
        "dtype": dtype,
    }
    return _answer(_core.model_choose, request, machine, overrides)


def grid(
    params_toml: str, machine: cellblade.Machine = "qs20", overrides: cellblade.Overrides = ()
) -> list[dict[str, Any]]:
    """The validation grid's points: ``{"algorithm", "spes", "size_bytes"}``."""
    return _answer(_core.model_grid, {"params_toml": params_toml}, machine, overrides)


def time_grid(
    params_toml: str, machine: cellblade.Machine = "qs20", overrides: cellblade.Overrides = ()
) -> dict[str, Any]:
    """Wall time to predict the whole validation grid with every model: ``{"points",
    "predict_s"}``."""
    return _answer(_core.model_time_grid, {"params_toml": params_toml}, machine, overrides)


def simulate(
    points: list[dict[str, Any]],
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
    iterations: int | None = None,
) -> list[float]:
    """Simulated latency (ns) of each point; any split of the list gives the same numbers."""
    return _answer(
        _core.model_simulate, {"points": points, "iterations": iterations}, machine, overrides
    )


def validate(
    params_toml: str,
    machine: cellblade.Machine = "qs20",
    overrides: cellblade.Overrides = (),
    iterations: int | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Simulates the grid as a sweep (`cellblade.parallel`: `jobs` local threads, every core by
    default, or the Dask cluster at `scheduler`), then scores it. Any split gives the same
    numbers, so the result does not depend on where the points ran."""
    from cellblade import parallel

    points = grid(params_toml, machine, overrides)
    # Points of one algorithm and SPE count share a run's set-up, so a call takes several.
    chunks = [points[i : i + 8] for i in range(0, len(points), 8)]
    calls = [
        parallel.Call(
            "model.simulate",
            {
                "points": chunk,
                "machine": machine,
                "overrides": override_list(overrides),
                "iterations": iterations,
            },
            label=f"{chunk[0]['algorithm']}, {chunk[0]['spes']} SPEs",
        )
        for chunk in chunks
    ]
    parts = parallel.run(calls, jobs=jobs, scheduler=scheduler, progress=progress, desc="validate")
    simulated = []
    for part in parts:
        if isinstance(part, parallel.Failed):
            raise part.error()
        simulated.extend(part)
    request = {"params_toml": params_toml, "points": points, "simulated": simulated}
    return _answer(_core.model_score, request)


# ---- figures shaped like seed 003's ----------------------------------------------------------


def _log2_axis(axes, sizes: list[int]) -> None:
    from matplotlib.ticker import NullLocator

    axes.set_xscale("log", base=2)
    axes.set_xticks(sizes, [str(size) for size in sizes], rotation=45)
    axes.xaxis.set_minor_locator(NullLocator())
    axes.set_xlabel("message size (bytes)")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")


def gap_figure(params: dict[str, Any], path: Path) -> None:
    """Figure 7: the gap g, g1 and g2 (and Kielmann's) against message size."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.5, 4.5), layout="constrained")
    axes = figure.subplots()
    sizes = params["sizes_bytes"]
    for key, label in (
        ("g_ns", "g (one chip)"),
        ("g1_ns", "g1 (blade, same chip)"),
        ("g2_ns", "g2 (blade, across the BIF)"),
        ("g_kielmann_ns", "Kielmann's g"),
    ):
        axes.plot(sizes, params[key], marker="o", label=label)
    axes.set_yscale("log")
    axes.set_ylabel("gap (ns)")
    _log2_axis(axes, sizes)
    figure.suptitle("Gap micro-benchmark (seed 003 figure 7), simulated blade")
    figure.savefig(path, dpi=120)


def congestion_figure(params: dict[str, Any], path: Path) -> None:
    """Figure 8: BIF-n butterfly latency against message size, one line per n."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.5, 4.5), layout="constrained")
    axes = figure.subplots()
    rows = params["congestion"]
    sizes = sorted({r["size_bytes"] for r in rows})
    for n in sorted({r["bif_messages"] for r in rows}):
        line = sorted((r for r in rows if r["bif_messages"] == n), key=lambda r: r["size_bytes"])
        axes.plot(
            [r["size_bytes"] for r in line],
            [r["latency_ns"] for r in line],
            marker=".",
            label=f"BIF-{n}",
        )
    axes.set_yscale("log")
    axes.set_ylabel("latency (ns)")
    _log2_axis(axes, sizes)
    figure.suptitle("BIF contention micro-benchmark (seed 003 figure 8), simulated blade")
    figure.savefig(path, dpi=120)


def error_figure(rows: list[dict[str, Any]], path: Path, *, key: str, title: str) -> None:
    """Figures 10 and 11: the error of a model against size, one line per algorithm and SPE
    count (barriers, which have no size, are left out)."""
    from matplotlib.figure import Figure

    from cellblade import report_figures

    data = [r for r in rows if r["size_bytes"] > 0]
    ops = sorted({r["algorithm"].split(".")[0] for r in data})
    figure = Figure(figsize=(12, 3.2 * ((len(ops) + 1) // 2)), layout="constrained")
    grid = figure.subplots((len(ops) + 1) // 2, 2, squeeze=False)
    for axes, op in zip(grid.flat, ops):
        mine = [r for r in data if r["algorithm"].startswith(op + ".")]
        for i, (name, spes) in enumerate(sorted({(r["algorithm"], r["spes"]) for r in mine})):
            line = sorted(
                (r for r in mine if r["algorithm"] == name and r["spes"] == spes),
                key=lambda r: r["size_bytes"],
            )
            axes.plot(
                [r["size_bytes"] for r in line],
                [r[key] for r in line],
                label=f"{name.partition('.')[2]} {spes}",
                **report_figures.style(i),
            )
        # Beside the panel, never over its title or curves.
        axes.legend(
            fontsize="xx-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
        )
        axes.axhspan(-10, 10, color="green", alpha=0.08)
        axes.set_ylabel("error (%)")
        axes.set_title(op)
        _log2_axis(axes, sorted({r["size_bytes"] for r in mine}))
    for axes in list(grid.flat)[len(ops) :]:
        axes.set_visible(False)
    figure.suptitle(title)
    figure.savefig(path, dpi=120)
