"""The Python API and the other commands against the real core."""

import json

import pytest
from conftest import run_cli, usage_error

import cellblade

tomllib = pytest.importorskip("tomllib")


def test_exceptions_form_one_hierarchy():
    for error in (cellblade.ConfigError, cellblade.ProgramError, cellblade.DeadlockError):
        assert issubclass(error, cellblade.CellbladeError)
    assert issubclass(cellblade.CellbladeError, Exception)


@pytest.mark.parametrize("name", ["qs20", "qs22"])
def test_presets_are_machine_files(name):
    assert tomllib.loads(cellblade.preset(name))


def test_unknown_preset_is_a_config_error_naming_it():
    with pytest.raises(cellblade.ConfigError, match="qs99"):
        cellblade.preset("qs99")


def _without_wall_clock(result):
    sim = {
        key: value
        for key, value in result["sim"].items()
        if key == "simulated_ns" or key == "events"
    }
    return dict(result, sim=sim)


def test_same_inputs_same_result_and_a_copied_preset_is_the_preset(tmp_path):
    machine = tmp_path / "qs20.toml"
    machine.write_text(cellblade.preset("qs20"))
    runs = [
        cellblade.run_stats("dmaget", spes=2, size=4096, iterations=5, machine=m)
        for m in ("qs20", "qs20", machine)
    ]
    assert _without_wall_clock(runs[0]) == _without_wall_clock(runs[1])
    assert runs[2]["latency_ns"] == runs[0]["latency_ns"]


def test_calibrate_json_lists_the_points():
    done = run_cli("calibrate", "--json")
    assert done.returncode == 0, done.stderr
    points = json.loads(done.stdout)
    assert points
    keys = {
        "name",
        "source",
        "published",
        "simulated",
        "unit",
        "error",
        "fitted",
        "kind",
        "holds",
        "same_as",
        "note",
        "without_contention",
        "depends_on_draws",
    }
    assert all(set(point) == keys for point in points)
    # A row held under some of the arbiter's draw seeds only does not hold, and says so.
    for point in points:
        if point["depends_on_draws"]:
            assert not point["holds"] and "draw seeds of the arbiter" in point["note"], point
    # Every row is also judged on the blade without contention.
    assert all(isinstance(point["without_contention"], bool) for point in points)
    # Every published value is cited; the error is the signed relative difference, or for a
    # bandwidth loss the difference in points.
    for p in points:
        assert p["source"].startswith("seed 00"), p
        diff = p["simulated"] - p["published"]
        assert abs(p["error"] - (diff if p["kind"] == "loss" else diff / p["published"])) < 1e-9
    distinct = [p for p in points if not p["same_as"]]
    assert 2 * sum(p["fitted"] for p in distinct) <= len(distinct)


def test_calibrate_table_ends_with_the_summary():
    done = run_cli("calibrate")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split()[:3] == ["name", "published", "source"]
    # The summary is wrapped to the terminal's width: read it as words.
    summary = " ".join(done.stdout.split()).rpartition("distinct rows")[2]
    assert (
        " hold (values within 10%, under a published bound, or losses within 2.5 points): fitted "
        in summary
    )
    assert summary.endswith("explains each row that does not hold")


def test_leave_one_out_refits_on_each_other_row_of_the_group():
    done = run_cli("calibrate", "--leave-one-out", "--parameter", "ppe.syscall_ns", "--json")
    assert done.returncode == 0, done.stderr
    (refit,) = json.loads(done.stdout)
    assert refit["parameter"] == "ppe.syscall_ns"
    assert refit["fitted_on"] == "PPE-SPE mailbox via library call"
    assert refit["refit_on"] == "PPE-SPE signal via library call"
    rows = {row["name"]: row for row in refit["rows"]}
    # Refitted on the signal row, the value reproduces that row within its 10%.
    again = rows[refit["refit_on"]]
    assert again["refit_holds"] is True
    assert abs(again["refit_simulated"] / again["published"] - 1) <= 0.10
    assert refit["refit_value"] != refit["value"]
    # The table reads the same refits.
    table = run_cli("calibrate", "--leave-one-out", "--parameter", "ppe.syscall_ns")
    assert table.returncode == 0, table.stderr
    assert "1 refit of 1 fitted parameter;" in " ".join(table.stdout.split())


def test_leave_one_out_refuses_an_unknown_parameter_and_parameter_alone():
    # The core's field "parameters" is named as the flag that set it.
    assert "--parameter eib.nope is not allowed: one of eib.command_phase_bus_cycles" in (
        usage_error("calibrate", "--leave-one-out", "--parameter", "eib.nope")
    )
    assert "--parameter is allowed only with --leave-one-out" in usage_error(
        "calibrate", "--parameter", "ppe.mmio_ns"
    )


def test_bench_quick_json():
    done = run_cli("bench", "--quick", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["packets_per_second"] > 0
    assert result["build"] in {"release", "release, native"}
    assert all(
        set(w) == {"name", "wall_s", "simulated_ns", "packets", "events"}
        for w in result["workloads"]
    )
    assert result["affinity_search"]["evaluated"] > 0 and result["affinity_search"]["wall_s"] > 0
    # The waiting workloads: two polling all-reduces and the MPI loop, each with its figures.
    waiting = result["waiting"]
    assert [w["name"].split(" ")[0] for w in waiting] == ["16-SPE", "16-SPE", "16-rank"]
    # The SDK program's channel operations, each workload with one SPE and with 16.
    sdk = result["sdk"]["rows"]
    assert [(r["workload"], r["spes"]) for r in sdk] == [
        ("dma", 1),
        ("dma", 16),
        ("mailbox", 1),
        ("mailbox", 16),
    ]
    for w in waiting:
        assert w["events"] > 0 and w["simulated_us"] > 0 and w["peak_rss_kib"] > 0
        assert w["events_per_simulated_us"] == pytest.approx(w["events"] / w["simulated_us"])
