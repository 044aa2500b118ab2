"""`cellblade spu-gcc`, `ppu-gcc`, ...: the Cell SDK's compilers (cellblade.sdk.toolchain).

The same tools are installed under the SDK's own names (``spu-gcc``, ``ppu-gcc``, ...: the
package's scripts), so that an SDK-style build finds them on its PATH.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cellblade.cli.base import HELP, UsageError

_ABOUT = {
    "spu": "Compile an SPE program for the simulated blade, as the Cell SDK's {name} did: a "
    "32-bit big-endian program whose data, heap and stack are in local store, with the SDK's "
    "spu_intrinsics.h and spu_mfcio.h. Every argument but these is the compiler's:",
    "ppu": "Compile a PPE program for the simulated blade, as the Cell SDK's {name} did: a "
    "big-endian PowerPC program with VMX ({bits}). Every argument but these is the compiler's:",
    "embedspu": "Make SPE-EXECUTABLE (built with cellblade spu-gcc) a PPE object ({bits}) that "
    "defines `spe_program_handle_t SYMBOL`, for spe_program_load, as the Cell SDK's {name} did. "
    "Arguments: [FLAGS] SYMBOL SPE-EXECUTABLE OBJECT, and:",
    "ar": "The archiver for {side} objects, as the Cell SDK's {name}. Every argument but these "
    "is the archiver's:",
}


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Registers each SDK compiler under its name."""
    from cellblade.sdk.toolchain import TOOLS

    for name in TOOLS:
        cc = commands.add_parser(name, help=HELP[name], add_help=False, prefix_chars="+")
        # No options of its own: every argument, dashes included, is the compiler's.
        cc.add_argument("args", nargs=argparse.REMAINDER, help="compiler arguments")
        cc.set_defaults(handler=_compile, tool=name)
        cc.format_help = lambda name=name: tool_help(name)
    top = commands.add_parser(
        "sdk-top",
        help=HELP["sdk-top"],
        description="Print the folder of the Cell SDK's headers, libraries and make.footer: "
        "set CELL_TOP to it, and an SDK-style Makefile (include $(CELL_TOP)/buildutils/"
        "make.footer) builds with cellblade's tools.",
    )
    top.set_defaults(handler=_sdk_top)


def _sdk_top(args: argparse.Namespace) -> int:
    from cellblade.sdk import toolchain

    print(toolchain.sdk_root())
    return 0


def tool_help(name: str) -> str:
    """What `cellblade NAME --help` prints."""
    import shutil
    import textwrap

    from cellblade.sdk.toolchain import TOOLS

    tool = TOOLS[name]
    bits = "32-bit" if tool.bits == 32 else "64-bit, or 32-bit with -m32"
    about = _ABOUT[tool.language if tool.language in _ABOUT else tool.side]
    width = shutil.get_terminal_size((100, 24)).columns - 2
    lines = [f"usage: cellblade {name} [--show] COMPILER-ARGUMENTS...", ""]
    lines += [textwrap.fill(about.format(name=name, bits=bits, side=tool.side.upper()), width), ""]
    for flag, text in (
        ("--show", "print the compiler command instead of running it"),
        ("-h, --help", "print this help (for the compiler's own, run the command --show prints)"),
    ):
        lines += textwrap.wrap(
            text, width, initial_indent=f"  {flag:<12}", subsequent_indent=" " * 14
        )
    return "\n".join(lines) + "\n"


def _compile(args: argparse.Namespace) -> int:
    return compile_as(args.tool, args.args)


def compile_as(name: str, words: list[str]) -> int:
    from cellblade.sdk import toolchain

    if words in (["-h"], ["--help"]):
        print(tool_help(name), end="")
        return 0
    rest = [a for a in words if a != "--show"]
    if not rest:
        raise UsageError(
            "COMPILER-ARGUMENTS: none given; allowed the compiler's, such as prog.c -o prog"
        )
    try:
        if "--show" in words:
            print(" ".join(toolchain.command(name, rest)))
            return 0
        return toolchain.run(name, rest)
    except toolchain.ToolError as error:
        raise UsageError(str(error)) from None


def main() -> int:
    """Entry point of the tools under the SDK's names: the name the script was called by."""
    from cellblade.cli import _run, build_parser

    name = Path(sys.argv[0]).name
    return _run(lambda: build_parser(only=name), [name, *sys.argv[1:]])
