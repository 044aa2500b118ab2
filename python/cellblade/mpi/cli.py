"""The `cellblade mpicc` and `cellblade mpirun` subcommands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cellblade import CATALOG, outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    UsageError,
    add_force_arg,
    add_iterations_arg,
    add_json_arg,
    add_machine_args,
    add_out_arg,
    add_placement_arg,
    add_sizes_arg,
    hidden_alias,
    positive_count,
    stage,
)
from cellblade.machine import MACHINE_FLAGS, choice
from cellblade.units import format_size

if TYPE_CHECKING:
    from cellblade.mpi import launcher

MPI = CATALOG["mpi"]
# The flag of each request field (crates/cellblade/src/mpi/request.rs): the core's errors name
# the field, the CLI the flag the user typed.
MPIRUN_FLAGS = {
    **MACHINE_FLAGS,
    "ranks": "-n",
    "mode": "--mode",
    "depth": "--depth",
    "placement": "--placement",
    "placement_file": "--placement-file",
    "trace": "--trace",
    "trace_file": "--trace",
    "coll": "--coll",
    "compute": "--compute",
}
PINGPONG_FLAGS = {
    **MACHINE_FLAGS,
    "sizes": "--sizes",
    "mode": "--mode",
    "depth": "--depth",
    "reps": "--iterations",
    "congested": "--congested",
}
_DEPTH_HELP = (
    f"16 KB chunks in flight in memory mode, {MPI['default_depth']} to {MPI['max_depth']} "
    f"(default {MPI['default_depth']}: the seed's double buffering)"
)
_MODE_HELP = f"where message buffers live (default {MPI['default_mode']}: main memory, the seed's)"


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register mpicc and mpirun on the `cellblade` command's subparsers."""
    cc = commands.add_parser(
        "mpicc",
        help=HELP["mpicc"],
        description="The system C compiler (CC, default cc) with mpi.h and "
        "the rank library, as mpicc does. --show prints the command.",
        add_help=False,
        prefix_chars="+",
    )
    # No options of its own: every argument, dashes included, is the compiler's ("--show" aside).
    cc.add_argument("args", nargs=argparse.REMAINDER, help="compiler arguments, or --show ARGS")
    cc.set_defaults(handler=_mpicc)
    cc.format_help = lambda: MPICC_HELP  # the docs' command reference prints what --help does
    run = commands.add_parser(
        "mpirun",
        help=HELP["mpirun"],
        description="Run PROGRAM as N ranks, each an OS process driving "
        "one simulated SPE (seed 004). MPI_Wtime is simulated time.",
    )
    run.add_argument(
        "-n",
        "-np",
        dest="ranks",
        type=_ranks,
        required=True,
        metavar="N",
        help=f"number of ranks, 1 to {MPI['max_ranks']} (one per SPE)",
    )
    run.add_argument("--mode", choices=MPI["modes"], help=_MODE_HELP)
    run.add_argument("--depth", type=int, metavar="N", help=_DEPTH_HELP)
    run.add_argument(
        "--coll",
        metavar="seed|library|auto|OP=ALGO,...",
        help=f"collectives on the collective library (default {MPI['default_coll']}: the seed's, "
        f"built on send and receive); OP one of {', '.join(MPI['coll_families'])}, ALGO seed, "
        "library, auto or an algorithm of OP (`cellblade coll list`)",
    )
    run.add_argument(
        "--compute",
        metavar="zero|cpu[:FACTOR]",
        help="what each rank's computation between MPI calls costs in simulated SPE time: "
        "zero (deterministic), or its measured CPU time times FACTOR (default 1); "
        f"allowed {MPI['compute_allowed']} (default {MPI['default_compute']})",
    )
    add_machine_args(run)
    # A placement file has its own flag, as in cellstats and `affinity run`; `--placement FILE`
    # still reads a file that exists, as it did before --placement-file.
    where = run.add_mutually_exclusive_group()
    add_placement_arg(
        where,
        "each rank's SPE: a named placement (8 or 16 ranks) or SPE ids in rank "
        "order such as 0,8,1,9 (default: rank i on SPE i)",
        metavar="NAME|IDS",
    )
    where.add_argument(
        "--placement-file",
        type=Path,
        metavar="FILE",
        help="the same, from a placement file: '#' comments, then one line of physical SPE ids "
        "in rank order, or lines 'rank spe'",
    )
    run.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="stream a Chrome/Perfetto trace of the simulated blade to FILE as the job runs",
    )
    run.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="end the job after SECONDS of wall time (exit status 124), naming each rank's "
        "last MPI call and whether it waits in it or computes",
    )
    add_out_arg(run, "none", "result.json (the job's report) and the resolved machine.toml")
    run.add_argument("program", help="the MPI program (built with cellblade mpicc)")
    run.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    run.set_defaults(handler=_mpirun, flags=MPIRUN_FLAGS)
    ping = commands.add_parser(
        "pingpong",
        help=HELP["pingpong"],
        description="Seed 004 section 5.1's ping-pong on the simulated "
        "blade: time per message and throughput over sizes.",
    )
    ping.add_argument("--mode", choices=MPI["modes"], help=_MODE_HELP)
    ping.add_argument("--depth", type=int, metavar="N", help=_DEPTH_HELP)
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
        type=positive_count,
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
    if args.plot is not None:
        print(f"wrote {args.plot}", file=sys.stderr if args.json else sys.stdout)
    print(f"# seed 004 section 5.1 ping-pong, mode {mode}{', congested' if args.congested else ''}")
    # Sizes as every table writes them (format_size); the column named after --iterations.
    print(f"{'size':>10} {'iterations':>10} {'latency (us)':>13} {'throughput (GB/s)':>18}")
    for r in rows:
        print(
            f"{format_size(r['bytes']):>10} {r['reps']:>10} {r['latency_us']:>13.3f} "
            f"{r['throughput_gbps']:>18.3f}"
        )
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


