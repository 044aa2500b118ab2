"""`cellblade model measure|predict|validate` (seed 003's performance model) and the
`--algo auto` choice of `cellblade coll OP`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cellblade
from cellblade import coll, model, outputs
from cellblade.cli.base import HELP
from cellblade.cli.common import (
    add_algo_arg,
    add_dtype_arg,
    add_iterations_arg,
    add_json_arg,
    add_machine_args,
    add_out_arg,
    add_parallel_args,
    add_params_arg,
    add_placement_arg,
    add_sizes_arg,
    add_spes_arg,
    machine_of,
    only_this_operation,
    out_dir,
    parallel_of,
    params_of,
    stage,
    table,
    wrapped,
)
from cellblade.machine import MACHINE_FLAGS
from cellblade.units import format_size, format_time

OUT = Path("out") / "model"
# Defaults and limits of the model's requests are the core's.
LIMITS = cellblade.CATALOG["model"]
# The flag of each model request field (cli.py's tables for the other commands).
FIELD_FLAGS = {
    "sizes": "--sizes",
    "iterations": "--iterations",
    "spes": "-n",
    "algorithms": "--algo",
    "dtype": "--dtype",
    "placement": "--placement",
    "params_toml": "--params",
    "params_file": "--params",
    "op": "OP",
}


def add_commands(commands) -> None:
    """Adds the `model` command to the `cellblade` command's subparsers."""
    flags = {**MACHINE_FLAGS, **FIELD_FLAGS}
    parent = commands.add_parser(
        "model",
        help=HELP["model"],
        description="The extended PLogP model of seed 003.",
    )
    actions = parent.add_subparsers(dest="action", required=True, metavar="ACTION")

    measure = actions.add_parser(
        "measure",
        help="micro-benchmarks into a parameter file",
        description="Run seed 003's section 3.3 micro-benchmarks.",
    )
    add_machine_args(measure)
    add_sizes_arg(
        measure,
        f"{format_size(LIMITS['measure_sizes'][0])}:{format_size(LIMITS['measure_sizes'][-1])}",
    )
    add_iterations_arg(
        measure,
        f"timed repetitions per point, k=1000, 1 to {LIMITS['max_iterations']} "
        f"(default {LIMITS['default_measure_iterations']})",
    )
    add_out_arg(measure, f"{OUT}, which holds the latest run", "params.toml and the figures")
    add_json_arg(measure, "the parameters")
    measure.set_defaults(handler=_measure, flags=flags)

    predict = actions.add_parser(
        "predict",
        help="predicted (and simulated) latencies",
        description="Seed equations and schedule price side by side.",
    )
    predict.add_argument("op", choices=coll.OPS, metavar="OP", help=", ".join(coll.OPS))
    add_algo_arg(predict, "registry names (with or without the operation), comma-separated, or all")
    add_spes_arg(
        predict,
        LIMITS["default_predict_spes"],
        f"ranks (default {LIMITS['default_predict_spes']})",
    )
    add_sizes_arg(predict, format_size(cellblade.CATALOG["coll"]["default_size"]))
    add_dtype_arg(predict, None)
    add_placement_arg(
        predict,
        "a placement name (evenodd, ...) or the physical SPE of each rank "
        "(default: rank i on SPE i)",
    )
    predict.add_argument("--simulate", action="store_true", help="also run on the simulated blade")
    simulated_iterations = (
        f"timed calls per simulated point, k=1000 (default {LIMITS['default_simulate_iterations']})"
    )
    add_iterations_arg(predict, simulated_iterations)
    add_params_arg(predict)
    add_machine_args(predict)
    add_json_arg(predict)
    predict.set_defaults(handler=_predict, flags=flags)

    validate = actions.add_parser(
        "validate",
        help="the seed's accuracy grid on the blade",
        description="Every modelled algorithm, 8 and 16 SPEs, 64 B-32 KB.",
    )
    add_params_arg(validate)
    add_machine_args(validate)
    add_iterations_arg(validate, simulated_iterations)
    add_parallel_args(validate, "the grid's simulations")
    add_out_arg(validate, f"{OUT}, which holds the latest run", "validate.json and the figures")
    add_json_arg(validate, "the summary")
    validate.set_defaults(handler=_validate, flags=flags)


MEASURE_FILES = ["params.toml", "model-gap.png", "model-congestion.png", "machine.toml"]
VALIDATE_FILES = [
    "validate.json",
    "model-errors.png",
    "model-errors-schedule.png",
    "model-errors-baseline.png",
]


