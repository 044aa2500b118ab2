"""The `cellblade` and `cellstats` commands.

    cellstats -f dmaget -n 8 -b 16k             CellStats, flags as in seed 002 section 3
    cellblade stats -f mailbox -n 2 -s -c 1     the same, as a subcommand
    cellblade affinity run --pattern ring       placements of thread ranks on SPEs (seed 001)
    cellblade affinity search | list
    cellblade coll allreduce --sizes 16:32k     collective algorithms (seed 000)
    cellblade coll list | show NAME | draw NAME
    cellblade calibrate | reproduce | bench | demo

Bad input prints one line, `<program>: error: ...`, and exits with 2 for bad usage or 1 when
the simulator refuses the run; set CELLBLADE_BACKTRACE=1 to get the Python traceback as well.
Ctrl-C exits with 130 and a closed pipe (`| head`) with 141, quietly, as other Unix tools do;
neither leaves a half-written result (see `cellblade.outputs`). Sweeps run their simulations
on every core, or on a Dask cluster with --scheduler (see `cellblade.parallel`); progress bars
go to stderr on a terminal only, never with --json.
Only what argparse must know is checked here (types, multipliers, exclusive flags, small
ranges); everything else is checked by the core and reported as a ConfigError.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cellblade
import cellblade.cluster
import cellblade.mpi.cli
from cellblade import affinity, cli_model, coll, outputs, parallel, schedule, units
from cellblade.machine import MACHINE_FLAGS

# Names, defaults and limits are the core's.
CATALOG = cellblade.CATALOG
MAX_SPES = CATALOG["stats"]["max_spes"]
AFFINITY_SPES = tuple(CATALOG["affinity"]["spe_counts"])
FUNCTIONS = ", ".join(CATALOG["stats"]["functions"])
COLL = CATALOG["coll"]
AFFINITY = CATALOG["affinity"]

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
AFFINITY_FLAGS = {
    **MACHINE_FLAGS,
    "pattern": "--pattern",
    "placements": "--placements",
    "placement_file": "--placement-file",
    "spes": "--spes",
    "size": "--size",
    "trials": "--trials",
    "seed": "--seed",
    "objective": "--objective",
}
COLL_FLAGS = {
    **MACHINE_FLAGS,
    "spes": "--spes",
    "sizes": "--sizes",
    "size": "--size",
    "root": "--root",
    "dtype": "--dtype",
    "reduce_op": "--reduce-op",
    "iterations": "--iterations",
    "placement": "--placement",
    "algorithms": "--algos",
    "algorithm": "NAME",
}


class UsageError(Exception):
    """A combination of flags that argparse cannot express; exits with 2."""


class _Parser(argparse.ArgumentParser):
    """Reports bad usage in one line, without the usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog.split()[0]}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    """Entry point of `cellblade`."""
    parser = _Parser(prog="cellblade", description="Simulated IBM dual-Cell BE blade.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    stats = commands.add_parser("stats", help="run CellStats (as the cellstats command)")
    _add_stats_args(stats)
    _add_affinity_args(commands)
    _add_coll_args(commands)
    cli_model.add_model_args(
        commands,
        _add_machine_args,
        _spe_count,
        _table,
        MACHINE_FLAGS,
        _add_parallel_args,
        _parallel,
    )
    for name, handler, text in (
        ("calibrate", _calibrate, "simulated against published values"),
        ("reproduce", _reproduce, "the papers' findings re-checked on the simulated blade"),
        ("demo", _demo, "calibrate, then reproduce --quick (what `make demo` shows)"),
    ):
        command = commands.add_parser(name, help=text, description=text)
        _add_machine_args(command)
        if name != "demo":
            command.add_argument("--json", action="store_true", help="print the list as JSON")
        if name == "reproduce":
            command.add_argument("--quick", action="store_true", help="fewer trials")
        if name != "calibrate":
            _add_parallel_args(command)
        command.set_defaults(handler=handler, json=False)
    bench = commands.add_parser("bench", help="the simulator's own speed")
    bench.add_argument("--json", action="store_true", help="print the result as JSON")
    bench.add_argument("--quick", action="store_true", help="short workloads")
    bench.add_argument(
        "--repeat",
        type=_positive,
        default=1,
        metavar="N",
        help="time reproduce on one core, every core and Dask N times in turn, "
        "and report medians (default: 1)",
    )
    bench.set_defaults(handler=_bench)
    cellblade.mpi.cli.add_commands(commands)
    cellblade.cluster.add_commands(commands, _add_machine_args, _table)
    return _run(parser, argv)


def cellstats_main(argv: list[str] | None = None) -> int:
    """Entry point of `cellstats`."""
    parser = _Parser(prog="cellstats", description=_add_stats_args.__doc__)
    _add_stats_args(parser)
    return _run(parser, argv)


INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command ended by Ctrl-C
BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for `yes | head -1`'s yes


def _run(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    program = parser.prog
    args = None
    try:
        args = parser.parse_args(argv)
        return args.handler(args)
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        # The reader has gone: stop quietly, and keep Python's exit flush from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except Exception as error:
        if os.environ.get("CELLBLADE_BACKTRACE") == "1":
            raise
        print(f"{program}: error: {_describe(error, _flags(args))}", file=sys.stderr)
        return 2 if isinstance(error, (UsageError, outputs.OutputError)) else 1


def _interrupted() -> int:
    """Ctrl-C: exit 130 with no traceback. Simulations still running in worker threads cannot
    be stopped from Python and would hold the exit, so then the process ends at once (every
    result file is written whole or not at all, so nothing is left half-written)."""
    if parallel.busy():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:
                pass
        os._exit(INTERRUPTED)
    return INTERRUPTED


def _flags(args: argparse.Namespace | None) -> dict[str, str]:
    """The command's table of request field -> flag; -N for the SPE count of private buffers."""
    flags = getattr(args, "flags", MACHINE_FLAGS)
    if getattr(args, "private_spes", None) is not None:
        flags = {**flags, "spes": "-N"}
    return flags


def _describe(error: Exception, flags: dict[str, str]) -> str:
    if isinstance(error, cellblade.CellbladeError):
        field, message = error.field, str(error)
        if field in flags and message.startswith(field):
            return flags[field] + message[len(field) :]
        return message
    if isinstance(error, (UsageError, outputs.OutputError)):
        return str(error)
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror.lower()}"
    return (
        f"internal error: {type(error).__name__}: {error} (set CELLBLADE_BACKTRACE=1 to see where)"
    )


# ---- arguments -----------------------------------------------------------------------------


def _typed(parse):
    """An argparse type from a units parser, so that argparse names the flag and the value."""

    def convert(text: str) -> int:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


_size = _typed(units.parse_size)
_count = _typed(units.parse_count)


def _spe_count(text: str) -> int:
    if not text.isdecimal() or not 1 <= int(text) <= MAX_SPES:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed 1..{MAX_SPES} SPEs")
    return int(text)


def _add_stats_args(parser: argparse.ArgumentParser) -> None:
    """CellStats (seed 002 section 3): time a synchronisation or communication primitive."""
    parser.add_argument("-f", "--function", required=True, metavar="FUNCTION", help=FUNCTIONS)
    spes = parser.add_mutually_exclusive_group()
    spes.add_argument(
        "-n",
        type=_spe_count,
        dest="shared_spes",
        metavar="NSPE",
        help=f"NSPE SPEs (1..{MAX_SPES}) on one shared buffer "
        f"(default: -n {CATALOG['stats']['defaults']['spes']})",
    )
    spes.add_argument(
        "-N",
        type=_spe_count,
        dest="private_spes",
        metavar="NSPE",
        help=f"NSPE SPEs (1..{MAX_SPES}), each on its own private buffer",
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
        type=_size,
        metavar="SIZE",
        help="bytes per operation, k=1024 (default: the core's per function)",
    )
    parser.add_argument(
        "-t", "--stride", type=_size, metavar="STRIDE", help="bytes between private buffers, k=1024"
    )
    parser.add_argument(
        "-l", "--list-elements", type=_count, metavar="ELEMENTS", help="elements per DMA list"
    )
    parser.add_argument(
        "-i",
        "--iterations",
        type=_count,
        metavar="ITER",
        default=None,
        help=f"timed iterations, k=1000 (default: {cellblade.DEFAULT_ITERATIONS})",
    )
    parser.add_argument(
        "-w",
        "--warmup",
        type=_count,
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
    parser.add_argument(
        "--placement",
        metavar="NAME",
        help="run thread rank i on the SPE a named placement gives it "
        f"({', '.join(AFFINITY['placements'])}; seed 001)",
    )
    parser.add_argument(
        "--placement-file", type=Path, metavar="FILE", help="the same, from a placement file"
    )
    _add_machine_args(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="write a Chrome/Perfetto trace of the run to FILE",
    )
    output.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write result.json and the resolved machine.toml into DIR",
    )
    output.add_argument(
        "--sweep",
        action="store_true",
        help="vary the size and the SPE count (1, 2, 4, 8, 16); -n/-N only pick "
        "shared or private buffers; writes sweep.csv, sweep.json and sweep.png "
        "into --out (default: out/stats-FUNCTION)",
    )
    _add_force_arg(output)
    _add_parallel_args(parser, "the --sweep points")
    parser.set_defaults(handler=_stats, flags=STATS_FLAGS)


def _name_list(text: str) -> str | list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected all or NAME,NAME,...")
    return "all" if names == ["all"] else names


def _add_affinity_args(commands) -> None:
    """`cellblade affinity run | search | list`: thread-to-SPE placements (seed 001)."""
    parent = commands.add_parser(
        "affinity",
        help="thread-to-SPE placements (seed 001)",
        description=_add_affinity_args.__doc__,
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
        command.add_argument(
            "--spes",
            type=int,
            choices=AFFINITY_SPES,
            default=AFFINITY["default_spes"],
            help=f"8 (one chip) or 16 (both chips) (default: {AFFINITY['default_spes']})",
        )
        command.add_argument(
            "--size",
            type=_size,
            metavar="SIZE",
            help="largest message in bytes, k=1024 (default: the pattern's)",
        )
        command.add_argument("--seed", type=int, help="seed for anything random (default: 0)")
        _add_machine_args(command)
        command.set_defaults(flags=AFFINITY_FLAGS)
        command.add_argument("--json", action="store_true", help="print only the result as JSON")
    run.add_argument(
        "--placements",
        type=_name_list,
        default="all",
        metavar="all|NAME,...",
        help="named placements and 'default' (the scheduler's), comma-separated (default: all)",
    )
    run.add_argument(
        "--placement-file",
        type=Path,
        metavar="FILE",
        help="also run the placement in FILE: '#' comments, then one line of "
        "physical SPE ids in rank order, or lines 'rank spe'",
    )
    run.add_argument(
        "--trials",
        type=_count,
        default=AFFINITY["default_trials"],
        metavar="N",
        help=f"trials per placement, 1 to {AFFINITY['max_trials']} "
        f"(default: {AFFINITY['default_trials']})",
    )
    run.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="directory of the files (default: out/affinity-PATTERN)",
    )
    _add_force_arg(run)
    _add_parallel_args(run, "the placements")
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


def _rank(text: str) -> int:
    if not text.isdecimal():
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected a rank, 0 or more")
    return int(text)


def _generator(text: str) -> Callable:
    path = text.rpartition(":")[0]
    try:
        return schedule.load(text)
    except SyntaxError as error:
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: {error.filename}, line {error.lineno}: syntax error: "
            f"{error.msg}"
        ) from None
    except Exception as error:
        line = _line_in(error, path)
        if line is None and isinstance(error, ValueError):  # schedule.load's own words
            raise argparse.ArgumentTypeError(str(error)) from None
        # The user's module failed while it was imported: where, and what it raised.
        where = path if line is None else f"{path}, line {line}"
        raise argparse.ArgumentTypeError(
            f"invalid value {text!r}: {where}: raises {type(error).__name__}: {error}"
        ) from None


