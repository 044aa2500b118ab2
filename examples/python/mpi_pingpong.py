"""Seed 004 section 5.1's ping-pong as an MPI program written in Python, on the simulated blade.

Two ranks (SPE 0 and SPE 1) exchange a NumPy array with Send/Recv, timed with Wtime (the
decrementer), for a few sizes in the seed's "memory" mode; then every rank contributes its
rank to an allreduce. Every call runs seed 004's synchronous-mode protocol on the simulated
SPEs with the array's bytes, as `cellblade mpirun` does for a C program, so the latencies are
those of `cellblade pingpong --reps 20` to the decrementer's resolution (70 ns over 40
messages: each size here starts at another point of a decrementer period). The simulation is
deterministic: the output is always that of mpi_pingpong.expected.

Run: python examples/python/mpi_pingpong.py
"""

import numpy as np

from cellblade.programs_mpi import SUM, Job

SIZES = [0, 1024, 16384, 65536]
REPS = 20


def pingpong(comm, n):
    """Rank 0 sends n bytes to rank 1 and receives them back, REPS times; the time per message."""
    peer = comm.rank ^ 1
    out = np.full(n, comm.rank + 1, dtype=np.uint8)
    back = np.empty(n, dtype=np.uint8)
    yield comm.barrier()
    t0 = comm.Wtime()
    for _ in range(REPS):
        if comm.rank == 0:
            yield comm.Send(out, dest=peer, tag=1)
            yield comm.Recv(back, source=peer, tag=1)
        else:
            yield comm.Recv(back, source=peer, tag=1)
            yield comm.Send(out, dest=peer, tag=1)
    assert (back == peer + 1).all()
    return (comm.Wtime() - t0) / (2 * REPS)


def program(comm):
    latencies = []
    for n in SIZES:
        latencies.append((yield from pingpong(comm, n)))
    total = yield comm.allreduce(comm.rank, op=SUM)
    return latencies, total


report = Job(2).run(program)
latencies, total = report["results"][0]
print(f"{'bytes':>8} {'latency us':>11} {'GB/s':>7}")
for n, seconds in zip(SIZES, latencies):
    print(f"{n:>8} {seconds * 1e6:>11.3f} {n / seconds / 1e9:>7.2f}")
print(f"allreduce of the ranks: {total}")
print(f"simulated {report['simulated_ns'] / 1e3:.3f} us")
