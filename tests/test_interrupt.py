"""Ctrl-C inside a long core call: the engine polls the bindings' hook, which runs Python's
signal handlers, so KeyboardInterrupt stops the run within a fraction of a second."""

import signal
import subprocess
import sys
import time

import pytest

import cellblade


def _started(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cellblade.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_sigint_stops_a_long_stats_run_quickly_with_exit_130():
    # 4e9 iterations: hours of wall time if nothing stops it.
    proc = _started("stats", "-f", "dmaget", "-n", "2", "-b", "4k", "-i", "4000m")
    try:
        time.sleep(1.0)
        assert proc.poll() is None, "the run ended before the signal: " + proc.stderr.read()
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=2.0)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert waited < 2.0
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr


def test_an_interrupt_becomes_keyboard_interrupt_in_python():
    # The run is in the core (GIL released) when the handler raises: the same exception
    # reaches the caller.
    def stop(signum, frame):
        raise KeyboardInterrupt("stopped by the test")

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt, match="stopped by the test"):
            cellblade.run_stats("dmaget", spes=2, size=4096, iterations=4_000_000_000)
        assert time.monotonic() - started < 1.5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
