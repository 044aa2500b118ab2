"""Sweeps on several threads and on a Dask cluster give the bytes one core gives, in order;
cells the core refuses are marked and the rest goes on."""

from __future__ import annotations

import csv
import fcntl
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import termios
import threading
import time

import pytest
from conftest import run_cli, usage_error
from hypothesis import given, settings
from hypothesis import strategies as st

import cellblade
from cellblade import parallel, splits, sweep

SMALL_SWEEP = {"spe_counts": (1, 2), "iterations": 3, "warmup": 1}


def _stats_calls() -> list[parallel.Call]:
    return sweep.calls("dmaget", **SMALL_SWEEP)


def _sweep_bytes(**where) -> str:
    """A small sweep's rows as JSON (the rows leave out wall-clock figures, which differ)."""
    return json.dumps(sweep.run("dmaget", **SMALL_SWEEP, **where).rows)


def test_threads_give_the_bytes_and_order_of_one_core():
    one = _sweep_bytes(jobs=1)
    assert _sweep_bytes(jobs=2) == one
    assert _sweep_bytes(jobs=5) == one
    rows = json.loads(one)
    assert [(r["spes"], r["size_bytes"]) for r in rows] == [
        (c.kwargs["spes"], c.kwargs["size"]) for c in _stats_calls()
    ]


def test_a_refused_call_is_marked_and_the_others_run():
    calls = [
        parallel.Call("run_stats", {"function": "dmaget", "spes": 1, "size": 64, "iterations": 2}),
        parallel.Call("run_stats", {"function": "nosuch"}),
        parallel.Call("run_stats", {"function": "dmaget", "spes": 2, "size": 64, "iterations": 2}),
    ]
    first, refused, last = parallel.run(calls, jobs=2)
    assert first["spes"] == 1 and last["spes"] == 2
    assert isinstance(refused, parallel.Failed) and refused.kind == "ConfigError"
    with pytest.raises(cellblade.ConfigError) as error:
        cellblade.run_stats("nosuch")
    assert refused.message == str(error.value)
    assert isinstance(refused.error(), cellblade.ConfigError)


def test_only_public_functions_and_positive_jobs():
    with pytest.raises(ValueError, match="'_call' is not a public cellblade function"):
        parallel.run([parallel.Call("_call", {})])
    with pytest.raises(ValueError, match="jobs 0 is not allowed: at least 1"):
        parallel.run(_stats_calls(), jobs=0)


def test_scheduler_comes_from_the_flag_then_the_environment(monkeypatch):
    monkeypatch.setenv(parallel.SCHEDULER_VARIABLE, "tcp://10.0.0.1:8786")
    assert parallel.scheduler_address(None) == "tcp://10.0.0.1:8786"
    assert parallel.scheduler_address("tcp://h:1") == "tcp://h:1"
    monkeypatch.delenv(parallel.SCHEDULER_VARIABLE)
    assert parallel.scheduler_address(None) is None


def test_reproduce_by_claim_group_is_reproduce_whole():
    groups = cellblade.reproduce_groups()
    assert groups == ["affinity", "barriers", "broadcasts", "reductions", "model", "mpi"]
    assert groups == cellblade.CATALOG["reproduce_groups"]
    calls = [parallel.Call("reproduce", {"quick": True, "claims": [g]}) for g in groups]
    split = [claim for claims in parallel.run(calls, jobs=2) for claim in claims]
    assert json.dumps(split) == json.dumps(cellblade.reproduce(quick=True))


def test_reproduce_gives_the_same_claims_on_any_number_of_threads():
    groups = ["affinity", "broadcasts", "model"]
    one = json.dumps(cellblade.reproduce(quick=True, claims=groups, jobs=1))
    assert json.dumps(cellblade.reproduce(quick=True, claims=groups, jobs=3)) == one
    with pytest.raises(cellblade.ConfigError, match="jobs 0 is not allowed: at least 1"):
        cellblade.reproduce(quick=True, claims=[], jobs=0)


