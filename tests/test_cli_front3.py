"""The command line as a new user meets it (issue 23, third part): each usage error found by
trying every command by hand exits 2 with one line naming its flag, before anything runs; and
`cellblade machine` lists every machine-file key with its value, unit and source."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli, usage_error

import cellblade


@pytest.mark.parametrize(
    "args, words",
    [
        # A parameter file that cannot be read names --params (was exit 1, the path alone).
        (("model", "predict", "broadcast", "--params", "/nonexistent.toml"), ["--params"]),
        (("cluster", "broadcast", "--params", "/nonexistent.toml"), ["--params"]),
        # A program that does not exist is the user's to fix, named as PROGRAM (was exit 1).
        (("mpirun", "-n", "2", "/nonexistent/prog"), ["PROGRAM /nonexistent/prog", "mpicc"]),
        # A bad machine is refused before demo prints its title.
        (("demo", "--preset", "qs99"), ["qs99", "qs20, qs22"]),
        # A placement that repeats an SPE, and an unknown name for cellstats, name --placement.
        (("coll", "barrier", "-n", "2", "--placement", "0,0"), ["--placement repeats SPE 0"]),
        (("stats", "-f", "dmaget", "--placement", "zigzag"), ["--placement zigzag", "evenodd"]),
    ],
)
def test_usage_errors_name_their_flag_and_exit_2(args, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # any default output directory lands here, never in the tree
    line = usage_error(*args)
    for word in words:
        assert word in line, line


def test_an_unknown_algorithm_of_coll_lists_only_that_operations(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = usage_error("coll", "barrier", "--algo", "nosuch")
    assert "--algo barrier.nosuch is not allowed: one of barrier.rdb, " in line, line
    assert "broadcast." not in line and "allreduce." not in line, line


def test_machine_lists_every_key_with_value_unit_and_source():
    done = run_cli("machine", "--set", "ppe.mmio_ns=200")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["parameter", "value", "unit"]
    mmio = next(i for i, line in enumerate(lines) if line.startswith("ppe.mmio_ns "))
    assert lines[mmio].split() == ["ppe.mmio_ns", "200", "ns"]
    assert "fitted on the row 'PPE-SPE signal, SPE on chip 0'" in " ".join(
        line.strip() for line in lines[mmio + 1 : mmio + 3]
    )
    for declared in cellblade.CATALOG["machine_parameters"]:
        assert any(line.startswith(declared["key"] + " ") for line in lines), declared["key"]


def test_machine_json_joins_the_declarations_with_the_machine_files_values(tmp_path):
    done = run_cli("machine", "--preset", "qs22", "--json")
    assert done.returncode == 0, done.stderr
    found = {p["key"]: p for p in json.loads(done.stdout)}
    assert found["clock.decrementer_hz"]["value"] == 26666666
    assert found["eib.command_phase_bus_cycles"]["origin"] == "fitted"
    assert found["clock.core_mhz"] == {
        "key": "clock.core_mhz",
        "unit": "MHz",
        "what": "core clock of the PPE and the SPUs",
        "origin": "published",
        "source": "seed 002 §4.1",
        "value": 3200,
    }
    assert "unknown machine key 'ppe.nope'" in usage_error("machine", "--set", "ppe.nope=1")
