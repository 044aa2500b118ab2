"""The call channel between rank processes and the simulator (shared memory, the socket beside
it) and `mpirun --compute`: libmpi/tests/transport.c, compute_burst.c and fault_midcall.c."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

SOURCES = Path(__file__).parent.parent / "libmpi" / "tests"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpi_transport")

    def make(name: str) -> str:
        exe = out / name
        if not exe.exists():
            done = run_cli(
                "mpicc", "-O1", "-I", str(SOURCES), str(SOURCES / f"{name}.c"), "-o", str(exe)
            )
            assert done.returncode == 0, done.stderr
        return str(exe)

    return make


def _mpirun_socket_only(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CELLBLADE_MPI_CHANNEL": "socket"}
    return subprocess.run(
        [sys.executable, "-m", "cellblade.cli", "mpirun", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("ranks", [2, 4])
def test_large_messages_and_many_calls_pass_through_both_channels(build, ranks):
    exe = build("transport")
    shared = run_cli("mpirun", "-n", str(ranks), exe)
    assert (shared.returncode, shared.stdout, shared.stderr) == (0, "No Errors\n", "")
    socket = _mpirun_socket_only("-n", str(ranks), exe)
    assert (socket.returncode, socket.stdout, socket.stderr) == (0, "No Errors\n", "")


def test_both_channels_give_the_same_simulated_times(build, tmp_path):
    exe = build("compute_burst")
    shared = run_cli("mpirun", "-n", "3", "--out", str(tmp_path / "a"), exe, "1")
    socket = _mpirun_socket_only("-n", "3", "--out", str(tmp_path / "b"), exe, "1")
    assert shared.returncode == socket.returncode == 0, shared.stderr + socket.stderr
    assert shared.stdout == socket.stdout == "0.000000000\n"
    a = (tmp_path / "a" / "result.json").read_text()
    b = (tmp_path / "b" / "result.json").read_text()

    def strip(text: str) -> list[str]:  # the host's wall times differ from run to run
        return [line for line in text.splitlines() if not ("wall_s" in line or "wait_s" in line)]

    assert strip(a) == strip(b)


def test_wtime_answered_by_the_rank_gives_what_a_round_trip_per_call_gives(build):
    """Between two other calls the rank library answers MPI_Wtime itself (the channel); over
    the socket alone every call is a round trip: the same values, calls and simulated times."""
    exe = build("wtime_local")
    shared = run_cli("mpirun", "-n", "3", exe)
    socket = _mpirun_socket_only("-n", "3", exe)
    assert shared.returncode == socket.returncode == 0, shared.stderr + socket.stderr
    assert shared.stdout == socket.stdout
    # 20 core cycles (6.25 ns) a call: about 480 calls in 3 us, 320 in 2 us, ending on the
    # decrementer's 70 ns steps.
    assert shared.stdout.startswith("rank 0: 799 calls, 0.000003003 0.000005029 "), shared.stdout


def test_a_freed_receive_is_not_progressed_by_a_wtime_spin_on_either_channel(build):
    """Issue 22's last open item: a rank that answers MPI_Wtime itself sees a freed receive's
    bytes exactly when a round trip per call does: not during a clock spin (MPI_Wtime does not
    progress requests), and after the next call that does."""
    exe = build("wtime_freed_recv")
    shared = run_cli("mpirun", "-n", "2", exe)
    socket = _mpirun_socket_only("-n", "2", exe)
    assert shared.returncode == socket.returncode == 0, shared.stderr + socket.stderr
    assert shared.stdout == socket.stdout
    spin, probed = shared.stdout.splitlines()
    assert spin.startswith("spin: -1 after ") and probed.startswith("after MPI_Iprobe: 42 at "), (
        shared.stdout
    )


def test_a_long_wtime_spin_ends_with_the_clock(build):
    """MPICH's bsendpending spins 2 s; half a second here: 80 million calls, each answered by
    the rank library in nanoseconds, where a round trip each took microseconds."""
    done = run_cli("mpirun", "-n", "2", build("wtime_local"), "0.5")
    assert done.returncode == 0, done.stderr
    # 0.5 s at 6.25 ns a call, the first call's being the start.
    assert done.stdout.splitlines()[-1] == "spun 0.500000000 s in 79999999 calls", done.stdout


def test_compute_zero_is_free_and_deterministic_cpu_charges_the_burst(build):
    exe = build("compute_burst")
    runs = [run_cli("mpirun", "-n", "2", exe, "20") for _ in range(2)]
    runs.append(run_cli("mpirun", "-n", "2", "--compute", "zero", exe, "20"))
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout == "0.000000000\n"
    cpu = run_cli("mpirun", "-n", "2", "--compute", "cpu", exe, "20")
    cpu4 = run_cli("mpirun", "-n", "2", "--compute", "cpu:4", exe, "20")
    assert cpu.returncode == cpu4.returncode == 0, cpu.stderr + cpu4.stderr
    one, four = float(cpu.stdout), float(cpu4.stdout)
    # 2e7 dependent multiply-adds take milliseconds of CPU on any current host.
    assert 1e-3 < one < 5.0, one
    assert 2.0 < four / one < 8.0, (one, four)


def test_compute_names_what_it_allows(build):
    done = run_cli("mpirun", "-n", "2", "--compute", "cpu:0", build("compute_burst"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "cellblade: error: --compute cpu:0 is not allowed: "
        "zero, model, cpu or cpu:FACTOR with FACTOR above 0 and at most 1000\n"
    )


def test_a_rank_killed_inside_a_call_is_named_with_its_signal(build):
    done = run_cli("mpirun", "-n", "2", build("fault_midcall"))
    assert done.returncode == 128 + 14, done.stderr
    # The launcher names the call and its communicator from the rank's state page (watch.py);
    # the simulator adds the peer and tag when it has seen the rank go.
    assert re.fullmatch(
        r"cellblade mpirun: rank 1 was killed by SIGALRM without calling MPI_Finalize "
        r"\(its last call: MPI_Recv( from 0, tag 0)? on MPI_COMM_WORLD\): the other ranks were ended\n",
        done.stderr,
    ), done.stderr


@pytest.mark.parametrize("ranks", [2, 16])
def test_outnumbered_ranks_wait_on_the_simulators_core_and_leave_it_to_compute(build, ranks):
    """A job that outnumbers the cores shares the simulator's core over the shared-memory
    channel, and its ranks have their cores back while they compute (env/share_core.c); over
    the socket, or where the job fits the cores, ranks keep theirs. The program checks which
    case it is in itself (its cores before MPI_Init against the job's size)."""
    exe = build("share_core")
    shared = run_cli("mpirun", "-n", str(ranks), exe)
    assert (shared.returncode, shared.stdout, shared.stderr) == (0, "No Errors\n", "")
    socket = _mpirun_socket_only("-n", str(ranks), exe)
    assert (socket.returncode, socket.stdout, socket.stderr) == (0, "No Errors\n", "")
