"""`cellblade model measure|predict|validate` and `coll OP --algos auto` (seed 003's model),
through the command line and the Python API, against the real core."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from conftest import run_cli, usage_error

import cellblade
from cellblade import _core, model, parallel


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Measured parameters are cached in a directory of the tests', not the user's."""
    path = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(model.CACHE_ENV, str(path))
        yield path


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """A small real measurement: two sizes, as many iterations as `reproduce` measures with
    (the free-running butterfly needs them to settle into each SPE's own pace; seconds)."""
    out = tmp_path_factory.mktemp("model")
    done = run_cli(
        "model", "measure", "--sizes", "64,4k", "--iterations", "16", "--out", str(out), "--json"
    )
    assert done.returncode == 0, done.stderr
    return out, json.loads(done.stdout)


def test_measure_writes_parameters_and_the_congestion_rows(measured):
    out, params = measured
    for name in ("params.toml", "model-gap.png", "model-congestion.png", "machine.toml"):
        assert (out / name).stat().st_size > 0
    rows = params["congestion"]
    assert {r["bif_messages"] for r in rows} == {1, 2, 4, 6, 8, 10, 12, 14, 16}
    assert {r["size_bytes"] for r in rows} == {64, 4096}
    assert set(rows[0]) >= {"bif_messages", "size_bytes", "latency_ns", "excess_ns"}
    base = {r["size_bytes"]: r["latency_ns"] for r in rows if r["bif_messages"] == 2}
    at_once = {r["size_bytes"]: r["slowest_latency_ns"] for r in rows if r["bif_messages"] == 2}
    for r in rows:
        assert r["excess_ns"] == (
            0.0
            if r["bif_messages"] <= 2
            else pytest.approx(r["latency_ns"] - base[r["size_bytes"]])
        )
        assert r["slowest_excess_ns"] == (
            0.0
            if r["bif_messages"] <= 2
            else pytest.approx(r["slowest_latency_ns"] - at_once[r["size_bytes"]])
        )
    # The seed's loop (each SPE at its own pace) shows no congestion at 64 B; at 4 KB the
    # slowest of 16 messages issued at one instant waits longer than the loop's mean.
    at_64 = {r["bif_messages"]: r for r in rows if r["size_bytes"] == 64}
    assert at_64[16]["excess_ns"] < 0.02 * at_64[2]["latency_ns"]
    at_4k = {r["bif_messages"]: r for r in rows if r["size_bytes"] == 4096}
    assert at_4k[16]["slowest_excess_ns"] > at_4k[16]["excess_ns"] + 100
    # More BIF messages of 4 KB cost more (the seed's figure 8).
    at_4k = {r["bif_messages"]: r["latency_ns"] for r in rows if r["size_bytes"] == 4096}
    assert at_4k[16] > at_4k[4] > at_4k[2]
    assert params["l2_ack_ns"] > params["l1_ack_ns"]


