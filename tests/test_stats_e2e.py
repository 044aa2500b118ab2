"""`cellblade stats` against the real core."""

import csv
import json

import pytest
from conftest import run_cli

import cellblade

tomllib = pytest.importorskip("tomllib")

SUMMARY_KEYS = {
    "function",
    "spes",
    "size_bytes",
    "iterations",
    "latency_ns",
    "per_spe",
    "aggregate_bandwidth_gbps",
    "sim",
}
DMAGET = ["stats", "-f", "dmaget", "-n", "1", "-b", "16k", "-i", "10"]


def test_json_is_one_object_with_the_summary():
    done = run_cli(*DMAGET, "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    result = json.loads(done.stdout)
    assert set(result) == SUMMARY_KEYS
    assert (result["function"], result["spes"], result["size_bytes"]) == ("dmaget", 1, 16384)
    assert result["iterations"] == 10
    (spe,) = result["per_spe"]
    assert set(spe) == {"spe", "latency_ns", "bandwidth_gbps"}
    assert 0 < spe["latency_ns"] and 0 < spe["bandwidth_gbps"]
    assert {"simulated_ns", "events", "wall_s", "events_per_second"} <= set(result["sim"])


def test_table_has_one_line_per_spe_and_ends_with_the_simulator_figures():
    done = run_cli("stats", "-f", "dmaget", "-N", "4", "-b", "1k", "-i", "10")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["SPE", "latency", "(ns)", "bandwidth", "(GB/s)"]
    spes = [line.split()[0] for line in lines[2:6]]
    assert all(spe.isdigit() for spe in spes) and len(set(spes)) == 4
    assert lines[6].split()[0] == "all"
    assert len(lines) == 9
    assert lines[-1].startswith("sim: simulated ") and lines[-1].endswith(" s")


def test_out_writes_the_result_and_the_resolved_machine(tmp_path):
    done = run_cli(*DMAGET, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert SUMMARY_KEYS <= set(result)
    assert result["parameters"]["size"] == 16384
    assert tomllib.loads((tmp_path / "machine.toml").read_text())


def test_trace_is_chrome_json(tmp_path):
    trace = tmp_path / "trace.json"
    done = run_cli(*DMAGET, "--trace", str(trace))
    assert done.returncode == 0, done.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    assert all("ph" in event for event in events)
    timed = [event for event in events if event["ph"] != "M"]  # "M": metadata, no timestamp
    assert timed and all("ts" in event for event in timed)


def test_trace_streams_to_its_file_and_a_bad_path_fails_before_the_run(tmp_path):
    trace = tmp_path / "t.json"
    result = cellblade.run_stats("dmaget", spes=2, size=4096, iterations=5, trace=trace)
    assert result["trace_dropped_events"] == 0 and result["trace"] is None
    assert json.loads(trace.read_text())["otherData"] == {"dropped_events": 0}
    assert [path.name for path in tmp_path.iterdir()] == ["t.json"]
    # A path that cannot be written is refused before the 4e9 iterations start.
    with pytest.raises(cellblade.ConfigError, match="trace .*/nodir/t.json: cannot be written"):
        cellblade.run_stats("dmaget", iterations=4_000_000_000, trace=tmp_path / "nodir" / "t.json")
    # A run that fails after tracing for a while leaves no trace, whole or partial.
    slow = ["clock.decrementer_hz=1000000000", "mic.read_latency_ns=100000"]
    with pytest.raises(cellblade.ConfigError, match="longer than its 32-bit decrementer counts"):
        cellblade.run_stats(
            "dmaget", iterations=50_000, trace=tmp_path / "bad.json", overrides=slow
        )
    assert [path.name for path in tmp_path.iterdir()] == ["t.json"]


def test_unknown_machine_key_exits_2_naming_it():
    done = run_cli(*DMAGET, "--set", "nosuch.key=1")
    assert done.returncode == 2
    assert done.stderr.startswith("cellblade: error: ") and done.stderr.count("\n") == 1
    assert "nosuch.key" in done.stderr


def test_backtrace_only_when_asked():
    done = run_cli(*DMAGET, "--set", "nosuch.key=1", backtrace=True)
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "ConfigError" in done.stderr


def test_unknown_function_exits_2_naming_it():
    done = run_cli("stats", "-f", "nosuch", "-i", "1")
    assert done.returncode == 2
    assert "nosuch" in done.stderr and "Traceback" not in done.stderr


def test_sweep_writes_table_data_and_figure(tmp_path):
    done = run_cli("stats", "-f", "dmaget", "--sweep", "-i", "1", "-w", "0", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    with (tmp_path / "sweep.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 11 * 5
    assert {row["spes"] for row in rows} == {"1", "2", "4", "8", "16"}
    assert len(json.loads((tmp_path / "sweep.json").read_text())["rows"]) == 55
    assert (tmp_path / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    assert tomllib.loads((tmp_path / "machine.toml").read_text())


def test_a_placement_puts_thread_ranks_on_its_spes():
    done = run_cli(
        "stats",
        "-f",
        "dmaget",
        "-N",
        "4",
        "-b",
        "4k",
        "-i",
        "5",
        "--placement",
        "evenodd",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    assert [spe["spe"] for spe in json.loads(done.stdout)["per_spe"]] == [0, 2, 4, 6]
    done = run_cli("stats", "-f", "dmaget", "-n", "2", "--placement", "zigzag")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "cellblade: error: --placement zigzag is not allowed: one of identity,"
    )
