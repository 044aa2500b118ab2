/* Reductions over derived datatypes: MPI_Type_contiguous and MPI_Type_vector (with gaps, which
 * must stay untouched) of the basic types, with every predefined operation that applies, in
 * MPI_Reduce (every root), Allreduce, Scan, Exscan and Reduce_scatter, against a reference
 * computed here in rank order; MINLOC and MAXLOC over contiguous pair types. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define COUNT 2 /* elements of the derived type per call */
#define SPAN 10 /* base positions COUNT elements of either type cover: contiguous 3 (6), vector 2,2,3 (10) */
#define GAP (-7)

static int rank, n;

/* Which base positions of an element hold data: contiguous(3) all 3, vector(2, 2, 3) 0, 1, 3, 4. */
static int holds(int vec, int pos)
{
    return vec ? pos % 5 != 2 : pos < 3 * COUNT;
}

/* Rank r's value at packed element j: small, so sums and products are exact and fit a short. */
static int value(int r, int j, int prod)
{
    return prod ? (r + j) % 2 + 1 : (r * 3 + j) % 4 + 1 - ((r + j) % 3 == 0 ? 2 : 0);
}

static const MPI_Op arith[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};
static const MPI_Op bits[] = {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};

#define COMBINE(T, op, a, b)                                                                      \
    ((op) == MPI_MAX ? ((a) > (b) ? (a) : (b)) : (op) == MPI_MIN ? ((a) < (b) ? (a) : (b))       \
     : (op) == MPI_SUM ? (T)((a) + (b)) : (op) == MPI_PROD ? (T)((a) * (b))                        \
     : (op) == MPI_LAND ? (T)((a) && (b)) : (op) == MPI_LOR ? (T)((a) || (b))                      \
     : (op) == MPI_LXOR ? (T)(!(a) != !(b)) : (op) == MPI_BAND ? (T)((long long)(a) & (long long)(b)) \
     : (op) == MPI_BOR ? (T)((long long)(a) | (long long)(b)) : (T)((long long)(a) ^ (long long)(b)))

