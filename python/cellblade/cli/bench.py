"""`cellblade bench`: the simulator's own speed."""

from __future__ import annotations

import argparse
import json

from cellblade.cli import model
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    add_json_arg,
    positive,
    progress,
    table,
    with_progress,
)
from cellblade.units import NS_PER, format_number, format_time


def add_commands(commands) -> None:
    """Adds `cellblade bench`."""
    bench = commands.add_parser("bench", help=HELP["bench"])
    add_json_arg(bench)
    bench.add_argument("--quick", action="store_true", help="short workloads")
    bench.add_argument(
        "--repeat",
        type=positive,
        default=1,
        metavar="N",
        help="time reproduce on one core, every core and Dask N times in turn, "
        "and report medians (default: 1)",
    )
    bench.set_defaults(handler=_bench)


def _bench(args: argparse.Namespace) -> int:
    import cellblade.mpi.bench  # the MPI bench (compiler, launcher) only where it runs
    import cellblade.sdk.bench
    from cellblade import splits

    result = with_progress(args, "bench", "benchmarking", quick=args.quick)
    result["reproduce_parallel"] = splits.reproduce_speedup(args.quick, progress(args), args.repeat)
    result["mpi"] = cellblade.mpi.bench.run(quick=args.quick)
    result["sdk"] = cellblade.sdk.bench.run(quick=args.quick)
    if args.json:
        print(json.dumps(result))
        return 0
    rows = [
        (
            w["name"],
            format_time(w["wall_s"], "s"),
            format_time(w["simulated_ns"] / NS_PER["us"], "us"),
            str(w["packets"]),
        )
        for w in result["workloads"]
    ]
    print(table(("workload", "wall (s)", "simulated (us)", "packets"), rows, right={1, 2, 3}))
    print(
        f"packets per second: {format_number(result['packets_per_second'])} "
        f"({result['build']} build)"
    )
    rows = [
        (
            w["name"],
            format_number(w["events"]),
            format_time(w["simulated_us"], "us"),
            f"{w['events_per_simulated_us']:.0f}",
            f"{w['cpu_us_per_simulated_us']:.1f}",
            f"{w['peak_rss_kib'] / 1024:.0f}",
        )
        for w in result["waiting"]
    ]
    header = (
        "waiting workload",
        "events",
        "simulated (us)",
        "events/us",
        "CPU us/us",
        "peak RSS (MiB)",
    )
    print(table(header, rows, right={1, 2, 3, 4, 5}))
    search = result["affinity_search"]
    print(
        f"exhaustive one-chip placement search, {search['pattern']} pattern: "
        f"{search['evaluated']} placements in {format_time(search['wall_s'], 's')} s (target: under 60 s)"
    )
    for p in result["placement_pruning"]:
        print(
            f"two-chip placement search, {p['pattern']} pattern (16 SPEs, 16 KB), medians of "
            f"{p['runs']} interleaved: hill climb {format_time(p['unpruned_s'], 's')} s "
            f"({p['unpruned_evaluated']} simulated, best {p['unpruned_best_gbps']:.2f} GB/s), "
            f"pruned by the ring/BIF ranking {format_time(p['pruned_s'], 's')} s ({p['pruned_evaluated']} "
            f"simulated, best {p['pruned_best_gbps']:.2f} GB/s): {p['speedup']:.1f}x"
        )
    reproduce = result["reproduce"]
    print(
        f"cellblade reproduce{' --quick' if reproduce['quick'] else ''}: {reproduce['claims']} "
        f"claims ({reproduce['holding']} hold) in {format_time(reproduce['wall_s'], 's')} s "
        "(target for the full form: under 300 s)"
    )
    side = result["reproduce_parallel"]
    medians = "" if side["repeats"] == 1 else f", medians of {side['repeats']}"
    print(
        f"the same, split into {side['groups']} claim groups{medians}: "
        f"{format_time(side['one_core_s'], 's')} s on one "
        f"core, {format_time(side['all_cores_s'], 's')} s on {side['cores']} cores "
        f"({side['all_cores_speedup']:.2f}x; target on 2 cores: 1.7x), "
        + (
            f"{format_time(side['dask_s'], 's')} s on 2 local Dask workers ({side['dask_speedup']:.2f}x)"
            if side["dask_s"] is not None
            else "Dask not installed"
        )
        + ("" if side["identical"] else "; RESULTS DIFFER")
    )
    print(model.bench_line())
    print(cellblade.mpi.bench.describe(result["mpi"]))
    print(cellblade.sdk.bench.describe(result["sdk"]))
    return 0
