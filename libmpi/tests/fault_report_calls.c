/* Deadlocks whose report must name the call the program wrote and its communicator, not the
 * sends and receives the library makes for it. Two ranks; the argument picks one:
 *   allreduce  rank 0 calls MPI_Allreduce while rank 1 waits in MPI_Recv from 0;
 *   send       rank 0 has an MPI_Irecv pending (so its blocking MPI_Send goes through the
 *              request engine) and sends a long message rank 1 never receives, while rank 1
 *              does the same the other way;
 *   named      both ranks receive from each other first on a duplicate named "halo";
 * and rank 1 waits in MPI_Recv from 0 while rank 0 is in:
 *   allgather  MPI_Allgather on "halo" (the library runs it as MPI_Allgatherv);
 *   cart       MPI_Cart_create on "halo" (an MPI_Comm_split underneath);
 *   barrier    MPI_Barrier on MPI_COMM_WORLD (the simulator's, of sends and receives);
 *   persistent MPI_Waitall on an MPI_Recv_init request on "halo", started;
 *   sendrecv   MPI_Sendrecv on "halo";
 *   crash      MPI_Bcast on "halo" from a bad buffer: killed before it reaches the simulator;
 *   nullwait   an MPI_Isend rank 1 receives and its MPI_Wait, then an MPI_Wait on the null
 *              request left, then a crash: the report names that wait, not the previous one's
 *              request. */
#include <signal.h>
#include <string.h>
#include "mpi.h"

#define LONG_MESSAGE 65536

static char big[LONG_MESSAGE];

static MPI_Comm named_dup(void)
{
    MPI_Comm halo;
    MPI_Comm_dup(MPI_COMM_WORLD, &halo);
    MPI_Comm_set_name(halo, "halo");
    return halo;
}

/* Rank 0's side of the modes where rank 1 waits in MPI_Recv from 0. */
static void waits_in(const char *how, MPI_Comm halo)
{
    int x = 1, y[2];
    MPI_Request r;
    if (strcmp(how, "allgather") == 0) {
        MPI_Allgather(&x, 1, MPI_INT, y, 1, MPI_INT, halo);
    } else if (strcmp(how, "cart") == 0) {
        MPI_Comm cart;
        int dims[1] = {2}, periods[1] = {0};
        MPI_Cart_create(halo, 1, dims, periods, 0, &cart);
    } else if (strcmp(how, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(how, "persistent") == 0) {
        MPI_Recv_init(y, 1, MPI_INT, 1, 3, halo, &r);
        MPI_Start(&r);
        MPI_Waitall(1, &r, MPI_STATUSES_IGNORE);
    } else if (strcmp(how, "sendrecv") == 0) {
        MPI_Sendrecv(&x, 1, MPI_INT, 1, 3, y, 1, MPI_INT, 1, 4, halo, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "crash") == 0) {
        MPI_Bcast((void *)8, 4, MPI_INT, 0, halo);
    } else if (strcmp(how, "nullwait") == 0) {
        MPI_Isend(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE); /* r is MPI_REQUEST_NULL now */
        raise(SIGSEGV);
    }
}

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    const char *how = argc > 1 ? argv[1] : "allreduce";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(how, "allreduce") == 0) {
        if (rank == 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(how, "send") == 0) {
        MPI_Request r;
        MPI_Irecv(&y, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, &r);
        MPI_Send(big, LONG_MESSAGE, MPI_CHAR, 1 - rank, 5 + rank, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (strcmp(how, "named") == 0) {
        MPI_Comm halo = named_dup();
        MPI_Recv(&y, 1, MPI_INT, 1 - rank, 1, halo, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 1 - rank, 1, halo);
    } else {
        MPI_Comm halo = named_dup();
        if (rank == 1)
            MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            waits_in(how, halo);
    }
    MPI_Finalize();
    return 0;
}
