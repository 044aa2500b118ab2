"""The figures of `cellblade report`, drawn as the papers drew them, as PNG bytes.

Every figure with many curves gives each its own colour, marker and line style (colours repeat
after ten, markers after seven, so a pair repeats only after seventy); curves that coincide
are drawn once and labelled with every name they stand for, so none hides behind another;
values that span decades go on log axes. Published points, where the papers give numbers,
are large crosses in their curve's colour with a black edge, labelled with their value; they
are read from the claims `cellblade reproduce` checks (`cellblade.report.published_*`), the
one place the seeds' numbers are typed.
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullLocator

from cellblade.schedule import short

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
    edge, each labelled with its value; one legend entry for all of them."""
    for k, (x, y, curve) in enumerate(points):
        color = styles.get(curve, {}).get("color", "black")
        axes.plot(
            [x],
            [y],
            "X",
            color=color,
            markeredgecolor="black",
            markersize=11,
            label=name if k == 0 else None,
            zorder=5,
        )
        axes.annotate(
            f"{y:g}", (x, y), fontsize="x-small", xytext=(6, -3), textcoords="offset points"
        )


def _legend_outside(axes, count: int) -> None:
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
    _legend_outside(axes, len(curves) + 1)
    return _png(figure)


def latency_vs_size(rows: list[dict[str, Any]], op: str, spes: int) -> bytes:
    """Latency (us, log) against message size (bytes, log2), one curve per algorithm."""
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    axes = figure.subplots()
    curves: dict[str, list[tuple[float, float]]] = {}
    for r in sorted(rows, key=lambda r: r["size_bytes"]):
        if not r.get("error"):
            curves.setdefault(short(r["algorithm"]), []).append(
                (r["size_bytes"], r["latency_ns"] / 1000)
            )
    _lines(axes, curves)
    sizes = sorted({r["size_bytes"] for r in rows})
    axes.set_xscale("log", base=2)
    axes.set_xticks(sizes, [_bytes(s) for s in sizes], rotation=45)
    axes.xaxis.set_minor_locator(NullLocator())
    axes.set_yscale("log")
    _plain_log(axes)
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel("latency (us)")
    axes.grid(True, which="both", alpha=0.3)
    axes.set_title(f"{op} on {spes} SPEs (seed 000 §5)")
    _legend_outside(axes, len(curves))
    return _png(figure)


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
    grouped by pattern. The whiskers run from the lowest to the highest trial: real runs, so
    never past what the bus can carry, where mean +- sd would be (a placement at the peak in
    most trials has a large sd and a mean just under the peak)."""
    figure = Figure(figsize=(10, 4.5), layout="constrained")
    axes = figure.subplots()
    placements = list(dict.fromkeys(r["placement"] for rs in results.values() for r in rs))
    width = 0.8 / len(placements)
    for j, placement in enumerate(placements):
        xs, ys, low, high = [], [], [], []
        for i, rs in enumerate(results.values()):
            for r in rs:
                if r["placement"] == placement:
                    value, trials = (
                        r["min_bandwidth_gbps"],
                        r["trials"] or [r["min_bandwidth_gbps"]],
                    )
                    xs.append(i - 0.4 + width * (j + 0.5))
                    ys.append(value)
                    low.append(max(0.0, value - min(trials)))
                    high.append(max(0.0, max(trials) - value))
        axes.bar(xs, ys, width, yerr=[low, high], capsize=2, label=placement, color=f"C{j % 10}")
    top = max(max(r["trials"] or [r["min_bandwidth_gbps"]]) for rs in results.values() for r in rs)
    axes.set_xticks(range(len(results)), list(results))
    axes.set_ylim(0, top * 1.15)
    axes.set_ylabel("slowest SPE's bandwidth (GB/s)")
    axes.set_xlabel("communication pattern (whiskers: lowest and highest trial)")
    axes.grid(True, axis="y", alpha=0.3)
    axes.set_title("Thread-to-SPE placements (seed 001 figures 5-8)")
    _legend_outside(axes, len(placements))
    return _png(figure)


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
    _legend_outside(axes, 2)
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
    for p in published:
        if p["unit"] == "GB/s":
            color = styles.get(p["curve"], {}).get("color", "black")
            throughput.axhline(p["value"], color=color, linestyle="--", linewidth=1)
            throughput.annotate(
                f"published max {p['value']:g} GB/s ({p['curve']})",
                (1, p["value"]),
                xycoords=("axes fraction", "data"),
                fontsize="x-small",
                xytext=(-4, 3),
                textcoords="offset points",
                color=color,
                ha="right",
            )
    sizes = sorted({r["bytes"] for rows in curves.values() for r in rows})
    for axes in (latency, throughput):
        axes.set_xscale("symlog", base=2, linthresh=8)
        # Scaled again on the symlog axis: the published maxima's lines had fixed the range on
        # a linear one, 5% of 1 MB left of 0, which squeezed the curves to the right third.
        axes.autoscale(axis="x")
        axes.set_xticks(sizes, [_bytes(s) for s in sizes], rotation=45)
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xlabel("message size (bytes)")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize="x-small", loc="upper left")
    latency.set_yscale("log")
    _plain_log(latency)
    latency.set_ylabel("latency (us)")
    throughput.set_ylabel("throughput (GB/s)")
    figure.suptitle(title)
    return _png(figure)


def _bytes(size: int) -> str:
    for unit, factor in (("M", 1024**2), ("K", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)
