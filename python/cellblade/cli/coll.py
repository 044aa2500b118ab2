"""`cellblade coll OP | list | show | draw`: collective algorithms (seed 000)."""

from __future__ import annotations

import argparse
import json
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cellblade
from cellblade import affinity, coll, outputs, schedule
from cellblade.cli import model as cli_model
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    COLL,
    NAMED_PLACEMENT,
    UsageError,
    add_algo_arg,
    add_dtype_arg,
    add_iterations_arg,
    add_json_arg,
    add_machine_args,
    add_out_arg,
    add_parallel_args,
    add_placement_arg,
    add_sizes_arg,
    add_spes_arg,
    column_blocks,
    hidden_alias,
    machine_of,
    name_list,
    only_this_operation,
    out_dir,
    parallel_of,
    rank_arg,
    size_arg,
    table,
    wrapped,
)
from cellblade.machine import MACHINE_FLAGS

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
    "algorithms": "--algo",
    "algorithm": "NAME",
}


PLACEMENT_HELP = (
    f"placement of the ranks: {NAMED_PLACEMENT} such as evenodd, or the physical "
    "SPE (0-15, 8-15 on chip 1) of each rank (default: rank i on SPE i)"
)


def add_commands(commands) -> None:
    """`cellblade coll OP | list | show | draw`: collective algorithms (seed 000)."""
    parent = commands.add_parser("coll", help=HELP["coll"], description=add_commands.__doc__)
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
        spes_help = f"SPEs, 1 to {COLL['max_spes']} (default: {COLL['default_spes']})"
        add_spes_arg(run, COLL["default_spes"], spes_help)
        if op != "barrier":
            # An all-gather's size is each rank's block; its result is SPEs x size.
            what = "each rank's block" if op == "allgather" else "message sizes"
            add_sizes_arg(run, "16:8k", what, default=coll.parse_sizes("16:8k"))
            run.add_argument("--root", type=rank_arg, default=0, help="root rank (default: 0)")
            add_dtype_arg(run, COLL["default_dtype"])
        add_algo_arg(
            run,
            f"algorithms of `cellblade coll list`, with or without '{op}.', comma-separated; "
            "auto: the performance model picks one per size (default: all that take the SPE count)",
            dest="algos",
            metavar="all|auto|NAME,...",
        )
        hidden_alias(run, "--algos", "--algo", dest="algos", type=name_list)
        run.add_argument(
            "--generator",
            type=_generator,
            action="append",
            default=[],
            metavar="FILE.py:FUNCTION",
            help="also run a schedule generator written in Python (see "
            "cellblade.schedule); may be given more than once",
        )
        add_placement_arg(run, PLACEMENT_HELP)
        if op in coll.REDUCING:
            run.add_argument(
                "--reduce-op",
                choices=COLL["reduce_ops"],
                default=COLL["default_reduce_op"],
                help=f"reduction (default: {COLL['default_reduce_op']})",
            )
        add_iterations_arg(run, "timed calls, k=1000 (default: the core's)")
        add_machine_args(run)
        add_json_arg(run, "only the results")
        add_out_arg(run, f"out/coll-{op}-N", f"coll-{op}-N.csv, .json and .png")
        add_parallel_args(run, "the cells (algorithm and size)")
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
        add_spes_arg(
            command,
            COLL["default_spes"],
            f"SPEs, 1 to {COLL['max_spes']} (default: {COLL['default_spes']})",
        )
        command.set_defaults(flags=COLL_FLAGS)
        command.add_argument(
            "--size",
            type=size_arg,
            metavar="SIZE",
            help="message size in bytes, k=1024 (default: the core's)",
        )
        command.add_argument("--root", type=rank_arg, default=0, help="root rank (default: 0)")
        add_placement_arg(command, "placement of the ranks, as for `coll OP`")
    show.set_defaults(handler=_coll_show)
    add_out_arg(
        draw,
        "out/coll-draw-NAME-N.png",
        "the picture (or a directory to put coll-draw-NAME-N.png in)",
        "FILE.png|DIR",
    )
    draw.set_defaults(handler=_coll_draw)


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


def _coll_run(args: argparse.Namespace) -> int:
    if args.algos == ["auto"]:
        return cli_model.coll_auto(args)
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
        **machine_of(args),
    }
    stem = f"coll-{args.op}-{args.spes}"
    names = [f"{stem}.csv", f"{stem}.json", f"{stem}.png", "machine.toml"]
    out, force = out_dir(args, Path("out") / stem, names)
    from cellblade import splits  # loaded by the commands that use it

    results = only_this_operation(args.op, splits.coll_cells)(parameters, parallel_of(args))
    with outputs.staged("--out", out, names, force=force) as staging:
        coll.write(results, parameters, staging)
        (staging / "machine.toml").write_text(
            cellblade.resolved_machine(**machine_of(args)), encoding="utf-8"
        )
    paths = [out / name for name in names]
    if args.json:
        print(json.dumps(results))
        return 0
    unit, header, rows = coll.table(results)
    print(wrapped(f"{coll.title(parameters)}: latency ({unit}) of the slowest rank"))
    print(column_blocks(header, rows, right=set(range(len(header)))))
    print(
        wrapped(
            "(* best of the size; ! wrong result; [k] could not run, for reason k below; "
            "- no such cell)"
        )
    )
    for k, reason in enumerate(coll.failures(results), 1):
        print(wrapped(f"[{k}] {reason}"))
    print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _coll_list(args: argparse.Namespace) -> int:
    rows = [(a["name"], a["spes"], a["source"], a["description"]) for a in cellblade.coll_list()]
    print(table(("algorithm", "SPEs", "source", "description"), rows, right=set(), notes=True))
    return 0


def _schedule(args: argparse.Namespace) -> dict[str, Any]:
    if args.name.endswith(".py"):  # a file without its function: not a registry name either
        raise UsageError(
            f"NAME {args.name}: a schedule generator is named FILE.py:FUNCTION, "
            f"such as {args.name}:ring"
        )
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
    if (path.is_dir() and not path.is_symlink()) or str(path).endswith(os.sep):
        path = path / name
    # The default file under out/ holds the latest picture; a path given is not replaced
    # without --force.
    outputs.check_file("--out", path, suffix=".png", force=args.force or args.out is None)
    schedule = _schedule(args)
    outputs.write_file("--out", path, lambda temporary: schedule_figure(schedule, temporary))
    print(f"wrote {path}")
    return 0
