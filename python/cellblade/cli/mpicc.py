"""`cellblade mpicc`: the system C compiler with the project's mpi.h and rank library."""

from __future__ import annotations

import argparse
import sys

from cellblade.cli.base import HELP


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Registers `cellblade mpicc`."""
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
