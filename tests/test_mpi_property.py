"""Random point-to-point programs through the C library and `cellblade mpirun` (issue 22):
correct ones (random tags, two communicators, wildcards, Isend/Issend/Irecv in any order,
2-16 ranks) complete with the right bytes in MPI's order; erroneous ones (a receive nobody
sends, a synchronous send nobody receives) are reported as deadlocks, never hang.
crates/cellblade/tests/mpi_matching.rs runs the same kind of programs on the core alone.
The program is libmpi/tests/random_p2p.c, which reads the operations from a file."""

from __future__ import annotations

import shutil

import pytest
from conftest import run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

ANY = -1
# A receive's wildcards, one choice per receiving rank and communicator, so that every
# receive of that rank on that communicator can take any message its kind allows and each
# message has exactly one receive: (source, tag) as sent, then with MPI_ANY_SOURCE,
# MPI_ANY_TAG, or both.
WILDCARDS = [(False, False), (True, False), (False, True), (True, True)]


@st.composite
def programs(draw):
    """(ranks, lines): each message's send and receive, posted in a random global order."""
    n = draw(st.integers(2, 16))
    rank = st.integers(0, n - 1)
    messages = draw(
        st.lists(
            st.tuples(
                rank, rank, st.integers(0, 2), st.integers(0, 1), st.integers(0, 300), st.booleans()
            ),
            min_size=1,
            max_size=24,
        )
    )
    wild = draw(st.lists(st.sampled_from(WILDCARDS), min_size=2 * n, max_size=2 * n))
    ops = []
    for src, dst, tag, comm, size, sync in messages:
        any_source, any_tag = wild[comm * n + dst]
        ops.append(f"s {src} {dst} {tag} {comm} {size} {int(sync)}")
        ops.append(f"r {dst} {ANY if any_source else src} {ANY if any_tag else tag} {comm}")
    return n, draw(st.permutations(ops))


def run(build, tmp_path, ranks, lines):
    program = tmp_path / "program.txt"
    program.write_text("\n".join(lines) + "\n")
    return run_cli(
        "mpirun", "-n", str(ranks), "--timeout", "120", build("random_p2p"), str(program)
    )


@settings(max_examples=12, deadline=None)
@given(program=programs())
@example(program=(3, ["s 2 0 0 0 0 0", "r 0 -1 -1 0"]))  # a wildcard took mtest's own message
def test_random_correct_programs_complete_with_the_right_bytes(build, tmp_path_factory, program):
    ranks, lines = program
    done = run(build, tmp_path_factory.mktemp("p2p"), ranks, lines)
    assert done.returncode == 0, (lines, done.stderr)
    assert done.stdout == "No Errors\n" and done.stderr == ""


@settings(max_examples=6, deadline=None)
@given(program=programs(), error=st.sampled_from(["receive", "send"]))
def test_random_erroneous_programs_are_reported(build, tmp_path_factory, program, error):
    """The same programs with one more receive nobody sends (rank 0 from the last rank, tag
    77), or one more synchronous send nobody receives (the last rank to 0, tag 3)."""
    ranks, lines = program
    extra = f"r 0 {ranks - 1} 77 0" if error == "receive" else f"s {ranks - 1} 0 3 0 8 1"
    done = run(build, tmp_path_factory.mktemp("p2p"), ranks, [*lines, extra])
    assert done.returncode == 1, (lines, done.stderr)
    waiting = 0 if error == "receive" else ranks - 1
    assert done.stderr.startswith("cellblade: error: deadlock at "), done.stderr
    assert f"rank {waiting} waits in MPI_Waitany" in done.stderr, done.stderr
