"""The front door's remaining gaps (issue 23, fourth part): an override is labelled as the
user's, a machine file can be had from an installed package (`cellblade machine --toml`), every
machine and placement-file error names the flag that brought it, mpirun takes a placement file
as cellstats and `affinity run` do, and leave-one-out verdicts are written from the run."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli, usage_error

from cellblade import cli, results
from cellblade.machine import machine_file, parameters


def test_an_overridden_value_is_labelled_as_set_by_the_user():
    done = run_cli("machine", "--set", "ppe.mmio_ns=200")
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())
    fitted_on = "fitted on the row 'PPE-SPE signal, SPE on chip 0'"
    # The row of the override says whose value it is, and what the file's own was and why.
    own = next(p for p in parameters("qs20") if p["key"] == "ppe.mmio_ns")["value"]
    mmio = flat[flat.index("ppe.mmio_ns 200 ns") :]
    assert mmio.split(" ppe.syscall_ns ")[0].endswith(
        f"set by the user (the machine file's {results.parameter_value(own)}: {fitted_on})"
    ), mmio
    # Keys not overridden keep their own source.
    assert "set by the user" not in flat.replace(mmio.split(" ppe.syscall_ns ")[0], "")
    found = {
        p["key"]: p
        for p in json.loads(run_cli("machine", "--set", "ppe.mmio_ns=200", "--json").stdout)
    }
    assert found["ppe.mmio_ns"]["origin"] == "set" and found["ppe.mmio_ns"]["value"] == 200
    assert found["ppe.mmio_ns"]["file"] == {
        "value": own,
        "origin": "fitted",
        "source": "PPE-SPE signal, SPE on chip 0",
    }
    assert found["ppe.syscall_ns"]["origin"] != "set" and "file" not in found["ppe.syscall_ns"]


def test_the_machine_file_from_an_installed_package_round_trips(tmp_path):
    done = run_cli("machine", "--preset", "qs22", "--toml")
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "mine.toml"
    copy.write_text(done.stdout)
    # The copy is the same machine: every key, the same value, read back with --machine.
    assert [p["value"] for p in parameters(copy)] == [p["value"] for p in parameters("qs22")]
    # Each key carries its unit and source as a comment, from the core's declaration.
    for p in parameters("qs22"):
        section, key = p["key"].split(".")
        line = next(
            line
            for line in done.stdout.split(f"[{section}]\n", 1)[1].splitlines()
            if line.startswith(f"{key} = ")
        )
        assert line.endswith(f"  # {p['unit']}; {results.parameter_source(p)}"), line
    # An override is in the file, and labelled as the user's.
    text = machine_file("qs20", ["bif.data_gbps=20"])
    assert "\ndata_gbps = 20.0  # GB/s; set by the user (the machine file's 13.6: " in text, text
    assert "not allowed with argument --toml" in usage_error("machine", "--toml", "--json")


@pytest.mark.parametrize(
    "args, start",
    [
        (
            ("--set", "bif.data_gbps=-1"),
            "--set bif.data_gbps=-1: machine key 'bif.data_gbps' = -1 ",
        ),
        (("--set", "ppe.nope=3"), "--set ppe.nope=3: unknown machine key 'ppe.nope'"),
        (("--set", "bif.data_gbps"), "--set bif.data_gbps: override 'bif.data_gbps' is not of"),
        (("--set", "eib.rings_per_direction=x"), "--set eib.rings_per_direction=x: machine key"),
        (("--preset", "qs99"), "--preset qs99: unknown machine preset 'qs99'"),
    ],
)
def test_a_machine_error_names_the_flag_that_brought_it(args, start):
    for command in (("machine",), ("stats", "-f", "signal", "-n", "1")):
        line = usage_error(*command, "--set", "ppe.mmio_ns=200", *args)
        assert line.startswith("cellblade: error: " + start), line


def test_an_error_in_a_machine_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(machine_file("qs20").replace("data_gbps = 13.6", "data_gbps = 200"))
    line = usage_error("machine", "--machine", str(bad), "--set", "ppe.mmio_ns=200")
    assert line.startswith(
        f"cellblade: error: --machine {bad}: machine key 'bif.data_gbps' = 200 "
    ), line
    bad.write_text("[bif]\nspeed = 1\n")
    line = usage_error("machine", "--machine", str(bad))
    assert line.startswith(
        f"cellblade: error: --machine {bad}: machine file key 'bif.speed' at line 2"
    ), line


def test_a_bad_placement_file_is_named_in_every_command_that_takes_one(tmp_path):
    bad = tmp_path / "placement.txt"
    bad.write_text("0 0\n1 0\n")
    expected = f"cellblade: error: --placement-file {bad}: placement repeats SPE 0"
    assert usage_error("stats", "-f", "signal", "-n", "2", "--placement-file", str(bad)).startswith(
        expected
    )
    assert usage_error("mpirun", "-n", "2", "--placement-file", str(bad), "/bin/true").startswith(
        expected
    )
    # Unreadable: refused before the program is looked for.
    line = usage_error(
        "mpirun", "-n", "2", "--placement-file", str(tmp_path / "no"), "/nonexistent"
    )
    assert line.startswith(
        f"cellblade: error: --placement-file {tmp_path / 'no'} cannot be read"
    ), line


def test_mpirun_takes_a_placement_file_as_cellstats_and_affinity_run_do():
    parser = cli.build_parser()
    args = parser.parse_args(["mpirun", "-n", "2", "--placement-file", "p.txt", "./prog"])
    assert str(args.placement_file) == "p.txt" and args.placement is None
    line = usage_error(
        "mpirun", "-n", "2", "--placement", "0,1", "--placement-file", "p", "/bin/true"
    )
    assert "--placement" in line and "--placement-file" in line
    from cellblade.cli.mpirun import MPIRUN_FLAGS

    assert MPIRUN_FLAGS["placement_file"] == "--placement-file"


def refit(on: str, value: float | None, holds: dict[str, bool]) -> dict:
    return {
        "parameter": "ppe.mmio_ns",
        "value": 181.0,
        "refit_on": on,
        "refit_value": value,
        "searched": [0.0, 2000.0],
        "rows": [{"name": name, "refit_holds": ok} for name, ok in holds.items()],
    }


def test_leave_one_out_verdicts_are_written_from_the_refits():
    refits = [
        refit("b", 189.0, {"a": True, "b": True, "c": True}),
        refit("c", 291.0156, {"a": False, "b": False, "c": True, "d": True}),
        refit("d", 250.0, {"a": False, "d": True}),
        refit("a", None, {"a": False, "b": True}),
    ]
    assert results.leave_one_out_verdicts(refits) == [
        "ppe.mmio_ns refit on 'b' (181 -> 189): every other row of the group holds.",
        "ppe.mmio_ns refit on 'c' (181 -> 291): 'd' holds; 'a' and 'b' do not.",
        "ppe.mmio_ns refit on 'd' (181 -> 250): no other row of the group holds.",
        "ppe.mmio_ns refit on 'a': no value from 0 to 2,000 meets that row.",
    ]


def test_the_calibrate_command_prints_the_verdicts(monkeypatch, capsys):
    refits = [refit("c", 291.0, {"a": False, "c": True})]
    for r in refits:
        r.update(fitted_on="a")
        for row in r["rows"]:
            row.update(published=1.0, simulated=1.0, unit="ns", refit_simulated=2.0, holds=True)
    from cellblade.cli import claims

    monkeypatch.setattr(claims, "with_progress", lambda *args, **kwargs: refits)
    assert cli.main(["calibrate", "--leave-one-out"]) == 0
    assert "ppe.mmio_ns refit on 'c' (181 -> 291): no other row of the group holds." in (
        " ".join(capsys.readouterr().out.split())
    )


def test_a_size_prints_the_same_way_in_every_table():
    """Bytes as `format_size` writes them (the coll, model and affinity tables' form), never
    "16384 B" in one command and a bare 1024 in another."""
    stats = run_cli("stats", "-f", "dmaget", "-n", "1", "-b", "16k", "-i", "2").stdout
    assert stats.startswith("dmaget: 1 SPE(s), 16 KiB, 2 iterations\n"), stats
    ping = run_cli("pingpong", "--sizes", "0,1k", "--iterations", "2").stdout.splitlines()
    assert ping[1].split() == ["size", "iterations", "latency", "(us)", "throughput", "(GB/s)"]
    assert [line.split()[:2] for line in ping[2:]] == [["0", "B"], ["1", "KiB"]]
    cluster = run_cli("cluster", "broadcast", "--sizes", "1k").stdout.splitlines()
    assert cluster[1].split()[:3] == ["blades", "SPEs", "size"]
    assert cluster[2].split()[2:4] == ["1", "KiB"], cluster


@pytest.mark.parametrize(
    "args",
    [
        ("calibrate",),  # seven columns: narrowed to 10 characters, no longer 12, they fit 80
        ("model", "predict", "allreduce", "-n", "8", "--sizes", "1k"),  # its notes wrapped
    ],
)
def test_output_fits_an_80_column_terminal(args, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    assert max(map(len, done.stdout.splitlines())) <= 80, done.stdout


def test_the_collective_tables_title_is_wrapped_to_the_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.chdir(tmp_path)  # its default output directory lands here
    done = run_cli("coll", "broadcast", "-n", "8", "--sizes", "1k", "--algo", "broadcast.cml")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "broadcast, 8 SPEs, int32, root 0, rank i on SPE i: latency",
        "(ns) of the slowest rank",
    ]
