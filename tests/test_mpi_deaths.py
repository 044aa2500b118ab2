"""A rank that dies ends the job when it dies, whatever the others do (issue 43): they compute,
sleep, block in read on a pipe, or wait in MPI_Recv from the dead rank or from a live one; two
ranks and sixteen (on a host of two cores both share the simulator's core). The program is
libmpi/tests/fault_partner.c: rank 1 prints the second (CLOCK_MONOTONIC, this process's
time.monotonic) at which it dies. The job must be over within a second of it; the bound below
is three, for a loaded host, and the figures measured are printed (pytest -s)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

# Death to the job's end, seconds: asked for within one, allowed three on a busy host.
BOUND_S = 3.0
LAST = "its last call: MPI_Comm_size on MPI_COMM_WORLD"
ENDED = "the other ranks were ended"
HOW = {
    "segv": (
        128 + 11,
        f"rank 1 was killed by SIGSEGV without calling MPI_Finalize ({LAST}): {ENDED}",
    ),
    "exit": (3, f"rank 1 exited with code 3 without calling MPI_Finalize ({LAST}): {ENDED}"),
    "abort": (5, f"rank 1 called MPI_Abort with error code 5: {ENDED}"),
    "alarm": (
        128 + 14,
        "rank 1 was killed by SIGALRM without calling MPI_Finalize (its last call: MPI_Barrier "
        f"on MPI_COMM_WORLD): {ENDED}",
    ),
}


def in_group(pgid: int) -> list[int]:
    """The processes of process group `pgid` still there (zombies included)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # after the state and the parent's pid
            found.append(int(pid))
    return found


def run_job(exe: str, n: int, *args: str) -> tuple[subprocess.CompletedProcess, float, list[int]]:
    """Run `mpirun -n N EXE ARGS` in a session of its own; its result, the seconds from rank 1's
    death to the job's end (both its pipes closed: every process that held them has gone) and
    what is left of its process group."""
    job = subprocess.Popen(
        [sys.executable, "-m", "cellblade.cli", "mpirun", "-n", str(n), exe, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = job.communicate(timeout=60)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, 9)
            job.wait()
    ended = time.monotonic()
    died = [float(x) for x in re.findall(r"^dies at (\d+\.\d+)$", err, re.M)]
    assert len(died) == 1, err
    left = in_group(job.pid)
    done = subprocess.CompletedProcess(job.args, job.returncode, out, err)
    return done, ended - died[0], left


def check(build, how: str, others: str, n: int) -> None:
    done, late, left = run_job(build("fault_partner"), n, how, others)
    print(f"\n{how} while the others {others}, {n} ranks: the job ended {late:.3f} s after")
    code, message = HOW[how]
    assert done.returncode == code, done.stderr
    assert f"cellblade mpirun: {message}\n" in done.stderr
    assert late < BOUND_S, f"the job ended {late:.2f} s after rank 1 died"
    assert left == [], f"processes {left} of the job's group are still there"
    lines = sorted(done.stdout.splitlines())
    assert lines == sorted(f"rank {r} printed this before the end" for r in range(n))


@pytest.mark.parametrize("n", [2, 16])
@pytest.mark.parametrize("others", ["busy", "sleep", "read", "recvdead", "recvlive"])
def test_a_crash_ends_the_job_whatever_the_others_do(build, others, n):
    check(build, "segv", others, n)


@pytest.mark.parametrize("n", [2, 16])
@pytest.mark.parametrize(
    "how, others",
    [
        ("exit", "busy"),
        ("exit", "recvlive"),
        ("abort", "busy"),
        ("abort", "recvlive"),
        ("alarm", "busy"),
        ("alarm", "sleep"),
    ],
)
def test_an_exit_an_abort_or_a_signal_inside_a_call_ends_it_too(build, how, others, n):
    """alarm: rank 1 dies of SIGALRM while it waits in MPI_Barrier, which the simulator cannot
    answer while the others compute or sleep: a rank held in a call can still die, and is
    reported (were the others waiting in MPI, the simulator would report the deadlock first)."""
    check(build, how, others, n)


@pytest.mark.parametrize("n", [3, 16])
@pytest.mark.parametrize("others", ["busy", "sleep"])
def test_the_simulators_own_failure_leaves_no_rank_waiting(build, others, n):
    """The simulator refuses rank 1's request (one it does not know) while rank 0 waits for it
    and the others compute or sleep: the job ends with the simulator's error, every rank too."""
    done, late, left = run_job(build("fault_partner"), n, "refused", others)
    print(f"\nrefused while the others {others}, {n} ranks: the job ended {late:.3f} s after")
    assert done.returncode == 1, done.stderr
    assert re.search(
        r"^cellblade: error: rank 1: unknown request 32767: the rank library and the simulator disagree$",
        done.stderr,
        re.M,
    )
    assert late < BOUND_S, f"the job ended {late:.2f} s after the refused request"
    assert left == [], f"processes {left} of the job's group are still there"
    lines = sorted(done.stdout.splitlines())
    assert lines == sorted(f"rank {r} printed this before the end" for r in range(n))
