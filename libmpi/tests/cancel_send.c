/* MPI_Cancel of sends no receive has matched (MPI-1.3 §3.8.4), as MPICH's scancel does it:
 * rank 0 cancels an Isend whose entry is still in rank 1's local store, one queued behind it,
 * buffered ones (Ibsend, a started Bsend_init), one rank 1 has parked in its unexpected queue
 * (it receives another tag meanwhile), and one rank 1 has received (not cancelled); each wait
 * returns and MPI_Test_cancelled says which.
 * Rank 1 receives only what was not cancelled, and its data must be right. */
#include <stdio.h>
#include "mpi.h"

static int errs;

static void expect(int rank, const char *what, int got, int want)
{
    if (got != want) {
        errs++;
        printf("rank %d: %s: %d, expected %d\n", rank, what, got, want);
    }
}

/* Wait for q and say whether it was cancelled. */
static int cancelled(MPI_Request *q)
{
    MPI_Status st;
    int flag;
    MPI_Wait(q, &st);
    MPI_Test_cancelled(&st, &flag);
    /* The private field carries MPICH's name, so MPICH's tests that print it compile. */
    if ((st.cancelled != 0) != (flag != 0)) {
        errs++;
        printf("status.cancelled is %d where MPI_Test_cancelled says %d\n", st.cancelled, flag);
    }
    return flag;
}

int main(int argc, char **argv)
{
    int rank, buf[256], got[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 256; i++)
        buf[i] = 3 * i + 1;
    if (rank == 0) {
        MPI_Request q[2];
        /* Rank 1 is still in the barrier below: neither send can have matched. */
        MPI_Isend(buf, 256, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(buf, 256, MPI_INT, 1, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Cancel(&q[1]);
        MPI_Cancel(&q[0]);
        expect(rank, "queued send cancelled", cancelled(&q[1]), 1);
        expect(rank, "posted send cancelled", cancelled(&q[0]), 1);
        /* Buffered sends are complete at once, yet cancellable until the request is released. */
        static char attached[2 * (256 * sizeof(int) + MPI_BSEND_OVERHEAD)];
        MPI_Buffer_attach(attached, sizeof attached);
        MPI_Ibsend(buf, 256, MPI_INT, 1, 8, MPI_COMM_WORLD, &q[0]);
        MPI_Bsend_init(buf, 256, MPI_INT, 1, 9, MPI_COMM_WORLD, &q[1]);
        MPI_Start(&q[1]);
        MPI_Cancel(&q[1]);
        MPI_Cancel(&q[0]);
        expect(rank, "Ibsend cancelled", cancelled(&q[0]), 1);
        expect(rank, "started Bsend_init cancelled", cancelled(&q[1]), 1);
        MPI_Request_free(&q[1]);
        void *was;
        int size;
        MPI_Buffer_detach(&was, &size);
        MPI_Barrier(MPI_COMM_WORLD);
        /* Tag 3 waits while rank 1 receives tag 4: rank 1 parks tag 3 first. */
        MPI_Isend(buf, 256, MPI_INT, 1, 3, MPI_COMM_WORLD, &q[0]);
        MPI_Send(buf, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        MPI_Cancel(&q[0]);
        expect(rank, "parked send cancelled", cancelled(&q[0]), 1);
        /* Tag 5 is received before rank 0 tries: it completes. */
        MPI_Isend(buf, 256, MPI_INT, 1, 5, MPI_COMM_WORLD, &q[0]);
        MPI_Recv(NULL, 0, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Cancel(&q[0]);
        expect(rank, "received send cancelled", cancelled(&q[0]), 0);
        MPI_Send(buf, 256, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Recv(got, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &st);
        expect(rank, "tag 4's value", got[0], 1);
        MPI_Recv(got, 256, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
        MPI_Send(NULL, 0, MPI_INT, 0, 6, MPI_COMM_WORLD);
        /* Tag 7 is the next message to arrive: nothing cancelled is left to match any tag. */
        MPI_Recv(got, 256, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        expect(rank, "the next tag after the cancelled ones", st.MPI_TAG, 7);
        for (int i = 0; i < 256; i++)
            if (got[i] != buf[i])
                errs++;
        int flag;
        MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        expect(rank, "a cancelled message left to probe", flag, 0);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "Found %d errors\n" : "No Errors\n", all);
    MPI_Finalize();
    return all != 0;
}
