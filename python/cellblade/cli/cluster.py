"""`cellblade cluster barrier|broadcast`: seed 003 section 6.1's clusters of blades."""

from __future__ import annotations

import argparse
import json

from cellblade import cluster
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    add_json_arg,
    add_machine_args,
    add_params_arg,
    add_sizes_arg,
    add_spes_arg,
    params_of,
    table,
)
from cellblade.cluster import CLUSTER, OPS
from cellblade.machine import MACHINE_FLAGS
from cellblade.units import NS_PER, format_size, format_time

# The core's request fields and the flags that set them.
CLUSTER_FLAGS = {
    **MACHINE_FLAGS,
    "op": "OP",
    "blades": "--blades",
    "spes": "--spes",
    "sizes": "--sizes",
    "params_toml": "--params",
    "params_file": "--params",
}


def add_commands(commands) -> None:
    """Adds `cellblade cluster OP` to the `cellblade` command's subparsers."""
    parser = commands.add_parser(
        "cluster",
        help=HELP["cluster"],
        description="The hierarchical barrier or broadcast of seed 003 section 6.1 on up to "
        f"{CLUSTER['max_blades']} blades in one simulation, the model beside it with --predict.",
    )
    parser.add_argument("op", choices=OPS, metavar="|".join(OPS))
    parser.add_argument(
        "--blades",
        type=int,
        default=CLUSTER["default_blades"],
        metavar="B",
        help=f"blades, 1 to {CLUSTER['max_blades']} (default: {CLUSTER['default_blades']})",
    )
    add_spes_arg(
        parser,
        CLUSTER["default_spes_per_blade"],
        f"SPEs on each blade (default: {CLUSTER['default_spes_per_blade']})",
    )
    add_sizes_arg(parser, str(CLUSTER["default_size"]), "broadcast sizes")
    parser.add_argument(
        "--predict",
        action="store_true",
        help="the section 6.1 model beside each run (measures the blade's parameters "
        "once, cached as `model predict` does)",
    )
    add_params_arg(parser)
    add_json_arg(parser, "only the rows")
    add_machine_args(parser)
    parser.set_defaults(handler=_cluster, flags=CLUSTER_FLAGS)


def _cluster(args: argparse.Namespace) -> int:
    machine = args.machine or args.preset
    params = params_of(args) if args.predict or args.params is not None else None
    rows = cluster.run(args.op, args.blades, args.spes, args.sizes, params, machine, args.overrides)
    if args.json:
        print(json.dumps(rows))
        return 0

    def us(value: float | None) -> str:
        return format_time(None if value is None else value / NS_PER["us"], "us")

    lines = [
        (
            str(r["blades"]),
            str(r["spes"]),
            format_size(r["size_bytes"]),
            us(r["latency_ns"]),
            us(r["predicted_ns"]),
            "-" if r["error_pct"] is None else f"{r['error_pct']:+.1f}%",
            "yes" if r["verified"] else "NO",
        )
        for r in rows
    ]
    header = ("blades", "SPEs", "size", "simulated us", "predicted us", "error", "verified")
    print(f"cluster {args.op} ({rows[0]['algorithm']}): one call, slowest SPE")
    print(table(header, lines, {0, 1, 2, 3, 4, 5}))
    print("seed 003 §7.2: barrier and broadcast up to 64 SPEs predicted within 13%")
    return 0 if all(r["verified"] for r in rows) else 1
