"""`cellblade machine`: every parameter of a machine file, its value, unit and source."""

from __future__ import annotations

import argparse
import json

from cellblade import results
from cellblade.cli.base import HELP
from cellblade.cli.common import add_json_arg, add_machine_args, machine_of, table


def add_commands(commands) -> None:
    """Adds `cellblade machine`."""
    parser = commands.add_parser(
        "machine",
        help=HELP["machine"],
        description="Every key of the machine file a run with these flags uses: its value "
        "(overrides applied), its unit, where the value comes from (the publication, or the "
        "calibration row it was fitted on) and what it is; with --toml, the machine file "
        "itself, to copy and edit. `cellblade calibrate "
        "--leave-one-out` refits the fitted ones on the other rows of their groups.",
    )
    add_machine_args(parser)
    shown = parser.add_mutually_exclusive_group()
    add_json_arg(shown, "the parameters")
    shown.add_argument(
        "--toml",
        action="store_true",
        help="print the machine file itself, each key with its unit and source as a comment: "
        "a copy to edit and pass back with --machine",
    )
    parser.set_defaults(handler=_machine, json=False)


def _machine(args: argparse.Namespace) -> int:
    from cellblade.machine import machine_file, parameters

    if args.toml:
        print(machine_file(**machine_of(args)), end="")
        return 0
    found = parameters(**machine_of(args))
    if args.json:
        print(json.dumps(found))
        return 0
    # The key, value and unit in columns; what it is and its source under them, as a note.
    rows = [
        (key, value, unit, f"{what}; {source}")
        for key, value, unit, source, what in results.parameter_rows(found)
    ]
    header = (*results.PARAMETERS_HEADER[:3], "what; from")
    print(table(header, rows, set(), notes=True))
    return 0
