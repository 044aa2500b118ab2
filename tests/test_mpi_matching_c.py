"""Matching that real programs can trust (issue 22), from C: by tag and communicator with
the unexpected queue, unsafe programs reported at once, short messages into derived types,
NULL send buffers, request arrays of any length, buffers larger than the blade holds."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


@pytest.mark.parametrize(
    "name, ranks, flags",
    [
        ("match_tags_comms", 2, ()),
        ("match_tags_comms", 4, ()),
        ("match_tags_comms", 3, ("--mode", "ls")),
        ("match_tags_comms", 3, ("--set", "mpi.buffered_bytes=80")),
        ("short_derived", 2, ()),
        ("waitany_many", 2, ()),
        ("huge_buffers", 1, ()),
        ("huge_buffers", 2, ()),
        ("huge_buffers", 16, ()),
        ("huge_buffers", 2, ("--mode", "ls")),
    ],
)
def test_program_passes(build, name, ranks, flags):
    done = run_cli("mpirun", "-n", str(ranks), *flags, build(name))
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_crossing_ssends_with_a_third_rank_receiving_are_reported(build):
    done = run_cli("mpirun", "-n", "3", build("fault_ssend_third"))
    assert done.returncode == 1
    assert re.fullmatch(
        r"cellblade: error: deadlock at [0-9.]+ ns: rank 0 waits in MPI_Ssend to 1, tag 5 on MPI_COMM_WORLD; "
        r"rank 1 waits in MPI_Ssend to 0, tag 5 on MPI_COMM_WORLD; rank 2 waits in MPI_Recv from 1, tag 5 on MPI_COMM_WORLD\n",
        done.stderr,
    ), done.stderr


@pytest.mark.parametrize("ranks", [3, 4])
def test_bcast_with_mismatched_roots_is_reported(build, ranks):
    done = run_cli("mpirun", "-n", str(ranks), build("fault_bcast_roots"))
    assert done.returncode == 1
    assert done.stderr.startswith("cellblade: error: deadlock at "), done.stderr
    # Each rank's pending call as the program wrote it (the seed's broadcast is sends and
    # receives on the collective context, which the report does not show).
    for r in range(ranks):
        assert f"rank {r} waits in MPI_Bcast on MPI_COMM_WORLD" in done.stderr, done.stderr


def test_waitany_over_requests_that_all_complete_costs_what_completes(build):
    """Issue 43: 1,250, 2,500 and 5,000 took 1.2, 2.8 and 8.5 s; the figures are printed
    (pytest -s), not asserted: each count's result is."""
    import time

    exe = build("waitany_each")
    for n in (1250, 2500, 5000):
        start = time.monotonic()
        done = run_cli("mpirun", "-n", "2", exe, str(n))
        print(f"\nMPI_Waitany x {n}: {time.monotonic() - start:.2f} s of wall time")
        assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", ""), done.stderr


def test_a_send_larger_than_the_blade_holds_is_reported_through_the_error_handler(build):
    done = run_cli("mpirun", "-n", "2", build("huge_buffers"), "fatal")
    assert done.returncode == 21, done.stderr
    assert re.search(
        r"^cellblade mpi: rank [01]: MPI_Send: MPI_ERR_NO_MEM: a 2147483647-byte message does not "
        r"fit the rank's message buffers on the simulated blade \(its main-memory heap, or its local "
        r"store in ls mode\): they hold at most \d+ bytes",
        done.stderr,
        re.M,
    ), done.stderr
