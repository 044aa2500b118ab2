"""PNG figures shaped like the seeds': seed 002's latency and bandwidth against size, one line
per SPE count, on a log2 x axis labelled in bytes; seed 001's bars of minimum bandwidth, one per
placement (figures 5-8). Uses matplotlib's Agg renderer through a bare `Figure`, so no global
pyplot state or display is involved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator


def sweep_figure(rows: list[dict[str, Any]], path: Path, *, title: str, xlabel: str) -> None:
    """Latency (left) and aggregate bandwidth (right) of sweep rows, saved as PNG at `path`."""
    figure = Figure(figsize=(11, 4.5), layout="constrained")
    latency, bandwidth = figure.subplots(1, 2)
    sizes = sorted({row["size_bytes"] for row in rows})
    for spes in sorted({row["spes"] for row in rows}):
        line = sorted((r for r in rows if r["spes"] == spes), key=lambda r: r["size_bytes"])
        x = [r["size_bytes"] for r in line]
        label = f"{spes} SPE" if spes == 1 else f"{spes} SPEs"
        latency.plot(x, [r["latency_ns"] for r in line], marker="o", label=label)
        bandwidth.plot(x, [r["aggregate_bandwidth_gbps"] for r in line], marker="o", label=label)
    for axes in (latency, bandwidth):
        axes.set_xscale("log", base=2)
        axes.set_xticks(sizes, [str(size) for size in sizes], rotation=45)
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xlabel(xlabel)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize="small")
    latency.set_yscale("log")
    latency.set_ylabel("latency (ns)")
    bandwidth.set_ylabel("aggregate bandwidth (GB/s)")
    figure.suptitle(title)
    figure.savefig(path, dpi=120)


def placement_figure(results: list[dict[str, Any]], path: Path, *, title: str) -> None:
    """One bar per placement: minimum bandwidth over SPEs, mean over trials, with the standard
    deviation over trials as error bars; saved as PNG at `path`."""
    figure = Figure(figsize=(max(4.0, 1.1 * len(results)), 4.5), layout="constrained")
    axes = figure.subplots()
    names = [r["placement"] for r in results]
    axes.bar(names, [r["min_bandwidth_gbps"] for r in results],
             yerr=[r["stddev_gbps"] for r in results], capsize=4, color="tab:blue")
    axes.set_xlabel("placement")
    axes.set_ylabel("bandwidth (GB/s)")
    axes.set_ylim(bottom=0)
    axes.grid(True, axis="y", alpha=0.3)
    axes.set_title(title)
    figure.savefig(path, dpi=120)
