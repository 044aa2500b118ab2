"""The watch of a job's native processes (cellblade.native), which mpirun and the Cell SDK's
launcher share: a death is seen when it happens, judged by the caller; the rest end together,
SIGTERM first, SIGKILL for a process that ignores it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from cellblade import native


def _python(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code])


def test_a_death_is_judged_when_it_happens_while_the_others_sleep():
    procs = [_python("import time; time.sleep(60)"), _python("import os; os._exit(3)")]
    done_r, done_w = os.pipe()
    judged = []

    def judge(index: int) -> str | None:
        judged.append((index, procs[index].returncode))
        return f"process {index} {native.ended_how(procs[index])}"

    start = time.monotonic()
    try:
        verdict = native.watch(procs, done_r, None, judge)
        waited = time.monotonic() - start
    finally:
        native.end(procs)
        os.close(done_r)
        os.close(done_w)
    assert verdict == "process 1 exited with code 3"
    assert judged == [(1, 3)]
    assert waited < 10, waited
    assert procs[0].returncode == -signal.SIGTERM, "the sleeper was ended by SIGTERM"


def test_a_death_the_judge_lets_pass_does_not_end_the_watch():
    procs = [_python("pass"), _python("import time; time.sleep(60)")]
    done_r, done_w = os.pipe()
    try:
        with pytest.raises(native.TimedOut):
            native.watch(procs, done_r, 1.0, lambda index: None)
        os.write(done_w, b"x")
        assert native.watch(procs[1:], done_r, None, lambda index: "never") is None
    finally:
        native.end(procs)
        os.close(done_r)
        os.close(done_w)
    assert procs[0].returncode == 0


def test_end_kills_a_process_that_ignores_sigterm_after_the_grace():
    code = "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    start = time.monotonic()
    native.end([proc], grace=0.5)
    took = time.monotonic() - start
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert 0.4 < took < 10, took
    assert native.exit_code_of(proc) == 128 + signal.SIGKILL
