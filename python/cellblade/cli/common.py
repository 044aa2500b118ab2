"""What every command shares, written once: the parser class, argument types with the units'
multipliers, the machine flags, the parallel-run flags, output directories and tables."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import cellblade
from cellblade import outputs, parallel, units
from cellblade.cli.base import Parser, UsageError, add_version_arg  # noqa: F401 (shared names)

# Names, defaults and limits are the core's.
CATALOG = cellblade.CATALOG
MAX_SPES = CATALOG["stats"]["max_spes"]
AFFINITY_SPES = tuple(CATALOG["affinity"]["spe_counts"])
FUNCTIONS = ", ".join(CATALOG["stats"]["functions"])
COLL = CATALOG["coll"]
AFFINITY = CATALOG["affinity"]


def typed(parse):
    """An argparse type from a units parser, so that argparse names the flag and the value."""

    def convert(text: str) -> int:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


size_arg = typed(units.parse_size)
count_arg = typed(units.parse_count)


def positive_count(text: str) -> int:
    """A count of 1 or more, k=1000: refused by argparse, which names the flag as typed."""
    value = count_arg(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed 1 or more")
    return value


def sizes_arg(text: str) -> list[int]:
    """Message sizes in bytes, k=1024: "A:B" doubles from A to B, or a comma list ("0,1k,64k")."""
    from cellblade.coll import parse_sizes

    try:
        return parse_sizes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def hidden_alias(parser, old: str, new: str, **kwargs: Any) -> None:
    """`old`, an earlier spelling of `new`, still accepted for a release but not shown in the
    help; an error about it names the flag the user typed (argparse's by itself, the core's
    through `args.typed`, which `cellblade.cli` reads)."""
    parser.add_argument(old, help=argparse.SUPPRESS, action=_Alias, new=new, **kwargs)


class _Alias(argparse._StoreAction):
    """Stores as `new` does, and records that the user typed the old spelling."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        super().__call__(parser, namespace, values, option_string)
        namespace.typed = {**getattr(namespace, "typed", {}), self.new: option_string}


def spe_count(text: str) -> int:
    if not text.isdecimal() or not 1 <= int(text) <= MAX_SPES:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed 1 to {MAX_SPES} SPEs")
    return int(text)


def spe_choice(counts: tuple[int, ...]):
    """`-n/--spes` of a command that runs only some counts (affinity: one chip or both), refused
    in the words `spe_count` uses, not argparse's "invalid int value" or "invalid choice"."""
    allowed = " or ".join(str(count) for count in counts)

    def spe_choice(text: str) -> int:
        if not text.isdecimal() or int(text) not in counts:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed {allowed} SPEs")
        return int(text)

    return spe_choice


def positive(text: str) -> int:
    if not text.isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed 1 or more")
    return int(text)


def rank_arg(text: str) -> int:
    if not text.isdecimal():
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected a rank, 0 or more")
    return int(text)


def name_list(text: str) -> str | list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected all or NAME,NAME,...")
    return "all" if names == ["all"] else names


def placement_arg(text: str) -> str | list[int]:
    """The physical SPE of ranks 0, 1, ... separated by commas or spaces ("0,8,1,9"), as a
    list; anything else (a placement name, or a file where a command takes one) as given."""
    ids = text.replace(",", " ").split()
    return [int(spe) for spe in ids] if ids and all(spe.isdecimal() for spe in ids) else text


MPI = CATALOG["mpi"]
_DEPTH_HELP = (
    f"16 KB chunks in flight in memory mode, {MPI['default_depth']} to {MPI['max_depth']} "
    f"(default {MPI['default_depth']}: the seed's double buffering)"
)
_MODE_HELP = f"where message buffers live (default {MPI['default_mode']}: main memory, the seed's)"


def add_transport_args(parser: argparse.ArgumentParser) -> None:
    """--mode and --depth of the MPI commands: where messages live, how many chunks are in
    flight."""
    parser.add_argument("--mode", choices=MPI["modes"], help=_MODE_HELP)
    parser.add_argument("--depth", type=int, metavar="N", help=_DEPTH_HELP)


def add_machine_args(parser: argparse.ArgumentParser) -> None:
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


def machine_of(args: argparse.Namespace) -> dict[str, Any]:
    return {"machine": args.machine or args.preset, "overrides": args.overrides}


def params_of(args: argparse.Namespace) -> str:
    """The model's parameters for a command with `--params` and the machine flags: the file,
    or this machine's measurement (cached)."""
    from cellblade import model

    if args.params is not None:
        # An error in the file names the file beside the flag.
        args.flags = {**args.flags, "params_toml": f"--params {args.params}"}
    return model.params_for(**machine_of(args), params_file=args.params)


def add_parallel_args(parser: argparse.ArgumentParser, what: str = "the simulations") -> None:
    group = parser.add_argument_group("parallel runs (see cellblade.parallel)")
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=positive,
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


def add_force_arg(parser, what: str = "the output files") -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace {what} of an earlier run (default: refuse)",
    )