def test_on_a_cluster_the_groups_asked_for_go_one_a_task_and_a_bad_list_goes_whole():
    where = {"scheduler": "tcp://h:1"}
    calls, _ = splits._reproduce_calls(True, {}, where, ["mpi", "barriers"])
    assert [c.kwargs["claims"] for c in calls] == [["barriers"], ["mpi"]]
    for bad in (["mpi", "nope"], []):
        calls, _ = splits._reproduce_calls(True, {}, where, bad)
        assert [c.kwargs["claims"] for c in calls] == [bad]
    with pytest.raises(cellblade.ConfigError, match="claims \\[\\] is not allowed: one or more of"):
        cellblade.reproduce(quick=True, claims=[])


def test_reproduce_reports_its_work_while_it_runs_and_takes_it_back_at_the_end():
    assert cellblade.progress() == (0, 0)
    seen = []
    worker = threading.Thread(
        target=cellblade.reproduce, kwargs={"quick": True, "claims": ["reductions"]}
    )
    worker.start()
    while worker.is_alive():
        seen.append(cellblade.progress())
        time.sleep(0.002)
    worker.join()
    running = [(done, total) for done, total in seen if total]
    assert running, "a run of about a second was never seen"
    assert len({total for _, total in running}) == 1, "the total is fixed when the run starts"
    assert all(done <= total for done, total in running)
    assert [done for done, _ in running] == sorted(done for done, _ in running)
    assert cellblade.progress() == (0, 0)


def test_an_unknown_claim_group_names_the_known_ones():
    with pytest.raises(cellblade.ConfigError) as error:
        cellblade.reproduce(quick=True, claims=["nope"])
    assert str(error.value) == (
        "claims nope is not allowed: one of affinity, barriers, broadcasts, reductions, model, mpi"
    )
    assert error.value.field == "claims"


