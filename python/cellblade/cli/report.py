"""`cellblade report`: the papers' results on the simulated blade as one offline web page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cellblade import outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    add_machine_args,
    add_out_arg,
    add_parallel_args,
    machine_of,
    parallel_of,
    progress,
)

DEFAULT = Path("out") / "report.html"


def add_commands(commands) -> None:
    """Adds `cellblade report`."""
    parser = commands.add_parser(
        "report",
        help=HELP["report"],
        description="Writes one self-contained HTML page (no network needed to read it): the "
        "calibration table, every claim with its verdict and source, the papers' figures "
        "re-drawn with the published points, and the machine file and build at the bottom.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer sizes, patterns and trials (about a minute)"
    )
    add_out_arg(parser, f"{DEFAULT}, which holds the latest", "the page", "FILE.html")
    add_machine_args(parser)
    add_parallel_args(parser, "the page's simulations")
    parser.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    path = args.out or DEFAULT
    outputs.check_file("--out", path, suffix=".html", force=args.force or args.out is None)
    lines = progress(args) == "lines"

    def say(stage: str) -> None:
        if lines:
            print(f"report: {stage}", file=sys.stderr, flush=True)

    from cellblade import report  # matplotlib is slow to import: only for this command

    data = report.gather(args.quick, machine_of(args), parallel_of(args), say)
    page = report.html(data)
    outputs.write_file("--out", path, lambda temporary: temporary.write_text(page, "utf-8"))
    print(f"wrote {path}")
    return 0
