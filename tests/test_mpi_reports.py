"""Reports a user can act on (issue 22): a deadlock or crash names the call the program wrote
and its communicator (`MPI_Allreduce on MPI_COMM_WORLD`, not the library's internal MPI_Recv on
the collective context; a blocking `MPI_Send`, not the MPI_Wait the library made for it;
`MPI_Allgather`, not the MPI_Allgatherv it runs as; a persistent request by the call that made
it), and the collectives on intercommunicators and the pair types MPICH's suite checks. The
programs are libmpi/tests/fault_report_calls.c and libmpi/tests/intercomm_coll.c."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

DEADLOCK = r"cellblade: error: deadlock at [0-9.]+ ns: "
RECV_FROM_0 = "rank 1 waits in MPI_Recv from 0, tag 5 on MPI_COMM_WORLD"


@pytest.mark.parametrize(
    "how, ranks_wait_in",
    [
        (
            "allreduce",
            "rank 0 waits in MPI_Allreduce on MPI_COMM_WORLD; "
            "rank 1 waits in MPI_Recv from 0, tag 5 on MPI_COMM_WORLD",
        ),
        (
            "send",
            "rank 0 waits in MPI_Send to 1, tag 5 on MPI_COMM_WORLD; "
            "rank 1 waits in MPI_Send to 0, tag 6 on MPI_COMM_WORLD",
        ),
        ("named", "rank 0 waits in MPI_Recv on halo; rank 1 waits in MPI_Recv on halo"),
        ("allgather", "rank 0 waits in MPI_Allgather on halo; " + RECV_FROM_0),
        ("cart", "rank 0 waits in MPI_Cart_create on halo; " + RECV_FROM_0),
        ("barrier", "rank 0 waits in MPI_Barrier on MPI_COMM_WORLD; " + RECV_FROM_0),
        ("persistent", "rank 0 waits in MPI_Waitall for MPI_Recv_init on halo; " + RECV_FROM_0),
        ("sendrecv", "rank 0 waits in MPI_Sendrecv on halo; " + RECV_FROM_0),
    ],
)
def test_a_deadlock_names_the_users_call_and_communicator(build, how, ranks_wait_in):
    done = run_cli("mpirun", "-n", "2", build("fault_report_calls"), how)
    assert done.returncode == 1 and done.stdout == ""
    assert re.fullmatch(DEADLOCK + re.escape(ranks_wait_in) + "\n", done.stderr), done.stderr
    assert "tag 1073741824" not in done.stderr and "MPI_Wait for" not in done.stderr


def test_a_crash_after_a_wait_on_a_null_request_names_that_wait_alone(build):
    """The wait before it had a request (MPI_Isend on MPI_COMM_WORLD); the null one has none,
    and the report must not lend it the previous one's."""
    done = run_cli("mpirun", "-n", "2", build("fault_report_calls"), "nullwait")
    assert done.returncode == 128 + 11 and done.stdout == ""
    assert done.stderr == (
        "cellblade mpirun: rank 0 was killed by SIGSEGV without calling MPI_Finalize "
        "(its last call: MPI_Wait): the other ranks were ended\n"
    ), done.stderr


def test_a_crash_inside_a_call_names_that_call_not_the_last_one_the_simulator_saw(build):
    """A rank killed while MPI_Bcast packs its bad buffer, before the call reaches the
    simulator (whose last request from it was MPI_Comm_dup's inner message)."""
    done = run_cli("mpirun", "-n", "2", build("fault_report_calls"), "crash")
    assert done.returncode == 128 + 11 and done.stdout == ""
    assert done.stderr == (
        "cellblade mpirun: rank 0 was killed by SIGSEGV without calling MPI_Finalize "
        "(its last call: MPI_Bcast on halo): the other ranks were ended\n"
    )


@pytest.mark.parametrize("ranks", [1, 2, 3, 5, 16])
def test_intercommunicator_collectives_and_pair_types(build, ranks):
    done = run_cli("mpirun", "-n", str(ranks), build("intercomm_coll"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "No Errors\n"
    assert done.stderr == ""
