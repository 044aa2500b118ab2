/* Every collective against values computed locally: Bcast, Reduce and Allreduce (every
 * predefined arithmetic op on int and double, MPI_IN_PLACE), Gather(v), Scatter(v),
 * Allgather(v), Alltoall, Scan, Exscan, Reduce_scatter(_block), Barrier, with every rank as root. */
#include <math.h>
#include <stdlib.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int root = 0; root < n; root++) {
        int v[3] = {rank == root ? 7 : 0, rank == root ? root : 0, 9};
        MPI_Bcast(v, 2, MPI_INT, root, MPI_COMM_WORLD);
        CHECK_MSG(v[0] == 7 && v[1] == root && v[2] == 9, "bcast from %d: %d %d %d", root, v[0], v[1], v[2]);
        int mine[2] = {rank + 1, -rank}, out[2] = {0, 0};
        MPI_Reduce(mine, out, 2, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root)
            CHECK_MSG(out[0] == n * (n + 1) / 2 && out[1] == -n * (n - 1) / 2, "reduce sum at %d: %d %d", root, out[0], out[1]);
        int *all = malloc(sizeof(int) * n), part = -1;
        MPI_Gather(&mine[0], 1, MPI_INT, all, 1, MPI_INT, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int r = 0; r < n; r++)
                CHECK_MSG(all[r] == r + 1, "gather[%d] = %d", r, all[r]);
        for (int r = 0; r < n; r++)
            all[r] = 100 * r;
        MPI_Scatter(all, 1, MPI_INT, &part, 1, MPI_INT, root, MPI_COMM_WORLD);
        CHECK_MSG(part == 100 * rank, "scatter got %d", part);
        free(all);
    }
    static const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};
    for (int k = 0; k < 4; k++) {
        /* Values kept small enough that the int product cannot overflow. */
        double d = rank % 3 + 1.5, dout, dwant = 0;
        int iout = rank % 2 + 1, iwant = 0;
        MPI_Allreduce(&d, &dout, 1, MPI_DOUBLE, ops[k], MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &iout, 1, MPI_INT, ops[k], MPI_COMM_WORLD);
        for (int r = 0; r < n; r++) {
            double dv = r % 3 + 1.5;
            int iv = r % 2 + 1;
            if (r == 0) {
                dwant = dv;
                iwant = iv;
            } else if (k == 0) {
                dwant = dv > dwant ? dv : dwant;
                iwant = iv > iwant ? iv : iwant;
            } else if (k == 1) {
                dwant = dv < dwant ? dv : dwant;
                iwant = iv < iwant ? iv : iwant;
            } else if (k == 2) {
                dwant += dv;
                iwant += iv;
            } else {
                dwant *= dv;
                iwant *= iv;
            }
        }
        /* Rank-order combination may round differently from this loop's order. */
        CHECK_MSG(fabs(dout - dwant) <= 1e-12 * fabs(dwant) && iout == iwant, "allreduce op %d: %g %d (want %g %d)", k, dout, iout, dwant, iwant);
    }
    /* Allgatherv with rank r giving r+1 elements; Alltoall of rank*100+destination. */
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n), total = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    int *mine = malloc(sizeof(int) * (rank + 1)), *gv = malloc(sizeof(int) * total);
    for (int j = 0; j <= rank; j++)
        mine[j] = rank * 10 + j;
    MPI_Allgatherv(mine, rank + 1, MPI_INT, gv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        for (int j = 0; j <= r; j++)
            CHECK_MSG(gv[displs[r] + j] == r * 10 + j, "allgatherv block %d item %d", r, j);
    int *to = malloc(sizeof(int) * n), *from = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++)
        to[r] = rank * 100 + r;
    MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        CHECK_MSG(from[r] == r * 100 + rank, "alltoall from %d: %d", r, from[r]);
    int ag[16];
    MPI_Allgather(&rank, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        CHECK_MSG(ag[r] == r, "allgather %d", r);
    int one = rank + 1, pre = -1, ex = -1;
    MPI_Scan(&one, &pre, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&one, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_MSG(pre == (rank + 1) * (rank + 2) / 2, "scan %d", pre);
    if (rank > 0)
        CHECK_MSG(ex == rank * (rank + 1) / 2, "exscan %d", ex);
    int *rs = malloc(sizeof(int) * total), got[16];
    for (int j = 0; j < total; j++)
        rs[j] = j;
    MPI_Reduce_scatter(rs, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int j = 0; j <= rank; j++)
        CHECK_MSG(got[j] == n * (displs[rank] + j), "reduce_scatter item %d: %d", j, got[j]);
    MPI_Reduce_scatter_block(rs, got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* element r to rank r */
    CHECK_MSG(got[0] == n * rank, "reduce_scatter_block: %d", got[0]);
    int sv = -1, *svsrc = malloc(sizeof(int) * total);
    for (int j = 0; j < total; j++)
        svsrc[j] = j;
    int *ones = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++)
        ones[r] = 1;
    MPI_Scatterv(svsrc, ones, displs, MPI_INT, &sv, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_MSG(sv == displs[rank], "scatterv %d", sv);
    int *gvr = malloc(sizeof(int) * total);
    MPI_Gatherv(mine, rank + 1, MPI_INT, gvr, counts, displs, MPI_INT, n - 1, MPI_COMM_WORLD);
    if (rank == n - 1)
        for (int j = 0; j < total; j++)
            CHECK_MSG(gvr[j] == gv[j], "gatherv item %d", j);
    MPI_Barrier(MPI_COMM_WORLD);
    return mtest_finalize();
}
