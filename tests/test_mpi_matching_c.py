"""Matching that real programs can trust (issue 22), from C: by tag and communicator with
the unexpected queue, unsafe programs reported at once, short messages into derived types,
NULL send buffers, request arrays of any length."""

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
