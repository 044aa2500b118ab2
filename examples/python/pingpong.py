"""Ping-pong between two SPEs through each other's inbound mailboxes, written in Python.

Demonstrates SPE programs written in Python (cellblade.programs) on the simulated QS20 blade:
SPE 0 and SPE 1 exchange a 32-bit value 10 times. Each send is a 4-byte mfc_put from local
store to the peer's inbound mailbox register, mmio_ea(peer, SPU_IN_MBOX); a DMA smaller than
16 bytes keeps the same offset within the quadword at both ends (lsa % 16 == ea % 16), so the
value is stored at scratch+12 of a 16-byte aligned scratch quadword. Each side receives with
spu_read_in_mbox and answers with the value plus one. SPE 0 times every round trip with
now_ns(); the script prints the mean round-trip time in ns and the values each SPE received.
The simulation is deterministic: the output is always that of pingpong.expected.

Run: python examples/python/pingpong.py
"""

from cellblade.programs import SPU_IN_MBOX, Blade, mmio_ea

ROUNDS = 10
TAG = 1


def send(spu, scratch, peer, value):
    """Writes `value` into SPE `peer`'s inbound mailbox and waits for the put to complete."""
    ea = mmio_ea(peer, SPU_IN_MBOX)
    lsa = scratch + ea % 16  # scratch + 12
    spu.ls_write(lsa, value.to_bytes(4, "big"))
    yield spu.mfc_put(lsa, ea, 4, TAG)
    spu.mfc_write_tag_mask(1 << TAG)
    yield spu.mfc_read_tag_status_all()


def main():
    received = {0: [], 1: []}
    round_trips_ns = []

    def ping(spu):
        scratch = spu.ls_alloc(16, 16)
        value = 1
        for _ in range(ROUNDS):
            start = spu.now_ns()
            yield from send(spu, scratch, 1, value)
            answer = yield spu.spu_read_in_mbox()
            round_trips_ns.append(spu.now_ns() - start)
            received[0].append(answer)
            value = answer + 1

    def pong(spu):
        scratch = spu.ls_alloc(16, 16)
        for _ in range(ROUNDS):
            value = yield spu.spu_read_in_mbox()
            received[1].append(value)
            yield from send(spu, scratch, 0, value + 1)

    Blade("qs20").spe(0, ping).spe(1, pong).run()

    mean = sum(round_trips_ns) / len(round_trips_ns)
    print(f"pingpong: {ROUNDS} round trips between spe 0 and spe 1 through their inbound mailboxes")
    print(f"mean round trip: {mean:.1f} ns")
    print("spe 1 received:", " ".join(str(v) for v in received[1]))
    print("spe 0 received:", " ".join(str(v) for v in received[0]))


if __name__ == "__main__":
    main()
