"""Faults `cellblade mpirun` reports at once and cleans up after (issue 22): ending signals,
ranks that die with their launcher, crashes reported when they happen, output flushed before
a rank ends, oversized sends refused before their bytes are copied, --timeout and a streamed
--trace. The programs are libmpi/tests/fault_*.c."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


def _ranks_of(exe: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/exe") == exe:
                found.append(int(pid))
        except OSError:
            pass
    return found


def _start(exe: str, n: int, *flags: str) -> subprocess.Popen:
    job = subprocess.Popen(
        [sys.executable, "-m", "cellblade.cli", "mpirun", "-n", str(n), *flags, exe],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 60
    while len(_ranks_of(exe)) < n and time.time() < deadline:
        time.sleep(0.05)
    assert len(_ranks_of(exe)) == n
    time.sleep(0.3)
    return job


def _gone(exe: str) -> bool:
    deadline = time.time() + 10
    while _ranks_of(exe) and time.time() < deadline:
        time.sleep(0.05)
    return _ranks_of(exe) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_an_ending_signal_takes_every_rank_with_mpirun(build, sig):
    exe = build("fault_spin")
    job = _start(exe, 3)
    job.send_signal(sig)
    _, err = job.communicate(timeout=60)
    assert job.returncode == 128 + sig
    assert err == f"cellblade mpirun: ended by {sig.name}: every rank was ended\n"
    assert _gone(exe), "no rank is left behind"


def test_ranks_die_with_a_killed_mpirun(build):
    exe = build("fault_spin")
    job = _start(exe, 3)
    job.kill()  # no handler runs: the ranks' parent-death signal ends them
    job.communicate(timeout=60)
    assert _gone(exe), "no rank is left behind"


def test_a_crash_is_reported_when_it_happens(build):
    """Rank 0 sleeps for 60 s of wall time before MPI_Init; rank 1's crash must not wait for it."""
    start = time.monotonic()
    done = run_cli("mpirun", "-n", "2", build("fault_late_crash"))
    assert time.monotonic() - start < 30
    assert done.returncode == 128 + 11
    assert done.stderr == (
        "cellblade mpirun: rank 1 was killed by SIGSEGV without calling MPI_Finalize "
        "(its last call: none, before MPI_Init): the other ranks were ended\n"
    )


