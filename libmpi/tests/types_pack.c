/* Every type constructor (MPI-1.3 §3.12, MPI-2.2 §4.1) through real messages between rank 0
 * and the last rank (two ranks at least: a send to oneself is synchronous), their bounds and extents, MPI_Get_elements of a short message, and
 * MPI_Pack/MPI_Unpack against typed sends and receives (MPI_PACKED both ways). */
#include <string.h>
#include "mtest.h"

struct particle {
    double x[3];
    char tag;
    int id;
};

static MPI_Datatype particle_type(void)
{
    struct particle p = {{0}, 0, 0};
    MPI_Aint base, at[3];
    MPI_Get_address(&p, &base);
    MPI_Get_address(p.x, &at[0]);
    MPI_Get_address(&p.tag, &at[1]);
    MPI_Get_address(&p.id, &at[2]);
    for (int i = 0; i < 3; i++)
        at[i] -= base;
    int lens[3] = {3, 1, 1};
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_CHAR, MPI_INT}, t;
    MPI_Type_create_struct(3, lens, at, types, &t);
    MPI_Type_commit(&t);
    return t;
}

static void bounds(void)
{
    MPI_Datatype t = particle_type(), v, r, old;
    MPI_Aint lb, ext, tlb, text;
    int size;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_size(t, &size);
    CHECK_MSG(lb == 0 && ext == (MPI_Aint)sizeof(struct particle), "struct extent %ld (lb %ld)", (long)ext, (long)lb);
    CHECK_MSG(size == 3 * 8 + 1 + 4, "struct size %d", size);
    MPI_Type_vector(3, 2, 4, MPI_INT, &v); /* ints 0,1, 4,5, 8,9 */
    MPI_Type_get_extent(v, &lb, &ext);
    CHECK_MSG(ext == 10 * 4, "vector extent %ld", (long)ext);
    MPI_Type_create_resized(v, -4, 64, &r);
    MPI_Type_get_extent(r, &lb, &ext);
    MPI_Type_get_true_extent(r, &tlb, &text);
    CHECK_MSG(lb == -4 && ext == 64 && tlb == 0 && text == 40, "resized: lb %ld extent %ld true %ld %ld", (long)lb, (long)ext, (long)tlb,
        (long)text);
    int lens[3] = {1, 1, 1};
    MPI_Aint disp[3] = {-8, 0, 32};
    MPI_Datatype types[3] = {MPI_LB, MPI_INT, MPI_UB};
    MPI_Type_struct(3, lens, disp, types, &old);
    MPI_Type_lb(old, &lb);
    MPI_Type_extent(old, &ext);
    CHECK_MSG(lb == -8 && ext == 40, "MPI_LB/MPI_UB markers: lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Datatype all[] = {t, v, r, old};
    for (int i = 0; i < 4; i++)
        MPI_Type_free(&all[i]);
}

/* Rank `from` sends `count` of `st` from `src`; rank `to` receives into `dst` as `rt`. */
static void move(int rank, int from, int to, const void *src, int count, MPI_Datatype st, void *dst, int rcount, MPI_Datatype rt, MPI_Status *s)
{
    if (rank == from)
        MPI_Send(src, count, st, to, 1, MPI_COMM_WORLD);
    if (rank == to)
        MPI_Recv(dst, rcount, rt, from, 1, MPI_COMM_WORLD, s);
}

static void messages(int rank, int last)
{
    int src[40], dst[40];
    for (int i = 0; i < 40; i++)
        src[i] = i, dst[i] = -1;
    MPI_Status s;
    /* indexed: blocks of 2 at 1 and of 3 at 10 -> 5 ints packed */
    MPI_Datatype idx, hidx, hvec, blk, t = particle_type();
    int lens[2] = {2, 3}, disps[2] = {1, 10};
    MPI_Type_indexed(2, lens, disps, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    move(rank, 0, last, src, 1, idx, dst, 5, MPI_INT, &s);
    if (rank == last)
        CHECK_MSG(dst[0] == 1 && dst[1] == 2 && dst[2] == 10 && dst[4] == 12, "indexed: %d %d %d %d", dst[0], dst[1], dst[2], dst[4]);
    MPI_Aint hd[2] = {4, 40};
    MPI_Type_create_hindexed(2, lens, hd, MPI_INT, &hidx);
    MPI_Type_commit(&hidx);
    memset(dst, 0xff, sizeof dst);
    move(rank, 0, last, src, 5, MPI_INT, dst, 1, hidx, &s);
    if (rank == last)
        CHECK_MSG(dst[0] == -1 && dst[1] == 0 && dst[2] == 1 && dst[10] == 2 && dst[12] == 4, "hindexed: %d %d %d %d", dst[1], dst[2], dst[10],
            dst[12]);
    MPI_Type_create_hvector(2, 1, 12, MPI_INT, &hvec);
    MPI_Type_commit(&hvec);
    int disp3[2] = {0, 5};
    MPI_Type_create_indexed_block(2, 2, disp3, MPI_INT, &blk);
    MPI_Type_commit(&blk);
    move(rank, 0, last, src, 2, hvec, dst, 1, blk, &s); /* ints 0, 3 and (extent 16) 4, 7 -> 0,1 and 5,6 */
    if (rank == last)
        CHECK_MSG(dst[0] == 0 && dst[1] == 3 && dst[5] == 4 && dst[6] == 7, "hvector to indexed_block: %d %d %d %d", dst[0], dst[1], dst[5], dst[6]);
    /* A short message into a struct: 2 whole particles and a part of the third. */
    struct particle ps[3], pr[3];
    memset(pr, 0, sizeof pr);
    for (int i = 0; i < 3; i++)
        ps[i] = (struct particle){{i, i + 0.5, i + 0.25}, (char)('a' + i), 100 + i};
    if (rank == 0)
        MPI_Send(ps, 2, t, last, 2, MPI_COMM_WORLD);
    if (rank == last) {
        int n, e;
        MPI_Recv(pr, 3, t, 0, 2, MPI_COMM_WORLD, &s);
        MPI_Get_count(&s, t, &n);
        MPI_Get_elements(&s, t, &e);
        CHECK_MSG(n == 2 && e == 10, "count %d, elements %d", n, e);
        CHECK_MSG(pr[1].x[2] == 1.25 && pr[1].tag == 'b' && pr[1].id == 101 && pr[2].id == 0, "struct received %g %c %d", pr[1].x[2], pr[1].tag,
            pr[1].id);
    }
    MPI_Datatype all[] = {idx, hidx, hvec, blk, t};
    for (int i = 0; i < 5; i++)
        MPI_Type_free(&all[i]);
}

static void packing(int rank, int last)
{
    char buf[256];
    int pos = 0, n = 7, size, ints[3] = {1, 2, 3};
    double d = 2.5;
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size);
    CHECK_MSG(size >= 12, "pack size %d", size);
    if (rank == 0) {
        MPI_Pack(&n, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
        MPI_Pack(ints, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
        MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
        MPI_Send(buf, pos, MPI_PACKED, last, 3, MPI_COMM_WORLD);
        MPI_Send(ints, 3, MPI_INT, last, 4, MPI_COMM_WORLD);
    }
    if (rank == last) {
        int m = 0, got[3] = {0}, typed[3] = {0};
        double e = 0;
        MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Unpack(buf, sizeof buf, &pos, &m, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Unpack(buf, sizeof buf, &pos, got, 3, MPI_INT, MPI_COMM_WORLD);
        MPI_Unpack(buf, sizeof buf, &pos, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        CHECK_MSG(m == 7 && got[2] == 3 && e == 2.5 && pos == 24, "unpacked %d %d %g at %d", m, got[2], e, pos);
        MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pos = 0;
        MPI_Unpack(buf, 12, &pos, typed, 3, MPI_INT, MPI_COMM_WORLD);
        CHECK_MSG(typed[0] == 1 && typed[2] == 3, "typed send unpacked %d %d", typed[0], typed[2]);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pos = 250;
    int rc = MPI_Pack(ints, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    CHECK_MSG(rc == MPI_ERR_TRUNCATE && pos == 250, "packing past the end returns %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bounds();
    messages(rank, size - 1);
    packing(rank, size - 1);
    return mtest_finalize();
}
