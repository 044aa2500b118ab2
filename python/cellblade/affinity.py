"""Affinity runs (seed 001 section 5) saved as files: affinity-PATTERN.csv and .json with one
row per placement, and affinity-PATTERN.png, one bar per placement as in the seed's figures 5-8.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import cellblade
from cellblade.units import format_size

COLUMNS = (
    "placement",
    "mapping",
    "min_bandwidth_gbps",
    "mean_bandwidth_gbps",
    "stddev_gbps",
    "latency_us",
)


COLLECTIVE_DEFAULT_SIZE = cellblade.CATALOG["affinity"]["collective_default_size"]


def title(pattern: str, size: int | None, spes: int, trials: int) -> str:
    """Names the run: pattern, message size (the pattern's default when `size` is None), SPEs
    and trials."""
    catalog = {p["name"]: p for p in cellblade.affinity_catalog()["patterns"]}
    # A collective algorithm used as a pattern: 16 KB per rank by default, several rounds.
    entry = catalog.get(pattern, {"default_size_bytes": COLLECTIVE_DEFAULT_SIZE, "phases": 2})
    size = entry["default_size_bytes"] if size is None else size
    message = "largest message" if entry["phases"] > 1 else "messages of"
    return f"{pattern} pattern, {message} {format_size(size)}, {spes} SPEs, {trials} trials"


def mapping_text(mapping: list[int] | None) -> str:
    """Physical SPE ids in rank order, "0,2,1,..."; "-" for the default scheduler."""
    return "-" if mapping is None else ",".join(map(str, mapping))


def write(
    results: list[dict[str, Any]], parameters: dict[str, Any], out_dir: Path, *, title: str
) -> list[Path]:
    """Writes affinity-PATTERN.csv, .json and .png into `out_dir`; returns their paths."""
    from cellblade.plots import placement_figure  # matplotlib is slow to import; only load it here

    out_dir.mkdir(parents=True, exist_ok=True)
    # Not with_suffix: a collective used as a pattern ("allgather.rdb") has a dot in its name.
    paths = [
        out_dir / f"affinity-{parameters['pattern']}{suffix}"
        for suffix in (".csv", ".json", ".png")
    ]
    with paths[0].open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(dict(r, mapping=mapping_text(r["mapping"])) for r in results)
    document = {"parameters": parameters, "results": results}
    paths[1].write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    placement_figure(results, paths[2], title=title)
    return paths