def test_the_channel_is_close_on_exec_and_ranks_die_with_their_parent(build):
    done = run_cli("mpirun", "-n", "2", build("fault_cloexec"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "No Errors\n"


@pytest.mark.parametrize(
    "how, code, message, flushed",
    [
        ("abort", 3, "rank 0 called MPI_Abort with error code 3", [0]),
        ("fatal", 6, "rank 0 called MPI_Abort with error code 6", [0]),
        ("deadlock", 1, "cellblade: error: deadlock at ", [0, 1]),
    ],
)
def test_output_printed_before_the_end_is_not_lost(build, how, code, message, flushed):
    """stdout is a pipe here: what a rank printed is in its stdio buffer until it flushes."""
    done = run_cli("mpirun", "-n", "2", build("fault_flush"), how)
    assert done.returncode == code, done.stderr
    assert message in done.stderr
    for rank in flushed:
        assert f"rank {rank} printed this before the end\n" in done.stdout


def test_a_send_too_large_for_the_blade_is_refused_before_it_is_copied(build):
    """Through the communicator's error handler, naming the call and an MPI error class (issue
    43: it was the simulator's error, which named neither)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = run_cli("mpirun", "-n", "2", build("fault_huge_send"))
    assert done.returncode == 21, done.stderr  # MPI_ERR_NO_MEM, MPI_ERRORS_ARE_FATAL's abort code
    assert re.search(
        r"^cellblade mpi: rank 0: MPI_Send: MPI_ERR_NO_MEM: a 2147483647-byte message does not "
        r"fit the rank's message buffers on the simulated blade \(its main-memory heap, or its local "
        r"store in ls mode\): they hold at most \d+ bytes "
        r"\(MPI_ERRORS_ARE_FATAL\)$",
        done.stderr,
        re.M,
    ), done.stderr
    assert "rank 0 called MPI_Abort with error code 21" in done.stderr
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert max(peak_kb, before) < 1 << 20, f"a process of the job reached {peak_kb} KB"


def test_timeout_names_each_ranks_last_call(build):
    """Ranks 1 and 2 leave MPI_Init at once (its answer depends on nothing simulated), then
    wait in MPI_Recv for rank 0, which never returns to MPI."""
    start = time.monotonic()
    done = run_cli("mpirun", "-n", "3", "--timeout", "2", build("fault_spin"))
    assert time.monotonic() - start < 30
    assert done.returncode == 124
    assert done.stderr == (
        "cellblade mpirun: the job ran past --timeout 2 s (wall time): rank 0 computes after "
        "MPI_Comm_rank on MPI_COMM_WORLD; rank 1 waits in MPI_Recv on MPI_COMM_WORLD; rank 2 waits "
        "in MPI_Recv on MPI_COMM_WORLD: "
        "every rank was ended\n"
    )
    assert _gone(build("fault_spin"))


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf"])
def test_bad_timeout_is_refused_naming_the_flag(value):
    done = run_cli("mpirun", "-n", "2", "--timeout", value, "/bin/true")
    assert done.returncode == 2
    assert f"--timeout: invalid value '{value}': allowed a number of seconds above 0" in done.stderr


def test_trace_streams_to_the_file_while_the_job_runs(tmp_path):
    """The file fills while rank 0 still sleeps (the trace is not held until the end)."""
    trace = tmp_path / "t.json"
    src = tmp_path / "slow.c"
    src.write_text(
        '#include <unistd.h>\n#include "mpi.h"\n'
        "int main(int c, char **v) { int r, x = 0; MPI_Init(&c, &v);\n"
        "MPI_Comm_rank(MPI_COMM_WORLD, &r);\n"
        "for (int i = 0; i < 2000; i++) MPI_Allreduce(&r, &x, 1, MPI_INT, MPI_SUM, "
        "MPI_COMM_WORLD);\n"
        "if (r == 0) sleep(3);\nMPI_Finalize(); return 0; }\n"
    )
    slow = tmp_path / "slow"
    assert run_cli("mpicc", str(src), "-o", str(slow)).returncode == 0
    job = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cellblade.cli",
            "mpirun",
            "-n",
            "2",
            "--trace",
            str(trace),
            str(slow),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    part = Path(str(trace) + ".part")
    deadline = time.time() + 60
    while not (part.exists() and part.stat().st_size > 100_000) and time.time() < deadline:
        time.sleep(0.05)
    grown = part.exists() and part.stat().st_size > 100_000
    assert job.poll() is None and grown, "events are in the file while the job still runs"
    _, err = job.communicate(timeout=120)
    assert job.returncode == 0, err
    assert err == ""
    events = json.loads(trace.read_text())["traceEvents"]
    assert len(events) > 1000


def test_a_long_trace_is_cut_by_bytes_and_says_so(tmp_path):
    """16 ranks x 20,000 messages made a 408 MB trace when the file was cut by events (issue
    43); cut by bytes, it stops at the limit a user reads in the warning."""
    from cellblade import _core

    limit = _core.catalog()["mpi"]["trace_file_bytes"]
    src = tmp_path / "ring.c"
    src.write_text(
        '#include "mpi.h"\n'
        "int main(int c, char **v) { int r, n, x = 0, y; MPI_Init(&c, &v);\n"
        "MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);\n"
        "for (int i = 0; i < 20000; i++) MPI_Sendrecv(&x, 1, MPI_INT, (r + 1) % n, 0, &y, 1,\n"
        "MPI_INT, (r + n - 1) % n, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
        "MPI_Finalize(); return 0; }\n"
    )
    ring, trace = tmp_path / "ring", tmp_path / "t.json"
    assert run_cli("mpicc", str(src), "-o", str(ring)).returncode == 0
    done = run_cli("mpirun", "-n", "16", "--trace", str(trace), str(ring))
    assert done.returncode == 0, done.stderr
    size = trace.stat().st_size
    print(f"\n16 ranks x 20,000 messages: a trace of {size} bytes (limit {limit})")
    assert limit - (1 << 20) < size < limit + (64 << 10), "cut at the limit, its head and tail"
    data = json.loads(trace.read_text())
    dropped = data["otherData"]["dropped_events"]
    assert dropped > 0
    assert done.stderr == (
        f"cellblade mpirun: warning: the trace {trace} is cut at its limit of 256 MiB of events: "
        f"the {dropped} events after it were dropped (trace fewer calls or ranks)\n"
    )
