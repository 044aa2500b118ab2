"""Matching by tag and communicator (issue 22) from rank programs written in Python: the
Python form shares the core's unexpected queue, so the cases that deadlocked complete."""

from __future__ import annotations

from cellblade.programs_mpi import ANY_TAG, Job, Request, Status


def test_a_receive_for_the_second_tag_takes_it_before_the_first():
    def program(comm):
        if comm.rank == 0:
            sends = [comm.isend(f"tag {t}", dest=1, tag=t) for t in (1, 2)]
            yield Request.waitall(sends)
            return None
        second = yield comm.recv(source=0, tag=2)
        first = yield comm.recv(source=0, tag=1)
        return [second, first]

    for mode in ("memory", "ls"):
        assert Job(2, mode=mode).run(program)["results"][1] == ["tag 2", "tag 1"], mode


def test_any_tag_takes_the_oldest_parked_message():
    def program(comm):
        if comm.rank == 0:
            yield Request.waitall([comm.isend(t, dest=1, tag=t) for t in (5, 6, 7)])
            return None
        seen = [(yield comm.recv(source=0, tag=7))]
        for _ in range(2):
            st = Status()
            yield comm.recv(source=0, tag=ANY_TAG, status=st)
            seen.append(st.tag)
        return seen

    assert Job(2).run(program)["results"][1] == [7, 5, 6]
