/* Communicators (dup, split by parity with reversed keys, compare, free, MPI_COMM_SELF),
 * derived datatypes (vector, contiguous, extent), pair types with MAXLOC/MINLOC, bitwise and
 * logical ops, a non-commutative user op (applied in rank order), and the error classes of a
 * bad root and a bad op under MPI_ERRORS_RETURN. */
#include <string.h>
#include "mtest.h"

/* 2x2 matrix product over runs of 4 ints, not commutative: inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int res;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    CHECK_MSG(res == MPI_CONGRUENT, "dup compares congruent (%d)", res);
    /* A message on dup does not match a receive on WORLD: send on dup first, then on WORLD. */
    if (n >= 2 && rank < 2) {
        int x = rank == 0 ? 11 : 0, y = rank == 0 ? 22 : 0;
        if (rank == 0) {
            MPI_Send(&y, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Send(&x, 1, MPI_INT, 1, 0, dup);
        } else {
            MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
            CHECK_MSG(x == 11 && y == 22, "contexts kept apart: %d %d", x, y);
        }
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int want_size = (n + 1 - rank % 2) / 2;
    CHECK_MSG(hs == want_size && hr == want_size - 1 - rank / 2, "split: rank %d of %d", hr, hs);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    int want = 0;
    for (int r = rank % 2; r < n; r += 2)
        want += r;
    CHECK_MSG(sum == want, "allreduce on the half: %d (want %d)", sum, want);
    MPI_Comm none;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
    CHECK_MSG((rank == 0) == (none == MPI_COMM_NULL), "MPI_UNDEFINED gives MPI_COMM_NULL");
    if (none != MPI_COMM_NULL)
        MPI_Comm_free(&none);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    CHECK_MSG(dup == MPI_COMM_NULL, "freed");
    int self_size, me = 5, back = 0;
    MPI_Comm_size(MPI_COMM_SELF, &self_size);
    MPI_Sendrecv(&me, 1, MPI_INT, 0, 3, &back, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    CHECK_MSG(self_size == 1 && back == 5, "MPI_COMM_SELF");

    /* A column of a 4x3 matrix as a vector type. */
    MPI_Datatype col, pair;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(col, &lb, &ext);
    int sz;
    MPI_Type_size(col, &sz);
    CHECK_MSG(lb == 0 && ext == 10 * 8 && sz == 32, "vector extent %ld size %d", (long)ext, sz);
    double m[12], c[4] = {0};
    for (int i = 0; i < 12; i++)
        m[i] = i + 0.25;
    if (n >= 2 && rank == 0)
        MPI_Send(&m[1], 1, col, 1, 4, MPI_COMM_WORLD);
    if (n >= 2 && rank == 1) {
        MPI_Status st;
        MPI_Recv(c, 4, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        CHECK_MSG(cnt == 4 && c[0] == 1.25 && c[1] == 4.25 && c[2] == 7.25 && c[3] == 10.25, "column %g %g %g %g", c[0], c[1], c[2], c[3]);
    }
    MPI_Type_free(&col);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int two[2] = {rank, rank * rank}, got[2];
    MPI_Sendrecv(two, 1, pair, (rank + 1) % n, 6, got, 1, pair, (rank + n - 1) % n, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int p = (rank + n - 1) % n;
    CHECK_MSG(got[0] == p && got[1] == p * p, "contiguous pair over sendrecv");
    MPI_Type_free(&pair);

    struct { double v; int i; } dv = {(rank * 7) % n, rank}, mx, mn;
    MPI_Allreduce(&dv, &mx, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&dv, &mn, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    double best = -1, worst = 1e9;
    int bi = -1, wi = -1;
    for (int r = 0; r < n; r++) {
        double v = (r * 7) % n;
        if (v > best) best = v, bi = r;
        if (v < worst) worst = v, wi = r;
    }
    CHECK_MSG(mx.v == best && mx.i == bi && mn.v == worst && mn.i == wi, "maxloc %g@%d minloc %g@%d", mx.v, mx.i, mn.v, mn.i);
    unsigned bits = 1u << rank, band, bor, bxor;
    MPI_Allreduce(&bits, &bor, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
    MPI_Allreduce(&bits, &band, 1, MPI_UNSIGNED, MPI_BAND, MPI_COMM_WORLD);
    MPI_Allreduce(&bits, &bxor, 1, MPI_UNSIGNED, MPI_BXOR, MPI_COMM_WORLD);
    CHECK_MSG(bor == (1u << n) - 1 && band == (n == 1 ? 1u : 0u) && bxor == bor, "bitwise");
    int t = rank != 0, land, lor, lxor;
    MPI_Allreduce(&t, &land, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&t, &lor, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(&t, &lxor, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD);
    CHECK_MSG(land == 0 && lor == (n > 1) && lxor == ((n - 1) % 2), "logical");
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    int mat[4] = {1, rank % 2, (rank / 2) % 2, 1}, prod[4];
    MPI_Reduce(mat, prod, 4, MPI_INT, op, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int want[4] = {1, 0, 0, 1};
        for (int r = 0; r < n; r++) {
            int m2[4] = {1, r % 2, (r / 2) % 2, 1}, len = 4;
            matmul(want, m2, &len, NULL); /* m2 = want * M_r */
            memcpy(want, m2, sizeof want);
        }
        CHECK_MSG(memcmp(want, prod, sizeof want) == 0, "user op in rank order: %d %d %d %d", prod[0], prod[1], prod[2], prod[3]);
    }
    MPI_Op_free(&op);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0;
    CHECK_MSG(MPI_Bcast(&x, 1, MPI_INT, n, MPI_COMM_WORLD) == MPI_ERR_ROOT, "bad root");
    CHECK_MSG(MPI_Allreduce(&x, &x, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_ERR_OP, "maxloc on int");
    CHECK_MSG(MPI_Allreduce(&x, &x, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD) == MPI_ERR_OP, "band on double");
    return mtest_finalize();
}
