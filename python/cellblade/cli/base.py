"""What `cellblade --help` needs and nothing more: the parser class, the usage error, the
command table and `--version`. Importing it loads no command module (see `cellblade.cli`)."""

from __future__ import annotations

import argparse

# Every `cellblade` command: its module under cellblade (the one that registers it) and its
# line in `cellblade --help`, in the order the help lists them. A module registers each of its
# commands with `help=HELP[name]`, so this table is the only place the line is written.
COMMANDS = {
    "stats": ("cli.stats", "run CellStats (as the cellstats command)"),
    "affinity": ("cli.affinity", "thread-to-SPE placements (seed 001)"),
    "coll": ("cli.coll", "collective algorithms (seed 000)"),
    "model": ("cli.model", "the performance model of seed 003"),
    "machine": ("cli.machine", "the machine file's parameters, their units and sources"),
    "calibrate": ("cli.claims", "simulated against published values"),
    "reproduce": ("cli.claims", "the papers' findings re-checked on the simulated blade"),
    "demo": ("cli.claims", "calibrate, then reproduce (what `make demo` shows)"),
    "report": ("cli.report", "the papers' results on the simulated blade as one web page"),
    "bench": ("cli.bench", "the simulator's own speed"),
    "mpicc": ("cli.mpicc", "compile an MPI C program for the simulated blade"),
    "mpirun": ("cli.mpirun", "run an MPI program on the simulated SPEs"),
    "spu-gcc": ("cli.sdkcc", "compile an SPE program in C (the Cell SDK's)"),
    "spu-g++": ("cli.sdkcc", "compile an SPE program in C++ (the Cell SDK's)"),
    "ppu-gcc": ("cli.sdkcc", "compile a PPE program in C, 64-bit or -m32 (the SDK's)"),
    "ppu-g++": ("cli.sdkcc", "compile a PPE program in C++, 64-bit or -m32"),
    "ppu32-gcc": ("cli.sdkcc", "compile a 32-bit PPE program in C (the SDK's)"),
    "ppu32-g++": ("cli.sdkcc", "compile a 32-bit PPE program in C++ (the SDK's)"),
    "ppu-embedspu": ("cli.sdkcc", "an SPE executable as a PPE object, 64-bit or -m32"),
    "ppu32-embedspu": ("cli.sdkcc", "an SPE executable as a 32-bit PPE object"),
    "embedspu": ("cli.sdkcc", "the same as ppu-embedspu"),
    "ppu-ar": ("cli.sdkcc", "the archiver for PPE objects"),
    "spu-ar": ("cli.sdkcc", "the archiver for SPE objects"),
    "sdk-top": ("cli.sdkcc", "print the SDK folder to set CELL_TOP to"),
    "run": ("cli.run", "run a Cell SDK program on the simulated blade"),
    "pingpong": ("cli.pingpong", "seed 004's MPI ping-pong (section 5.1)"),
    "cluster": (
        "cli.cluster",
        "barrier and broadcast on a cluster of blades (seed 003 section 6.1)",
    ),
}
HELP = {name: text for name, (_, text) in COMMANDS.items()}


class UsageError(Exception):
    """A combination of flags that argparse cannot express; exits with 2."""


class _Formatter(argparse.HelpFormatter):
    """argparse's, with the help of a command named in a subcommand list beside its name:
    argparse measures the names one indent short, so `calibrate` went on a line of its own."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            longest = max((len(name) for name in action.choices), default=0)
            self._action_max_length = max(
                self._action_max_length, longest + self._current_indent + self._indent_increment
            )


class Parser(argparse.ArgumentParser):
    """Reports bad usage in one line, without the usage block."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog.split()[0]}: error: {message}\n")


def add_version_arg(parser: argparse.ArgumentParser) -> None:
    """`--version`: the package and how its core was built."""
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="print the version and the build of the simulator core, then exit",
    )


class _Version(argparse.Action):
    """Prints the version when given: reading it loads importlib.metadata (about 0.1 s), which
    every other use of the parser, `--help` first, should not pay for."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        import cellblade

        print(f"{parser.prog} {version()} ({cellblade.CATALOG['build']} build)")
        parser.exit()


def version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("cellblade")
    except PackageNotFoundError:  # run from a source tree without installing
        return "unknown"
