"""PNG figures shaped like the seeds': seed 002's latency and bandwidth against size, one line
per SPE count, on a log2 x axis labelled in bytes; seed 001's bars of minimum bandwidth, one per
placement (figures 5-8). Uses matplotlib's Agg renderer through a bare `Figure`, so no global
pyplot state or display is involved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from cellblade import report_figures
from cellblade.schedule import SPES_PER_CHIP, crosses_bif, short


def sweep_figure(rows: list[dict[str, Any]], path: Path, *, title: str, xlabel: str) -> None:
    """Latency (left) and aggregate bandwidth (right) of sweep rows, saved as PNG at `path`."""
    figure = Figure(figsize=(11, 4.5), layout="constrained")
    latency, bandwidth = figure.subplots(1, 2)
    sizes = sorted({row["size_bytes"] for row in rows})
    for i, spes in enumerate(sorted({row["spes"] for row in rows})):
        line = sorted(
            (r for r in rows if r["spes"] == spes and not r.get("error")),
            key=lambda r: r["size_bytes"],
        )
        x = [r["size_bytes"] for r in line]
        label = f"{spes} SPE" if spes == 1 else f"{spes} SPEs"
        style = report_figures.style(i)  # the report's rule: distinct past ten colours
        latency.plot(x, [r["latency_ns"] for r in line], label=label, **style)
        bandwidth.plot(x, [r["aggregate_bandwidth_gbps"] for r in line], label=label, **style)
    for axes in (latency, bandwidth):
        axes.set_xscale("log", base=2)
        axes.set_xticks(sizes, [report_figures.size_label(size) for size in sizes], rotation=45)
        axes.xaxis.set_minor_locator(NullLocator())
        axes.set_xlabel(xlabel)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize="small")
    latency.set_yscale("log")
    latency.set_ylabel("latency (ns)")
    bandwidth.set_ylabel("aggregate bandwidth (GB/s)")
    figure.suptitle(title)
    report_figures.note_failures(
        figure, [(f"{r['spes']} SPEs, {r['size_bytes']} B", r.get("error")) for r in rows]
    )
    figure.savefig(path, dpi=120)


def pingpong_figure(
    curves: list[tuple[str, list[dict[str, Any]]]], path: Path, *, title: str
) -> None:
    """Latency (left) and throughput (right) of ping-pong rows over message sizes, one line per
    named curve, shaped like seed 004's figure 5, the 0-byte point included
    (`report_figures.pingpong`); saved as PNG at `path`. The published points are in
    `cellblade report`'s figure, which runs the claims they are read from."""
    path.write_bytes(report_figures.pingpong(dict(curves), title=title))


def placement_figure(results: list[dict[str, Any]], path: Path, *, title: str) -> None:
    """One bar per placement: minimum bandwidth over SPEs, mean over trials, its whisker from
    the lowest trial to the highest (as the report draws them); saved as PNG at `path`."""
    figure = Figure(figsize=(max(4.0, 1.1 * len(results)), 4.5), layout="constrained")
    axes = figure.subplots()
    low, high = report_figures.trial_whiskers(results)
    axes.bar(
        [r["placement"] for r in results],
        [r["min_bandwidth_gbps"] for r in results],
        yerr=[low, high],
        capsize=4,
        color="tab:blue",
    )
    axes.set_xlabel("placement (whiskers: lowest and highest trial)")
    axes.set_ylabel("bandwidth (GB/s)")
    axes.set_ylim(bottom=0)
    axes.grid(True, axis="y", alpha=0.3)
    axes.set_title(title)
    figure.savefig(path, dpi=120)


def coll_figure(results: list[dict[str, Any]], path: Path, *, title: str) -> None:
    """Collective latency as in seed 000's figures 10-15: the slowest rank's latency (us)
    against the message size (bytes) on log-log axes, one line per algorithm; for barriers,
    which have no size, one bar per algorithm (ns). Saved as PNG at `path`."""

    figure = Figure(figsize=(7, 4.5), layout="constrained")
    axes = figure.subplots()
    cells, failures = results, [r for r in results if r.get("error")]
    results = [r for r in results if not r.get("error")]
    algorithms = list(dict.fromkeys(r["algorithm"] for r in results))
    if all(r["op"] == "barrier" for r in results):
        axes.bar(
            [short(a) for a in algorithms], [r["latency_ns"] for r in results], color="tab:blue"
        )
        axes.tick_params(axis="x", labelrotation=30)
        for label in axes.get_xticklabels():
            label.set_horizontalalignment("right")
        axes.set_xlabel("algorithm")
        axes.set_ylabel("latency (ns)")
        # Log: the atomic barrier's microseconds would flatten the others' differences (a
        # log axis cannot show a 0 ns bar, which only a stand-in core gives).
        if all(r["latency_ns"] > 0 for r in results):
            axes.set_yscale("log")
        axes.grid(True, axis="y", which="both", alpha=0.3)
    else:
        report_figures.legend_outside(axes, report_figures.latency_curves(axes, cells))
    axes.set_title(title)
    report_figures.note_failures(figure, report_figures.failed_cells(failures))
    figure.savefig(path, dpi=120)


