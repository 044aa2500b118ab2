"""The figures of `cellblade report`, drawn as the papers drew them, as PNG bytes.

Every figure with many curves gives each its own colour, marker and line style (colours repeat
after ten, markers after seven, so a pair repeats only after seventy); curves that coincide
are drawn once and labelled with every name they stand for, so none hides behind another;
values that span decades go on log axes. Published points, where the papers give numbers,
are large crosses in their curve's colour with a black edge, labelled with their value, and
one white cross in the legend; they are read from the claims `cellblade reproduce` checks
(`cellblade.report.published_*`), the one place the seeds' numbers are typed.
"""

from __future__ import annotations

import io
import textwrap
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullLocator

from cellblade.schedule import short
from cellblade.units import format_size

MARKERS = "osD^v<>"
DASHES = ("-", "--", ":", "-.")
COINCIDE = 0.001  # curves whose every point is within 0.1% of another's are one curve


def style(i: int) -> dict[str, Any]:
    """Colour, marker and line style of the i-th curve of a figure."""
    return {
        "color": f"C{i % 10}",
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": DASHES[i // 10 % 4],
    }


def merge_coinciding(curves: dict[str, list[tuple[float, float]]]) -> dict[str, list]:
    """`curves` (name -> points) with coinciding ones merged under "a = b" names, in order."""
    merged: dict[str, list[tuple[float, float]]] = {}
    for name, points in curves.items():
        for label, kept in merged.items():
            if [x for x, _ in kept] == [x for x, _ in points] and all(
                abs(a - b) <= COINCIDE * max(abs(a), abs(b), 1e-9)
                for (_, a), (_, b) in zip(kept, points)
            ):
                merged[f"{label} = {name}"] = merged.pop(label)
                break
        else:
            merged[name] = points
    return merged


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def _plain_log(axes, axis: str = "y") -> None:
    """Plain numbers on a log axis (0.5, 1, 2, 5, ...), as the papers print them."""
    target = axes.yaxis if axis == "y" else axes.xaxis
    target.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    target.set_minor_formatter(
        FuncFormatter(lambda value, _: f"{value:g}" if str(value)[0] in "25" else "")
    )


def _lines(axes, curves: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, Any]]:
    """Draws the curves; returns each name's style (a merged curve's names share one)."""
    styles = {}
    for i, (label, points) in enumerate(merge_coinciding(curves).items()):
        axes.plot([x for x, _ in points], [y for _, y in points], label=label, **style(i))
        styles.update({name: style(i) for name in label.split(" = ")})
    return styles


def _published(axes, points: list[tuple[float, float, str]], styles: dict, name: str) -> None:
    """Published points (x, y, curve) as large crosses in their curve's colour with a black
    edge, each labelled with its value (once where two curves' points coincide, so the labels
    do not print over each other); one legend entry for all of them, a white cross, since
    it stands for every curve's (it took the first point's colour, so read as one curve's)."""
    cross = {"marker": "X", "markeredgecolor": "black", "markersize": 11, "linestyle": "none"}
    if points:
        axes.plot([], [], color="white", label=name, **cross)
    labelled = set()
    for x, y, curve in points:
        color = styles.get(curve, {}).get("color", "black")
        axes.plot([x], [y], color=color, zorder=5, **cross)
        if (x, y) not in labelled:
            labelled.add((x, y))
            axes.annotate(
                f"{y:g}", (x, y), fontsize="x-small", xytext=(8, -3), textcoords="offset points"
            )


def legend_outside(axes, count: int) -> None:
    """The legend right of the axes, never over a title or a curve."""
    axes.legend(
        fontsize="x-small",
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        ncols=2 if count > 12 else 1,
        frameon=False,
    )


