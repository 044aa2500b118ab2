"""Every command's output files go through cellblade.outputs (issue 23): checked before the run,
not replaced without --force, symbolic links never followed, temporary files unpredictable and
removed when a run fails."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

from cellblade import outputs


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, one line naming each of `words`, and nothing run (no output on stdout)."""
    assert done.returncode == 2, done
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def test_mpirun_checks_its_trace_and_out_before_any_rank_starts(tmp_path):
    # The program does not exist: a check that came after the run would report that instead.
    program = str(tmp_path / "never-built")
    refused(run_cli("mpirun", "-n", "2", "--trace", str(tmp_path), program), "--trace", "directory")
    earlier = tmp_path / "run"
    earlier.mkdir()
    (earlier / "result.json").write_text("{}\n")
    refused(run_cli("mpirun", "-n", "2", "--out", str(earlier), program), "--out", "--force")
    assert (earlier / "result.json").read_text() == "{}\n"


def test_pingpong_plot_is_checked_before_the_run(tmp_path):
    refused(
        run_cli("pingpong", "--sizes", "0", "--plot", str(tmp_path / "fig.txt")), "--plot", ".png"
    )
    earlier = tmp_path / "fig.png"
    earlier.write_bytes(b"mine")
    refused(run_cli("pingpong", "--sizes", "0", "--plot", str(earlier)), "--plot", "--force")
    assert earlier.read_bytes() == b"mine"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_place_no_file_can_be_made_is_refused_before_the_run_even_as_root():
    """/proc's permission bits let root write, but no file can be created there: found out by
    trying before the run (a full `report` ran for minutes and then failed)."""
    done = run_cli("report", "--quick", "--out", "/proc/cellblade-report.html")
    refused(done, "--out /proc/cellblade-report.html: /proc is not writable")
    done = run_cli("coll", "barrier", "-n", "4", "--out", "/proc/cellblade-out")
    refused(done, "--out /proc/cellblade-out: /proc is not writable")


def test_pingpong_plot_says_what_it_wrote(tmp_path):
    figure = tmp_path / "fig.png"
    done = run_cli("pingpong", "--sizes", "1k", "--iterations", "2", "--plot", str(figure))
    assert done.returncode == 0, done.stderr
    # After its table, as every command says what it wrote (it printed it first).
    assert done.stdout.splitlines()[-1] == f"wrote {figure}", done.stdout
    assert done.stdout.startswith("# seed 004 section 5.1 ping-pong"), done.stdout
    assert figure.read_bytes()[:4] == b"\x89PNG"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]
    out = tmp_path / "coll"
    done = run_cli("coll", "barrier", "-n", "2", "--algo", "rdb", "--out", str(out))
    assert done.stdout.splitlines()[-1].startswith(f"wrote {out}"), done.stdout
    assert not done.stdout.startswith("wrote"), done.stdout


def test_model_measure_keeps_an_earlier_result_without_force(tmp_path):
    (tmp_path / "params.toml").write_text("mine\n")
    refused(run_cli("model", "measure", "--out", str(tmp_path)), "--out", "--force")
    assert (tmp_path / "params.toml").read_text() == "mine\n"


def test_an_existing_trace_is_kept_without_force(tmp_path):
    trace = tmp_path / "t.json"
    trace.write_text("mine\n")
    refused(
        run_cli("stats", "-f", "signal", "-n", "1", "--trace", str(trace)), "--trace", "--force"
    )
    assert trace.read_text() == "mine\n"
    done = run_cli("stats", "-f", "signal", "-n", "1", "-i", "5", "--trace", str(trace), "--force")
    assert done.returncode == 0, done.stderr
    assert trace.read_text().startswith(("{", "["))
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_a_failed_traced_run_leaves_no_temporary_file(tmp_path):
    trace = tmp_path / "t.json"
    done = run_cli("stats", "-f", "dmaget", "-n", "1", "-b", "300", "--trace", str(trace))
    assert done.returncode == 2 and "-b 300" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_a_traced_run_leaves_no_temporary_file(tmp_path):
    trace = tmp_path / "t.json"
    child = subprocess.Popen(
        [sys.executable, "-m", "cellblade.cli", "stats", "-f", "dmaget", "-n", "8", "-b", "16k"]
        + ["-i", "1m", "--trace", str(trace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)  # until the run has created its temporary file
    names = [p.name for p in tmp_path.iterdir()]
    assert names and all(n.startswith(".t.") and n != "t.json.part" for n in names), names
    child.send_signal(signal.SIGINT)
    try:
        child.communicate(timeout=60)
    finally:
        child.kill()  # a run the signal did not end is not left behind
    assert child.returncode == 130
    assert list(tmp_path.iterdir()) == []


def test_a_link_named_as_a_file_is_replaced_not_followed(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep\n")
    link = tmp_path / "out.txt"
    link.symlink_to(target)
    with pytest.raises(outputs.OutputError, match="symbolic link"):
        outputs.check_file("--out", link, force=False)
    outputs.check_file("--out", link, force=True)
    outputs.write_file("--out", link, lambda path: path.write_text("new\n"))
    assert target.read_text() == "keep\n"
    assert not link.is_symlink() and link.read_text() == "new\n"


def test_a_link_named_as_a_directory_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "out"
    link.symlink_to(real)
    with pytest.raises(outputs.OutputError, match="symbolic link"):
        outputs.check_dir("--out", link, ["a.json"], force=True)
    done = run_cli("coll", "barrier", "-n", "2", "--out", str(link))
    refused(done, "--out", "symbolic link")
    assert list(real.iterdir()) == []


def test_a_temporary_file_beside_the_target_is_unpredictable_and_cleaned_up(tmp_path):
    target = tmp_path / "trace.json"
    names = set()
    for _ in range(2):
        with pytest.raises(RuntimeError):
            with outputs.temporary_beside("--trace", target, leftovers=(".part",)) as temporary:
                assert temporary.parent == tmp_path and temporary.name != target.name
                Path(f"{temporary}.part").write_text("half")
                names.add(temporary.name)
                raise RuntimeError("the run failed")
        assert list(tmp_path.iterdir()) == []
    assert len(names) == 2
    with outputs.temporary_beside("--trace", target) as temporary:
        temporary.write_text("whole\n")
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]
    assert target.read_text() == "whole\n"
