/* Collectives on an intercommunicator (MPI-2.2 §5.2.2, with MPI_ROOT and MPI_PROC_NULL)
 * between the lower half of the ranks (group A) and the upper half (group B), of unequal sizes
 * when the rank count is odd. Each result is checked against what the other group sent. */
#include <stdlib.h>
#include "mtest.h"

static MPI_Comm inter;
static int in_a, lrank, lsize, rsize, wrank;

/* The world rank of rank `r` of the other group. */
static int remote_world(int r)
{
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    return in_a ? wsize / 2 + r : r;
}

static void rooted(void)
{
    /* Root: rank 0 of A for bcast and scatter, rank 1 (or 0) of B for gather and reduce. */
    int v = -1, broot = rsize > 1 ? 1 : 0;
    if (in_a) {
        v = 77;
        MPI_Bcast(&v, 1, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    } else {
        MPI_Bcast(&v, 1, MPI_INT, 0, inter);
        CHECK_MSG(v == 77, "bcast from group A gave %d", v);
    }
    int *all = malloc(sizeof(int) * 16), mine = wrank, sum = -1;
    if (!in_a && lrank == (lsize > 1 ? 1 : 0)) {
        MPI_Gather(NULL, 0, MPI_INT, all, 1, MPI_INT, MPI_ROOT, inter);
        for (int r = 0; r < rsize; r++)
            CHECK_MSG(all[r] == remote_world(r), "gathered %d from remote rank %d", all[r], r);
        MPI_Reduce(NULL, &sum, 1, MPI_INT, MPI_SUM, MPI_ROOT, inter);
        CHECK_MSG(sum == rsize * (rsize - 1) / 2, "reduced %d", sum);
    } else if (!in_a) {
        MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_PROC_NULL, inter);
        MPI_Reduce(NULL, NULL, 1, MPI_INT, MPI_SUM, MPI_PROC_NULL, inter);
    } else {
        MPI_Gather(&mine, 1, MPI_INT, NULL, 0, MPI_INT, broot, inter);
        MPI_Reduce(&lrank, NULL, 1, MPI_INT, MPI_SUM, broot, inter);
    }
    if (in_a && lrank == 0) {
        for (int r = 0; r < rsize; r++)
            all[r] = 100 + r;
        MPI_Scatter(all, 1, MPI_INT, NULL, 0, MPI_INT, MPI_ROOT, inter);
    } else if (in_a) {
        MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_PROC_NULL, inter);
    } else {
        MPI_Scatter(NULL, 0, MPI_INT, &v, 1, MPI_INT, 0, inter);
        CHECK_MSG(v == 100 + lrank, "scattered %d", v);
    }
    free(all);
}

/* MPI-2.2 §5.10: each group gets the sum of the other's vectors of lsize * rsize elements
 * (element k of world rank w's is w + k), rsize elements to each local rank. */
static void reduce_scatter(void)
{
    int n = lsize * rsize, *in = malloc(sizeof(int) * (size_t)n), *counts = malloc(sizeof(int) * (size_t)lsize);
    int out[2][16], wranks = 0;
    for (int k = 0; k < n; k++)
        in[k] = wrank + k;
    for (int r = 0; r < lsize; r++)
        counts[r] = rsize;
    for (int r = 0; r < rsize; r++)
        wranks += remote_world(r);
    MPI_Reduce_scatter(in, out[0], counts, MPI_INT, MPI_SUM, inter);
    MPI_Reduce_scatter_block(in, out[1], rsize, MPI_INT, MPI_SUM, inter);
    for (int v = 0; v < 2; v++)
        for (int j = 0; j < rsize; j++) {
            int k = lrank * rsize + j, want = wranks + rsize * k;
            CHECK_MSG(out[v][j] == want, "%s: element %d is %d, the other group's sum is %d", v ? "reduce_scatter_block" : "reduce_scatter", k,
                out[v][j], want);
        }
    free(in);
    free(counts);
}