/* One type T (MPI type M): every applicable op, both derived types, every reduction. */
#define RUN(T, M, is_int)                                                                         \
    do {                                                                                          \
        int nops = is_int ? 10 : 4;                                                               \
        for (int vec = 0; vec < 2; vec++) {                                                       \
            MPI_Datatype dt;                                                                      \
            if (vec)                                                                              \
                MPI_Type_vector(2, 2, 3, M, &dt);                                                 \
            else                                                                                  \
                MPI_Type_contiguous(3, M, &dt);                                                   \
            MPI_Type_commit(&dt);                                                                 \
            for (int k = 0; k < nops; k++) {                                                      \
                MPI_Op op = k < 4 ? arith[k] : bits[k - 4];                                       \
                int prod = op == MPI_PROD;                                                        \
                T in[SPAN], out[SPAN], want[SPAN], upto[SPAN], before[SPAN];                      \
                int j = 0;                                                                        \
                for (int p = 0; p < SPAN; p++) {                                                  \
                    in[p] = holds(vec, p) ? (T)value(rank, j, prod) : (T)GAP;                     \
                    want[p] = upto[p] = before[p] = holds(vec, p) ? (T)value(0, j, prod) : (T)GAP; \
                    for (int r = 1; r < n; r++) {                                                 \
                        if (holds(vec, p)) {                                                      \
                            T x = (T)value(r, j, prod);                                           \
                            want[p] = COMBINE(T, op, x, want[p]);                                 \
                            if (r <= rank)                                                        \
                                upto[p] = COMBINE(T, op, x, upto[p]);                             \
                            if (r < rank)                                                         \
                                before[p] = COMBINE(T, op, x, before[p]);                         \
                        }                                                                         \
                    }                                                                             \
                    j += holds(vec, p);                                                           \
                }                                                                                 \
                for (int root = 0; root < n; root++) {                                            \
                    for (int p = 0; p < SPAN; p++)                                                \
                        out[p] = (T)GAP;                                                          \
                    MPI_Reduce(in, out, COUNT, dt, op, root, MPI_COMM_WORLD);                     \
                    for (int p = 0; rank == root && p < SPAN; p++)                                \
                        CHECK_MSG(out[p] == want[p], #T " vec %d op %d reduce root %d at %d: %g, want %g", vec, op, root, p, \
                            (double)out[p], (double)want[p]);                                     \
                }                                                                                 \
                for (int p = 0; p < SPAN; p++)                                                    \
                    out[p] = (T)GAP;                                                              \
                MPI_Allreduce(in, out, COUNT, dt, op, MPI_COMM_WORLD);                            \
                for (int p = 0; p < SPAN; p++)                                                    \
                    CHECK_MSG(out[p] == want[p], #T " vec %d op %d allreduce at %d: %g, want %g", vec, op, p, (double)out[p], \
                        (double)want[p]);                                                         \
                memcpy(out, in, sizeof out);                                                      \
                MPI_Allreduce(MPI_IN_PLACE, out, COUNT, dt, op, MPI_COMM_WORLD);                  \
                for (int p = 0; p < SPAN; p++)                                                    \
                    CHECK_MSG(out[p] == want[p], #T " vec %d op %d in place at %d", vec, op, p);  \
                for (int p = 0; p < SPAN; p++)                                                    \
                    out[p] = (T)GAP;                                                              \
                MPI_Scan(in, out, COUNT, dt, op, MPI_COMM_WORLD);                                 \
                for (int p = 0; p < SPAN; p++)                                                    \
                    CHECK_MSG(out[p] == upto[p], #T " vec %d op %d scan at %d: %g, want %g", vec, op, p, (double)out[p], \
                        (double)upto[p]);                                                         \
                for (int p = 0; p < SPAN; p++)                                                    \
                    out[p] = (T)GAP;                                                              \
                MPI_Exscan(in, out, COUNT, dt, op, MPI_COMM_WORLD);                               \
                for (int p = 0; rank > 0 && p < SPAN; p++)                                        \
                    CHECK_MSG(out[p] == before[p], #T " vec %d op %d exscan at %d: %g, want %g", vec, op, p, (double)out[p], \
                        (double)before[p]);                                                       \
                reduce_scatter_check_##T(dt, vec, op, prod);                                      \
            }                                                                                     \
            MPI_Type_free(&dt);                                                                   \
        }                                                                                         \
    } while (0)

/* Reduce_scatter: rank r gets r % 2 + 1 elements of the derived type, of a vector of them all. */
#define SCATTER_CHECK(T, M)                                                                       \
    static void reduce_scatter_check_##T(MPI_Datatype dt, int vec, MPI_Op op, int prod)           \
    {                                                                                             \
        int *counts = malloc(sizeof(int) * n), total = 0, first = 0;                              \
        for (int r = 0; r < n; r++) {                                                             \
            counts[r] = r % 2 + 1;                                                                \
            if (r < rank)                                                                         \
                first += counts[r];                                                               \
            total += counts[r];                                                                   \
        }                                                                                         \
        MPI_Aint lb, ext;                                                                         \
        MPI_Type_get_extent(dt, &lb, &ext);                                                       \
        int per = (int)(ext / sizeof(T)), span = per * total;                                     \
        T *in = malloc(sizeof(T) * span), *out = malloc(sizeof(T) * per * 2);                    \
        for (int p = 0; p < span; p++)                                                            \
            in[p] = holds(vec, p % per) ? (T)value(rank, p, prod) : (T)GAP;                       \
        for (int p = 0; p < per * 2; p++)                                                         \
            out[p] = (T)GAP;                                                                      \
        MPI_Reduce_scatter(in, out, counts, dt, op, MPI_COMM_WORLD);                              \
        for (int p = 0; p < per * counts[rank]; p++) {                                            \
            int at = first * per + p;                                                             \
            T want = holds(vec, p % per) ? (T)value(0, at, prod) : (T)GAP;                        \
            for (int r = 1; r < n && holds(vec, p % per); r++) {                                  \
                T x = (T)value(r, at, prod);                                                      \
                want = COMBINE(T, op, x, want);                                                   \
            }                                                                                     \
            CHECK_MSG(out[p] == want, #T " vec %d op %d reduce_scatter at %d: %g, want %g", vec, op, p, (double)out[p], (double)want); \
        }                                                                                         \
        free(counts);                                                                             \
        free(in);                                                                                 \
        free(out);                                                                                \
    }

typedef unsigned char uchar;
typedef long long llong;
SCATTER_CHECK(int, MPI_INT)
SCATTER_CHECK(double, MPI_DOUBLE)
SCATTER_CHECK(float, MPI_FLOAT)
SCATTER_CHECK(short, MPI_SHORT)
SCATTER_CHECK(uchar, MPI_UNSIGNED_CHAR)
SCATTER_CHECK(llong, MPI_LONG_LONG_INT)

struct di {
    double v;
    int i;
};
struct ii {
    int v, i;
};

/* MINLOC and MAXLOC over contiguous(2) of the pair types: value (r * 5 + j) % 7, index r. */
#define LOC(S, M)                                                                                 \
    do {                                                                                          \
        MPI_Datatype dt;                                                                          \
        MPI_Type_contiguous(2, M, &dt);                                                           \
        MPI_Type_commit(&dt);                                                                     \
        for (int maxloc = 0; maxloc < 2; maxloc++) {                                              \
            S in[2 * COUNT], out[2 * COUNT];                                                      \
            for (int j = 0; j < 2 * COUNT; j++) {                                                 \
                in[j].v = (rank * 5 + j) % 7;                                                     \
                in[j].i = rank;                                                                   \
            }                                                                                     \
            MPI_Allreduce(in, out, COUNT, dt, maxloc ? MPI_MAXLOC : MPI_MINLOC, MPI_COMM_WORLD);  \
            for (int j = 0; j < 2 * COUNT; j++) {                                                 \
                int best = 0;                                                                     \
                for (int r = 1; r < n; r++) {                                                     \
                    int v = (r * 5 + j) % 7, b = (best * 5 + j) % 7;                              \
                    if (maxloc ? v > b : v < b)                                                   \
                        best = r;                                                                 \
                }                                                                                 \
                CHECK_MSG(out[j].v == (best * 5 + j) % 7 && out[j].i == best, #M " maxloc %d at %d: (%g, %d), want index %d", maxloc, j, \
                    (double)out[j].v, out[j].i, best);                                            \
            }                                                                                     \
        }                                                                                         \
        MPI_Type_free(&dt);                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    RUN(int, MPI_INT, 1);
    RUN(double, MPI_DOUBLE, 0);
    RUN(float, MPI_FLOAT, 0);
    RUN(short, MPI_SHORT, 1);
    RUN(uchar, MPI_UNSIGNED_CHAR, 1);
    RUN(llong, MPI_LONG_LONG_INT, 1);
    LOC(struct di, MPI_DOUBLE_INT);
    LOC(struct ii, MPI_2INT);
    return mtest_finalize();
}
