"""`cellblade affinity run | search | list`: thread-to-SPE placements (seed 001)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cellblade
from cellblade import affinity, outputs, units
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    AFFINITY,
    AFFINITY_SPES,
    add_json_arg,
    add_machine_args,
    add_out_arg,
    add_parallel_args,
    add_placement_arg,
    add_spes_arg,
    count_arg,
    hidden_alias,
    machine_of,
    name_list,
    out_dir,
    parallel_of,
    size_arg,
    spe_choice,
    table,
    with_progress,
    wrapped,
)
from cellblade.machine import MACHINE_FLAGS

AFFINITY_FLAGS = {
    **MACHINE_FLAGS,
    "pattern": "--pattern",
    "placements": "--placement",
    "placement_file": "--placement-file",
    "spes": "--spes",
    "size": "--size",
    "trials": "--trials",
    "seed": "--seed",
    "objective": "--objective",
}


def add_commands(commands) -> None:
    """`cellblade affinity run | search | list`: thread-to-SPE placements (seed 001)."""
    parent = commands.add_parser(
        "affinity",
        help=HELP["affinity"],
        description=add_commands.__doc__,
    )
    actions = parent.add_subparsers(dest="action", required=True, metavar="ACTION")
    run = actions.add_parser(
        "run",
        help="a pattern under each placement",
        description="Runs a communication pattern under each placement; "
        "prints a table and writes affinity-PATTERN.csv, .json and .png.",
    )
    search = actions.add_parser(
        "search",
        help="the best and worst placements of a pattern",
        description="Searches the placements of a pattern for the best "
        "and the worst, beside EvenOdd and the default scheduler.",
    )
    for command in (run, search):
        command.add_argument(
            "--pattern",
            required=True,
            metavar="PATTERN",
            help="a pattern of `cellblade affinity list`",
        )
        add_spes_arg(
            command,
            AFFINITY["default_spes"],
            f"8 (one chip) or 16 (both chips) (default: {AFFINITY['default_spes']})",
            type=spe_choice(AFFINITY_SPES),
        )
        command.add_argument(
            "--size",
            type=size_arg,
            metavar="SIZE",
            help="largest message in bytes, k=1024 (default: the pattern's)",
        )
        command.add_argument("--seed", type=int, help="seed for anything random (default: 0)")
        add_machine_args(command)
        command.set_defaults(flags=AFFINITY_FLAGS)
        add_json_arg(command, "only the result")
    add_placement_arg(
        run,
        "named placements and 'default' (the scheduler's), comma-separated (default: all)",
        dest="placements",
        type=name_list,
        default="all",
        metavar="all|NAME,...",
    )
    hidden_alias(run, "--placements", "--placement", dest="placements", type=name_list)
    run.add_argument(
        "--placement-file",
        type=Path,
        metavar="FILE",
        help="also run the placement in FILE: '#' comments, then one line of "
        "physical SPE ids in rank order, or lines 'rank spe'",
    )
    run.add_argument(
        "--trials",
        type=count_arg,
        default=AFFINITY["default_trials"],
        metavar="N",
        help=f"trials per placement, 1 to {AFFINITY['max_trials']} "
        f"(default: {AFFINITY['default_trials']})",
    )
    add_out_arg(run, "out/affinity-PATTERN", "affinity-PATTERN.csv, .json and .png")
    add_parallel_args(run, "the placements")
    run.set_defaults(handler=_affinity_run)
    search.add_argument(
        "--objective",
        choices=AFFINITY["objectives"],
        help="what to optimise (default: latency for patterns of several "
        "phases, else min_bandwidth)",
    )
    search.set_defaults(handler=_affinity_search)
    listing = actions.add_parser("list", help="the patterns and the named placements")
    listing.set_defaults(handler=_affinity_list)


def _affinity_run(args: argparse.Namespace) -> int:
    parameters = {
        "pattern": args.pattern,
        "placements": args.placements,
        "spes": args.spes,
        "size": args.size,
        "trials": args.trials,
        "seed": args.seed,
        "placement_file": args.placement_file,
        **machine_of(args),
    }
    stem = f"affinity-{args.pattern}"
    names = [f"{stem}.csv", f"{stem}.json", f"{stem}.png", "machine.toml"]
    out, force = out_dir(args, Path("out") / stem, names)
    if args.placement_file is not None:
        # A missing or malformed file is named before any placement runs, as the core names it:
        # one trial of the file's placement alone checks it before the others run.
        cellblade.machine.read_text(args.placement_file, "placement_file")
        cellblade.affinity_run(**dict(parameters, placements=[], trials=1))
    from cellblade import splits  # loaded by the commands that use it

    results = splits.placements(parameters, parallel_of(args))
    title = affinity.title(args.pattern, args.size, args.spes, args.trials)
    with outputs.staged("--out", out, names, force=force) as staging:
        affinity.write(results, parameters, staging, title=title)
        (staging / "machine.toml").write_text(
            cellblade.resolved_machine(**machine_of(args)), encoding="utf-8"
        )
    paths = [out / name for name in names]
    if args.json:
        print(json.dumps(results))
        return 0
    best = max(r["min_bandwidth_gbps"] for r in results)
    rows = [
        (
            r["placement"],
            affinity.mapping_text(r["mapping"]),
            f"{r['min_bandwidth_gbps']:.2f}",
            f"{r['mean_bandwidth_gbps']:.2f}",
            f"{r['stddev_gbps']:.2f}",
            units.format_time(r["latency_us"], "us"),
            "best" if r["min_bandwidth_gbps"] == best else "",
        )
        for r in results
    ]
    print(title)
    header = ("placement", "mapping", "min GB/s", "mean GB/s", "stddev", "latency us", "")
    print(table(header, rows, right={2, 3, 4, 5}))
    print("(min: the slowest SPE's bandwidth, mean over trials; stddev: over trials)")
    print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _affinity_search(args: argparse.Namespace) -> int:
    # One call (see cellblade.splits): the core spreads an exhaustive search over the cores.
    result = with_progress(
        args,
        "affinity_search",
        f"searching {args.pattern}",
        pattern=args.pattern,
        spes=args.spes,
        objective=args.objective,
        size=args.size,
        seed=args.seed,
        **machine_of(args),
    )
    if args.json:
        print(json.dumps(result))
        return 0
    unit = result.get("unit", "")
    objective = result.get("objective", args.objective)
    print(
        f"{result['pattern']} on {result['spes']} SPEs, objective {objective}, "
        f"{result['method']} search"
    )
    rows = [
        (
            name,
            affinity.mapping_text(result[name]["placement"]),
            f"{result[name]['value']:.2f} {unit}",
        )
        for name in ("best", "worst", "evenodd")
    ]
    default = result["default"]
    rows.append(
        (
            "default",
            f"{default['samples']} samples",
            f"{default['mean']:.2f} {unit} (stddev {default['stddev']:.2f}, "
            f"min {default['min']:.2f}, max {default['max']:.2f})",
        )
    )
    print(table(("", "placement", "value"), rows, right=set()))
    print(
        wrapped(
            f"evaluated {result['evaluated']} placements in {units.format_time(result['wall_s'], 's')} s; "
            f"symmetries: {', '.join(result['symmetries']) or 'none'}"
        )
    )
    return 0


def _affinity_list(args: argparse.Namespace) -> int:
    catalog = cellblade.affinity_catalog()
    rows = [
        (p["name"], str(p["phases"]), units.format_size(p["default_size_bytes"]), p["description"])
        for p in catalog["patterns"]
    ]
    print(table(("pattern", "phases", "size", "description"), rows, right={1, 2}))
    print()
    rows = [(p["name"], affinity.mapping_text(p["mapping"])) for p in catalog["placements"]]
    rows.append(("default", "the scheduler's choice, new in every trial"))
    print(table(("placement", "physical SPE of rank 0, 1, ..."), rows, right=set()))
    return 0
