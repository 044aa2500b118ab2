"""The `cellblade mpicc` and `cellblade mpirun` subcommands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cellblade.mpi import compiler, launcher


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register mpicc and mpirun on the `cellblade` command's subparsers."""
    cc = commands.add_parser("mpicc", help="compile an MPI C program for the simulated blade",
                             description="The system C compiler (CC, default cc) with mpi.h and "
                             "the rank library, as mpicc does. --show prints the command.",
                             add_help=False, prefix_chars="+")
    # No options of its own: every argument, dashes included, is the compiler's ("--show" aside).
    cc.add_argument("args", nargs=argparse.REMAINDER, help="compiler arguments, or --show ARGS")
    cc.set_defaults(handler=_mpicc)
    run = commands.add_parser("mpirun", help="run an MPI program on the simulated SPEs",
                              description="Run PROGRAM as N ranks, each an OS process driving "
                              "one simulated SPE (seed 004). MPI_Wtime is simulated time.")
    run.add_argument("-n", "-np", dest="ranks", type=_ranks, required=True, metavar="N",
                     help="number of ranks, 1 to 16 (one per SPE)")
    run.add_argument("--mode", choices=("memory", "ls"), default="memory",
                     help="message buffers in main memory (the seed's default) or local store")
    group = run.add_mutually_exclusive_group()
    group.add_argument("--preset", default="qs20", metavar="qs20|qs22", help="preset machine (default: qs20)")
    group.add_argument("--machine", type=Path, metavar="FILE.toml", help="a machine file")
    run.add_argument("--set", action="append", default=[], dest="overrides", metavar="KEY=VALUE",
                     help="override a machine-file value (repeatable)")
    run.add_argument("program", help="the MPI program (built with cellblade mpicc)")
    run.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    run.set_defaults(handler=_mpirun)


def _ranks(text: str) -> int:
    if not text.isdecimal() or not 1 <= int(text) <= 16:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: allowed 1 to 16 ranks (one per SPE)")
    return int(text)


def _mpicc(args: argparse.Namespace) -> int:
    rest = [a for a in args.args if a != "--show"]
    if "--show" in args.args:
        print(" ".join(compiler.mpicc_command(rest)))
        return 0
    if not rest:
        print("cellblade mpicc: error: no input files (give the compiler's arguments)", file=sys.stderr)
        return 2
    return compiler.mpicc(rest)


def _mpirun(args: argparse.Namespace) -> int:
    result = launcher.mpirun(args.program, args.args, n=args.ranks, mode=args.mode,
                             machine=args.machine or args.preset, overrides=args.overrides)
    if result.message:
        print(f"cellblade mpirun: {result.message}", file=sys.stderr)
    return result.exit_code
