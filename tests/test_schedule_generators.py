"""Collective algorithms written in Python (cellblade.schedule): checked, verified and timed
like the built-ins, through the API and the command line; what is wrong with one is said."""

import textwrap
import time

import pytest
from conftest import run_cli, usage_error

import cellblade
from cellblade.schedule import Schedule, copy, local, notify, reduce


def ring(spes, root, size):
    """All-gather around a ring: in round k, rank r gets block r-k-1 from rank r-1."""
    s = Schedule("allgather.ring", "allgather", spes, root, size)
    for k in range(spes - 1):
        s.round(copy(r, (r - 1) % spes, (r - k - 1) % spes * size, size) for r in range(spes))
    return s


def chain_reduce(spes, root, size):
    """Reduce along a chain to rank 0, staging each partial result with a local copy first."""
    s = Schedule("reduce.chain", "reduce", spes, 0, size, buffer=2 * size)
    for r in range(spes - 1, 0, -1):
        s.round([local(r, 0, size, size)])
        s.round([reduce(r - 1, r, size, size, dst_offset=0)])
    return s


def mailbox_ota(spes, root, size):
    s = Schedule("barrier.mailbox_ota", "barrier", spes, root, size)
    s.round(notify(0, v, via="mailbox") for v in range(1, spes))
    s.round(notify(v, 0, via="signal") for v in range(1, spes))
    return s


def one_round_only(spes, root, size):
    """Not an all-gather: each rank gets only its left neighbour's block."""
    s = Schedule("allgather.half", "allgather", spes, root, size)
    s.round(copy(r, (r - 1) % spes, (r - 1) % spes * size, size) for r in range(spes))
    return s


@pytest.mark.parametrize("spes", [1, 3, 8, 16])
def test_a_python_ring_allgather_verifies_and_is_timed(spes):
    rows = cellblade.coll_run(
        "allgather",
        spes=spes,
        sizes=[64, 1024],
        algorithms=["allgather.rdb" if spes & (spes - 1) == 0 else "allgather.bruck", ring],
        iterations=3,
    )
    mine = [r for r in rows if r["algorithm"] == "allgather.ring"]
    assert [r["size_bytes"] for r in mine] == [64, 1024]
    assert all(r["verified"] and (r["latency_ns"] > 0 or spes == 1) for r in mine)
    # Deterministic: the same run gives the same figures.
    again = cellblade.coll_run(
        "allgather", spes=spes, sizes=[64, 1024], algorithms=[ring], iterations=3
    )
    assert [r["latency_ns"] for r in again] == [r["latency_ns"] for r in mine]


def test_local_copies_reductions_and_other_channels_run():
    (reduced,) = cellblade.coll_run(
        "reduce",
        spes=5,
        sizes=[256],
        algorithms=[chain_reduce],
        dtype="float64",
        reduce_op="max",
        iterations=2,
    )
    assert reduced["verified"]
    (barrier,) = cellblade.coll_run("barrier", spes=6, algorithms=[mailbox_ota], iterations=2)
    assert barrier["verified"] and barrier["size_bytes"] == 0


def test_a_wrong_result_is_marked_not_raised():
    (row,) = cellblade.coll_run("allgather", spes=4, sizes=[64], algorithms=[one_round_only])
    assert row["verified"] is False


def test_the_schedule_of_a_generator_is_checked_and_returned():
    schedule = cellblade.coll_schedule(ring, spes=4, size=32, placement="evenodd")
    assert schedule["text"].startswith("schedule allgather.ring op=allgather p=4 root=0 size=32")
    assert len(schedule["rounds"]) == 3 and schedule["placement"] == [0, 4, 2, 6]
    with pytest.raises(cellblade.ConfigError, match="allgather.half: rank 0 finishes without"):
        cellblade.coll_schedule(one_round_only, spes=4, size=32)


def _one(transfer, op="allgather", **fields):
    def generator(spes, root, size):
        s = Schedule(f"{op}.bad", op, spes, root, size, **fields)
        s.round([transfer(spes, size)])
        return s

    return generator


