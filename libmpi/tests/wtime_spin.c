/* A spin on MPI_Wtime waits out the simulated delay it asks for: each call costs what it
 * would on the SPU (20 cycles, crates/cellblade/src/mpi/external.rs), so the clock advances
 * by a call's cost per call and the spin ends within a call of its target. Every rank spins
 * 20 us (3200 calls), then they meet in a barrier. */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double tick = MPI_Wtick(), t0 = MPI_Wtime(), t1;
    long calls = 0;
    while ((t1 = MPI_Wtime()) - t0 < 20e-6)
        calls++;
    CHECK_MSG(t1 - t0 < 20e-6 + 1e-8 + tick, "a 20 us spin ended after %.9f s", t1 - t0);
    CHECK_MSG(calls > 1000 && calls < 20000, "a 20 us spin took %ld calls", calls);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    CHECK_MSG(t2 > t1 && t2 - t1 < 1e-3, "the barrier after the spin took %g s", t2 - t1);
    return mtest_finalize();
}