def test_coll_cells_are_the_rows_of_one_call(tmp_path):
    done = run_cli(
        "coll",
        "allgather",
        "-n",
        "4",
        "--sizes",
        "64,256",
        "--algos",
        "rdb,bruck",
        "--iterations",
        "2",
        "--json",
        "--jobs",
        "2",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    whole = cellblade.coll_run(
        "allgather",
        spes=4,
        sizes=[64, 256],
        iterations=2,
        algorithms=["allgather.rdb", "allgather.bruck"],
    )
    assert done.stdout == json.dumps(whole) + "\n"


def test_affinity_placements_are_the_rows_of_one_call(tmp_path):
    done = run_cli(
        "affinity",
        "run",
        "--pattern",
        "rd1",
        "--placements",
        "evenodd,default",
        "--trials",
        "2",
        "--json",
        "--jobs",
        "2",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    whole = cellblade.affinity_run("rd1", ["evenodd", "default"], trials=2)
    assert done.stdout == json.dumps(whole) + "\n"


def test_cells_that_do_not_fit_are_marked_and_the_sweep_goes_on(tmp_path):
    done = run_cli(
        "coll",
        "allreduce",
        "-n",
        "16",
        "--sizes",
        "64k,128k",
        "--algos",
        "rdb",
        "--iterations",
        "1",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    with pytest.raises(cellblade.ProgramError) as error:
        cellblade.coll_run(
            "allreduce", spes=16, sizes=[131072], algorithms=["allreduce.rdb"], iterations=1
        )
    reason = str(error.value)
    assert "needs 263168 bytes, the local store has 262144" in reason
    lines = done.stdout.splitlines()
    assert lines[3].split() == ["128", "KiB", "[1]"] and f"[1] {reason}" in lines
    document = json.loads((tmp_path / "coll-allreduce-16.json").read_text())
    fits, refused = document["results"]
    assert fits["latency_ns"] > 0 and "error" not in fits
    assert refused == {
        "op": "allreduce",
        "spes": 16,
        "size_bytes": 131072,
        "algorithm": "allreduce.rdb",
        "latency_ns": None,
        "verified": None,
        "error": reason,
    }
    with (tmp_path / "coll-allreduce-16.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert rows[0]["error"] == "" and rows[1]["error"] == reason
    assert (tmp_path / "coll-allreduce-16.png").stat().st_size > 0


def test_a_sweep_with_nothing_runnable_fails_with_the_reason(tmp_path):
    done = run_cli(
        "coll",
        "allreduce",
        "-n",
        "16",
        "--sizes",
        "128k",
        "--algos",
        "rdb",
        "--iterations",
        "1",
        "--out",
        str(tmp_path / "out"),
    )
    assert done.returncode == 1
    assert done.stderr.startswith(
        "cellblade: error: allreduce.rdb: does not fit: needs 263168 bytes"
    )
    assert not (tmp_path / "out").exists()


def test_on_a_pipe_progress_is_a_line_per_finished_stage(tmp_path):
    done = run_cli("stats", "-f", "dmaget", "--sweep", "-i", "2", "-w", "1", "--out", str(tmp_path))
    assert done.returncode == 0
    stage = re.compile(r"dmaget sweep: \d+/\d+ done, \d+\.\d s")
    assert all(stage.fullmatch(line) for line in done.stderr.splitlines()), done.stderr
    done = run_cli("reproduce", "--quick", "--jobs", "2")
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    # The run takes longer than two seconds: at least its last stage is reported, no bar.
    # Locally the claims are one call of the core, which runs its pieces on --jobs threads.
    assert lines and lines[-1].startswith("reproducing claims: 1/1 done, "), done.stderr
    assert "\r" not in done.stderr


def test_progress_on_a_terminal_but_not_with_json(tmp_path):
    def stderr_on_a_tty(*args: str) -> str:
        leader, follower = os.openpty()
        # A terminal of 80 columns: tqdm draws nothing on one of 0 (a new pty's size).
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        child = subprocess.Popen(
            [sys.executable, "-m", "cellblade.cli", *args],
            stderr=follower,
            stdout=subprocess.DEVNULL,
        )
        os.close(follower)
        text = b""
        try:
            while chunk := os.read(leader, 65536):  # EIO once the child has closed the terminal
                text += chunk
        except OSError:
            pass
        os.close(leader)
        assert child.wait(timeout=300) == 0
        return text.decode(errors="replace")

    sweep_args = (
        "stats",
        "-f",
        "dmaget",
        "--sweep",
        "-i",
        "2",
        "-w",
        "1",
        "--out",
        str(tmp_path),
        "--force",
    )
    assert "dmaget sweep" in stderr_on_a_tty(*sweep_args)
    assert stderr_on_a_tty(*sweep_args, "--json") == ""


def test_dask_cluster_gives_the_bytes_of_one_core():
    distributed = pytest.importorskip("distributed")
    one = _sweep_bytes(jobs=1)
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        assert _sweep_bytes(scheduler=cluster.scheduler_address) == one
        refused = parallel.run(
            [parallel.Call("run_stats", {"function": "nosuch"})],
            scheduler=cluster.scheduler_address,
        )
        assert refused == parallel.run([parallel.Call("run_stats", {"function": "nosuch"})])


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    done = run_cli(
        "stats",
        "-f",
        "dmaget",
        "--sweep",
        "-i",
        "2",
        "--out",
        str(tmp_path),
        "--scheduler",
        "tcp://127.0.0.1:9",
    )
    assert done.returncode == 2
    assert done.stderr.startswith("cellblade: error: scheduler tcp://127.0.0.1:9: cannot connect")
    assert done.stderr.count("\n") == 1


def test_a_stats_sweep_marks_refused_points_in_every_output(monkeypatch, tmp_path):
    def run_stats(request, machine=None):
        if request["spes"] == 2 and request["size"] == 32:
            raise cellblade.ProgramError("does not fit: needs 300000 bytes")
        return {
            "result": {
                "latency_ns": 10.0,
                "aggregate_bandwidth_gbps": 1.0,
                "sim": {"simulated_ns": 5.0, "events": 3},
            },
            "machine_toml": "m\n",
        }

    monkeypatch.setattr(cellblade._core, "run_stats", run_stats)
    result = sweep.run("dmaget", spe_counts=(1, 2), jobs=2)
    refused = [row for row in result.rows if row["error"]]
    assert refused == [
        {
            "spes": 2,
            "size_bytes": 32,
            "list_elements": None,
            "latency_ns": None,
            "aggregate_bandwidth_gbps": None,
            "simulated_ns": None,
            "events": None,
            "error": "does not fit: needs 300000 bytes",
        }
    ]
    assert len(result.rows) == 2 * len(sweep.DMA_SIZES) and result.machine_toml == "m\n"
    paths = sweep.write(result, tmp_path)
    with paths[0].open() as file:
        rows = list(csv.DictReader(file))
    assert [row["error"] for row in rows if row["error"]] == ["does not fit: needs 300000 bytes"]
    assert json.loads(paths[1].read_text())["rows"] == result.rows
    assert paths[2].read_bytes()[:4] == b"\x89PNG"


def test_a_stats_sweep_with_no_point_that_runs_fails_with_the_reason(monkeypatch):
    def run_stats(request, machine=None):
        raise cellblade.ProgramError("does not fit: needs 300000 bytes")

    monkeypatch.setattr(cellblade._core, "run_stats", run_stats)
    with pytest.raises(cellblade.ProgramError, match="^does not fit: needs 300000 bytes$"):
        sweep.run("dmaget", spe_counts=(1,), jobs=2)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--jobs", "0"), "argument --jobs: invalid value '0': allowed 1 or more"),
        (
            ("--jobs", "2", "--scheduler", "tcp://h:1"),
            "argument --scheduler: not allowed with argument --jobs",
        ),
    ],
)
def test_bad_parallel_flags_are_bad_usage(args, message):
    assert usage_error("coll", "barrier", *args) == f"cellblade: error: {message}\n"


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 1 << 20), max_size=12),
    jobs=st.integers(1, 6),
    refused=st.sets(st.integers(0, 11)),
)
def test_results_keep_the_order_of_the_calls_whatever_finishes_first(sizes, jobs, refused):
    """A fake core that answers later for smaller sizes, refusing some: results still come
    back in call order, refusals in their places."""
    import time as clock

    def run_stats(request, machine=None):
        clock.sleep(0.002 * (1 - request["size"] / (1 << 20)))
        if request["seed"] in refused:
            raise cellblade.ProgramError(f"refused {request['seed']}")
        return {"result": {"size": request["size"]}, "machine_toml": None}

    original = cellblade._core.run_stats
    cellblade._core.run_stats = run_stats
    try:
        calls = [
            parallel.Call("run_stats", {"function": "dmaget", "size": size, "seed": i})
            for i, size in enumerate(sizes)
        ]
        results = parallel.run(calls, jobs=jobs)
    finally:
        cellblade._core.run_stats = original
    assert results == [
        parallel.Failed("ProgramError", f"refused {i}") if i in refused else {"size": size}
        for i, size in enumerate(sizes)
    ]


def test_the_environment_names_the_cluster_unless_jobs_is_given(monkeypatch, tmp_path):
    monkeypatch.setenv(parallel.SCHEDULER_VARIABLE, "tcp://127.0.0.1:9")
    args = ("coll", "barrier", "-n", "2", "--iterations", "1", "--algos", "rdb", "--json")
    done = run_cli(*args, "--out", str(tmp_path / "a"))
    assert done.returncode == 2
    assert done.stderr.startswith("cellblade: error: scheduler tcp://127.0.0.1:9: cannot connect")
    done = run_cli(*args, "--jobs", "1", "--out", str(tmp_path / "b"))
    assert done.returncode == 0 and json.loads(done.stdout)[0]["algorithm"] == "barrier.rdb"


def test_the_bench_gives_the_same_claims_on_one_core_every_core_and_dask():
    pytest.importorskip("distributed")
    side = splits.reproduce_speedup(quick=True, progress=False, repeats=2)
    assert side["identical"] and side["groups"] == len(cellblade.reproduce_groups())
    assert {name: len(times) for name, times in side["wall_s"].items()} == {
        "one_core": 2,
        "all_cores": 2,
        "dask": 2,
    }
    assert side["one_core_s"] == statistics.median(side["wall_s"]["one_core"])