@pytest.mark.parametrize(
    "generator, message",
    [
        (_one(lambda p, n: copy(1, 0, 8, 16)), "DMAs move whole quadwords"),
        (_one(lambda p, n: copy(1, 0, 0, 0)), "DMAs move whole quadwords"),
        (_one(lambda p, n: copy(9, 0, 0, n)), "names a rank that does not exist: allowed 0 to 3"),
        (
            _one(lambda p, n: reduce(1, 1, 0, n)),
            "transfer 1 <- 1 is a reduce from a rank to itself: only a copy can be local",
        ),
        (
            _one(lambda p, n: copy(1, 0, 2**32 - 16, 32, dst_offset=0)),
            "runs past the 256-byte buffer",
        ),
        (_one(lambda p, n: copy(1, 0, p * n, n)), "runs past the 256-byte buffer"),
        (_one(lambda p, n: copy(1, 0, 0, n, via="signal")), "signal carries notifications only"),
        (_one(lambda p, n: copy(1, 0, 0, n, via="smoke")), "unknown variant `smoke`"),
        (_one(lambda p, n: copy(1, 0, 0, n), buffer=100), "buffer 100 is not allowed"),
        (lambda spes, root, size: None, "returned NoneType, expected a cellblade.schedule"),
        (lambda spes, root, size: 1 / 0, "failed for spes=4, root=0, size=64: ZeroDivision"),
        (_one(lambda p, n: notify(0, 1), op="barrier"), "operation barrier, the run is for"),
    ],
)
def test_what_is_wrong_with_a_schedule_is_said(generator, message):
    with pytest.raises(cellblade.ConfigError) as error:
        cellblade.coll_run("allgather", spes=4, sizes=[64], algorithms=[generator])
    assert message in str(error.value)


def test_a_schedule_too_big_for_the_local_store_is_refused_before_any_buffer_is_built():
    # A gigabyte buffer took 42 s and 7.8 GB before the local-store check refused it.
    started = time.monotonic()
    with pytest.raises(cellblade.ProgramError) as error:
        cellblade.coll_run(
            "allgather",
            spes=4,
            sizes=[64],
            algorithms=[_one(lambda p, n: copy(1, 0, 0, n), buffer=10**9)],
        )
    assert str(error.value) == (
        "allgather.bad: does not fit: needs 1000000256 bytes, the local store has 262144"
    )
    with pytest.raises(
        cellblade.ConfigError,
        match="^sizes 16777216 is not allowed: at most the local store's 262144 bytes$",
    ):
        cellblade.coll_run("allreduce", spes=16, sizes=[16 * 2**20], algorithms=["allreduce.rdb"])
    assert time.monotonic() - started < 2.0


def test_the_command_line_runs_shows_and_draws_a_generator(tmp_path):
    source = tmp_path / "mine.py"
    source.write_text(
        textwrap.dedent("""
        from cellblade.schedule import Schedule, copy

        def ring(spes, root, size):
            s = Schedule("allgather.ring", "allgather", spes, root, size)
            for k in range(spes - 1):
                s.round(copy(r, (r - 1) % spes, (r - k - 1) % spes * size, size)
                        for r in range(spes))
            return s
    """),
        encoding="utf-8",
    )
    spec = f"{source}:ring"
    done = run_cli(
        "coll",
        "allgather",
        "-n",
        "4",
        "--sizes",
        "64,128",
        "--algos",
        "rdb",
        "--generator",
        spec,
        "--iterations",
        "2",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["size", "rdb", "ring"]
    assert all("!" not in row for row in lines[2:4]), done.stdout
    done = run_cli("coll", "show", spec, "-n", "4", "--size", "32")
    assert done.returncode == 0 and done.stdout.startswith("schedule allgather.ring")
    picture = tmp_path / "ring.png"
    done = run_cli("coll", "draw", spec, "-n", "4", "--out", str(picture))
    assert done.returncode == 0 and picture.read_bytes()[:4] == b"\x89PNG"
    assert "defines no function nope" in usage_error(
        "coll", "allgather", "--generator", f"{source}:nope"
    )
    assert "expected FILE.py:FUNCTION" in usage_error("coll", "allgather", "--generator", "ring")
    done = run_cli("coll", "barrier", "--generator", spec)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "operation allgather, the run is for barrier" in done.stderr