def add_out_arg(parser, default: str, what: str = "the output files", metavar: str = "DIR"):
    """`--out` and `--force`: where a command writes its files, and whether it may replace an
    earlier run's (see `out_dir` and `cellblade.outputs`)."""
    parser.add_argument(
        "--out", type=Path, metavar=metavar, help=f"where to write {what} (default: {default})"
    )
    add_force_arg(parser)


def add_json_arg(parser, what: str = "the result") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def add_spes_arg(parser, default: int, help: str, type=spe_count, **kwargs: Any) -> None:
    """`-n/--spes`: how many SPEs (ranks) a run uses."""
    parser.add_argument(
        "-n", "--spes", type=type, default=default, metavar="N", help=help, **kwargs
    )


def add_sizes_arg(parser, default_text: str, what: str = "message sizes", **kwargs: Any) -> None:
    """`--sizes`: a doubling range A:B or a comma list, k=1024 (see `sizes_arg`)."""
    parser.add_argument(
        "--sizes",
        type=sizes_arg,
        metavar="A:B|LIST",
        help=f"{what} in bytes, k=1024: A:B doubles from A to B, or a comma list "
        f"(default: {default_text})",
        **kwargs,
    )


def add_iterations_arg(parser, help: str, **kwargs: Any) -> None:
    """`--iterations`: timed repetitions, k=1000, 1 or more, in every command (`cellstats -i`
    is the same flag)."""
    parser.add_argument("--iterations", type=positive_count, metavar="N", help=help, **kwargs)


# How the core resolves a name for any rank count (coll/request.rs `placement_of`, the same for
# cellstats and mpirun): seed 001 maps 8 ranks on a chip.
NAMED_PLACEMENT = (
    "a named placement (seed 001's mapping of 8 ranks, on each chip from 9 ranks; "
    "fewer ranks take its first ones)"
)


def add_placement_arg(parser, help: str, **kwargs: Any) -> None:
    """`--placement`: a placement name or the physical SPE of each rank."""
    kwargs.setdefault("type", placement_arg)
    kwargs.setdefault("metavar", "NAME|ID,...")
    parser.add_argument("--placement", help=help, **kwargs)


def add_algo_arg(parser, help: str, **kwargs: Any) -> None:
    """`--algo`: registry names, comma-separated, or all."""
    kwargs.setdefault("metavar", "all|NAME,...")
    parser.add_argument("--algo", type=name_list, default="all", help=help, **kwargs)


def add_dtype_arg(parser, default: str | None) -> None:
    parser.add_argument(
        "--dtype",
        choices=COLL["dtypes"],
        default=default,
        help=f"element type (default: {COLL['default_dtype']})",
    )


def add_params_arg(parser) -> None:
    """`--params`: a parameter file of the performance model."""
    from cellblade import model

    parser.add_argument(
        "--params",
        type=Path,
        metavar="FILE.toml",
        help="a parameter file (`model measure --out`; default: measure this machine once, "
        f"cached under {model.cache_dir()}, or ${model.CACHE_ENV})",
    )


def parallel_of(args: argparse.Namespace) -> dict[str, Any]:
    """How to run a sweep: jobs, scheduler and whether to show progress."""
    scheduler = args.scheduler or (None if args.jobs else parallel.scheduler_address(None))
    return {"jobs": args.jobs, "scheduler": scheduler, "progress": progress(args)}


def progress(args: argparse.Namespace) -> bool | str:
    """A bar for a person watching a terminal (not with --json); otherwise a line on stderr per
    finished stage of a run longer than two seconds (see `parallel.StageLines`)."""
    return True if sys.stderr.isatty() and not getattr(args, "json", False) else "lines"


def with_progress(args: argparse.Namespace, call: str, desc: str, **kwargs: Any) -> Any:
    """One long core call, with a progress bar whose clock runs while it works."""
    (result,) = parallel.run(
        [parallel.Call(call, kwargs)], jobs=1, desc=desc, progress=progress(args)
    )
    if isinstance(result, parallel.Failed):
        raise result.error()
    return result


def out_dir(args: argparse.Namespace, default: Path, names: list[str]) -> tuple[Path, bool]:
    """The output directory and whether it may replace files, checked before any run. An
    explicit --out refuses to replace an earlier result without --force; the default directory
    under out/ holds the latest run."""
    out = args.out if args.out is not None else default
    force = args.force or args.out is None
    outputs.check_dir("--out", out, names, force=force)
    return out, force