def test_predict_prints_both_models_beside_the_simulation(measured):
    out, _ = measured
    done = run_cli(
        "model",
        "predict",
        "allreduce",
        "--algo",
        "rdb",
        "-n",
        "8",
        "--sizes",
        "64,1k",
        "--simulate",
        "--iterations",
        "2",
        "--params",
        str(out / "params.toml"),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [r["size_bytes"] for r in result["rows"]] == [64, 1024]
    for r in result["rows"]:
        assert r["algorithm"] == "allreduce.rdb"
        assert r["seed_source"] == "table 5, recursive doubling, one Cell"
        assert r["simulated_ns"] > 0
        assert r["schedule_error_pct"] == pytest.approx(
            100 * (r["schedule_ns"] - r["simulated_ns"]) / r["simulated_ns"]
        )
        assert abs(r["schedule_error_pct"]) < 15


def test_predict_table_names_algorithms_without_an_equation(measured):
    out, _ = measured
    done = run_cli(
        "model",
        "predict",
        "broadcast",
        "--algo",
        "all",
        "-n",
        "8",
        "--sizes",
        "1k",
        "--params",
        str(out / "params.toml"),
    )
    assert done.returncode == 0, done.stderr
    assert "broadcast.binomial_opt" in done.stdout
    assert "no seed equation: broadcast.kchains: seed 003 gives no equation for it\n" in done.stdout
    # The note is wrapped to the terminal: compared with its line breaks as spaces.
    assert (
        "no seed equation: broadcast.hybrid_segmented: the seed models it on two chips only "
        "(table 2, hybrid-seg-binomial-opt): more than 8 SPEs, got 8"
    ) in " ".join(done.stdout.split())


def test_predict_warns_when_it_extrapolates(measured):
    out, _ = measured
    done = run_cli(
        "model",
        "predict",
        "reduce",
        "--algo",
        "binomial",
        "--sizes",
        "16k",
        "--params",
        str(out / "params.toml"),
    )
    assert done.returncode == 0, done.stderr
    # On stderr, so that the table on stdout stays a table.
    assert done.stderr == (
        "warning: reduce.binomial at 16384 bytes: beyond the largest measured size "
        "(4096 bytes), extrapolated\n"
    )
    assert "warning" not in done.stdout


def test_bad_input_is_refused_with_its_reason(measured, tmp_path):
    out, _ = measured
    params = str(out / "params.toml")
    assert "argument OP: invalid choice: 'scatter'" in usage_error("model", "predict", "scatter")
    done = run_cli("model", "predict", "allreduce", "--algo", "nope", "--params", params)
    assert done.returncode == 2
    # Only the operation's own algorithms are offered.
    assert done.stderr.startswith(
        "cellblade: error: --algo allreduce.nope is not allowed: one of allreduce.rdb, "
    )
    assert "barrier." not in done.stderr and "allgather." not in done.stderr
    done = run_cli("model", "predict", "allreduce", "--algo", "rdb_mailbox", "--params", params)
    assert done.returncode == 2
    assert "the model is not defined for notifications via mailbox" in done.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text((out / "params.toml").read_text().replace("l1_ack_ns = ", "l1_ack_ns = -"))
    done = run_cli("model", "predict", "allreduce", "--params", str(bad))
    assert done.returncode == 2
    assert "is not allowed: a time of 0 ns or more" in done.stderr
    assert "l1_ack_ns" in done.stderr
    missing = tmp_path / "missing.toml"
    missing.write_text(
        "\n".join(
            line
            for line in (out / "params.toml").read_text().splitlines()
            if not line.startswith("g2_ns")
        )
    )
    done = run_cli("model", "predict", "allreduce", "--params", str(missing))
    assert done.stderr == (
        f"cellblade: error: --params {missing}: model parameters: missing field `g2_ns`\n"
    )
    negative = tmp_path / "negative.toml"
    negative.write_text(
        (out / "params.toml")
        .read_text()
        .replace("slowest_latency_ns = ", "slowest_latency_ns = -", 1)
    )
    done = run_cli("model", "predict", "allreduce", "--params", str(negative))
    assert done.returncode == 2
    assert done.stderr.startswith(f"cellblade: error: --params {negative}: model parameters: ")
    assert "slowest_latency_ns = -" in done.stderr
    assert "is not allowed: a time of 0 ns or more" in done.stderr
    assert "invalid value '0'" in usage_error("model", "measure", "--iterations", "0")


def test_a_python_schedule_gets_a_price(measured):
    out, _ = measured
    from cellblade.schedule import Schedule, copy

    def ring(spes, root, size):
        s = Schedule("allgather.ring", "allgather", spes, root, size)
        for k in range(spes - 1):
            s.round(copy(r, (r - 1) % spes, (r - k - 1) % spes * size, size) for r in range(spes))
        return s

    text = (out / "params.toml").read_text()
    four = model.price(ring, text, spes=4, size=1024)["latency_ns"]
    eight = model.price(ring, text, spes=8, size=1024)["latency_ns"]
    assert 0 < four < eight  # 3 rounds against 7
    across = model.price(ring, text, spes=4, size=1024, placement=[0, 1, 8, 9])["latency_ns"]
    assert across > four


def test_validation_scores_any_split_of_the_grid_alike(measured):
    out, _ = measured
    text = (out / "params.toml").read_text()
    points = model.grid(text)
    assert len(points) > 250
    assert {p["spes"] for p in points} == {8, 16}
    sample = points[:2]
    whole = model.simulate(sample, "qs20", iterations=2)
    parts = model.simulate(sample[:1], "qs20", iterations=2) + model.simulate(
        sample[1:], "qs20", iterations=2
    )
    assert whole == parts
    # The same points as a sweep (what `model validate --jobs/--scheduler` runs).
    calls = [
        parallel.Call("model.simulate", {"points": [p], "machine": "qs20", "iterations": 2})
        for p in sample
    ]
    assert [ns for part in parallel.run(calls, jobs=2) for ns in part] == whole
    with pytest.raises(ValueError, match="'model._answer' is not a public cellblade function"):
        parallel.run([parallel.Call("model._answer", {})])


def test_coll_auto_picks_a_modelled_algorithm_per_size_and_runs_it(cache):
    done = run_cli(
        "coll", "allreduce", "-n", "8", "--sizes", "64,16k", "--algos", "auto", "--iterations", "2"
    )
    assert done.returncode == 0, done.stderr
    # The measured parameters are cached in the cache directory, named by the machine's hash.
    cached = [path.name for path in cache.iterdir()]
    assert len(cached) == 1 and cached[0].startswith("params-"), cached
    picks = [line for line in done.stdout.splitlines() if line.startswith("auto: ")]
    assert len(picks) == 2
    assert all(" -> allreduce." in line for line in picks)
    assert "verified" in done.stdout and "NO" not in done.stdout
    # Above the largest measured size (32 KB) the prices are extrapolated: a warning says so.
    done = run_cli(
        "coll", "broadcast", "-n", "8", "--sizes", "48k", "--algos", "auto", "--iterations", "2"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "warning: broadcast at 49152 bytes: beyond the largest measured size (32768 bytes), "
        "the prices are extrapolated\n"
    )
    done = run_cli("coll", "allgather", "-n", "8", "--sizes", "32k", "--algos", "auto")
    assert done.stderr == (
        "cellblade: error: --sizes 32768 is not allowed: no modelled allgather algorithm takes it "
        "on 8 SPEs: each refuses the size or the SPE count, or its buffers pass three quarters of "
        "the local store\n"
    )


def test_a_placement_moves_the_prediction_and_the_choice(measured):
    out, _ = measured
    params = str(out / "params.toml")

    def schedule_ns(*placement: str) -> float:
        done = run_cli(
            "model",
            "predict",
            "allreduce",
            "--algo",
            "rdb",
            "-n",
            "4",
            "--sizes",
            "4k",
            "--params",
            params,
            *placement,
            "--json",
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["rows"][0]["schedule_ns"]

    # Ranks 0-1 and 2-3 on different chips: the last round crosses the BIF.
    assert schedule_ns("--placement", "0,1,8,9") > schedule_ns() + 300
    done = run_cli(
        "coll",
        "barrier",
        "-n",
        "16",
        "--algos",
        "auto",
        "--placement",
        "evenodd",
        "--iterations",
        "2",
    )
    assert done.returncode == 0, done.stderr
    assert "auto: barrier -> barrier." in done.stdout


def test_the_whole_grid_is_predicted_in_well_under_a_second(measured):
    out, _ = measured
    timing = model.time_grid((out / "params.toml").read_text())
    assert timing["points"] > 250
    assert 0 < timing["predict_s"] < 1.0


def test_validate_json_reports_the_schedule_price_at_the_top(measured, tmp_path):
    out, _ = measured
    done = run_cli(
        "model",
        "validate",
        "--params",
        str(out / "params.toml"),
        "--jobs",
        "2",
        "--out",
        str(tmp_path),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["model"] == "schedule price"
    assert report["points"] == 299 and report["seed_points"] == 425
    for key in (
        "within_5",
        "within_10",
        "within_15",
        "worst_error_pct",
        "auto_regret_worst_pct",
        "auto_regret_mean_pct",
    ):
        assert key in report
    assert report["within_5"] <= report["within_10"] <= report["within_15"] <= report["points"]
    assert report["seed_equations"]["within_10"] < report["within_10"]
    assert (tmp_path / "model-errors.png").stat().st_size > 0
    rows = json.loads((tmp_path / "validate.json").read_text())["rows"]
    assert len(rows) == 299


def test_model_requests_name_the_field_of_a_bad_value(measured):
    out, _ = measured
    text = (out / "params.toml").read_text()
    with pytest.raises(cellblade.ConfigError) as error:
        model.choose("allreduce", 8, 64, text, root=8)
    assert (error.value.field, str(error.value)) == ("root", "root 8 is not allowed: 0 to 7")
    with pytest.raises(cellblade.ConfigError) as error:
        model.predict("allreduce", text, spes=17)
    assert (error.value.field, str(error.value)) == ("spes", "spes 17 is not allowed: 1 to 16")
    with pytest.raises(cellblade.ConfigError) as error:
        _core.model_grid({"params_toml": text, "machine_toml": ""})
    assert error.value.field == "machine_toml"
    assert str(error.value).startswith("machine_toml is not a field of the model grid request")
    done = run_cli(
        "model",
        "predict",
        "allreduce",
        "--params",
        str(out / "params.toml"),
        "--dtype",
        "float32",
        "--sizes",
        "6",
    )
    assert done.stderr == (
        "cellblade: error: --sizes 6 is not allowed: a positive multiple of "
        "the element size (4 bytes)\n"
    )


def test_the_cache_is_written_whole_under_the_cache_directory(cache, monkeypatch, tmp_path):
    monkeypatch.setenv(model.CACHE_ENV, str(tmp_path / "mine"))
    assert model.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(model.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model.cache_dir() == tmp_path / "xdg" / "cellblade" / "model"
    target = tmp_path / "whole" / "params.toml"
    seen: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            if target.exists():
                seen.append(target.read_text(encoding="utf-8"))

    reader = threading.Thread(target=read)
    reader.start()
    texts = ["a" * 200_000, "b" * 200_000]
    for i in range(20):
        model._write_whole(target, texts[i % 2])
    stop.set()
    reader.join()
    assert set(seen) <= set(texts)
    assert os.listdir(target.parent) == ["params.toml"]
