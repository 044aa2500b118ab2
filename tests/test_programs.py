"""Python SPE and PPE programs (cellblade.programs) on the simulated blade."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cellblade
from cellblade import ConfigError, DeadlockError, ProgramError
from cellblade.programs import SPU_IN_MBOX, Blade, ls_ea, mmio_ea

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "python"


def send_to_in_mbox(spu, scratch, peer, value, tag=0):
    """A 4-byte put of `value` to SPE `peer`'s inbound mailbox (same offset in the quadword)."""
    ea = mmio_ea(peer, SPU_IN_MBOX)
    lsa = scratch + ea % 16
    spu.ls_write(lsa, value.to_bytes(4, "big"))
    yield spu.mfc_put(lsa, ea, 4, tag)


def test_pingpong_example_prints_its_expected_output():
    script = EXAMPLES / "pingpong.py"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert done.stdout == script.with_suffix(".expected").read_bytes()


def test_dma_get_moves_real_bytes_from_another_local_store():
    data = bytes((7 * i + 3) % 256 for i in range(2048))
    seen = {}

    def owner(spu):  # SPE 1: fills its local store, then tells SPE 0 where
        src = spu.ls_alloc(len(data), 128)
        spu.ls_write(src, data)
        scratch = spu.ls_alloc(16, 16)
        yield from send_to_in_mbox(spu, scratch, 0, src)
        spu.mfc_write_tag_mask(1)
        yield spu.mfc_read_tag_status_all()

    def reader(spu):  # SPE 0: gets the bytes through SPE 1's mapped local store
        src = yield spu.spu_read_in_mbox()
        dst = spu.ls_alloc(len(data), 128)
        assert spu.ls_read(dst, len(data)) == bytes(len(data))
        yield spu.mfc_get(dst, ls_ea(1, src), len(data), 5)
        spu.mfc_write_tag_mask(1 << 5)
        done = yield spu.mfc_read_tag_status_all()
        seen["tags"] = done
        seen["bytes"] = spu.ls_read(dst, len(data))

    report = Blade("qs20").spe(0, reader).spe(1, owner).run()
    assert seen["bytes"] == data
    assert seen["tags"] == 1 << 5
    assert report["simulated_ns"] > 0 and report["events"] > 0 and report["packets"] > 0
    assert set(report) == {"simulated_ns", "events", "packets", "wall_s"}


def test_python_programs_time_exactly_like_the_built_in_rust_programs():
    """The built-in SPE-to-SPE mailbox workload (CellStats mailbox -s), rewritten in Python,
    takes the same simulated time and the same number of events."""
    rounds = 10
    rust = cellblade.run_stats("mailbox", spes=2, spe_target=True, iterations=rounds, warmup=0)

    def partner(spu):
        scratch = spu.ls_alloc(16, 16)
        spu.mfc_write_tag_mask(1)
        for _ in range(rounds):
            v = yield spu.spu_read_in_mbox()
            yield from send_to_in_mbox(spu, scratch, 0, v)
            yield spu.mfc_read_tag_status_all()

    def spe0(spu):
        scratch = spu.ls_alloc(16, 16)
        spu.mfc_write_tag_mask(1)
        for r in range(rounds):
            yield from send_to_in_mbox(spu, scratch, 1, r + 1)
            yield spu.spu_read_in_mbox()
            yield spu.mfc_read_tag_status_all()

    report = Blade().spe(1, partner).spe(0, spe0).run()
    assert report["simulated_ns"] == rust["sim"]["simulated_ns"]
    assert report["events"] == rust["sim"]["events"]


def test_ppe_and_spe_programs_talk_through_mailboxes_and_signals():
    got = {}

    def spe(spu):
        v = yield spu.spu_read_in_mbox()
        s = yield spu.spu_read_signal1()
        yield spu.compute(320)  # 100 ns at 3.2 GHz
        yield spu.spu_write_out_mbox(v + s)

    def ppe(p):
        yield p.spe_in_mbox_write(2, 40)
        yield p.spe_signal_write(2, 1, 2, syscall=True)
        got["answer"] = yield p.spe_out_mbox_read(2)
        got["now"] = p.now_ns()

    report = Blade().spe(2, spe).ppe(ppe).run()
    assert got["answer"] == 42
    assert got["now"] == report["simulated_ns"] > 100


def test_atomic_increment_with_getllar_putllc():
    counter_ea = 0x10000  # a word of XDRAM0
    workers = [0, 1, 2, 3]
    increments = 5

    def worker(spu):
        line = spu.ls_alloc(128, 128)
        for _ in range(increments):
            while True:
                yield spu.mfc_getllar(line, counter_ea)
                old = int.from_bytes(spu.ls_read(line, 4), "big")
                spu.ls_write(line, (old + 1).to_bytes(4, "big"))
                lost = yield spu.mfc_putllc(line, counter_ea)
                if lost == 0:
                    break
        if spu.spe_id == 0:  # wait for the others, then read the final count
            yield spu.compute(3200 * 100)
            yield spu.mfc_getllar(line, counter_ea)
            final.append(int.from_bytes(spu.ls_read(line, 4), "big"))

    final = []
    blade = Blade()
    for spe in workers:
        blade.spe(spe, worker)
    blade.run()
    assert final == [len(workers) * increments]


def test_reading_an_empty_mailbox_with_no_writer_deadlocks_naming_the_spe():
    def waiter(spu):
        yield spu.spu_read_in_mbox()

    with pytest.raises(DeadlockError, match="spe3 waits for the inbound mailbox of spe 3"):
        Blade().spe(3, waiter).run()


