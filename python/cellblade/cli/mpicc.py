"""`cellblade mpicc`: the system C compiler with the project's mpi.h and rank library."""

from __future__ import annotations

import argparse

from cellblade.cli.base import HELP, UsageError


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
    cc.format_help = mpicc_help  # the docs' command reference prints what --help does


def mpicc_help() -> str:
    """What `cellblade mpicc --help` prints, wrapped to the terminal as argparse's help is."""
    import shutil
    import textwrap

    width = shutil.get_terminal_size((100, 24)).columns - 2  # argparse's margin
    about = (
        "Compile an MPI C program for the simulated blade: the system C compiler (CC, default "
        "cc) with the project's mpi.h and rank library, as mpicc does. Every argument but these "
        "is the compiler's:"
    )
    options = [
        ("--show", "print the compiler command instead of running it (mpicc -show)"),
        (
            "--target=T",
            "host (the default: CC) or ppc32: a 32-bit big-endian PowerPC program for "
            "`mpirun --compute model`, built by Debian's PowerPC cross compiler",
        ),
        ("-h, --help", "print this help (for the compiler's own, run the command --show prints)"),
    ]
    lines = [
        "usage: cellblade mpicc [--show] COMPILER-ARGUMENTS...",
        "",
        textwrap.fill(about, width),
        "",
    ]
    for flag, text in options:
        lines += textwrap.wrap(
            text, width, initial_indent=f"  {flag:<12}", subsequent_indent=" " * 14
        )
    example = "example: cellblade mpicc -O2 ring.c -o ring && cellblade mpirun -n 4 ./ring"
    lines += ["", textwrap.fill(example, width, break_on_hyphens=False)]
    return "\n".join(lines) + "\n"


def _mpicc(args: argparse.Namespace) -> int:
    if args.args in (["-h"], ["--help"]):
        print(mpicc_help(), end="")
        return 0
    from cellblade.mpi import compiler

    try:
        target, rest = compiler.split_target([a for a in args.args if a != "--show"])
        if "--show" in args.args:
            print(" ".join(compiler.mpicc_command(rest, target)))
            return 0
        if not rest:
            raise UsageError(
                "COMPILER-ARGUMENTS: none given; allowed the compiler's, such as prog.c -o prog"
            )
        return compiler.mpicc(rest, target)
    except compiler.TargetError as e:
        raise UsageError(str(e)) from None
