"""Nonblocking MPI calls from C programs: requests in flight together on the simulated SPEs
(libmpi/tests/nonblocking_overlap.c), and a wait nobody can satisfy reported as a deadlock."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import run_cli

SOURCES = Path(__file__).parent.parent / "libmpi" / "tests"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")


def build(tmp_path: Path, name: str, text: str | None = None) -> str:
    src = SOURCES / f"{name}.c"
    if text is not None:
        src = tmp_path / f"{name}.c"
        src.write_text(text)
    exe = tmp_path / name
    done = run_cli("mpicc", "-O1", "-Wall", "-I", str(SOURCES), str(src), "-o", str(exe))
    assert done.returncode == 0, done.stderr
    return str(exe)


@pytest.mark.parametrize("ranks, mode", [(2, "memory"), (5, "memory"), (2, "ls")])
def test_requests_are_in_flight_together(tmp_path, ranks, mode):
    exe = build(tmp_path, "nonblocking_overlap")
    done = run_cli("mpirun", "-n", str(ranks), "--mode", mode, exe)
    assert (done.returncode, done.stdout, done.stderr) == (0, "No Errors\n", "")


def test_exchange_times_are_printed_and_buffered_mode_passes(tmp_path):
    exe = build(tmp_path, "nonblocking_overlap")
    done = run_cli("mpirun", "-n", "2", exe, "-v")
    times = re.search(
        r"Send then Recv ([0-9.]+) us, Isend\+Irecv\+Waitall ([0-9.]+) us", done.stdout
    )
    assert times and float(times.group(2)) < 0.75 * float(times.group(1)), done.stdout
    done = run_cli("mpirun", "-n", "4", "--set", "mpi.buffered_bytes=80", exe)
    assert (done.returncode, done.stdout) == (0, "No Errors\n"), done.stderr


WAIT_FOREVER = """#include "mpi.h"
int main(int argc, char **argv)
{
    int rank, x;
    MPI_Request q;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
"""


def test_a_wait_nobody_can_satisfy_names_each_request(tmp_path):
    exe = build(tmp_path, "wait_forever", WAIT_FOREVER)
    done = run_cli("mpirun", "-n", "2", exe)
    assert done.returncode != 0
    assert (
        "rank 0 waits in MPI_Wait for MPI_Irecv from 1, tag 3 on MPI_COMM_WORLD; "
        "rank 1 waits in MPI_Wait for MPI_Irecv from 0, tag 3 on MPI_COMM_WORLD" in done.stderr
    ), done.stderr
