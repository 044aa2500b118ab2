"""Output paths are checked before a run, results are written whole, an earlier result is not
replaced without --force, and Ctrl-C, a closed pipe or a broken generator end quietly."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

from cellblade import outputs
from cellblade.cli import cellstats_main, main


def _one_line(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, done
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def test_out_that_is_a_file_is_refused_before_the_run(fake_core, tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("mine\n")
    assert cellstats_main(["-f", "dmaget", "--out", str(taken)]) == 2
    assert capsys.readouterr().err == (
        f"cellstats: error: --out {taken}: is a file, expected a directory\n"
    )
    assert cellstats_main(["-f", "dmaget", "--sweep", "--out", str(taken / "d")]) == 2
    assert capsys.readouterr().err == (
        f"cellstats: error: --out {taken / 'd'}: {taken} is a file, expected a directory\n"
    )
    assert fake_core == [] and taken.read_text() == "mine\n"


def test_trace_that_is_a_directory_is_refused_before_the_run(fake_core, tmp_path, capsys):
    assert cellstats_main(["-f", "dmaget", "--trace", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"cellstats: error: --trace {tmp_path}: is a directory, expected a file\n"
    )
    assert fake_core == []


def test_an_earlier_result_is_kept_unless_forced(tmp_path):
    args = ("coll", "barrier", "-n", "2", "--iterations", "1", "--out", str(tmp_path))
    assert run_cli(*args).returncode == 0
    csv_file = tmp_path / "coll-barrier-2.csv"
    csv_file.write_text("earlier\n")
    error = _one_line(run_cli(*args), 2)
    assert error == (
        f"cellblade: error: --out {tmp_path}: {csv_file} exists from an earlier run: "
        "pass --force to replace it, or choose another directory\n"
    )
    assert csv_file.read_text() == "earlier\n"
    assert run_cli(*args, "--force").returncode == 0
    assert csv_file.read_text().startswith("op,algorithm")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "coll-barrier-2.csv",
        "coll-barrier-2.json",
        "coll-barrier-2.png",
        "machine.toml",
    ]


def test_trace_to_a_full_device_is_one_line():
    done = run_cli("stats", "-f", "signal", "-n", "1", "-i", "2", "--trace", "/dev/full")
    error = _one_line(done, 2)
    assert error == (
        "cellblade: error: --trace /dev/full: cannot be written: No space left on "
        "device (os error 28)\n"
    )
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode), "the device is written, not replaced"


def test_draw_into_a_directory_writes_inside_it_and_says_so(tmp_path):
    done = run_cli("coll", "draw", "allgather.rdb", "-n", "2", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    path = tmp_path / "coll-draw-allgather.rdb-2.png"
    assert done.stdout == f"wrote {path}\n" and path.read_bytes()[:4] == b"\x89PNG"
    assert not Path(f"{tmp_path}.png").exists()


def test_draw_to_another_format_is_one_line(tmp_path):
    error = _one_line(run_cli("coll", "draw", "allgather.rdb", "--out", str(tmp_path / "d.txt")), 2)
    assert error == (
        f"cellblade: error: --out {tmp_path / 'd.txt'}: the file is written as PNG: "
        "give a name ending in .png\n"
    )


def test_a_closed_pipe_ends_quietly():
    child = subprocess.Popen(
        [sys.executable, "-m", "cellblade.cli", "coll", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    child.stdout.close()  # the reader is gone before the command writes
    assert child.wait(timeout=60) == 141
    assert child.stderr.read() == b""


@pytest.mark.parametrize(
    "source, reason",
    [
        ("def f(:\n    pass\n", "line 1: syntax error: invalid syntax"),
        ("import math\n\nmath.sqrt(-1)\n", "line 3: raises ValueError: math domain error"),
    ],
)
def test_a_broken_generator_file_is_one_line(tmp_path, source, reason):
    generator = tmp_path / "gen.py"
    generator.write_text(source)
    spec = f"{generator}:f"
    error = _one_line(run_cli("coll", "allgather", "--generator", spec), 2)
    assert error == (
        f"cellblade: error: argument --generator: invalid value {spec!r}: {generator}, {reason}\n"
    )


def test_ctrl_c_exits_130_leaving_no_result(tmp_path):
    out = tmp_path / "sweep"
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cellblade.cli",
            "stats",
            "-f",
            "dmaget",
            "--sweep",
            "-i",
            "3k",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Interrupt once the simulations run (worker threads exist), not while Python starts.
    deadline = time.monotonic() + 60
    while len(os.listdir(f"/proc/{child.pid}/task")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    try:
        stdout, stderr = child.communicate(timeout=60)
    finally:
        child.kill()  # a run the signal did not end is not left behind
    assert child.returncode == 130
    assert stdout == "" and stderr == ""
    assert list(tmp_path.iterdir()) == []


def test_interrupts_are_held_back_until_the_moves_are_done():
    with pytest.raises(KeyboardInterrupt):
        with outputs.held_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            moved = True  # reached: the signal did not cut the block
    assert moved


def test_a_failed_run_leaves_the_directory_as_it_was(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.json").write_text("old\n")
    with pytest.raises(RuntimeError, match="the run failed"):
        with outputs.staged("--out", out, ["a.json", "b.toml"], force=True) as staging:
            (staging / "a.json").write_text("new\n")
            raise RuntimeError("the run failed")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert [p.name for p in out.iterdir()] == ["a.json"]
    assert (out / "a.json").read_text() == "old\n"


def test_a_file_written_meanwhile_by_another_run_is_not_replaced(tmp_path):
    out = tmp_path / "out"
    outputs.check_dir("--out", out, ["a.json", "b.toml"], force=False)
    with pytest.raises(outputs.OutputError) as error:
        with outputs.staged("--out", out, ["a.json", "b.toml"], force=False) as staging:
            (staging / "a.json").write_text("ours\n")
            (staging / "b.toml").write_text("ours\n")
            out.mkdir()
            (out / "b.toml").write_text("theirs\n")
    assert str(error.value) == (
        f"--out {out}: {out / 'b.toml'} was written by another run "
        "meanwhile: not replaced (pass --force to replace it)"
    )
    assert sorted(p.name for p in out.iterdir()) == ["b.toml"]
    assert (out / "b.toml").read_text() == "theirs\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_stats_out_writes_the_set(fake_core, tmp_path):
    assert main(["stats", "-f", "dmaget", "--json", "--out", str(tmp_path / "r")]) == 0
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["machine.toml", "result.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


def test_jobs_without_sweep_is_bad_usage(fake_core, capsys):
    assert cellstats_main(["-f", "dmaget", "--jobs", "2"]) == 2
    assert capsys.readouterr().err == (
        "cellstats: error: --jobs applies to --sweep only: a single run is one simulation\n"
    )
    assert fake_core == []


def test_a_file_written_whole_gets_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        path = outputs.write_file("--trace", tmp_path / "t.json", lambda p: p.write_text("{}\n"))
    finally:
        os.umask(mask)
    assert path.read_text() == "{}\n" and path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]
