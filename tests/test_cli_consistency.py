"""One command line: the same flag for the same thing in every command, exit 2 for usage and 1
for failures, every error naming its flag, --version, tables fitted to the terminal, one number
format, and progress on stderr for long runs in a log (issue 23)."""

from __future__ import annotations

import argparse
import io
import re
import time

import pytest
from conftest import run_cli, usage_error
from hypothesis import given
from hypothesis import strategies as st

import cellblade
from cellblade import cli, parallel
from cellblade.cli import common
from cellblade.units import format_number


def commands():
    """(name, parser) of every command and subcommand of `cellblade` and `cellstats`."""

    def walk(name, parser):
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    yield from walk(f"{name} {sub}", child)

    yield from walk("cellstats", cli.build_cellstats_parser())
    yield from walk("cellblade", cli.build_parser())


def visible_flags(parser) -> set[str]:
    return {
        flag
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for flag in action.option_strings
    }


def test_one_spelling_per_flag_in_every_command():
    seen = {name: visible_flags(parser) for name, parser in commands()}
    for name, flags in seen.items():
        # The old spellings are accepted but not shown.
        assert not flags & {"--placements", "--algos"}, name
        if "--spes" in flags:
            assert "-n" in flags, f"{name}: --spes without -n"
    for name in ("cellblade affinity run", "cellblade coll allreduce", "cellblade model predict"):
        assert {"--placement"} <= seen[name], name
    assert (
        "--algo" in seen["cellblade coll allreduce"] and "--algo" in seen["cellblade model predict"]
    )


def test_an_old_spelling_is_named_as_typed_in_the_cores_errors():
    """`coll --algos bogus` was refused naming --algo, a flag the user had not typed."""
    assert "error: --algos barrier.bogus is not allowed: one of " in usage_error(
        "coll", "barrier", "-n", "2", "--algos", "bogus"
    )
    assert "error: --algo barrier.bogus is not allowed" in usage_error(
        "coll", "barrier", "-n", "2", "--algo", "bogus"
    )
    assert "--placements" in usage_error("affinity", "run", "--pattern", "rd1", "--placements", "x")


@pytest.mark.parametrize(
    "old, new",
    [
        (["affinity", "run", "--pattern", "rd1", "--placements", "evenodd,ring"], "--placement"),
        (["coll", "allreduce", "--algos", "rdb,cml"], "--algo"),
        (["pingpong", "--reps", "2k"], "--iterations"),
    ],
)
def test_old_spellings_are_hidden_aliases(old, new):
    parser = cli.build_parser()
    before = vars(parser.parse_args(old))
    assert before.pop("typed") == {new: old[-2]}  # errors name the spelling typed
    after = vars(parser.parse_args([new if a == old[-2] else a for a in old]))
    assert before == after
    shown = before.get("placements", before.get("algos", before.get("reps")))
    assert shown in (["evenodd", "ring"], ["rdb", "cml"], 2000)


# Flags that mean the same thing in every command, each made by one helper of cli/common.py:
# the flag -> the argparse type (or action) that helper gives it.
SHARED = {
    "--sizes": common.sizes_arg,
    "--json": argparse._StoreTrueAction,
    "--force": argparse._StoreTrueAction,
    # Once three parsers: model's refused 1k, which coll and pingpong took (issue 23's walk).
    "--iterations": common.positive_count,
}


def test_a_shared_flag_is_the_same_everywhere():
    found = {flag: 0 for flag in SHARED}
    for name, parser in commands():
        actions = {s: a for a in parser._actions for s in a.option_strings}
        for flag, kind in SHARED.items():
            if flag in actions:
                found[flag] += 1
                action = actions[flag]
                assert action.type is kind or isinstance(action, kind), (name, flag)
        if "--out" in actions:  # an output is never replaced without --force
            assert "--force" in actions, name
            assert actions["--out"].help.startswith("where to write "), name
        if "--spes" in actions:
            assert actions["--spes"].option_strings == ["-n", "--spes"], name
    assert found == {"--sizes": 8, "--json": 18, "--force": 15, "--iterations": 11}, found


def test_every_spe_count_is_refused_naming_the_counts_allowed():
    """`affinity -n x` said "invalid int value" and `-n 3` "invalid choice", `cluster -n x`
    "invalid int value": every -n/--spes now names what it allows, in the same words."""
    checked = 0
    for _name, parser in commands():
        actions = {s: a for a in parser._actions for s in a.option_strings}
        if "--spes" in actions:
            checked += 1
            convert = actions["--spes"].type
            for bad in ("x", "0", "99"):
                with pytest.raises(argparse.ArgumentTypeError, match=r"allowed .* SPEs$"):
                    convert(bad)
    assert checked == 11, checked
    assert "allowed 8 or 16 SPEs" in usage_error("affinity", "run", "--pattern", "rd1", "-n", "3")


