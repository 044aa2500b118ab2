"""The front door's last open items (issue 23, fifth part): one time format per unit in every
command, a collective table of many algorithms readable at 80 columns, `affinity run --size`
named in its error, and mpirun's named placements with fewer than 8 ranks as the help says."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli, usage_error

from cellblade import units
from cellblade.cli.common import column_blocks


def test_a_unit_always_has_the_same_decimals():
    assert units.format_time(589.94, "ns") == "589.9"
    assert units.format_time(0.6504, "us") == "0.65"
    assert units.format_time(12.0, "us") == "12.00"
    assert units.format_time(0.0042, "s") == "0.004"
    assert units.format_time(None, "ns") == "-"
    with pytest.raises(KeyError):
        units.format_time(1.0, "ms")  # no unit without its rule


def decimals(cell: str) -> int:
    number = re.fullmatch(r"-?[0-9]+(?:\.([0-9]+))?[*! ]?", cell.strip())
    assert number, cell
    return len(number[1] or "")


def test_cellstats_coll_cluster_and_pingpong_print_a_time_the_same_way(tmp_path, monkeypatch):
    """The same unit, the same decimals: ns with TIME_DECIMALS["ns"], us with ["us"], whichever
    command prints them; each cell is the JSON's value through `format_time`."""
    monkeypatch.chdir(tmp_path)
    ns, us = units.TIME_DECIMALS["ns"], units.TIME_DECIMALS["us"]
    stats = run_cli("stats", "-f", "dmaget", "-n", "2", "-b", "1k", "-i", "2").stdout
    cells = [line.split()[1] for line in stats.splitlines()[2:5]]
    assert [decimals(c) for c in cells] == [ns, ns, ns], stats
    measured = json.loads(
        run_cli("stats", "-f", "dmaget", "-n", "2", "-b", "1k", "-i", "2", "--json").stdout
    )
    assert cells[-1] == units.format_time(measured["latency_ns"], "ns")
    assert re.search(rf"simulated [0-9]+\.[0-9]{{{us}}} us", stats), stats

    ping = run_cli("pingpong", "--sizes", "0,1k", "--iterations", "2").stdout.splitlines()
    rows = json.loads(run_cli("pingpong", "--sizes", "0,1k", "--iterations", "2", "--json").stdout)
    assert [line.split()[3] for line in ping[2:]] == [
        units.format_time(r["latency_us"], "us") for r in rows
    ]
    cluster = run_cli("cluster", "broadcast", "--sizes", "1k").stdout.splitlines()
    assert decimals(cluster[2].split()[4]) == us, cluster

    small = run_cli("coll", "barrier", "-n", "4", "--algo", "barrier.rdb").stdout.splitlines()
    assert "latency (ns)" in small[0] and decimals(small[2].split()[-1]) == ns, small
    large = run_cli(
        "coll", "broadcast", "-n", "8", "--sizes", "64k", "--algo", "broadcast.ota", "--force"
    ).stdout.splitlines()
    assert "latency (us)" in large[0] and decimals(large[2].split()[-1]) == us, large


def test_a_table_too_wide_is_split_into_blocks_of_whole_columns():
    header = ("size", *(f"algorithm-{k}" for k in range(9)))
    rows = [("1 KiB", *(f"{1000 + k}.5*" for k in range(9))), ("64 KiB", *("-",) * 9)]
    text = column_blocks(header, rows, right=set(range(10)), width=40)
    blocks = text.split("\n\n")
    assert len(blocks) > 1 and max(map(len, text.splitlines())) <= 40, text
    # Each block starts with the key column, and every name and value is whole, once.
    names = []
    for block in blocks:
        lines = block.splitlines()
        assert lines[0].split()[0] == "size" and [line.split()[0] for line in lines[1:]] == [
            "1",
            "64",
        ]
        names += lines[0].split()[1:]
    assert names == list(header[1:])
    assert text.count("1008.5*") == 1
    # A table that fits is the one table.
    assert "\n\n" not in column_blocks(header[:3], [r[:3] for r in rows], set(), width=80)


def test_thirteen_all_reduce_algorithms_read_at_80_columns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    done = run_cli("coll", "allreduce", "-n", "8", "--sizes", "1k")
    assert done.returncode == 0, done.stderr
    assert max(map(len, done.stdout.splitlines())) <= 80, done.stdout
    table = done.stdout.split("\n", 2)[2].split("\n(")[0]
    headers = [block.splitlines()[0].split() for block in table.split("\n\n")]
    algorithms = json.loads(
        (tmp_path / "out" / "coll-allreduce-8" / "coll-allreduce-8.json").read_text()
    )
    names = list(dict.fromkeys(r["algorithm"].split(".", 1)[1] for r in algorithms["results"]))
    assert len(names) >= 9 and len(headers) > 1
    assert all(h[0] == "size" for h in headers)
    assert [n for h in headers for n in h[1:]] == names


def test_affinity_run_names_size_when_the_core_refuses_it(tmp_path):
    line = usage_error(
        "affinity", "run", "--pattern", "ring", "--size", "3", "--out", str(tmp_path / "a")
    )
    assert line.startswith("cellblade: error: --size 3 is not allowed: "), line
    assert line.rstrip().endswith("sizes must be multiples of 16"), line
    # `affinity search` builds the pattern the same way.
    line = usage_error("affinity", "search", "--pattern", "ring", "--size", "3")
    assert line.startswith("cellblade: error: --size 3 is not allowed: "), line