def _measure(args: argparse.Namespace) -> int:
    out, force = out_dir(args, OUT, MEASURE_FILES)
    with stage(args, "model measure"):
        result = model.measure(**machine_of(args), sizes=args.sizes, iterations=args.iterations)
    params = result["params"]
    with outputs.staged("--out", out, MEASURE_FILES, force=force) as staging:
        (staging / "params.toml").write_text(result["toml"], encoding="utf-8")
        model.gap_figure(params, staging / "model-gap.png")
        model.congestion_figure(params, staging / "model-congestion.png")
        (staging / "machine.toml").write_text(
            cellblade.resolved_machine(**machine_of(args)), encoding="utf-8"
        )
    paths = [out / name for name in MEASURE_FILES]
    if args.json:
        print(json.dumps(params))
        return 0
    print(
        wrapped(
            f"L1(1) {format_time(params['l1_ack_ns'], 'ns')} ns, L2(1) {format_time(params['l2_ack_ns'], 'ns')} ns "
            f"(figure 3(a)); g_Ack {format_time(params['g_ack_ns'], 'ns')}, g1_Ack {format_time(params['g1_ack_ns'], 'ns')}, "
            f"g2_Ack {format_time(params['g2_ack_ns'], 'ns')} ns"
        )
    )
    print("size      L1(m)     L2(m)       g(m)     g1(m)     g2(m)  Kielmann g  (ns)")
    for i, size in enumerate(params["sizes_bytes"]):
        print(
            f"{format_size(size):>5} "
            + " ".join(
                f"{format_time(params[k][i], 'ns'):>9}"
                for k in ("l1_ns", "l2_ns", "g_ns", "g1_ns", "g2_ns", "g_kielmann_ns")
            )
        )
    print("\n".join(f"wrote {path}" for path in paths))
    return 0


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def _predict(args: argparse.Namespace) -> int:
    algorithms = (
        []
        if args.algo == "all"
        else [name if "." in name else f"{args.op}.{name}" for name in args.algo]
    )
    placement = (
        None
        if args.placement is None
        else cellblade.coll_schedule(
            "barrier.rdb", spes=args.spes, placement=args.placement, **machine_of(args)
        )["placement"]
    )
    with stage(args, f"model predict {args.op}" + (", simulating" if args.simulate else "")):
        result = only_this_operation(args.op, model.predict)(
            args.op,
            params_of(args),
            algorithms=algorithms,
            spes=args.spes,
            sizes=args.sizes,
            placement=placement,
            dtype=args.dtype,
            simulate=args.simulate,
            iterations=args.iterations,
            **machine_of(args),
        )
    if args.json:
        print(json.dumps(result))
        return 0
    for warning in result["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    rows = []
    for r in result["rows"]:
        seed = format_time(r["seed_ns"], "ns")
        sim = format_time(r["simulated_ns"], "ns")
        rows.append(
            (
                r["algorithm"],
                format_size(r["size_bytes"]) if r["size_bytes"] else "-",
                seed,
                _pct(r["seed_error_pct"]),
                format_time(r["schedule_ns"], "ns"),
                _pct(r["schedule_error_pct"]),
                sim,
            )
        )
    print(f"{args.op}, {args.spes} SPEs: latency (ns), predicted and simulated")
    print(
        table(
            ("algorithm", "size", "seed eq.", "error", "schedule", "error", "simulated"),
            rows,
            right={1, 2, 3, 4, 5, 6},
        )
    )
    reasons = {r["algorithm"]: r["seed_source"] for r in result["rows"] if r["seed_ns"] is None}
    for reason in reasons.values():
        # The core's reason ends with the list of modelled names; the table needs only the why.
        print(wrapped(f"no seed equation: {reason.split(' (tables 1-5 model ')[0]}"))
    return 0


def _validate(args: argparse.Namespace) -> int:
    out, force = out_dir(args, OUT, VALIDATE_FILES)
    report = model.validate(
        params_of(args),
        **machine_of(args),
        iterations=args.iterations,
        **parallel_of(args),
    )
    figures = (
        (
            "model-errors.png",
            "seed_error_pct",
            "Seed 003 equations against the simulated blade (cf. figure 10)",
        ),
        (
            "model-errors-schedule.png",
            "schedule_error_pct",
            "Schedule price against the simulated blade",
        ),
        (
            "model-errors-baseline.png",
            "baseline_error_pct",
            "Non-Cell-specific baseline: Kielmann's g, no C (cf. figure 11)",
        ),
    )
    with outputs.staged("--out", out, VALIDATE_FILES, force=force) as staging:
        (staging / "validate.json").write_text(
            json.dumps(report, indent=2) + "\n", encoding="utf-8"
        )
        for name, key, title in figures:
            model.error_figure(report["rows"], staging / name, key=key, title=title)
    if args.json:
        print(json.dumps({k: v for k, v in report.items() if k != "rows"}))
        return 0
    n = report["points"]
    rows = []
    for name, s in (
        ("seed 003 equations", report["seed_equations"]),
        ("schedule price", report),
        ("baseline (fig. 11)", report["baseline"]),
        ("seed 003 equations without C", report["seed_no_contention"]),
    ):
        rows.append(
            (
                name,
                *(
                    f"{s[key]} ({100 * s[key] / n:.1f}%)"
                    for key in ("within_5", "within_10", "within_15")
                ),
                f"{s['worst_error_pct']:.1f}%",
            )
        )
    print(
        f"{n} points (the seed: {report['seed_points']}; 398 within 10%, all within 15%, "
        "seed 003 §7.2)"
    )
    print(
        table(("model", "within 5%", "within 10%", "within 15%", "worst"), rows, right={1, 2, 3, 4})
    )
    print(
        f"--algo auto regret on the grid: worst {report['auto_regret_worst_pct']:.1f}%, "
        f"mean {report['auto_regret_mean_pct']:.2f}%"
    )
    print(
        f"predicting the {n} points with every model took {format_time(report['predict_s'], 's')} s "
        "(the simulations took the rest)"
    )
    print(f"wrote {out / 'validate.json'} and the figures model-errors*.png")
    return 0


def coll_auto(args: argparse.Namespace) -> int:
    """`cellblade coll OP --algo auto`: the model picks an algorithm per size, without
    simulating; the picks are then run as `coll OP --algo NAME` would run them."""
    params = model.params_for(args.machine or args.preset, args.overrides)
    # A size no modelled algorithm takes is one of the --sizes the user typed.
    args.flags = {**args.flags, "size": "--sizes"}
    # The physical SPE of each rank, a named placement resolved the way the run resolves it.
    placement = cellblade.coll_schedule(
        "barrier.rdb",
        spes=args.spes,
        placement=args.placement,
        machine=args.machine or args.preset,
        overrides=args.overrides,
    )["placement"]
    picks: dict[str, list[int]] = {}
    sizes = args.sizes or [cellblade.DEFAULT_COLL_SIZE]
    for size in [0] if args.op == "barrier" else sizes:
        choice = model.choose(
            args.op,
            args.spes,
            size,
            params,
            placement=placement,
            dtype=args.dtype,
            root=args.root,
            machine=args.machine or args.preset,
            overrides=args.overrides,
        )
        picks.setdefault(choice["algorithm"], []).append(size)
        if choice["extrapolated"]:
            print(
                f"warning: {args.op} at {size} bytes: beyond the largest measured size "
                f"({LIMITS['measure_sizes'][-1]} bytes), the prices are extrapolated",
                file=sys.stderr,
            )
        print(
            f"auto: {format_size(size) if size else args.op} -> {choice['algorithm']} "
            f"(predicted {format_time(choice['predicted_ns'], 'ns')} ns)"
        )
    results = []
    for name, chosen_sizes in picks.items():
        results += cellblade.coll_run(
            args.op,
            spes=args.spes,
            sizes=chosen_sizes or None,
            algorithms=[name],
            root=args.root,
            placement=args.placement,
            dtype=args.dtype,
            reduce_op=args.reduce_op,
            iterations=args.iterations,
            machine=args.machine or args.preset,
            overrides=args.overrides,
        )
    if args.json:
        print(json.dumps(results))
        return 0
    rows = [
        (
            r["algorithm"],
            format_size(r["size_bytes"]) if r["size_bytes"] else "-",
            format_time(r["latency_ns"], "ns"),
            "yes" if r["verified"] else "NO",
        )
        for r in results
    ]
    print(table(("algorithm", "size", "latency (ns)", "verified"), rows, right={1, 2}))
    return 0


def bench_line() -> str:
    """`cellblade bench`'s line for the model: the time to predict the validation grid."""
    timing = model.time_grid(model.params_for())
    return (
        f"model: predicting the {timing['points']}-point validation grid with every model "
        f"took {format_time(timing['predict_s'], 's')} s (target: under 1 s)"
    )
