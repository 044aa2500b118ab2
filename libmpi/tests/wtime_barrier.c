/* MPI_Wtime is simulated time: it advances across a barrier, never goes back, is a multiple of
 * MPI_Wtick (the decrementer period), compute between calls is not charged (a call costs only
 * its own 20 cycles, so two calls in a row are at most one decrementer step apart). A rank that
 * reaches the barrier last may leave it within the same step: the barrier's time shows on the
 * slowest rank. */
#include <math.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double tick = MPI_Wtick(), t0 = MPI_Wtime();
    volatile double sink = 0;
    for (long i = 0; i < 20000000; i++)
        sink += i * 0.5;
    double t1 = MPI_Wtime();
    CHECK_MSG(t1 - t0 <= tick * (1 + 1e-9), "compute between calls costs no simulated time (%g -> %g)", t0, t1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime(), longest;
    CHECK_MSG(t2 >= t1, "the clock never goes back (%g -> %g)", t1, t2);
    CHECK_MSG(t2 - t1 < 1e-3, "a barrier takes under a millisecond (%g s)", t2 - t1);
    double took = t2 - t1;
    MPI_Allreduce(&took, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(longest > 0, "a barrier takes simulated time");
    double ticks = t2 / tick;
    CHECK_MSG(fabs(ticks - floor(ticks + 0.5)) < 1e-6, "whole decrementer ticks (%f)", ticks);
    CHECK_MSG(tick > 6.9e-8 && tick < 7.0e-8, "qs20 decrementer: 14.318 MHz (%g)", tick);
    int flag;
    MPI_Initialized(&flag);
    CHECK_MSG(flag == 1, "initialized");
    return mtest_finalize();
}