def test_an_illegal_dma_size_raises_program_error():
    def bad(spu):
        buf = spu.ls_alloc(128, 128)
        yield spu.mfc_get(buf, 0, 3, 0)

    with pytest.raises(ProgramError, match="size 3 is illegal") as raised:
        Blade().spe(0, bad).run()
    # Raised at the program's yield, so the traceback shows the program's line.
    assert any(entry.name == "bad" for entry in raised.traceback)


def test_a_program_may_catch_a_simulator_error_and_go_on():
    log = []

    def careful(spu):
        buf = spu.ls_alloc(128, 128)
        try:
            yield spu.mfc_get(buf, 0, 3, 0)
        except ProgramError as e:
            log.append(str(e))
        yield spu.mfc_get(buf, 0, 128, 0)
        spu.mfc_write_tag_mask(1)
        yield spu.mfc_read_tag_status_all()
        log.append("done")

    Blade().spe(0, careful).run()
    assert "size 3 is illegal" in log[0] and log[1] == "done"


def test_a_python_exception_in_a_program_propagates_with_its_type():
    class Boom(Exception):
        pass

    def other(spu):
        yield spu.spu_read_in_mbox()  # would deadlock, but the run ends first

    def failing(spu):
        yield spu.compute(10)
        raise Boom("boom on spe 4")

    with pytest.raises(Boom, match="^boom on spe 4$"):
        Blade().spe(1, other).spe(4, failing).run()


def test_yielding_something_that_is_not_an_operation_raises_type_error():
    def forgot_the_call(spu):
        yield spu.spu_read_in_mbox  # the method, not the operation

    with pytest.raises(TypeError, match="spe 0: the program yielded .* not an operation"):
        Blade().spe(0, forgot_the_call).run()

    ppe_ops = []

    def ppe(p):  # runs first: it was attached first
        ppe_ops.append(p.spe_in_mbox_write(0, 1))
        yield p.spe_in_mbox_status(0)

    def spe(spu):
        yield spu.compute(1)
        yield ppe_ops[0]

    with pytest.raises(
        TypeError, match=r"spe_in_mbox_write\(0, 0x1, syscall=False\) is a PPE operation"
    ):
        Blade().ppe(ppe).spe(0, spe).run()


def test_a_program_must_be_a_generator_function():
    def not_a_generator(spu):
        return 1

    with pytest.raises(TypeError, match="not a generator function"):
        Blade().spe(0, not_a_generator)

    class Factory:  # a callable checked only when the run starts it
        def __call__(self, spu):
            return 1

    with pytest.raises(TypeError, match="the program of spe 0 returned 1, not a generator"):
        Blade().spe(0, Factory()).run()


def test_set_up_errors_are_config_errors():
    def idle(spu):
        yield spu.compute(1)

    with pytest.raises(ConfigError, match="spe 16 does not exist"):
        Blade().spe(16, idle)
    with pytest.raises(ConfigError, match="already runs a thread"):
        Blade().spe(0, idle).spe(0, idle)
    with pytest.raises(ConfigError, match="unknown machine preset"):
        Blade("qs99")


def test_local_store_access_out_of_range_raises_program_error():
    def overrun(spu):
        spu.ls_write(256 * 1024 - 2, b"abcd")
        yield spu.compute(1)

    with pytest.raises(ProgramError, match="outside the local store"):
        Blade().spe(0, overrun).run()


def test_a_handle_works_only_while_its_program_runs_and_a_blade_runs_once():
    kept = []

    def keep(spu):
        kept.append(spu)
        yield spu.compute(1)

    blade = Blade().spe(0, keep)
    blade.run()
    with pytest.raises(RuntimeError, match="has ended"):
        kept[0].now_ns()
    with pytest.raises(RuntimeError, match="already run"):
        blade.run()


def test_trace_is_returned_when_asked_for():
    def get(spu):
        buf = spu.ls_alloc(16384, 128)
        yield spu.mfc_get(buf, 0, 16384, 0)
        spu.mfc_write_tag_mask(1)
        yield spu.mfc_read_tag_status_all()

    report = Blade(trace=True).spe(0, get).run()
    assert report["trace"]
    assert report["simulated_ns"] > 600


def test_dma_lists_gather_and_scatter():
    seen = {}

    def prog(spu):
        a = spu.ls_alloc(64, 128)
        spu.ls_write(a, bytes(range(64)))
        # scatter 4 x 16 bytes to XDRAM with gaps, then gather them back contiguously
        elements = [(16, 0x2000 + 256 * i) for i in range(4)]
        yield spu.mfc_putl(a, 0, elements, 2)
        spu.mfc_write_tag_mask(1 << 2)
        yield spu.mfc_read_tag_status_all()
        b = spu.ls_alloc(64, 128)
        yield spu.mfc_getl(b, 0, elements, 2)
        yield spu.mfc_read_tag_status_all()
        seen["b"] = spu.ls_read(b, 64)
        c = spu.ls_alloc(16, 16)
        yield spu.mfc_get(c, 0x2000 + 256 * 3, 16, 2)
        yield spu.mfc_read_tag_status_all()
        seen["c"] = spu.ls_read(c, 16)

    Blade().spe(0, prog).run()
    assert seen["b"] == bytes(range(64))
    assert seen["c"] == bytes(range(48, 64))