def test_mpirun_help_says_what_a_named_placement_does_with_fewer_ranks():
    from cellblade.cli.common import NAMED_PLACEMENT

    done = run_cli("mpirun", "--help")
    assert "fewer ranks take its first ones" in " ".join(done.stdout.split())
    assert "8 or 16 ranks" not in " ".join(done.stdout.split())
    assert "fewer ranks take its first ones" in NAMED_PLACEMENT


def test_mpirun_runs_a_named_placement_of_two_ranks_on_its_first_two_spes(build, tmp_path):
    """The core gives a name a meaning for any rank count (evenodd's first two ranks are on SPEs
    0 and 4): mpirun runs it so, the same job as `--placement 0,4`, not rank i on SPE i."""
    program = build("sendrecv_basic")

    def simulated(*placement: str) -> float:
        out = tmp_path / "-".join(placement or ("none",)).replace(",", "_")
        done = run_cli("mpirun", "-n", "2", *placement, "--out", str(out), program)
        assert done.returncode == 0, done.stderr
        return json.loads((out / "result.json").read_text())["simulated_ns"]

    named = simulated("--placement", "evenodd")
    assert named == simulated("--placement", "0,4")
    assert named != simulated()


def test_a_narrowed_table_wraps_between_words_and_never_inside_a_name():
    from cellblade.cli.common import table

    rows = [("barrier.two_root_signal", "seed 002 §5.2", "a signal root per half, then release")]
    text = table(("algorithm", "source", "description"), rows, right=set(), width=50)
    assert max(map(len, text.splitlines())) <= 50, text
    assert "barrier.two_root_signal" in text and "§5.2" in text, text
    # Only words are wrapped: each line's pieces are whole words of the cells.
    words = {w for row in rows for cell in row for w in cell.split()} | {
        "algorithm",
        "source",
        "description",
    }
    assert set(text.split()) <= words, text


def test_coll_list_reads_at_80_columns(monkeypatch):
    import cellblade

    monkeypatch.setenv("COLUMNS", "80")
    done = run_cli("coll", "list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= 80, done.stdout
    # Every name whole at the start of its row, its description under it.
    names = [line.split()[0] for line in lines[1:] if not line.startswith(" ")]
    assert names == [a["name"] for a in cellblade.coll_list()]


@pytest.mark.parametrize(
    "args",
    [
        ("model", "measure", "--out", "params.toml"),
        ("coll", "allreduce", "-n", "2", "--out", "result.json"),
    ],
)
def test_an_output_directory_named_like_one_of_its_files_is_refused(args, tmp_path, monkeypatch):
    """`model measure --out params.toml` made a directory called params.toml after a 4 s run."""
    monkeypatch.chdir(tmp_path)
    line = usage_error(*args)
    assert line.startswith(f"cellblade: error: --out {args[-1]}: names a file, but --out is "), line
    assert line.rstrip().endswith("give a directory name"), line
    assert list(tmp_path.iterdir()) == []
    # An existing directory of that name is the user's choice, and is written into.
    (tmp_path / "keep.json").mkdir()
    done = run_cli("coll", "allreduce", "-n", "2", "--sizes", "16", "--out", "keep.json")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "keep.json" / "coll-allreduce-2.json").is_file()


def test_mpicc_help_fits_the_terminal_and_a_missing_argument_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    done = run_cli("mpicc", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: cellblade mpicc")
    assert max(map(len, done.stdout.splitlines())) <= 80, done.stdout
    assert "--show" in done.stdout and "cellblade mpirun -n 4 ./ring" in done.stdout
    line = usage_error("mpicc")
    assert line.startswith("cellblade: error: COMPILER-ARGUMENTS: none given"), line


def test_an_spe_count_out_of_range_says_what_is_allowed_in_one_form():
    for args in (("coll", "allreduce", "-n", "17"), ("stats", "-f", "dmaget", "-n", "0")):
        assert "allowed 1 to 16 SPEs" in usage_error(*args)


def test_every_command_of_the_main_help_has_its_line_beside_it(monkeypatch):
    """argparse measured the command names one indent short: `calibrate` and `reproduce` sat
    on lines of their own, their help under them."""
    from cellblade.cli.base import COMMANDS

    monkeypatch.setenv("COLUMNS", "80")
    lines = run_cli("--help").stdout.splitlines()
    for name, (_, help_line) in COMMANDS.items():
        row = next(line for line in lines if line.split()[:1] == [name])
        assert row.split(None, 1)[1].startswith(help_line.split()[0]), row


def test_a_placement_list_is_named_as_the_user_typed_it():
    line = usage_error("coll", "allreduce", "-n", "8", "--placement", "0,0")
    assert line.startswith("cellblade: error: --placement 0,0 is not allowed: one SPE per rank"), (
        line
    )


def test_a_parameter_file_error_names_the_file_in_cluster_as_in_model(tmp_path):
    bad = tmp_path / "params.toml"
    bad.write_text("not toml\n")
    for args in (("cluster", "barrier"), ("model", "predict", "barrier", "-n", "8")):
        line = usage_error(*args, "--params", str(bad))
        assert line.startswith(
            f"cellblade: error: --params {bad}: model parameters do not parse at line 1: "
        ), line


@pytest.mark.parametrize("action", ["show", "draw"])
def test_a_generator_file_without_its_function_says_how_to_name_one(action):
    line = usage_error("coll", action, "mine.py", "-n", "4")
    assert line == (
        "cellblade: error: NAME mine.py: a schedule generator is named FILE.py:FUNCTION, "
        "such as mine.py:ring\n"
    )