def barrier_vs_spes(rows: list[dict[str, Any]], published: list[dict[str, Any]] = ()) -> bytes:
    """Barrier latency (ns, log) against the SPE count (log2), one curve per algorithm; the
    `published` points ({"algorithm", "spes", "ns", "source"}) on their algorithm's curve."""
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    axes = figure.subplots()
    curves: dict[str, list[tuple[float, float]]] = {}
    for r in sorted(rows, key=lambda r: r["spes"]):
        if not r.get("error"):
            curves.setdefault(short(r["algorithm"]), []).append((r["spes"], r["latency_ns"]))
    styles = _lines(axes, curves)
    sources = ", ".join(dict.fromkeys(p["source"] for p in published))
    _published(
        axes,
        [(p["spes"], p["ns"], short(p["algorithm"])) for p in published],
        styles,
        f"published ({sources})",
    )
    spes = sorted({r["spes"] for r in rows})
    axes.set_xscale("log", base=2)
    axes.set_xticks(spes, [str(s) for s in spes])
    axes.xaxis.set_minor_locator(NullLocator())
    axes.set_yscale("log")
    _plain_log(axes)
    axes.set_xlabel("SPEs")
    axes.set_ylabel("latency (ns)")
    axes.grid(True, which="both", alpha=0.3)
    axes.set_title("Barrier latency against the SPE count (seed 000 §4)")
    legend_outside(axes, len(curves) + 1)
    return _png(figure)


def latency_vs_size(rows: list[dict[str, Any]], op: str, spes: int) -> bytes:
    """Latency (us, log) against message size (bytes, log2), one curve per algorithm; the
    cells that could not run are named under the figure."""
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    axes = figure.subplots()
    legend_outside(axes, latency_curves(axes, rows))
    axes.set_title(f"{op} on {spes} SPEs (seed 000 §5)")
    note_failures(figure, failed_cells(rows))
    return _png(figure)


def latency_curves(axes, rows: list[dict[str, Any]]) -> int:
    """Collective rows' latency (us, log) against the message size (bytes, log2), one curve
    per algorithm, coinciding ones merged; returns the number of curves. A size where no
    cell ran keeps its tick, so the gap shows (`note_failures` says why)."""
    curves: dict[str, list[tuple[float, float]]] = {}
    for r in sorted(rows, key=lambda r: r["size_bytes"]):
        if not r.get("error"):
            curves.setdefault(short(r["algorithm"]), []).append(
                (r["size_bytes"], r["latency_ns"] / 1000)
            )
    _lines(axes, curves)
    sizes = sorted({r["size_bytes"] for r in rows})
    axes.set_xscale("log", base=2)
    axes.set_xticks(sizes, [size_label(s) for s in sizes], rotation=45)
    axes.xaxis.set_minor_locator(NullLocator())
    axes.set_yscale("log")
    _plain_log(axes)
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel("latency (us)")
    axes.grid(True, which="both", alpha=0.3)
    return len(merge_coinciding(curves))