def _line_in(error: BaseException, path: str) -> int | None:
    """The line of the deepest frame of `error`'s traceback in the file `path`, if any."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if os.path.abspath(frame.filename) == os.path.abspath(path)
    ]
    return frames[-1].lineno if frames else None


def _coll_placement(text: str) -> str | list[int]:
    """A placement name, or the physical SPE ids of ranks 0, 1, ... separated by commas."""
    ids = text.split(",")
    return [int(spe) for spe in ids] if all(spe.strip().isdecimal() for spe in ids) else text


def _add_coll_args(commands) -> None:
    """`cellblade coll OP | list | show | draw`: collective algorithms (seed 000)."""
    parent = commands.add_parser(
        "coll", help="collective algorithms (seed 000)", description=_add_coll_args.__doc__
    )
    actions = parent.add_subparsers(dest="action", required=True, metavar="OP|list|show|draw")
    for op in coll.OPS:
        run = actions.add_parser(
            op,
            help=f"time the {op} algorithms",
            description=f"Times {op} algorithms on the simulated blade; "
            f"prints a table and writes coll-{op}-N.csv, .json and .png.",
        )
        # For the flags this operation does not take; a flag's own default wins over these.
        run.set_defaults(
            handler=_coll_run,
            op=op,
            sizes=None,
            root=None,
            dtype=None,
            reduce_op=None,
            flags=COLL_FLAGS,
        )
        run.add_argument(
            "-n",
            "--spes",
            type=_spe_count,
            default=COLL["default_spes"],
            help=f"SPEs, 1..{COLL['max_spes']} (default: {COLL['default_spes']})",
        )
        if op != "barrier":
            run.add_argument(
                "--sizes",
                type=coll.sizes_argument,
                default=coll.parse_sizes("16:8k"),
                metavar="A:B|A,B,...",
                help="message sizes in bytes, k=1024: A:B "
                "doubles from A to B, or a comma list (default: 16:8k)",
            )
            run.add_argument("--root", type=_rank, default=0, help="root rank (default: 0)")
            run.add_argument(
                "--dtype",
                choices=COLL["dtypes"],
                default=COLL["default_dtype"],
                help=f"element type (default: {COLL['default_dtype']})",
            )
        run.add_argument(
            "--algos",
            type=_name_list,
            default="all",
            metavar="all|NAME,...",
            help=f"algorithms of `cellblade coll list`, with or without '{op}.' "
            "(default: all that take the SPE count)",
        )
        run.add_argument(
            "--generator",
            type=_generator,
            action="append",
            default=[],
            metavar="FILE.py:FUNCTION",
            help="also run a schedule generator written in Python (see "
            "cellblade.schedule); may be given more than once",
        )
        run.add_argument(
            "--placement",
            type=_coll_placement,
            metavar="NAME|ID,...",
            help="placement of the ranks: a name (evenodd, ...) or the physical "
            "SPE (0-15, 8-15 on chip 1) of each rank (default: rank i on SPE i)",
        )
        if op in coll.REDUCING:
            run.add_argument(
                "--reduce-op",
                choices=COLL["reduce_ops"],
                default=COLL["default_reduce_op"],
                help=f"reduction (default: {COLL['default_reduce_op']})",
            )
        run.add_argument(
            "--iterations",
            type=_count,
            metavar="N",
            help="timed calls, k=1000 (default: the core's)",
        )
        _add_machine_args(run)
        run.add_argument("--json", action="store_true", help="print only the results as JSON")
        run.add_argument(
            "--out",
            type=Path,
            metavar="DIR",
            help=f"directory of the files (default: out/coll-{op}-N)",
        )
        _add_force_arg(run)
        _add_parallel_args(run, "the cells (algorithm and size)")
    listing = actions.add_parser("list", help="the algorithms")
    listing.set_defaults(handler=_coll_list)
    show = actions.add_parser("show", help="an algorithm's schedule as text")
    draw = actions.add_parser(
        "draw",
        help="an algorithm's schedule as a picture",
        description="Draws a schedule's rounds and transfers as a PNG; "
        "transfers between the chips are dashed red.",
    )
    for command in (show, draw):
        command.add_argument(
            "name",
            metavar="NAME|FILE.py:FUNCTION",
            help="an algorithm of `cellblade coll list`, or a schedule generator written in Python",
        )
        command.add_argument(
            "-n",
            "--spes",
            type=_spe_count,
            default=COLL["default_spes"],
            help=f"SPEs, 1..{COLL['max_spes']} (default: {COLL['default_spes']})",
        )
        command.set_defaults(flags=COLL_FLAGS)
        command.add_argument(
            "--size",
            type=_size,
            metavar="SIZE",
            help="message size in bytes, k=1024 (default: the core's)",
        )
        command.add_argument("--root", type=_rank, default=0, help="root rank (default: 0)")
        command.add_argument(
            "--placement",
            type=_coll_placement,
            metavar="NAME|ID,...",
            help="placement of the ranks, as for `coll OP`",
        )
    show.set_defaults(handler=_coll_show)
    draw.add_argument(
        "--out",
        type=Path,
        metavar="FILE.png|DIR",
        help="the picture, or a directory to put coll-draw-NAME-N.png in "
        "(default: out/coll-draw-NAME-N.png)",
    )
    draw.set_defaults(handler=_coll_draw)


def _positive(text: str) -> int:
    if not text.isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed 1 or more")
    return int(text)


def _add_parallel_args(parser: argparse.ArgumentParser, what: str = "the simulations") -> None:
    group = parser.add_argument_group("parallel runs (see cellblade.parallel)")
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help=f"run {what} N at a time on this machine (default: every core, "
        f"here {parallel.default_jobs()})",
    )
    where.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help=f"run {what} on a Dask cluster (default: ${parallel.SCHEDULER_VARIABLE}"
        " when set and --jobs is not given)",
    )


def _add_force_arg(parser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the files of an earlier run in --out (default: refuse)",
    )


def _parallel(args: argparse.Namespace) -> dict[str, Any]:
    """How to run a sweep: jobs, scheduler and whether to show progress."""
    scheduler = args.scheduler or (None if args.jobs else parallel.scheduler_address(None))
    return {"jobs": args.jobs, "scheduler": scheduler, "progress": _progress(args)}


def _progress(args: argparse.Namespace) -> bool:
    """Progress bars only for a person watching: stderr is a terminal and no --json."""
    return sys.stderr.isatty() and not getattr(args, "json", False)


def _with_progress(args: argparse.Namespace, call: str, desc: str, **kwargs: Any) -> Any:
    """One long core call, with a progress bar whose clock runs while it works."""
    (result,) = parallel.run(
        [parallel.Call(call, kwargs)], jobs=1, desc=desc, progress=_progress(args)
    )
    if isinstance(result, parallel.Failed):
        raise result.error()
    return result


def _out_dir(args: argparse.Namespace, default: Path, names: list[str]) -> tuple[Path, bool]:
    """The output directory and whether it may replace files, checked before any run. An
    explicit --out refuses to replace an earlier result without --force; the default directory
    under out/ holds the latest run."""
    out = args.out if args.out is not None else default
    force = args.force or args.out is None
    outputs.check_dir("--out", out, names, force=force)
    return out, force


def _add_machine_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("machine")
    choice = group.add_mutually_exclusive_group()
    choice.add_argument(
        "--preset",
        default=CATALOG["default_preset"],
        metavar="|".join(CATALOG["presets"]),
        help=f"preset machine (default: {CATALOG['default_preset']})",
    )
    choice.add_argument("--machine", type=Path, metavar="FILE.toml", help="a machine file")
    group.add_argument(
        "--set",
        action="append",
        default=[],
        dest="overrides",
        metavar="KEY=VALUE",
        help="override a machine-file value (repeatable)",
    )


def _machine(args: argparse.Namespace) -> dict[str, Any]:
    return {"machine": args.machine or args.preset, "overrides": args.overrides}


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
        **_machine(args),
    }


# ---- commands ------------------------------------------------------------------------------


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
        outputs.check_file("--trace", args.trace)
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
            _write_json(staging / "result.json", dict(summary, parameters=parameters))
            (staging / "machine.toml").write_text(result["machine_toml"], encoding="utf-8")
    if args.json:
        print(json.dumps(summary))
    else:
        _print_stats(summary)
    return 0


def _stats_run(args: argparse.Namespace, parameters: dict[str, Any]) -> dict[str, Any]:
    """One CellStats run. The core streams the trace to a file beside --trace that replaces it
    only once the run has ended well; a trace it cannot write is an output error (exit 2)."""
    try:
        return _with_progress(
            args, "run_stats", args.function, function=args.function, trace=args.trace, **parameters
        )
    except cellblade.ConfigError as error:
        if error.field == "trace":
            raise outputs.OutputError("--trace" + str(error)[len("trace") :]) from None
        raise


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
    out, force = _out_dir(args, Path("out") / f"stats-{args.function}", list(sweep.FILES))
    parameters = _stats_parameters(args)
    for varied in ("spes", "size", "list_elements"):
        del parameters[varied]
    result = sweep.run(args.function, **_parallel(args), **parameters)
    with outputs.staged("--out", out, sweep.FILES, force=force) as staging:
        paths = [out / path.name for path in sweep.write(result, staging)]
    if args.json:
        print(json.dumps(result.rows))
    else:
        print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    points = _with_progress(args, "calibrate", "calibrating", **_machine(args))
    if args.json:
        print(json.dumps(points))
        return 0
    check = _check_mark()
    rows = [
        (
            p["name"],
            ("< " if p["kind"] == "upper_bound" else "") + f"{p['published']:.5g} {p['unit']}",
            p["source"],
            f"{p['simulated']:.5g} {p['unit']}",
            f"{100 * p['error']:+.1f}" + (" pt" if p["kind"] == "loss" else "%"),
            ("fitted" if p["fitted"] else "prediction")
            + (f" (same as: {p['same_as']})" if p["same_as"] else ""),
            check if p["holds"] else "no",
            p["note"],
        )
        for p in points
    ]
    header = ("name", "published", "source", "simulated", "error", "kind", "", "note")
    print(_table(header, rows, right={1, 3, 4}))
    # A row measuring the same simulated quantity as another is counted once, under that row.
    distinct = [p for p in points if not p["same_as"]]
    fitted = [p for p in distinct if p["fitted"]]
    predicted = [p for p in distinct if not p["fitted"]]
    print(
        f"{len(distinct)} distinct rows ({len(points)} shown), {sum(map(_holds, distinct))} hold "
        "(values within 10%, under a published bound, or losses within 2.5 points): "
        f"fitted {sum(map(_holds, fitted))}/{len(fitted)}, "
        f"predictions {sum(map(_holds, predicted))}/{len(predicted)}; "
        "README 'Calibration' explains each row that does not hold"
    )
    return 0


def _affinity_run(args: argparse.Namespace) -> int:
    from cellblade import splits  # loaded by the commands that use it

    parameters = {
        "pattern": args.pattern,
        "placements": args.placements,
        "spes": args.spes,
        "size": args.size,
        "trials": args.trials,
        "seed": args.seed,
        "placement_file": args.placement_file,
        **_machine(args),
    }
    stem = f"affinity-{args.pattern}"
    names = [f"{stem}.csv", f"{stem}.json", f"{stem}.png", "machine.toml"]
    out, force = _out_dir(args, Path("out") / stem, names)
    if args.placement_file is not None:
        # A missing file is named before any placement runs, as the core's reader names it.
        cellblade.machine.read_text(args.placement_file, "placement_file")
    results = splits.placements(parameters, _parallel(args))
    title = affinity.title(args.pattern, args.size, args.spes, args.trials)
    with outputs.staged("--out", out, names, force=force) as staging:
        affinity.write(results, parameters, staging, title=title)
        (staging / "machine.toml").write_text(
            cellblade.resolved_machine(**_machine(args)), encoding="utf-8"
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
            f"{r['latency_us']:.2f}",
            "best" if r["min_bandwidth_gbps"] == best else "",
        )
        for r in results
    ]
    print(title)
    header = ("placement", "mapping", "min GB/s", "mean GB/s", "stddev", "latency us", "")
    print(_table(header, rows, right={2, 3, 4, 5}))
    print("(min: the slowest SPE's bandwidth, mean over trials; stddev: over trials)")
    print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _affinity_search(args: argparse.Namespace) -> int:
    # One call (see cellblade.splits): the core spreads an exhaustive search over the cores.
    result = _with_progress(
        args,
        "affinity_search",
        f"searching {args.pattern}",
        pattern=args.pattern,
        spes=args.spes,
        objective=args.objective,
        size=args.size,
        seed=args.seed,
        **_machine(args),
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
    print(_table(("", "placement", "value"), rows, right=set()))
    print(
        f"evaluated {result['evaluated']} placements in {result['wall_s']:.2f} s; "
        f"symmetries: {', '.join(result['symmetries']) or 'none'}"
    )
    return 0


def _affinity_list(args: argparse.Namespace) -> int:
    catalog = cellblade.affinity_catalog()
    rows = [
        (p["name"], str(p["phases"]), units.format_size(p["default_size_bytes"]), p["description"])
        for p in catalog["patterns"]
    ]
    print(_table(("pattern", "phases", "size", "description"), rows, right={1, 2}))
    print()
    rows = [(p["name"], affinity.mapping_text(p["mapping"])) for p in catalog["placements"]]
    rows.append(("default", "the scheduler's choice, new in every trial"))
    print(_table(("placement", "physical SPE of rank 0, 1, ..."), rows, right=set()))
    return 0


def _coll_run(args: argparse.Namespace) -> int:
    from cellblade import splits  # loaded by the commands that use it

    if args.algos == ["auto"]:
        return cli_model.coll_auto(args, _table)
    algorithms = (
        args.algos
        if args.algos == "all"
        else [name if "." in name else f"{args.op}.{name}" for name in args.algos]
    )
    if args.generator:
        algorithms = [*([algorithms] if algorithms == "all" else algorithms), *args.generator]
    parameters = {
        "op": args.op,
        "spes": args.spes,
        "sizes": args.sizes,
        "algorithms": algorithms,
        "root": args.root,
        "placement": args.placement,
        "dtype": args.dtype,
        "reduce_op": args.reduce_op,
        "iterations": args.iterations,
        **_machine(args),
    }
    stem = f"coll-{args.op}-{args.spes}"
    names = [f"{stem}.csv", f"{stem}.json", f"{stem}.png", "machine.toml"]
    out, force = _out_dir(args, Path("out") / stem, names)
    results = splits.coll_cells(parameters, _parallel(args))
    with outputs.staged("--out", out, names, force=force) as staging:
        coll.write(results, parameters, staging)
        (staging / "machine.toml").write_text(
            cellblade.resolved_machine(**_machine(args)), encoding="utf-8"
        )
    paths = [out / name for name in names]
    if args.json:
        print(json.dumps(results))
        return 0
    unit, header, rows = coll.table(results)
    print(f"{coll.title(parameters)}: latency ({unit}) of the slowest rank")
    print(_table(header, rows, right=set(range(len(header)))))
    print(
        "(* best of the size; ! wrong result; [k] could not run, for reason k below; "
        "- no such cell)"
    )
    for k, reason in enumerate(coll.failures(results), 1):
        print(f"[{k}] {reason}")
    print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _coll_list(args: argparse.Namespace) -> int:
    rows = [(a["name"], a["spes"], a["source"], a["description"]) for a in cellblade.coll_list()]
    print(_table(("algorithm", "SPEs", "source", "description"), rows, right=set()))
    return 0


def _schedule(args: argparse.Namespace) -> dict[str, Any]:
    algorithm = schedule.load(args.name) if ".py:" in args.name else args.name
    return cellblade.coll_schedule(
        algorithm, spes=args.spes, size=args.size, root=args.root, placement=args.placement
    )


def _coll_show(args: argparse.Namespace) -> int:
    schedule = _schedule(args)
    transfers = [t for r in schedule["rounds"] for t in r]
    crossing = sum(coll.crosses_bif(schedule["placement"], t) for t in transfers)
    print(schedule["text"], end="")
    print(
        f"placement {affinity.mapping_text(schedule['placement'])}: {crossing} of "
        f"{len(transfers)} transfers cross the BIF"
    )
    return 0


def _coll_draw(args: argparse.Namespace) -> int:
    from cellblade.plots import schedule_figure  # matplotlib is slow to import; only load it here

    name = f"coll-draw-{Path(args.name).name.replace(':', '-')}-{args.spes}.png"
    path = args.out or Path("out") / name
    if path.is_dir() or str(path).endswith(os.sep):
        path = path / name
    outputs.check_file("--out", path, suffix=".png")
    schedule = _schedule(args)
    outputs.write_file("--out", path, lambda temporary: schedule_figure(schedule, temporary))
    print(f"wrote {path}")
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from cellblade import splits  # loaded by the commands that use it

    claims = splits.claims(args.quick, _machine(args), _parallel(args))
    if args.json:
        print(json.dumps(claims))
    else:
        _print_claims(claims)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from cellblade import splits  # loaded by the commands that use it

    print("cellblade demo: the simulated blade against the values the papers measured\n")
    _calibrate(args)
    print("\nthe papers' findings, re-checked (cellblade reproduce --quick)\n")
    _print_claims(splits.claims(True, _machine(args), _parallel(args)))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from cellblade import splits  # loaded by the commands that use it

    result = _with_progress(args, "bench", "benchmarking", quick=args.quick)
    result["reproduce_parallel"] = splits.reproduce_speedup(
        args.quick, _progress(args), args.repeat
    )
    import cellblade.mpi.bench  # the MPI bench (compiler, launcher) only where it runs

    result["mpi"] = cellblade.mpi.bench.run(quick=args.quick)
    if args.json:
        print(json.dumps(result))
        return 0
    rows = [
        (w["name"], f"{w['wall_s']:.3f}", f"{w['simulated_ns'] / 1000:.1f}", str(w["packets"]))
        for w in result["workloads"]
    ]
    print(_table(("workload", "wall (s)", "simulated (us)", "packets"), rows, right={1, 2, 3}))
    print(f"packets per second: {result['packets_per_second']:.3g} ({result['build']} build)")
    rows = [
        (
            w["name"],
            str(w["events"]),
            f"{w['simulated_us']:.1f}",
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
    print(_table(header, rows, right={1, 2, 3, 4, 5}))
    search = result["affinity_search"]
    print(
        f"exhaustive one-chip placement search, {search['pattern']} pattern: "
        f"{search['evaluated']} placements in {search['wall_s']:.1f} s (target: under 60 s)"
    )
    for p in result["placement_pruning"]:
        print(
            f"two-chip placement search, {p['pattern']} pattern (16 SPEs, 16 KB), medians of "
            f"{p['runs']} interleaved: hill climb {p['unpruned_s']:.2f} s "
            f"({p['unpruned_evaluated']} simulated, best {p['unpruned_best_gbps']:.2f} GB/s), "
            f"pruned by the ring/BIF ranking {p['pruned_s']:.2f} s ({p['pruned_evaluated']} "
            f"simulated, best {p['pruned_best_gbps']:.2f} GB/s): {p['speedup']:.1f}x"
        )
    reproduce = result["reproduce"]
    print(
        f"cellblade reproduce{' --quick' if reproduce['quick'] else ''}: {reproduce['claims']} "
        f"claims ({reproduce['holding']} hold) in {reproduce['wall_s']:.1f} s "
        "(target for the full form: under 300 s)"
    )
    side = result["reproduce_parallel"]
    medians = "" if side["repeats"] == 1 else f", medians of {side['repeats']}"
    print(
        f"the same, split into {side['groups']} claim groups{medians}: "
        f"{side['one_core_s']:.1f} s on one "
        f"core, {side['all_cores_s']:.1f} s on {side['cores']} cores "
        f"({side['all_cores_speedup']:.2f}x; target on 2 cores: 1.7x), "
        + (
            f"{side['dask_s']:.1f} s on 2 local Dask workers ({side['dask_speedup']:.2f}x)"
            if side["dask_s"] is not None
            else "Dask not installed"
        )
        + ("" if side["identical"] else "; RESULTS DIFFER")
    )
    print(cli_model.bench_line())
    print(cellblade.mpi.bench.describe(result["mpi"]))
    return 0


# ---- output --------------------------------------------------------------------------------


def _print_stats(summary: dict[str, Any]) -> None:
    print(
        f"{summary['function']}: {summary['spes']} SPE(s), {summary['size_bytes']} B, "
        f"{summary['iterations']} iterations"
    )
    rows = [
        (str(spe["spe"]), f"{spe['latency_ns']:.1f}", _gbps(spe["bandwidth_gbps"]))
        for spe in summary["per_spe"]
    ]
    rows.append(("all", f"{summary['latency_ns']:.1f}", _gbps(summary["aggregate_bandwidth_gbps"])))
    print(_table(("SPE", "latency (ns)", "bandwidth (GB/s)"), rows, right={0, 1, 2}))
    print("(all: mean latency, aggregate bandwidth)")
    sim = summary["sim"]
    print(
        f"sim: simulated {sim['simulated_ns'] / 1000:.1f} us, {sim['events']} events, "
        f"{sim['events_per_second']:.3g} events/s, wall {sim['wall_s']:.3f} s"
    )


def _print_claims(claims: list[dict[str, Any]]) -> None:
    check = _check_mark()
    rows = [
        (
            c["claim"],
            c["source"],
            c["published"],
            c["simulated"],
            check if c["holds"] else c["status"].replace("does not hold", "no"),
            c["note"],
        )
        for c in claims
    ]
    print(_table(("claim", "source", "published", "simulated", "holds", "note"), rows, right=set()))
    counted = [c for c in claims if c["status"] in ("holds", "does not hold")]
    print(
        f"{len(counted)} claims counted, {sum(map(_holds, counted))} hold; "
        f"{len(claims) - len(counted)} not counted (not modelled or unverified)"
    )


def _gbps(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _holds(point: dict[str, Any]) -> bool:
    return bool(point["holds"])


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], right: set[int]) -> str:
    """Columns two spaces apart; columns in `right` are right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in [header, *rows]
    ]
    return "\n".join(lines)


def _check_mark() -> str:
    try:
        "✓".encode(sys.stdout.encoding or "ascii")
        return "✓"
    except UnicodeEncodeError:
        return "ok"


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