def test_mpirun_coll_auto_says_it_measures_and_passes_the_parameters(monkeypatch, capsys):
    from cellblade import model
    from cellblade.mpi import launcher

    clock = iter([10.0, 16.5])
    monkeypatch.setattr(common.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    monkeypatch.setattr(model, "params_for", lambda machine, overrides: "measured = 1\n")
    given = {}

    def mpirun(program, args, **kwargs):
        given.update(kwargs)
        return launcher.JobResult(0, "", {})

    monkeypatch.setattr(launcher, "mpirun", mpirun)
    assert cli.main(["mpirun", "-n", "2", "--coll", "bcast=auto", "/bin/true"]) == 0
    assert given["params_toml"] == "measured = 1\n" and given["coll"] == "bcast=auto"
    assert capsys.readouterr().err == (
        "mpirun: measuring the model's parameters for --coll auto: done, 6.500 s\n"
    )
    assert cli.main(["mpirun", "-n", "2", "--coll", "library", "/bin/true"]) == 0
    assert given["params_toml"] is None and capsys.readouterr().err == ""


def test_version_names_the_build():
    for program in ("cellblade", "cellstats"):
        parser = cli.build_parser() if program == "cellblade" else cli.build_cellstats_parser()
        with pytest.raises(SystemExit) as exit:
            parser.parse_args(["--version"])
        assert exit.value.code == 0
    done = run_cli("--version")
    assert done.returncode == 0
    build = cellblade.CATALOG["build"]
    assert re.fullmatch(rf"cellblade \S+ \({re.escape(build)} build\)\n", done.stdout)
    assert build == "release" or build.startswith("release, native")


def test_an_illegal_dma_size_is_bad_usage_of_b():
    message = usage_error("stats", "-f", "dmaget", "-n", "1", "-b", "300")
    assert message.startswith("cellblade: error: -b 300 is not allowed for dmaget: ")
    assert "1, 2, 4, 8 or a multiple of 16" in message


def test_cluster_sizes_take_multipliers_and_bad_ones_name_the_flag():
    args = cli.build_parser().parse_args(["cluster", "broadcast", "--sizes", "1k,64k,1m"])
    assert args.sizes == [1024, 65536, 1048576]
    message = usage_error("cluster", "broadcast", "--sizes", "1x")
    assert "--sizes" in message and "'1x'" in message and "k=1024" in message
    assert "lambda" not in message


def test_mpicc_help_is_ours_not_the_compilers():
    done = run_cli("mpicc", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: cellblade mpicc [--show]")
    assert "--show" in done.stdout and "gcc" not in done.stdout.lower()


def test_unknown_algorithm_lists_only_its_operations_algorithms():
    def predict(*args, **kwargs):
        error = cellblade.ConfigError(
            "algorithms allreduce.rdbx is not allowed: one of barrier.rdb, allreduce.rdb, "
            "allgather.rdb, allreduce.cml"
        )
        error.field = "algorithms"
        raise error

    with pytest.raises(cellblade.ConfigError) as caught:
        common.only_this_operation("allreduce", predict)()
    assert str(caught.value) == (
        "algorithms allreduce.rdbx is not allowed: one of allreduce.rdb, allreduce.cml"
    )
    assert caught.value.field == "algorithms"


@pytest.mark.parametrize(
    "error, code",
    [
        (cellblade.ConfigError("spes 20 is not allowed: 1 to 16"), 2),
        (common.UsageError("--jobs applies to --sweep only"), 2),
        (cellblade.ProgramError("mfc_get: tag 40 is out of range"), 1),
        (cellblade.DeadlockError("deadlock at 10 ns: spe 0 waits"), 1),
    ],
)
def test_usage_exits_2_and_failures_exit_1(error, code, capsys):
    parser = common.Parser(prog="cellblade")

    def handler(args):
        raise error

    parser.set_defaults(handler=handler)
    assert cli._run(lambda: parser, []) == code
    assert capsys.readouterr().err == f"cellblade: error: {error}\n"


def test_tables_fit_the_width_with_notes_under_their_rows():
    rows = [
        ("a name that is rather long for its column", "12.5 ns", "x" * 20, "a note " * 30),
        ("short", "1,680,000 ns", "y", ""),
    ]
    text = common.table(("name", "value", "other", "note"), rows, {1}, width=60, notes=True)
    assert max(map(len, text.splitlines())) <= 60
    assert "    a note a note" in text  # the note on lines of its own, indented
    flat = " ".join(text.split())
    for word in ("rather", "1,680,000", "xxxxxxxxxxxx"):
        assert word in flat


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False))
def test_numbers_never_print_with_an_exponent(value):
    text = format_number(value)
    assert "e" not in text.lower()
    if abs(value) >= 1000:
        assert "," in text
    assert abs(float(text.replace(",", "")) - value) <= max(0.5, abs(value) * 1e-3)