def table(
    header: tuple[str, ...],
    rows: list[tuple[str, ...]],
    right: set[int],
    width: int | None = None,
    notes: bool = False,
) -> str:
    """Columns two spaces apart; columns in `right` are right-aligned. When the table is wider
    than the terminal (`width`; $COLUMNS or 100 when not a terminal), a last column of `notes`
    goes under its row, and the widest columns are narrowed, down to MIN_COLUMN or their longest
    word, with their cells wrapped onto more lines."""
    width = width or terminal_width()
    every = [header, *rows]
    below = notes and _width(every) > width
    lines = []
    for block, row in zip(_blocks([r[:-1] if below else r for r in every], right, width), every):
        lines += block
        if below and row is not header and row[-1]:
            lines += textwrap.wrap(row[-1], width, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(lines)


def column_blocks(
    header: tuple[str, ...],
    rows: list[tuple[str, ...]],
    right: set[int],
    keep: int = 1,
    width: int | None = None,
) -> str:
    """`table`, split when too wide for the terminal into blocks of whole columns one blank line
    apart, each repeating the first `keep` columns (the rows' keys): a table of numbers under
    long names (a collective's algorithms) stays readable without breaking a name or a value."""
    width = width or terminal_width()
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    fixed = sum(widths[:keep]) + 2 * keep
    groups: list[list[int]] = [[]]
    used = fixed
    for i in range(keep, len(header)):
        if groups[-1] and used + widths[i] > width:
            groups.append([])
            used = fixed
        groups[-1].append(i)
        used += widths[i] + 2
    blocks = []
    for group in groups:
        columns = [*range(keep), *group]
        blocks.append(
            table(
                tuple(header[i] for i in columns),
                [tuple(row[i] for i in columns) for row in rows],
                right={k for k, i in enumerate(columns) if i in right},
                width=width,
            )
        )
    return "\n\n".join(blocks)


def _width(rows: list[tuple[str, ...]]) -> int:
    return sum(max(len(row[i]) for row in rows) + 2 for i in range(len(rows[0]))) - 2


def _blocks(rows: list[tuple[str, ...]], right: set[int], width: int) -> list[list[str]]:
    """The lines of each row, its columns fitted to `width` as `table` says."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    # A column wraps between words, never inside one: a name such as
    # "barrier.two_root_signal" or a number is read whole.
    floors = [
        min(width, max(MIN_COLUMN, *(len(w) for row in rows for w in row[i].split())))
        for i, width in enumerate(widths)
    ]
    gaps = 2 * (len(widths) - 1)
    # One character at a time from the widest column: the wide ones end up equally wide.
    while sum(widths) + gaps > width:
        narrower = [i for i, w in enumerate(widths) if w > floors[i]]
        if not narrower:
            break
        widths[max(narrower, key=widths.__getitem__)] -= 1
    blocks = []
    for row in rows:
        cells = [textwrap.wrap(c, w) or [""] if len(c) > w else [c] for c, w in zip(row, widths)]
        block = []
        for k in range(max(map(len, cells))):
            pieces = [cell[k] if k < len(cell) else "" for cell in cells]
            block.append(
                "  ".join(
                    piece.rjust(w) if i in right else piece.ljust(w)
                    for i, (piece, w) in enumerate(zip(pieces, widths))
                ).rstrip()
            )
        blocks.append(block)
    return blocks


def terminal_width() -> int:
    """The terminal's columns, or $COLUMNS, or 100 when the output is not a terminal."""
    return shutil.get_terminal_size((100, 24)).columns


def wrapped(text: str) -> str:
    """A long line of prose wrapped to the terminal's width."""
    # Names such as "hybrid-seg-binomial-opt" are not broken at their hyphens.
    return textwrap.fill(text, terminal_width(), break_on_hyphens=False)


MIN_COLUMN = 10  # a column narrower than this wraps into too many lines to read


def check_mark() -> str:
    try:
        "✓".encode(sys.stdout.encoding or "ascii")
        return "✓"
    except UnicodeEncodeError:
        return "ok"


def gbps(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1, default=str) + "\n", encoding="utf-8")


@contextlib.contextmanager
def stage(args: argparse.Namespace, desc: str):
    """One long step that is not a sweep (`model predict --simulate`, `model measure`): its
    name on a terminal while it runs; in a log, a line each LINES_STILL_S while it runs (the
    core releases the interpreter, so a thread can say so) and one when it ends after two
    seconds."""
    mode = progress(args)
    start = time.monotonic()
    ended = threading.Event()

    def still_running() -> None:
        while not ended.wait(parallel.LINES_STILL_S):
            elapsed = units.format_time(time.monotonic() - start, "s")
            print(f"{desc}: running, {elapsed} s", file=sys.stderr, flush=True)

    if mode is True:
        print(f"{desc} ...", end="\r", file=sys.stderr, flush=True)
    else:
        threading.Thread(target=still_running, daemon=True).start()
    try:
        yield
    finally:
        ended.set()
        elapsed = time.monotonic() - start
        if mode is True:
            print("\r\033[K", end="", file=sys.stderr, flush=True)
        elif elapsed >= parallel.LINES_AFTER_S:
            print(f"{desc}: done, {units.format_time(elapsed, 's')} s", file=sys.stderr, flush=True)


def only_this_operation(op: str, call):
    """`call`, with an unknown-algorithm error listing only `op`'s algorithms: the core lists
    every operation's, which buries the few that could have been meant."""

    def wrapped(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except cellblade.ConfigError as error:
            text = str(error)
            head, sep, names = text.partition("is not allowed: one of ")
            if error.field != "algorithms" or not sep:
                raise
            mine = [n for n in names.rstrip(".").split(", ") if n.startswith(f"{op}.")]
            narrowed = cellblade.ConfigError(f"{head}{sep}{', '.join(mine)}")
            narrowed.field = "algorithms"
            raise narrowed from None

    return wrapped
