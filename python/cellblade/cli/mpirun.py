"""`cellblade mpirun`: an MPI program as N rank processes, each driving a simulated SPE
(seed 004)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cellblade import outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    MPI,
    NAMED_PLACEMENT,
    UsageError,
    add_machine_args,
    add_out_arg,
    add_placement_arg,
    add_transport_args,
    stage,
)
from cellblade.machine import MACHINE_FLAGS

if TYPE_CHECKING:
    from cellblade.mpi import launcher

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


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Registers `cellblade mpirun`."""
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
    add_transport_args(run)
    run.add_argument(
        "--coll",
        metavar="seed|library|auto|OP=ALGO,...",
        help=f"collectives on the collective library (default {MPI['default_coll']}: the seed's, "
        f"built on send and receive); OP one of {', '.join(MPI['coll_families'])}, ALGO seed, "
        "library, auto or an algorithm of OP (`cellblade coll list`)",
    )
    run.add_argument(
        "--compute",
        metavar="zero|model|cpu[:FACTOR]",
        help="what each rank's computation between MPI calls costs in simulated SPE time: "
        "zero (deterministic), model (the SPU cycles of its code, counted by the SPU cost "
        "plugin; deterministic; the program built with `cellblade mpicc --target=ppc32`), or "
        "its measured CPU time times FACTOR (default 1); "
        f"allowed {MPI['compute_allowed']} (default {MPI['default_compute']})",
    )
    add_machine_args(run)
    # A placement file has its own flag, as in cellstats and `affinity run`; `--placement FILE`
    # still reads a file that exists, as it did before --placement-file.
    where = run.add_mutually_exclusive_group()
    add_placement_arg(
        where,
        f"each rank's SPE: {NAMED_PLACEMENT} or SPE ids in rank "
        "order such as 0,8,1,9 (default: rank i on SPE i)",
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
        help="stream a Chrome/Perfetto trace of the simulated blade to FILE as the job runs "
        "(cut, with a warning naming it, at a size limit)",
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
        from cellblade import _core, units

        limit = units.format_size(_core.catalog()["mpi"]["trace_file_bytes"])
        print(
            f"cellblade mpirun: warning: the trace {args.trace} is cut at its limit of {limit} "
            f"of events: the {report['trace_dropped']} events after it were dropped (trace "
            "fewer calls or ranks)",
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

    try:
        return _start(args, params)
    except launcher.LaunchError as error:
        raise UsageError(str(error)) from None


def _start(args: argparse.Namespace, params: str | None) -> launcher.JobResult:
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