def test_a_long_run_in_a_log_prints_a_line_per_finished_stage(monkeypatch, capsys):
    clock = iter([100.0, 100.5, 103.0, 104.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    lines = parallel.StageLines(3, "reproducing claims")
    lines.update()  # 0.5 s: too early to say anything
    lines.update()
    lines.update()
    assert capsys.readouterr().err == (
        "reproducing claims: 2/3 done, 3.000 s\nreproducing claims: 3/3 done, 4.000 s\n"
    )


def test_a_sweep_of_many_short_calls_in_a_log_prints_a_line_every_few_seconds(monkeypatch, capsys):
    # 100 calls finishing every 0.1 s from 0 to 9.9 s of the run: a line at 2.0 s (the first
    # after LINES_AFTER_S), at 7.0 s (LINES_EVERY_S later) and the last one, not 80.
    clock = iter([0.0, *(0.1 * k for k in range(1, 101))])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    lines = parallel.StageLines(100, "allreduce on 16 SPEs")
    for _ in range(100):
        lines.update()
    assert capsys.readouterr().err == (
        "allreduce on 16 SPEs: 20/100 done, 2.000 s\n"
        "allreduce on 16 SPEs: 70/100 done, 7.000 s\n"
        "allreduce on 16 SPEs: 100/100 done, 10.000 s\n"
    )


def test_one_long_call_in_a_log_says_it_is_still_running(monkeypatch, capsys):
    # `reproduce` is one call of 80 s: the bar's clock refreshes every REFRESH_S while it runs;
    # in a log that is a line each LINES_STILL_S (the first 10 s in, LINES_EVERY_S having passed
    # since the start), then the line of its end.
    clock = iter([0.0, 1.0, 9.9, 10.0, 20.0, 25.0, 26.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    lines = parallel.StageLines(1, "reproducing claims")
    for _ in range(5):
        lines.refresh()
    lines.update()
    assert capsys.readouterr().err == (
        "reproducing claims: 0/1 done, 10.000 s\n"
        "reproducing claims: 0/1 done, 25.000 s\n"
        "reproducing claims: 1/1 done, 26.000 s\n"
    )


def test_one_long_call_that_reports_its_work_says_how_much_is_done(monkeypatch, capsys):
    # The same call reporting its work (`cellblade.progress`): the share done while it runs.
    clock = iter([0.0, 10.0, 25.0, 26.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    reports = iter([(450, 1000), (900, 1000)])
    monkeypatch.setattr(parallel.cellblade, "progress", lambda: next(reports))
    lines = parallel.StageLines(1, "reproducing claims")
    for _ in range(2):
        parallel._show_work(lines)
        lines.refresh()
    lines.update()
    assert capsys.readouterr().err == (
        "reproducing claims: 45% of the work done, 10.000 s\n"
        "reproducing claims: 90% of the work done, 25.000 s\n"
        "reproducing claims: 1/1 done, 26.000 s\n"
    )


def test_a_bar_of_one_call_that_reports_its_work_shows_its_share_and_time_left(monkeypatch):
    from tqdm import tqdm

    monkeypatch.setattr(parallel.cellblade, "progress", lambda: (250, 1000))
    bar = tqdm(total=1, desc="reproducing claims", file=io.StringIO(), ncols=80)
    parallel._show_work(bar)
    assert (bar.n, bar.total) == (250, 1000)
    assert str(bar).startswith("reproducing claims:  25%|")
    monkeypatch.setattr(parallel.cellblade, "progress", lambda: (0, 0))
    other = tqdm(total=1, desc="calibrating", file=io.StringIO(), ncols=80)
    parallel._show_work(other)  # a call that does not report keeps its count of calls
    assert (other.n, other.total) == (0, 1)


def test_one_long_step_in_a_log_says_it_is_still_running(monkeypatch, capsys):
    monkeypatch.setattr(parallel, "LINES_STILL_S", 0.2)
    monkeypatch.setattr(parallel, "LINES_AFTER_S", 0.1)
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    with common.stage(argparse.Namespace(json=False), "model predict allreduce, simulating"):
        time.sleep(0.5)
    lines = capsys.readouterr().err.splitlines()
    # At 0.2 and 0.4 s (the second may miss on a loaded host), then the end.
    assert 2 <= len(lines) <= 3, lines
    assert all(
        line.startswith("model predict allreduce, simulating: running, ") for line in lines[:-1]
    )
    assert re.fullmatch(r"model predict allreduce, simulating: done, 0\.[0-9]{3} s", lines[2]), (
        lines
    )


def test_progress_is_a_bar_on_a_terminal_and_lines_in_a_log(monkeypatch):
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    assert common.progress(argparse.Namespace(json=False)) == "lines"
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: True, raising=False)
    assert common.progress(argparse.Namespace(json=False)) is True
    assert common.progress(argparse.Namespace(json=True)) == "lines"