LINE_STYLES = (("o", "-"), ("s", "--"), ("^", ":"))
ACTION_COLOURS = {"copy": "tab:blue", "reduce": "tab:green", "notify": "tab:gray"}
BIF_COLOUR = "tab:red"
CHIP_COLOURS = ("white", "lightyellow")


def schedule_figure(schedule: dict[str, Any], path: Path) -> None:
    """A schedule as in seed 000's figures 5-9: the ranks as a row of circles (rank, and
    physical SPE below it) before each round and after the last, an arrow per transfer from
    source to destination labelled with its bytes; transfers between the chips are dashed red.
    Saved as PNG at `path`."""
    from matplotlib.lines import Line2D

    placement, rounds, spes = schedule["placement"], schedule["rounds"], schedule["spes"]

    def local(t: dict[str, Any]) -> bool:
        return t["src"] == t["dst"]

    figure = Figure(
        figsize=(max(6.0, 0.75 * spes + 2.5), 1.5 * len(rounds) + 2.2), layout="constrained"
    )
    axes = figure.subplots()
    rows = len(rounds) + 1
    for row in range(rows):
        for rank, spe in enumerate(placement):
            axes.scatter(
                rank,
                -row,
                s=700,
                zorder=3,
                edgecolors="black",
                color=CHIP_COLOURS[spe // SPES_PER_CHIP],
            )
            axes.text(
                rank, -row, f"{rank}\nSPE {spe}", ha="center", va="center", fontsize=6, zorder=4
            )
    crossing = 0
    for k, transfers in enumerate(rounds):
        axes.text(-0.7, -k - 0.5, f"round {k}", ha="right", va="center", fontsize=8)
        for i, t in enumerate(transfers):
            bif = crosses_bif(placement, t)
            crossing += bif
            colour = BIF_COLOUR if bif else ACTION_COLOURS[t["action"]]
            axes.annotate(
                "",
                xy=(t["dst"], -k - 1),
                xytext=(t["src"], -k),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": colour,
                    "shrinkA": 13,
                    "shrinkB": 13,
                    "linestyle": "--" if bif else ":" if local(t) else "-",
                },
            )
            if t["bytes"]:
                # Labels at staggered points along their arrows, so that crossing arrows'
                # labels do not land on each other.
                at = 0.3 + 0.4 * i / max(1, len(transfers) - 1)
                axes.text(
                    t["src"] + at * (t["dst"] - t["src"]),
                    -k - at,
                    str(t["bytes"]),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color=colour,
                    zorder=5,
                    bbox={"boxstyle": "round,pad=0.1", "color": "white", "alpha": 0.8},
                )
    # The legend names each action with the channels its notifications take ("ls" unsaid).
    vias: dict[str, set[str]] = {}
    for t in (t for transfers in rounds for t in transfers if not local(t)):
        vias.setdefault(t["action"], set()).add(t.get("via", "ls"))
    handles = [
        Line2D(
            [],
            [],
            color=colour,
            label=" / ".join(
                action if via == "ls" else f"{action} via {via}" for via in sorted(vias[action])
            ),
        )
        for action, colour in ACTION_COLOURS.items()
        if action in vias
    ]
    if any(local(t) for transfers in rounds for t in transfers):
        handles.append(
            Line2D(
                [],
                [],
                color=ACTION_COLOURS["copy"],
                linestyle=":",
                label="copy within the local store",
            )
        )
    handles.append(
        Line2D([], [], color=BIF_COLOUR, linestyle="--", label=f"crosses the BIF ({crossing})")
    )
    handles += [
        Line2D(
            [],
            [],
            marker="o",
            linestyle="",
            markersize=10,
            markeredgecolor="black",
            color=CHIP_COLOURS[chip],
            label=f"SPE on chip {chip}",
        )
        for chip in sorted({spe // SPES_PER_CHIP for spe in placement})
    ]
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    axes.set_xlim(-1.8, spes - 0.4)
    axes.set_ylim(-rows + 0.4, 0.6)
    axes.set_axis_off()
    transfers = sum(map(len, rounds))
    size = f"{schedule['size']} B, " if schedule["op"] != "barrier" else ""
    figure.suptitle(
        f"{schedule['algorithm']}, {spes} SPEs, {size}root {schedule['root']}\n"
        f"{len(rounds)} rounds, {transfers} transfers, {crossing} across the BIF"
    )
    figure.savefig(path, dpi=120)
