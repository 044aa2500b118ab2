"""`cellblade stats` and `cellstats`: CellStats (seed 002 section 3), one run or a --sweep."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cellblade
from cellblade import outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    AFFINITY,
    CATALOG,
    FUNCTIONS,
    MAX_SPES,
    UsageError,
    add_json_arg,
    add_machine_args,
    add_out_arg,
    add_parallel_args,
    add_placement_arg,
    count_arg,
    gbps,
    machine_of,
    out_dir,
    parallel_of,
    positive_count,
    size_arg,
    spe_count,
    table,
    with_progress,
    write_json,
)
from cellblade.machine import MACHINE_FLAGS
from cellblade.units import NS_PER, format_number, format_size, format_time

# The flag of each request field, per command: the core's errors name the field, the CLI the
# flag the user typed.
STATS_FLAGS = {
    **MACHINE_FLAGS,
    "function": "-f",
    "spes": "-n",
    "cell": "-c",
    "xdram": "-m",
    "spe_target": "-s",
    "size": "-b",
    "stride": "-t",
    "list_elements": "-l",
    "iterations": "-i",
    "warmup": "-w",
    "seed": "--seed",
    "placement": "--placement",
    "placement_file": "--placement-file",
}


def add_commands(commands) -> None:
    """Adds `cellblade stats`, the same command as `cellstats`."""
    add_stats_args(commands.add_parser("stats", help=HELP["stats"]))


def add_stats_args(parser: argparse.ArgumentParser) -> None:
    """CellStats (seed 002 section 3): time a synchronisation or communication primitive."""
    parser.add_argument("-f", "--function", required=True, metavar="FUNCTION", help=FUNCTIONS)
    spes = parser.add_mutually_exclusive_group()
    spes.add_argument(
        "-n",
        type=spe_count,
        dest="shared_spes",
        metavar="NSPE",
        help=f"NSPE SPEs (1 to {MAX_SPES}) on one shared buffer "
        f"(default: -n {CATALOG['stats']['defaults']['spes']})",
    )
    spes.add_argument(
        "-N",
        type=spe_count,
        dest="private_spes",
        metavar="NSPE",
        help=f"NSPE SPEs (1 to {MAX_SPES}), each on its own private buffer",
    )
    parser.add_argument(
        "-c",
        "--cell",
        type=int,
        choices=range(CATALOG["chips"]),
        default=0,
        help="cell of the SPEs (default: 0)",
    )
    parser.add_argument(
        "-m",
        "--xdram",
        type=int,
        choices=range(CATALOG["chips"]),
        default=0,
        help="XDRAM module of the buffers (default: 0)",
    )
    parser.add_argument(
        "-s",
        "--spe-target",
        action="store_true",
        help="the peer is an SPE (mailbox, signal) or the buffer is in SPE 0's local store (DMA)",
    )
    parser.add_argument(
        "-b",
        "--size",
        type=size_arg,
        metavar="SIZE",
        help="bytes per operation, k=1024 (default: the core's per function)",
    )
    parser.add_argument(
        "-t",
        "--stride",
        type=size_arg,
        metavar="STRIDE",
        help="bytes between private buffers, k=1024",
    )
    parser.add_argument(
        "-l", "--list-elements", type=count_arg, metavar="ELEMENTS", help="elements per DMA list"
    )
    parser.add_argument(
        "-i",
        "--iterations",
        type=positive_count,
        metavar="ITER",
        default=None,
        help=f"timed iterations, k=1000 (default: {cellblade.DEFAULT_ITERATIONS})",
    )
    parser.add_argument(
        "-w",
        "--warmup",
        type=count_arg,
        metavar="WARMUP",
        default=None,
        help=f"warm-up iterations, k=1000 (default: {cellblade.DEFAULT_WARMUP})",
    )
    parser.add_argument(
        "--syscall",
        action="store_true",
        help="the PPE uses the library call, not a direct MMIO write",
    )
    parser.add_argument("--seed", type=int, help="seed for anything random")
    add_placement_arg(
        parser,
        "run thread rank i on the SPE a named placement gives it "
        f"({', '.join(AFFINITY['placements'])}; seed 001)",
        type=str,
        metavar="NAME",
    )
    parser.add_argument(
        "--placement-file", type=Path, metavar="FILE", help="the same, from a placement file"
    )
    add_machine_args(parser)
    output = parser.add_argument_group("output")
    add_json_arg(output, "one object")
    output.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="write a Chrome/Perfetto trace of the run to FILE (an existing FILE: with --force)",
    )
    add_out_arg(
        output,
        "none; with --sweep, out/stats-FUNCTION",
        "result.json and the resolved machine.toml",
    )
    output.add_argument(
        "--sweep",
        action="store_true",
        help="vary the size and the SPE count (1, 2, 4, 8, 16); -n/-N only pick "
        "shared or private buffers; writes sweep.csv, sweep.json and sweep.png "
        "into --out",
    )
    add_parallel_args(parser, "the --sweep points")
    parser.set_defaults(handler=_stats, flags=STATS_FLAGS)


def _stats_parameters(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "spes": args.shared_spes or args.private_spes,
        "shared": args.private_spes is None,
        "cell": args.cell,
        "xdram": args.xdram,
        "spe_target": args.spe_target,
        "size": args.size,
        "stride": args.stride,
        "list_elements": args.list_elements,
        "iterations": args.iterations,
        "warmup": args.warmup,
        "syscall": args.syscall,
        "seed": args.seed,
        "placement": args.placement,
        "placement_file": args.placement_file,
        **machine_of(args),
    }


STATS_FILES = ["result.json", "machine.toml"]


def _stats(args: argparse.Namespace) -> int:
    if args.sweep:
        return _sweep(args)
    given = [
        flag
        for flag, value in (("--jobs", args.jobs), ("--scheduler", args.scheduler))
        if value is not None
    ]
    if given:
        raise UsageError(f"{given[0]} applies to --sweep only: a single run is one simulation")
    if args.trace is not None:
        outputs.check_file("--trace", args.trace, force=args.force)
    if args.out is not None:
        outputs.check_dir("--out", args.out, STATS_FILES, force=args.force)
    parameters = _stats_parameters(args)
    result = _stats_run(args, parameters)
    summary = {key: value for key, value in result.items() if key not in ("machine_toml", "trace")}
    if result.get("trace_dropped_events"):
        print(
            f"warning: the trace {args.trace} is cut: {result['trace_dropped_events']} events past "
            "its limit were dropped (trace fewer iterations or SPEs)",
            file=sys.stderr,
        )
    if args.out is not None:
        with outputs.staged("--out", args.out, STATS_FILES, force=args.force) as staging:
            write_json(staging / "result.json", dict(summary, parameters=parameters))
            (staging / "machine.toml").write_text(result["machine_toml"], encoding="utf-8")
    if args.json:
        print(json.dumps(summary))
    else:
        _print_stats(summary)
    return 0


def _stats_run(args: argparse.Namespace, parameters: dict[str, Any]) -> dict[str, Any]:
    """One CellStats run. The core streams the trace to an unpredictable temporary file beside
    --trace (through its own `.part`), which replaces --trace only once the run has ended well
    and is removed on failure or Ctrl-C; a trace it cannot write is an output error (exit 2)."""
    try:
        if args.trace is None:
            return _run_stats(args, parameters, None)
        with outputs.temporary_beside("--trace", args.trace, leftovers=(".part",)) as temporary:
            return _run_stats(args, parameters, temporary)
    except cellblade.ConfigError as error:
        if error.field == "trace":
            raise outputs.OutputError("--trace" + str(error)[len("trace") :]) from None
        raise
    except cellblade.ProgramError as error:
        # The size the user gave with -b is one the MFC refuses: say so as bad usage of -b,
        # not as the hardware error of the first DMA that tried it.
        illegal = f"size {args.size} is illegal: "
        if args.size is not None and illegal in str(error):
            allowed = str(error).split(illegal, 1)[1].removeprefix("allowed ")
            raise UsageError(
                f"-b {args.size} is not allowed for {args.function}: a DMA moves {allowed} bytes"
            ) from None
        raise


def _run_stats(args: argparse.Namespace, parameters: dict[str, Any], trace) -> dict[str, Any]:
    return with_progress(
        args, "run_stats", args.function, function=args.function, trace=trace, **parameters
    )


def _sweep(args: argparse.Namespace) -> int:
    from cellblade import sweep  # loaded by the commands that use it

    given = [
        flag
        for flag, value in (("-b", args.size), ("-l", args.list_elements), ("--trace", args.trace))
        if value is not None
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)} cannot be combined with --sweep, which varies "
            "the size and the SPE count itself"
        )
    try:
        sweep.points(args.function)
    except ValueError as error:
        raise UsageError(f"--sweep: {error}") from None
    out, force = out_dir(args, Path("out") / f"stats-{args.function}", list(sweep.FILES))
    parameters = _stats_parameters(args)
    for varied in ("spes", "size", "list_elements"):
        del parameters[varied]
    result = sweep.run(args.function, **parallel_of(args), **parameters)
    with outputs.staged("--out", out, sweep.FILES, force=force) as staging:
        paths = [out / path.name for path in sweep.write(result, staging)]
    if args.json:
        print(json.dumps(result.rows))
    else:
        print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _print_stats(summary: dict[str, Any]) -> None:
    print(
        f"{summary['function']}: {summary['spes']} SPE(s), {format_size(summary['size_bytes'])}, "
        f"{summary['iterations']} iterations"
    )
    rows = [
        (str(spe["spe"]), format_time(spe["latency_ns"], "ns"), gbps(spe["bandwidth_gbps"]))
        for spe in summary["per_spe"]
    ]
    rows.append(
        ("all", format_time(summary["latency_ns"], "ns"), gbps(summary["aggregate_bandwidth_gbps"]))
    )
    print(table(("SPE", "latency (ns)", "bandwidth (GB/s)"), rows, right={0, 1, 2}))
    print("(all: mean latency, aggregate bandwidth)")
    sim = summary["sim"]
    print(
        f"sim: simulated {format_time(sim['simulated_ns'] / NS_PER['us'], 'us')} us, {format_number(sim['events'])} events, "
        f"{format_number(sim['events_per_second'])} events/s, wall {format_time(sim['wall_s'], 's')} s"
    )
