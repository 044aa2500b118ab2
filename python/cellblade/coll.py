"""Collective runs (seed 000 section 4) as a table and as files: coll-OP-N.csv and .json with one
row per algorithm and size, and coll-OP-N.png, latency against size as in the seed's figures
10-15 (a bar per algorithm for barriers). Also what `coll show` and `coll draw` need from a
schedule: which transfers cross the BIF.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

import cellblade
from cellblade.schedule import SPES_PER_CHIP, crosses_bif, short
from cellblade.units import NS_PER, format_size, format_time, parse_size

__all__ = [
    "SPES_PER_CHIP",
    "crosses_bif",
    "short",
    "parse_sizes",
    "table",
    "title",
    "write",
    "failures",
]

OPS = tuple(cellblade.CATALOG["coll"]["ops"])
REDUCING = ("reduce", "allreduce")
COLUMNS = ("op", "algorithm", "spes", "size_bytes", "latency_ns", "verified", "error")
US_FROM_NS = 10_000  # a table whose slowest cell reaches this many ns is written in us


def parse_sizes(text: str) -> list[int]:
    """Message sizes: "A:B" doubles from A up to B ("16:32k" is 16, 32, ..., 32768; k=1024),
    or a comma list ("64,1k")."""
    if ":" not in text:
        return [parse_size(part) for part in text.split(",")]
    first, _, last = text.partition(":")
    low, high = parse_size(first), parse_size(last)
    if not 0 < low <= high:
        raise ValueError(f"invalid value {text!r}: A:B needs 0 < A <= B")
    sizes = [low]
    while sizes[-1] * 2 <= high:
        sizes.append(sizes[-1] * 2)
    return sizes


def sizes_argument(text: str) -> list[int]:
    """`parse_sizes` as an argparse type: a bad value is a usage error naming it."""
    try:
        return parse_sizes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def title(parameters: dict[str, Any]) -> str:
    """Names the run: operation, SPEs, element type (and reduction), root, placement."""
    op = parameters["op"]
    parts = [f"{op}, {parameters['spes']} SPEs"]
    if op != "barrier":
        reduction = f" {parameters['reduce_op']}" if op in REDUCING else ""
        parts.append(f"{parameters['dtype']}{reduction}, root {parameters['root']}")
    placement = parameters["placement"]
    if isinstance(placement, list):
        placement = ",".join(map(str, placement))
    parts.append(f"placement {placement}" if placement else "rank i on SPE i")
    return ", ".join(parts)


def table(results: list[dict[str, Any]]) -> tuple[str, tuple[str, ...], list[tuple[str, ...]]]:
    """(unit, header, rows): a row per size, a column per algorithm, the latency of the slowest
    rank in each cell followed by "*" for the best verified one of the row, "!" when the result
    was wrong, "[k]" where the cell could not run for the k-th reason of `failures`, and "-"
    where the run has no such cell."""
    algorithms = list(dict.fromkeys(r["algorithm"] for r in results))
    sizes = sorted({r["size_bytes"] for r in results})
    cell = {(r["algorithm"], r["size_bytes"]): r for r in results}
    reasons = failures(results)
    results = [r for r in results if not r.get("error")]
    large = max((r["latency_ns"] for r in results), default=0) >= US_FROM_NS
    unit = "us" if large else "ns"
    rows = []
    for size in sizes:
        line = [
            cell[a, size]
            for a in algorithms
            if (a, size) in cell and not cell[a, size].get("error")
        ]
        best = min((r["latency_ns"] for r in line if r["verified"]), default=None)
        row = [format_size(size) if size else "-"]
        for algorithm in algorithms:
            r = cell.get((algorithm, size))
            if r is None:
                row.append("- ")
                continue
            if r.get("error"):
                row.append(f"[{reasons.index(r['error']) + 1}]")
                continue
            mark = "!" if not r["verified"] else "*" if r["latency_ns"] == best else " "
            row.append(f"{format_time(r['latency_ns'] / NS_PER[unit], unit)}{mark}")
        rows.append(tuple(row))
    return unit, ("size", *map(short, algorithms)), rows


def failures(results: list[dict[str, Any]]) -> list[str]:
    """The distinct reasons why cells could not run, in the order they first appear."""
    return list(dict.fromkeys(r["error"] for r in results if r.get("error")))


def write(results: list[dict[str, Any]], parameters: dict[str, Any], out_dir: Path) -> list[Path]:
    """Writes coll-OP-N.csv, .json (parameters and results) and .png into `out_dir`; returns
    their paths."""
    from cellblade.plots import coll_figure  # matplotlib is slow to import; only load it here

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"coll-{parameters['op']}-{parameters['spes']}"
    paths = [stem.with_suffix(suffix) for suffix in (".csv", ".json", ".png")]
    with paths[0].open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(results)
    document = {"parameters": parameters, "results": results}
    paths[1].write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    coll_figure(results, paths[2], title=title(parameters))
    return paths
