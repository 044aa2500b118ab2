"""`cellblade pingpong`: seed 004 section 5.1's MPI ping-pong on the simulated blade."""

from __future__ import annotations

import argparse
from pathlib import Path

from cellblade import outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    MPI,
    add_force_arg,
    add_iterations_arg,
    add_json_arg,
    add_machine_args,
    add_sizes_arg,
    add_transport_args,
    gbps,
    hidden_alias,
    positive_count,
    stage,
)
from cellblade.machine import MACHINE_FLAGS, choice
from cellblade.units import format_size, format_time

PINGPONG_FLAGS = {
    **MACHINE_FLAGS,
    "sizes": "--sizes",
    "mode": "--mode",
    "depth": "--depth",
    "reps": "--iterations",
    "congested": "--congested",
}


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Registers `cellblade pingpong`."""
    ping = commands.add_parser(
        "pingpong",
        help=HELP["pingpong"],
        description="Seed 004 section 5.1's ping-pong on the simulated "
        "blade: time per message and throughput over sizes.",
    )
    add_transport_args(ping)
    ping.add_argument(
        "--congested",
        action="store_true",
        help="all 8 SPEs of chip 0 in exchanging pairs, one pair timed",
    )
    add_sizes_arg(ping, ",".join(str(s) for s in MPI["default_sizes"]))
    add_iterations_arg(
        ping,
        "round trips per size, k=1000 (default: 1000 up to 1 KB, fewer above)",
        dest="reps",
    )
    hidden_alias(ping, "--reps", "--iterations", dest="reps", type=positive_count)
    add_machine_args(ping)
    add_json_arg(ping, "the rows")
    ping.add_argument(
        "--plot",
        type=Path,
        metavar="FILE.png",
        help="also draw latency and throughput over the sizes for memory mode, local-store mode "
        "(the sizes whose buffers fit it) and congested memory mode, as seed 004's figure 5",
    )
    add_force_arg(ping, "the --plot file")
    ping.set_defaults(handler=_pingpong, flags=PINGPONG_FLAGS)


def _given(args: argparse.Namespace, fields: tuple[str, ...]) -> dict:
    """The request fields the user gave; the others take the core's defaults."""
    return {f: getattr(args, f) for f in fields if getattr(args, f) is not None}


def _pingpong(args: argparse.Namespace) -> int:
    import json

    from cellblade import _core

    if args.plot is not None:  # checked before anything runs
        outputs.check_file("--plot", args.plot, suffix=".png", force=args.force)
    request = {**_given(args, ("sizes", "mode", "reps", "depth")), "congested": args.congested}
    machine = choice(args.machine or args.preset, args.overrides)
    rows = _core.mpi_pingpong(request, machine)["result"]
    if args.plot is not None:  # three more ping-pongs and matplotlib: seconds
        with stage(args, "pingpong: seed 004's figure 5, memory, local store and congested"):
            outputs.write_file(
                "--plot", args.plot, lambda temporary: _pingpong_plot(request, machine, temporary)
            )
    if args.json:
        print(json.dumps(rows))
        return 0
    mode = args.mode or MPI["default_mode"]
    print(f"# seed 004 section 5.1 ping-pong, mode {mode}{', congested' if args.congested else ''}")
    # Sizes as every table writes them (format_size); the column named after --iterations.
    print(f"{'size':>10} {'iterations':>10} {'latency (us)':>13} {'throughput (GB/s)':>18}")
    for r in rows:
        print(
            f"{format_size(r['bytes']):>10} {r['reps']:>10} {format_time(r['latency_us'], 'us'):>13} "
            f"{gbps(r['throughput_gbps']):>18}"
        )
    if args.plot is not None:  # after the table, as every command says what it wrote
        print(f"wrote {args.plot}")
    return 0


def _pingpong_plot(request: dict, machine: dict, path: Path) -> None:
    """Seed 004's figure 5: the three ping-pongs of section 5.1 over the request's sizes; the
    local-store curve stops at the first size whose buffers the local store cannot hold."""
    from cellblade import ProgramError, _core, plots

    sizes = request.get("sizes") or MPI["default_sizes"]
    base = {k: v for k, v in request.items() if k not in ("mode", "congested", "sizes")}
    memory = _core.mpi_pingpong({**base, "sizes": sizes, "mode": "memory"}, machine)["result"]
    congested = _core.mpi_pingpong(
        {**base, "sizes": sizes, "mode": "memory", "congested": True}, machine
    )["result"]
    ls = []
    for size in sizes:
        try:
            ls += _core.mpi_pingpong({**base, "sizes": [size], "mode": "ls"}, machine)["result"]
        except ProgramError:
            break
    curves = [
        ("memory (seed default)", memory),
        ("local store", ls),
        ("memory, congested", congested),
    ]
    title = f"seed 004 figure 5 on the simulated blade ({machine.get('preset', 'machine file')})"
    plots.pingpong_figure(curves, path, title=title)
