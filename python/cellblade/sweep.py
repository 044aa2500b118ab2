"""CellStats sweeps: one run per (SPE count, size) point, shaped like seed 002's figures.

The x axis follows the paper: DMA sizes from 16 B to 16 KiB (figures 4-9), atomic variables
from 4 B to 128 B (figure 12), and DMA lists that always move 16 KiB in 1 to 1024 elements
(figures 10-11, plotted against the element size). Mailboxes, signals and thread creation
have no size and are not swept.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cellblade import parallel

SPE_COUNTS = (1, 2, 4, 8, 16)
DMA_SIZES = tuple(2**k for k in range(4, 15))  # 16 B .. 16 KiB
ATOMIC_SIZES = tuple(2**k for k in range(2, 8))  # 4 B .. 128 B, one PPE cache line
LIST_BYTES = 16 * 1024  # every list point moves this much, in 1 .. 1024 elements
COLUMNS = (
    "spes",
    "size_bytes",
    "list_elements",
    "latency_ns",
    "aggregate_bandwidth_gbps",
    "simulated_ns",
    "events",
    "error",
)


@dataclass
class Sweep:
    function: str
    parameters: dict[str, Any]
    rows: list[dict[str, Any]]
    machine_toml: str


def points(function: str) -> list[tuple[int, int | None]]:
    """(size in bytes, list elements or None) for each x-axis point of `function`."""
    if function.startswith("dmalist"):
        return [(LIST_BYTES // 2**k, 2**k) for k in range(11)]
    if function.startswith("dma"):
        return [(size, None) for size in DMA_SIZES]
    if function.startswith("fetch"):
        return [(size, None) for size in ATOMIC_SIZES]
    raise ValueError(f"function {function!r} has no size to sweep; sweep a dma* or fetch* function")


def calls(function: str, *, spe_counts=SPE_COUNTS, **parameters: Any) -> list[parallel.Call]:
    """One `cellblade.run_stats` call per point; `parameters` are its other arguments."""
    return [
        parallel.Call(
            "run_stats",
            dict(parameters, function=function, spes=spes, size=size, list_elements=elements),
            label=f"{spes} SPEs, {size} B",
        )
        for spes in spe_counts
        for size, elements in points(function)
    ]


def run(
    function: str,
    *,
    spe_counts=SPE_COUNTS,
    progress: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
    **parameters: Any,
) -> Sweep:
    """Runs `cellblade.run_stats` at every point (on `jobs` threads or a Dask `scheduler`, see
    `cellblade.parallel`); `parameters` are its other arguments. A point the core refuses keeps
    its row, with the core's reason in "error"; only a sweep with no point that runs fails."""
    grid = calls(function, spe_counts=spe_counts, **parameters)
    results = parallel.run(
        grid, jobs=jobs, scheduler=scheduler, progress=progress, desc=f"{function} sweep"
    )
    done = [r for r in results if not isinstance(r, parallel.Failed)]
    if not done:
        raise results[0].error()
    rows = [_row(call.kwargs, result) for call, result in zip(grid, results)]
    return Sweep(function, parameters, rows, done[0]["machine_toml"])


def _row(point: dict[str, Any], result: Any) -> dict[str, Any]:
    row = {
        "spes": point["spes"],
        "size_bytes": point["size"],
        "list_elements": point["list_elements"],
    }
    if isinstance(result, parallel.Failed):
        return dict(
            row,
            latency_ns=None,
            aggregate_bandwidth_gbps=None,
            simulated_ns=None,
            events=None,
            error=result.message,
        )
    return dict(
        row,
        latency_ns=result["latency_ns"],
        aggregate_bandwidth_gbps=result["aggregate_bandwidth_gbps"],
        simulated_ns=result["sim"]["simulated_ns"],
        events=result["sim"]["events"],
        error=None,
    )


FILES = ("sweep.csv", "sweep.json", "sweep.png", "machine.toml")


def write(sweep: Sweep, out_dir: Path) -> list[Path]:
    """Writes `FILES` (sweep.csv, sweep.json, sweep.png and the resolved machine.toml) into
    `out_dir`; returns their paths."""
    from cellblade.plots import sweep_figure  # matplotlib is slow to import; only load it here

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / name for name in FILES]
    with paths[0].open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(sweep.rows)
    document = {"function": sweep.function, "parameters": sweep.parameters, "rows": sweep.rows}
    paths[1].write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    sweep_figure(sweep.rows, paths[2], title=_title(sweep), xlabel=_xlabel(sweep.function))
    paths[3].write_text(sweep.machine_toml, encoding="utf-8")
    return paths


def _title(sweep: Sweep) -> str:
    p = sweep.parameters
    buffers = "shared" if p.get("shared", True) else "private"
    return f"{sweep.function}: {buffers} buffers, cell {p.get('cell', 0)}, XDRAM{p.get('xdram', 0)}"


def _xlabel(function: str) -> str:
    if function.startswith("dmalist"):
        return f"list element size (bytes), {LIST_BYTES // 1024} KiB per list"
    return "size (bytes)"
