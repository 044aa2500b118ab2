"""`cellblade calibrate`, `reproduce` and `demo`: the simulated blade against the papers."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cellblade import CATALOG, results
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    UsageError,
    add_json_arg,
    add_machine_args,
    add_parallel_args,
    check_mark,
    machine_of,
    name_list,
    parallel_of,
    table,
    with_progress,
    wrapped,
)
from cellblade.machine import MACHINE_FLAGS


def add_commands(commands) -> None:
    """Adds `cellblade calibrate`, `reproduce` and `demo`."""
    for name, handler in (
        ("calibrate", _calibrate),
        ("reproduce", _reproduce),
        ("demo", _demo),
    ):
        command = commands.add_parser(name, help=HELP[name], description=HELP[name])
        add_machine_args(command)
        if name != "demo":
            add_json_arg(command, "the list")
        if name == "reproduce":
            command.add_argument(
                "--quick",
                action="store_true",
                help="fewer trials, and the longest claims (marked skipped) left out",
            )
            command.add_argument(
                "--claims",
                type=name_list,
                default="all",
                metavar="GROUP,...",
                help="only these claim groups, stated in this order whatever the order given: "
                f"{', '.join(CATALOG['reproduce_groups'])} (default: all)",
            )
        if name == "calibrate":
            command.add_argument(
                "--leave-one-out",
                action="store_true",
                help="refit each fitted parameter on each other row of its group and show what "
                "the group's rows become",
            )
            command.add_argument(
                "--policies",
                action="store_true",
                help="run every data-arbiter policy of the family, fit each on Table 1 #1-#5 "
                "and #8 and judge it on the held-out rows and claims",
            )
            command.add_argument(
                "--quick",
                action="store_true",
                help="with --policies: Table 1's held-out rows only (no claims)",
            )
            command.add_argument(
                "--parameter",
                action="append",
                default=[],
                metavar="KEY",
                help="with --leave-one-out: only this machine-file key (repeatable)",
            )
        if name != "calibrate":
            add_parallel_args(command)
        command.set_defaults(
            handler=handler,
            json=False,
            flags={**MACHINE_FLAGS, "parameters": "--parameter", "claims": "--claims"},
        )


def _calibrate(args: argparse.Namespace) -> int:
    if getattr(args, "policies", False):
        if getattr(args, "leave_one_out", False):
            raise UsageError("--policies and --leave-one-out are separate runs: give one")
        return _policies(args)
    if getattr(args, "quick", False):
        raise UsageError("--quick is allowed only with --policies")
    if getattr(args, "leave_one_out", False):
        return _leave_one_out(args)
    if getattr(args, "parameter", None):
        raise UsageError("--parameter is allowed only with --leave-one-out")
    points = with_progress(args, "calibrate", "calibrating", **machine_of(args))
    if args.json:
        print(json.dumps(points))
        return 0
    header = results.CALIBRATION_HEADER[:6] + ("",) + results.CALIBRATION_HEADER[7:]
    print(table(header, results.calibration_rows(points, check_mark()), {1, 3, 4}, notes=True))
    print(
        wrapped(
            f"{results.calibration_summary(points)}; the calibration guide explains each row that does not hold"
        )
    )
    return 0


def _leave_one_out(args: argparse.Namespace) -> int:
    refits = with_progress(
        args, "leave_one_out", "refitting", parameters=args.parameter, **machine_of(args)
    )
    if args.json:
        print(json.dumps(refits))
        return 0
    rows = results.leave_one_out_rows(refits, check_mark())
    print(table(results.LEAVE_ONE_OUT_HEADER, rows, {3, 5, 6, 7}))
    print(wrapped(results.leave_one_out_summary(refits)))
    for sentence in results.leave_one_out_verdicts(refits):
        print(wrapped(sentence))
    return 0


def _policies(args: argparse.Namespace) -> int:
    identification = with_progress(
        args, "identify_policies", "identifying", quick=args.quick, **machine_of(args)
    )
    if args.json:
        print(json.dumps(identification))
        return 0
    rows = results.policies_rows(identification)
    print(table(results.POLICIES_HEADER, rows, set(range(2, len(results.POLICIES_HEADER)))))
    print(wrapped(results.policies_summary(identification)))
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from cellblade import splits  # loaded by the commands that use it

    groups = None if args.claims == "all" else args.claims
    claims = splits.claims(args.quick, machine_of(args), parallel_of(args), groups)
    if args.json:
        print(json.dumps(claims))
        return 0
    _print_claims(claims)
    if args.quick:
        shown = {c["claim"] for c in claims}
        differs = [(c, full) for c, full in CATALOG["quick_differs"] if c in shown]
        print(
            wrapped(
                "--quick judges with fewer iterations and trials; on the qs20 preset the full run "
                + (
                    "gives these claims another verdict: "
                    + "; ".join(f"{c} ({full})" for c, full in differs)
                    if differs
                    else "gives every claim judged here the same verdict"
                )
                + "."
            )
        )
    if groups is not None:
        left_out = [g for g in CATALOG["reproduce_groups"] if g not in groups]
        print(wrapped(f"Claim groups left out by --claims: {', '.join(left_out) or 'none'}."))
    return 0


def _demo(args: argparse.Namespace) -> int:
    import cellblade

    cellblade.resolved_machine(**machine_of(args))  # a bad machine is refused before the title
    print("cellblade demo: the simulated blade against the values the papers measured\n")
    _calibrate(args)
    # The full run, not --quick: the counts a user reads here are the ones the notes and the
    # tests give (quick and full differ by a claim or two).
    print("\nthe papers' findings, re-checked (cellblade reproduce)\n")
    from cellblade import splits  # loaded by the commands that use it

    _print_claims(splits.claims(False, machine_of(args), parallel_of(args)))
    return 0


def _print_claims(claims: list[dict[str, Any]]) -> None:
    rows = results.claim_rows(claims, check_mark())
    print(table(results.CLAIMS_HEADER, rows, right=set(), notes=True))
    print(wrapped(results.claims_summary(claims)))