MPIRUN_FILES = ["result.json", "machine.toml"]


def _check_outputs(args: argparse.Namespace) -> None:
    """--trace, --out and PROGRAM are checked before any rank starts: a bad path costs no
    run, and a program that cannot start is the user's to fix (exit 2), not a failed job."""
    import os
    import shutil

    if args.trace is not None:
        outputs.check_file("--trace", args.trace, force=args.force)
    if args.placement_file is not None:
        from cellblade.machine import read_text

        read_text(args.placement_file, "placement_file")  # unreadable: --placement-file named
    if args.out is not None:
        outputs.check_dir("--out", args.out, MPIRUN_FILES, force=args.force)
    if shutil.which(args.program) is None:
        reason = "is not executable" if os.path.exists(args.program) else "does not exist"
        raise UsageError(
            f"PROGRAM {args.program} {reason}"
            + ("" if os.sep in args.program else " (and is not on PATH)")
            + ": build one with `cellblade mpicc prog.c -o prog`"
        )


def _save(args: argparse.Namespace, result: launcher.JobResult) -> None:
    import json

    report = dict(result.report)
    report.pop("trace", None)  # streamed to args.trace as the job ran
    machine = report.pop("machine_toml", None)
    if args.trace is not None and report.get("trace_dropped"):
        print(
            f"cellblade mpirun: warning: the trace {args.trace} is cut: "
            f"{report['trace_dropped']} events past its limit were dropped",
            file=sys.stderr,
        )
    if args.out is not None:
        report.update(
            exit_code=result.exit_code,
            message=result.message,
            ranks=args.ranks,
            mode=args.mode or MPI["default_mode"],
            program=args.program,
            args=args.args,
        )
        names = MPIRUN_FILES if machine is not None else MPIRUN_FILES[:1]
        with outputs.staged("--out", args.out, names, force=args.force) as staging:
            (staging / "result.json").write_text(json.dumps(report, indent=2) + "\n")
            if machine is not None:
                (staging / "machine.toml").write_text(machine)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: allowed a number of seconds above 0"
        )
    return value


def _ranks(text: str) -> int:
    if not text.isdecimal() or not 1 <= int(text) <= MPI["max_ranks"]:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: allowed 1 to {MPI['max_ranks']} ranks (one per SPE)"
        )
    return int(text)


MPICC_HELP = """usage: cellblade mpicc [--show] COMPILER-ARGUMENTS...

Compile an MPI C program for the simulated blade: the system C compiler (CC, default cc) with
the project's mpi.h and rank library, as mpicc does. Every argument but these is the compiler's:

  --show       print the compiler command instead of running it (mpicc -show)
  -h, --help   print this help (for the compiler's own, run the command --show prints)

example: cellblade mpicc -O2 ring.c -o ring && cellblade mpirun -n 4 ./ring
"""


def _mpicc(args: argparse.Namespace) -> int:
    if args.args in (["-h"], ["--help"]):
        print(MPICC_HELP, end="")
        return 0
    from cellblade.mpi import compiler

    rest = [a for a in args.args if a != "--show"]
    if "--show" in args.args:
        print(" ".join(compiler.mpicc_command(rest)))
        return 0
    if not rest:
        print(
            "cellblade mpicc: error: no input files (give the compiler's arguments)",
            file=sys.stderr,
        )
        return 2
    return compiler.mpicc(rest)


def _mpirun(args: argparse.Namespace) -> int:
    _check_outputs(args)
    from cellblade.mpi import launcher

    params = None
    if launcher.wants_auto(args.coll):
        from cellblade import model

        with stage(args, "mpirun: measuring the model's parameters for --coll auto"):
            params = model.params_for(args.machine or args.preset, args.overrides)
    # The job's progress is the program's own output.
    result = _launch(args, params)
    _save(args, result)
    if result.message:
        print(f"cellblade mpirun: {result.message}", file=sys.stderr)
    return result.exit_code


def _launch(args: argparse.Namespace, params: str | None) -> launcher.JobResult:
    from cellblade.mpi import launcher

    return launcher.mpirun(
        args.program,
        args.args,
        n=args.ranks,
        mode=args.mode,
        machine=args.machine or args.preset,
        overrides=args.overrides,
        placement=args.placement_file or args.placement,
        trace=args.trace if args.trace is not None else False,
        depth=args.depth,
        coll=args.coll,
        compute=args.compute,
        timeout=args.timeout,
        params_toml=params,
    )
