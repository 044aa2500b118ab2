/* Groups (MPI-1.3 §5.3), MPI_Comm_create, and intercommunicators between the even and the
 * odd ranks (MPI_Intercomm_create, point-to-point across, MPI_Comm_dup, MPI_Intercomm_merge). */
#include <stdlib.h>
#include "mtest.h"

static void groups(int rank, int size)
{
    MPI_Group world, evens, odds, u, inter, diff, first;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = 0, ranks[16], gsize, grank, result;
    for (int r = 0; r < size; r += 2)
        ranks[n++] = r;
    MPI_Group_incl(world, n, ranks, &evens);
    MPI_Group_excl(world, n, ranks, &odds);
    MPI_Group_size(evens, &gsize);
    CHECK_MSG(gsize == (size + 1) / 2, "evens have %d members", gsize);
    MPI_Group_rank(evens, &grank);
    CHECK_MSG(grank == (rank % 2 ? MPI_UNDEFINED : rank / 2), "my rank among the evens is %d", grank);
    MPI_Group_union(evens, odds, &u);
    MPI_Group_compare(u, world, &result);
    CHECK_MSG(result == (size > 2 ? MPI_SIMILAR : MPI_IDENT), "union of evens and odds compares %d", result);
    MPI_Group_intersection(evens, odds, &inter);
    MPI_Group_size(inter, &gsize);
    CHECK_MSG(gsize == 0 && inter == MPI_GROUP_EMPTY, "evens and odds share %d", gsize);
    MPI_Group_difference(world, odds, &diff);
    MPI_Group_compare(diff, evens, &result);
    CHECK_MSG(result == MPI_IDENT, "world minus odds compares %d to the evens", result);
    int range[1][3] = {{size - 1, 0, -2}};
    MPI_Group_range_incl(world, 1, range, &first);
    int in[2] = {0, 1}, out[2] = {-1, -1}, k = (size - 1) / 2 + 1 > 1 ? 2 : 1;
    MPI_Group_translate_ranks(first, k, in, world, out);
    CHECK_MSG(out[0] == size - 1 && (k < 2 || out[1] == size - 3), "translated to %d, %d", out[0], out[1]);
    MPI_Group g[] = {world, evens, odds, u, inter, diff, first};
    for (int i = 0; i < 7; i++)
        MPI_Group_free(&g[i]);
    CHECK_MSG(g[0] == MPI_GROUP_NULL, "a freed group is MPI_GROUP_NULL");
}

static void created(int rank, int size)
{
    MPI_Group world, odds;
    MPI_Comm comm;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = 0, ranks[16];
    for (int r = size - 1; r >= 1; r--)
        if (r % 2)
            ranks[n++] = r; /* the odd ranks, highest first */
    MPI_Group_incl(world, n, ranks, &odds);
    MPI_Comm_create(MPI_COMM_WORLD, odds, &comm);
    if (rank % 2 == 0) {
        CHECK_MSG(comm == MPI_COMM_NULL, "an even rank got a communicator");
    } else {
        int r, s, sum = 0;
        MPI_Comm_rank(comm, &r);
        MPI_Comm_size(comm, &s);
        CHECK_MSG(s == n && ranks[r] == rank, "rank %d of %d in the odds' communicator", r, s);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
        CHECK_MSG(sum == (n * n), "the odd ranks sum to %d", sum);
        MPI_Comm_free(&comm);
    }
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
}

static void intercomm(int rank, int size)
{
    MPI_Comm half, inter, dup, merged;
    int flag, lsize, rsize, r;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    /* Leaders: rank 0 of each half, world ranks 0 and 1. */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &r);
    CHECK_MSG(flag && lsize == (rank % 2 ? size / 2 : (size + 1) / 2) && rsize == size - lsize, "inter %d, sizes %d and %d", flag, lsize, rsize);
    CHECK_MSG(r == rank / 2, "local rank %d", r);
    /* Each rank of the evens sends to the odd rank of its index, if there is one. */
    MPI_Comm_dup(inter, &dup);
    int x = rank * 10, y = -1;
    if (r < rsize && r < lsize) {
        MPI_Sendrecv(&x, 1, MPI_INT, r, 3, &y, 1, MPI_INT, r, 3, dup, MPI_STATUS_IGNORE);
        CHECK_MSG(y == (rank ^ 1) * 10, "received %d across", y);
    }
    /* Split both groups in two by local rank parity: like parities face each other (MPI-2). */
    MPI_Comm sub;
    int subsize = -1, subremote = -1;
    MPI_Comm_split(inter, r % 2, r, &sub);
    if (sub != MPI_COMM_NULL) {
        MPI_Comm_size(sub, &subsize);
        MPI_Comm_remote_size(sub, &subremote);
        CHECK_MSG(subsize == (lsize + 1 - r % 2) / 2 && subremote == (rsize + 1 - r % 2) / 2, "split: sizes %d and %d", subsize, subremote);
        MPI_Comm_free(&sub);
    } else
        CHECK_MSG(r % 2 && rsize < 2, "only a part with no remote counterpart gets MPI_COMM_NULL");
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Comm_rank(merged, &r);
    CHECK_MSG(r == (rank % 2 ? (size + 1) / 2 + rank / 2 : rank / 2), "merged rank %d", r);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    groups(rank, size);
    created(rank, size);
    if (size >= 2)
        intercomm(rank, size);
    return mtest_finalize();
}