def failed_cells(rows: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """(cells, reason) of the collective rows that could not run, for `note_failures`: the
    cells of one size that failed for one reason on one line ("every algorithm" when all did),
    so a size past the local store reads once, not once per algorithm."""
    algorithms = list(dict.fromkeys(short(r["algorithm"]) for r in rows))
    grouped: dict[tuple[int, str], list[str]] = {}
    for r in rows:
        if r.get("error"):
            reason = r["error"].removeprefix(f"{r['algorithm']}: ")
            grouped.setdefault((r["size_bytes"], reason), []).append(short(r["algorithm"]))
    return [
        (
            f"{'every algorithm' if names == algorithms else ', '.join(names)} at "
            f"{format_size(size)}",
            reason,
        )
        for (size, reason), names in grouped.items()
    ]


MAX_NOTED = 6  # failed cells named under a figure; the rest are counted


def note_failures(figure: Figure, cells: list[tuple[str, str | None]]) -> None:
    """Names under the figure the cells that could not run and why (they have no point)."""
    failed = [(name, error) for name, error in cells if error]
    if not failed:
        return
    # Shortened to the figure's width (about 16 x-small characters an inch); the JSON and
    # CSV keep the whole reason.
    width = int(figure.get_figwidth() * 16)
    lines = [
        textwrap.shorten(f"not run: {name}: {error}", width, placeholder=" ...")
        for name, error in failed[:MAX_NOTED]
    ]
    if len(failed) > MAX_NOTED:
        lines.append(f"... and {len(failed) - MAX_NOTED} more cells not run (see the JSON)")
    figure.supxlabel("\n".join(lines), fontsize="x-small", color="tab:red", ha="left", x=0.01)


def table1(points: list[dict[str, Any]]) -> bytes:
    """Seed 001 Table 1: each transfer pattern's bandwidth loss, published beside simulated."""
    rows = [p for p in points if p["kind"] == "loss"]
    figure = Figure(figsize=(11, 5.5), layout="constrained")
    axes = figure.subplots()
    x = range(len(rows))
    axes.bar(
        [i - 0.2 for i in x],
        [100 * p["published"] for p in rows],
        0.4,
        label="published (seed 001 Table 1)",
        color="0.3",
    )
    axes.bar(
        [i + 0.2 for i in x],
        [100 * p["simulated"] for p in rows],
        0.4,
        label="simulated",
        color="C0",
    )
    # "Table 1 #5: 2 <- 3, loss" -> "#5: 2 <- 3": the test and the transfer it measures.
    labels = [p["name"].removeprefix("Table 1 ").removesuffix(", loss") for p in rows]
    axes.set_xticks(list(x), labels, rotation=90, fontsize="x-small")
    axes.set_ylabel("bandwidth lost against one transfer alone (points)")
    axes.axhline(0, color="black", linewidth=0.8)
    axes.grid(True, axis="y", alpha=0.3)
    axes.set_title("EIB contention: seed 001 Table 1")
    axes.legend(fontsize="small")
    return _png(figure)


def affinity_bars(results: dict[str, list[dict[str, Any]]]) -> bytes:
    """Seed 001 figures 5-8: the slowest SPE's bandwidth per placement (mean over trials),
    grouped by pattern, with `trial_whiskers`."""
    figure = Figure(figsize=(10, 4.5), layout="constrained")
    axes = figure.subplots()
    placements = list(dict.fromkeys(r["placement"] for rs in results.values() for r in rs))
    width = 0.8 / len(placements)
    for j, placement in enumerate(placements):
        mine = [
            (i, r)
            for i, rs in enumerate(results.values())
            for r in rs
            if r["placement"] == placement
        ]
        axes.bar(
            [i - 0.4 + width * (j + 0.5) for i, _ in mine],
            [r["min_bandwidth_gbps"] for _, r in mine],
            width,
            yerr=trial_whiskers([r for _, r in mine]),
            capsize=2,
            label=placement,
            color=f"C{j % 10}",
        )
    top = max(max(r["trials"] or [r["min_bandwidth_gbps"]]) for rs in results.values() for r in rs)
    axes.set_xticks(range(len(results)), list(results))
    axes.set_ylim(0, top * 1.15)
    axes.set_ylabel("slowest SPE's bandwidth (GB/s)")
    axes.set_xlabel("communication pattern (whiskers: lowest and highest trial)")
    axes.grid(True, axis="y", alpha=0.3)
    axes.set_title("Thread-to-SPE placements (seed 001 figures 5-8)")
    legend_outside(axes, len(placements))
    return _png(figure)


def trial_whiskers(rows: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """The whiskers of placement bars (below, above the mean of each row's slowest-SPE
    bandwidth): from the lowest trial to the highest. Real runs, so never past what the bus
    can carry, where mean +- sd would be (a placement at the peak in most trials has a large
    sd and a mean just under the peak)."""
    below, above = [], []
    for r in rows:
        value, trials = r["min_bandwidth_gbps"], r["trials"] or [r["min_bandwidth_gbps"]]
        below.append(max(0.0, value - min(trials)))
        above.append(max(0.0, max(trials) - value))
    return below, above


def model_error(rows: list[dict[str, Any]]) -> bytes:
    """Seed 003 figure 10: the model's error against the simulated latency, per prediction,
    for the seed's equations and for the schedule price, with the seed's 15% bound."""
    figure = Figure(figsize=(10, 4.5), layout="constrained")
    axes = figure.subplots()
    names = list(dict.fromkeys(r["algorithm"] for r in rows))
    for k, (key, label) in enumerate(
        (("seed_error_pct", "seed 003 equations"), ("schedule_error_pct", "schedule price"))
    ):
        points = [
            (names.index(r["algorithm"]) + (k - 0.5) * 0.3, r[key])
            for r in rows
            if r.get(key) is not None
        ]
        axes.scatter(
            [x for x, _ in points],
            [y for _, y in points],
            label=label,
            marker=MARKERS[k],
            color=f"C{k}",
            s=18,
        )
    for bound in (15, -15):
        axes.axhline(bound, color="black", linewidth=0.8, linestyle=":")
    axes.set_xticks(range(len(names)), [short(n) for n in names], rotation=60, fontsize="x-small")
    axes.set_ylabel("error against the simulated blade (%)")
    axes.grid(True, axis="y", alpha=0.3)
    axes.set_title("The performance model's error (seed 003 figure 10; dotted: its 15% bound)")
    legend_outside(axes, 2)
    return _png(figure)


def pingpong(
    curves: dict[str, list[dict[str, Any]]],
    published: list[dict[str, Any]] = (),
    title: str = "MPI ping-pong (seed 004 figure 5)",
) -> bytes:
    """Seed 004 figure 5: ping-pong latency and throughput over message sizes. The x axis is
    symmetric-log, linear below 8 bytes, so the 0-byte point is drawn. `published`
    ({"curve", "value", "unit", "bytes"}): a latency is a cross at its size; a throughput is the
    curve's published maximum, a dashed line in the curve's colour (the seed gives no size)."""
    figure = Figure(figsize=(11, 4.5), layout="constrained")
    latency, throughput = figure.subplots(1, 2)
    styles = {}
    for i, (label, rows) in enumerate(curves.items()):
        line = sorted(rows, key=lambda r: r["bytes"])
        x = [r["bytes"] for r in line]
        latency.plot(x, [r["latency_us"] for r in line], label=label, **style(i))
        throughput.plot(x, [r["throughput_gbps"] for r in line], label=label, **style(i))
        styles[label] = style(i)
    crosses = [(p["bytes"], p["value"], p["curve"]) for p in published if p["unit"] == "us"]
    _published(latency, crosses, styles, "published (seed 004 §5.1)")
    # The published maxima are dashed lines named in the legend: a label written on the axes
    # at the line's height lies over the curves that reach it.
    for p in published:
        if p["unit"] == "GB/s":
            color = styles.get(p["curve"], {}).get("color", "black")
            throughput.axhline(
                p["value"],
                color=color,
                linestyle="--",
                linewidth=1,
                label=f"published max {p['value']:g} GB/s ({p['curve']})",
            )
    sizes = sorted({r["bytes"] for rows in curves.values() for r in rows})
    for axes in (latency, throughput):
        axes.set_xscale("symlog", base=2, linthresh=8)
        # Scaled again on the symlog axis: the published maxima's lines had fixed the range on
        # a linear one, 5% of 1 MB left of 0, which squeezed the curves to the right third.
        axes.autoscale(axis="x")
        axes.set_xticks(sizes, [size_label(s) for s in sizes], rotation=45)
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xlabel("message size (bytes)")
        axes.grid(True, which="both", alpha=0.3)
    # Latency is low at the left, so its legend has room there; throughput's maxima run the
    # panel's whole width, so its legend goes beside it.
    latency.legend(fontsize="x-small", loc="upper left")
    legend_outside(throughput, 1)
    latency.set_yscale("log")
    _plain_log(latency)
    latency.set_ylabel("latency (us)")
    throughput.set_ylabel("throughput (GB/s)")
    figure.suptitle(title)
    return _png(figure)


def size_label(size: int) -> str:
    """A size on a figure's axis: 65536 -> "64K", 100 -> "100" (the axis says bytes)."""
    for unit, factor in (("M", 1024**2), ("K", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)
