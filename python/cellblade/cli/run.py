"""`cellblade run`: a Cell SDK program (a PPE program built with `cellblade ppu-gcc` and its SPE
programs built with `cellblade spu-gcc`) on the simulated blade."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cellblade import outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import CATALOG, UsageError, add_machine_args, add_out_arg
from cellblade.machine import MACHINE_FLAGS

RUN_FILES = ["result.json", "machine.toml"]
RUN_FLAGS = {**MACHINE_FLAGS, "compute": "--compute"}


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Registers `cellblade run`."""
    run = commands.add_parser(
        "run",
        help=HELP["run"],
        description="Run PROGRAM, a Cell SDK program's PPE executable (cellblade ppu-gcc, "
        "linked with -lspe2), on the simulated blade: its SPE contexts run the SPE executables "
        "it opens (cellblade spu-gcc), every libspe2 and MFC call simulated. An SPE program's "
        "code between two calls costs the SPU cycles it would take (--compute model).",
    )
    sdk = CATALOG["sdk"]
    run.add_argument(
        "--compute",
        metavar="model|zero",
        help="what each SPE program's own code between two channel calls costs in simulated "
        "time: model, the SPU cycles it would take (the machine file's [spu_cost] table, "
        "counted by a qemu plugin), or zero; "
        f"allowed {sdk['compute_allowed']} (default {sdk['default_compute']})",
    )
    run.add_argument(
        "--spe",
        action="store_true",
        help="PROGRAM is an SPE executable (cellblade spu-gcc) to run alone, as the SDK's elfspe "
        "ran one: main(argc, argv) gets PROGRAM and ARGS, its output is the run's and its exit "
        "code the run's",
    )
    add_machine_args(run)
    add_out_arg(run, "none", "result.json (the run's report) and the resolved machine.toml")
    run.add_argument("program", help="the PPE program (built with cellblade ppu-gcc -lspe2)")
    run.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    run.set_defaults(handler=_run, flags=RUN_FLAGS)


def _run(args: argparse.Namespace) -> int:
    from cellblade import machine
    from cellblade.sdk import launcher

    if args.out is not None:
        outputs.check_dir("--out", args.out, RUN_FILES, force=args.force)
    chosen = machine.choice(args.machine or args.preset, args.overrides)
    try:
        if args.spe:
            result = launcher.run_spe(args.program, args.args, chosen, compute=args.compute)
        else:
            result = launcher.run(args.program, args.args, chosen, compute=args.compute)
    except launcher.RunError as error:
        raise UsageError(f"PROGRAM {error}") from None
    for note in result.report.get("notes", []):
        print(f"cellblade run: {note}", file=sys.stderr)
    if result.message:
        print(f"cellblade run: {result.message}", file=sys.stderr)
    if args.out is not None:
        _save(args.out, result, args)
    return result.exit_code


def _save(out: Path, result, args: argparse.Namespace) -> None:
    report = dict(result.report)
    machine_toml = report.pop("machine_toml", None)
    report.update(
        exit_code=result.exit_code,
        message=result.message,
        program=args.program,
        spe=args.spe,
        args=args.args,
        compute=args.compute or CATALOG["sdk"]["default_compute"],
    )
    with outputs.staged("--out", out, RUN_FILES, force=args.force) as staging:
        (staging / "result.json").write_text(json.dumps(report, indent=2) + "\n")
        (staging / "machine.toml").write_text(machine_toml or "")
