/* A spin on MPI_Wtime waits out the simulated delay it asks for, as MPICH's bsendpending does
 * for 2 s, in bounded host time: calls in a row cost ever more simulated time, up to 10 us each
 * (crates/cellblade/src/mpi/external.rs, whose unit test follows a 2 s spin). Every rank spins
 * 0.2 s here (some 20,000 calls, a second of host time on a quiet host), then they meet in a
 * barrier. */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double tick = MPI_Wtick(), t0 = MPI_Wtime(), t1;
    long calls = 0;
    while ((t1 = MPI_Wtime()) - t0 < 0.2)
        calls++;
    CHECK_MSG(t1 - t0 < 0.2 + 1e-5 + tick, "a 0.2 s spin ended after %.9f s", t1 - t0);
    CHECK_MSG(calls > 64 && calls < 21000, "a 0.2 s spin took %ld calls", calls);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    CHECK_MSG(t2 > t1 && t2 - t1 < 1e-3, "the barrier after the spin took %g s", t2 - t1);
    return mtest_finalize();
}