static void everyone(void)
{
    int sum = -1, *all = calloc(32, sizeof(int)), *mine = malloc(sizeof(int) * 16);
    MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, inter);
    int want = 0;
    for (int r = 0; r < rsize; r++)
        want += remote_world(r);
    CHECK_MSG(sum == want, "allreduce gave %d, the other group's ranks sum to %d", sum, want);
    MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, inter);
    for (int r = 0; r < rsize; r++)
        CHECK_MSG(all[r] == remote_world(r), "allgather: %d from remote rank %d", all[r], r);
    for (int r = 0; r < rsize; r++)
        mine[r] = 1000 * wrank + r;
    MPI_Alltoall(mine, 1, MPI_INT, all, 1, MPI_INT, inter);
    for (int r = 0; r < rsize; r++)
        CHECK_MSG(all[r] == 1000 * remote_world(r) + lrank, "alltoall: %d from remote rank %d", all[r], r);
    reduce_scatter();
    MPI_Barrier(inter);
    int flag = 0, rc;
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    rc = MPI_Scan(&wrank, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK_MSG(rc == MPI_ERR_COMM, "MPI_Scan on an intercommunicator returned %d", rc);
    rc = MPI_Bcast(&flag, 1, MPI_INT, -7, inter);
    CHECK_MSG(rc == MPI_ERR_ROOT, "MPI_Bcast with root -7 returned %d", rc);
    /* MPI-2.2 §5.2.2: no "in place" on an intercommunicator. */
    int counts[16];
    for (int r = 0; r < 16; r++)
        counts[r] = 1;
    rc = MPI_Reduce_scatter(MPI_IN_PLACE, all, counts, MPI_INT, MPI_SUM, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Reduce_scatter with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, all, 1, MPI_INT, MPI_SUM, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Reduce_scatter_block with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Allreduce with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Alltoall with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Allgather with MPI_IN_PLACE returned %d", rc);
    /* The rooted ones too, at the root (MPI_ROOT), away from it (MPI_PROC_NULL) and in the other group. */
    int root = in_a ? 0 : lrank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    rc = MPI_Reduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, root, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Reduce with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, root, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Gather with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, all, counts, counts, MPI_INT, root, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Gatherv with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Scatter with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Scatterv(all, counts, counts, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Scatterv with MPI_IN_PLACE returned %d", rc);
    rc = MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, root, inter);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Bcast with MPI_IN_PLACE returned %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Bcast with MPI_IN_PLACE on MPI_COMM_WORLD returned %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(all);
    free(mine);
}

/* MPI_DOUBLE_INT and friends: size is value + int, extent the C struct's; MAXLOC reads them. */
static void pairs(void)
{
    int size;
    MPI_Aint lb, extent;
    MPI_Type_size(MPI_DOUBLE_INT, &size);
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
    CHECK_MSG(size == (int)(sizeof(double) + sizeof(int)), "MPI_DOUBLE_INT size %d", size);
    CHECK_MSG(extent == (MPI_Aint)sizeof(struct { double v; int i; }), "MPI_DOUBLE_INT extent %ld", (long)extent);
    MPI_Type_size(MPI_SHORT_INT, &size);
    CHECK_MSG(size == (int)(sizeof(short) + sizeof(int)), "MPI_SHORT_INT size %d", size);
    struct { double v; int i; } in[2] = {{wrank % 3, wrank}, {-wrank, wrank}}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int best = wsize > 2 ? 2 : wsize - 1;
    CHECK_MSG(out[0].v == best && out[0].i == best, "maxloc (%g, %d)", out[0].v, out[0].i);
    CHECK_MSG(out[1].v == 0 && out[1].i == 0, "maxloc (%g, %d)", out[1].v, out[1].i);
    /* A double, an int and a double arrive as 1.5 MPI_DOUBLE_INTs: three basic elements. */
    struct { double a; int b; double c; } three = {1.5, 7, 2.5};
    struct { double v; int i; } two[2] = {{0, 0}, {0, 0}};
    MPI_Datatype t, ts[3] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
    int lens[3] = {1, 1, 1}, count;
    MPI_Aint disps[3] = {0, (char *)&three.b - (char *)&three, (char *)&three.c - (char *)&three};
    MPI_Type_create_struct(3, lens, disps, ts, &t);
    MPI_Type_commit(&t);
    MPI_Status st;
    MPI_Sendrecv(&three, 1, t, 0, 0, two, 2, MPI_DOUBLE_INT, 0, 0, MPI_COMM_SELF, &st);
    MPI_Get_elements(&st, MPI_DOUBLE_INT, &count);
    CHECK_MSG(count == 3, "MPI_Get_elements gave %d", count);
    CHECK_MSG(two[0].v == 1.5 && two[0].i == 7 && two[1].v == 2.5, "received (%g, %d), %g", two[0].v, two[0].i, two[1].v);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    int wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    pairs();
    if (wsize >= 2) {
        MPI_Comm half;
        in_a = wrank < wsize / 2;
        MPI_Comm_split(MPI_COMM_WORLD, in_a, wrank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? wsize / 2 : 0, 5, &inter);
        MPI_Comm_rank(inter, &lrank);
        MPI_Comm_size(inter, &lsize);
        MPI_Comm_remote_size(inter, &rsize);
        rooted();
        everyone();
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    return mtest_finalize();
}
