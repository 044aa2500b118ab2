"""The `cellblade` and `cellstats` commands: one module per command beside `common`, which
holds the flags they share (machine, parallel runs, outputs) so that each is written once.

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
import importlib
import os
import re
import sys
from collections.abc import Callable

from cellblade.cli.base import COMMANDS, HELP, Parser, UsageError, add_version_arg

__all__ = ["UsageError", "build_cellstats_parser", "build_parser", "cellstats_main", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of `cellblade`. Only the named command's module is loaded: `cellblade
    --help` loads none (tests/test_startup.py), so it answers at once."""
    argv = sys.argv[1:] if argv is None else argv
    named = next((word for word in argv if not word.startswith("-")), None)
    return _run(lambda: build_parser(only=named if named in COMMANDS else ""), argv)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The `cellblade` command's parser (also read by the docs' command reference). With
    `only`, just that command is built (its module loaded), the others are listed by name and
    help; `only=""` builds none."""
    parser = Parser(prog="cellblade", description="Simulated IBM dual-Cell BE blade.")
    add_version_arg(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = COMMANDS[only][0] if only else only
    for name, (module, _) in COMMANDS.items():
        if name in commands.choices:  # registered by its module with an earlier command
            continue
        if only is None or module == wanted:
            importlib.import_module(f"cellblade.{module}").add_commands(commands)
        else:
            commands.add_parser(name, help=HELP[name], add_help=False)
    # The help lists the commands in the table's order, whichever module registers each.
    commands._choices_actions.sort(key=lambda action: list(COMMANDS).index(action.dest))
    return parser


def cellstats_main(argv: list[str] | None = None) -> int:
    """Entry point of `cellstats`."""
    return _run(build_cellstats_parser, argv)


def build_cellstats_parser() -> argparse.ArgumentParser:
    """The `cellstats` command's parser."""
    from cellblade.cli import stats

    parser = Parser(prog="cellstats", description=stats.add_stats_args.__doc__)
    add_version_arg(parser)
    stats.add_stats_args(parser)
    return parser


USAGE = 2  # what the user typed cannot run: a flag, a value, a file named by a flag
FAILED = 1  # the simulator refused or failed the run (an illegal DMA, a deadlock, ...)
INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command ended by Ctrl-C
BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for `yes | head -1`'s yes


def _run(make_parser: Callable[[], argparse.ArgumentParser], argv: list[str] | None) -> int:
    """Builds the parser inside the handlers too: Ctrl-C while a command's module loads is an
    interrupt like any other (exit 130, no traceback)."""
    program = "cellblade"
    args = None
    try:
        parser = make_parser()
        program = parser.prog
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
        print(f"{program}: error: {_describe(error, _flags(args), args)}", file=sys.stderr)
        return USAGE if isinstance(error, _usage_errors()) else FAILED


def _usage_errors() -> tuple[type[Exception], ...]:
    """A ConfigError is a bad argument, machine key or value: the user's to change, as
    argparse's."""
    import cellblade
    from cellblade import outputs

    return (UsageError, outputs.OutputError, cellblade.ConfigError)


def _interrupted() -> int:
    """Ctrl-C: exit 130 with no traceback. Simulations still running in worker threads cannot
    be stopped from Python and would hold the exit, so then the process ends at once (every
    result file is written whole or not at all, so nothing is left half-written)."""
    from cellblade import parallel

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
    from cellblade.machine import MACHINE_FLAGS

    flags = getattr(args, "flags", MACHINE_FLAGS)
    if getattr(args, "private_spes", None) is not None:
        flags = {**flags, "spes": "-N"}
    typed = getattr(args, "typed", {})  # an old spelling (`hidden_alias`) is named as typed
    return {field: typed.get(flag, flag) for field, flag in flags.items()}


def _describe(
    error: Exception, flags: dict[str, str], args: argparse.Namespace | None = None
) -> str:
    import cellblade
    from cellblade import outputs

    if isinstance(error, cellblade.CellbladeError):
        field, message = error.field, str(error)
        if field in flags and message.startswith(field):
            given = getattr(args, field, None)
            if isinstance(given, list):  # the core writes a list as [0, 0]; the user typed 0,0
                message = message.replace(
                    f"{field} {given}", f"{field} {','.join(map(str, given))}", 1
                )
            return flags[field] + message[len(field) :]
        return _named_flag(message, args) + message
    if isinstance(error, (UsageError, outputs.OutputError)):
        return str(error)
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror.lower()}"
    return (
        f"internal error: {type(error).__name__}: {error} (set CELLBLADE_BACKTRACE=1 to see where)"
    )


# The core's machine errors name the key, not the flag that brought it: the key of an
# override, an unknown one (only --set can name one), or a key or line of the file itself.
_MACHINE_KEY = re.compile(r"(?:unknown )?machine (?:file )?key '([^']+)'|override '([^'=]*)")


def _named_flag(message: str, args: argparse.Namespace | None) -> str:
    """ "--set K=V: ", "--machine FILE: ", "--preset NAME: " or "--placement-file FILE: " for
    an error of the core about a machine or a placement file, which names a key or a line of
    it but not the flag; "" for any other error."""
    if message.startswith("placement") and getattr(args, "placement_file", None) is not None:
        return f"--placement-file {args.placement_file}: "
    if message.startswith("unknown machine preset") and getattr(args, "preset", None):
        return f"--preset {args.preset}: "
    match = _MACHINE_KEY.match(message)
    if match is None and not message.startswith("machine file"):
        return ""
    key = (match and (match[1] or match[2]) or "").strip()
    for override in getattr(args, "overrides", None) or []:
        if override.split("=", 1)[0].strip() == key or message.startswith(f"override '{override}'"):
            return f"--set {override}: "
    if getattr(args, "machine", None) is not None:
        return f"--machine {args.machine}: "
    return ""
