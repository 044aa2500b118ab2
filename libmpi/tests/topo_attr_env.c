/* Topologies (MPI-1.3 chapter 6), attributes and keyvals with their copy and delete functions,
 * communicator and datatype names, the program's own error handler, and the environment
 * (library version, threads, MPI_Alloc_mem, MPI_Info). */
#include <string.h>
#include "mtest.h"

static void cart(int rank, int size)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], src, dst, r, status;
    MPI_Dims_create(size, 2, dims);
    CHECK_MSG(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
    int twelve[3] = {0, 0, 0};
    MPI_Dims_create(12, 3, twelve);
    CHECK_MSG(twelve[0] == 3 && twelve[1] == 2 && twelve[2] == 2, "12 in 3 dims: %d %d %d", twelve[0], twelve[1], twelve[2]);
    MPI_Comm grid, row;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Topo_test(grid, &status);
    MPI_Cart_coords(grid, rank, 2, coords);
    MPI_Cart_rank(grid, coords, &r);
    CHECK_MSG(status == MPI_CART && r == rank && coords[0] == rank / dims[1], "cart rank %d at (%d, %d)", r, coords[0], coords[1]);
    MPI_Cart_shift(grid, 0, 1, &src, &dst);
    CHECK_MSG(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "periodic shift gives %d", dst);
    MPI_Cart_shift(grid, 1, 1, &src, &dst);
    CHECK_MSG(coords[1] + 1 < dims[1] ? dst == rank + 1 : dst == MPI_PROC_NULL, "shift along the open dimension gives %d", dst);
    int remain[2] = {0, 1}, rsize, sum = 0;
    MPI_Cart_sub(grid, remain, &row);
    MPI_Comm_size(row, &rsize);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
    int first = coords[0] * dims[1];
    CHECK_MSG(rsize == dims[1] && sum == dims[1] * first + dims[1] * (dims[1] - 1) / 2, "row of %d sums to %d", rsize, sum);
    /* MPI-1.3 §6.5.7: dropping every dimension partitions the grid into single points, each in
       a communicator of its own (not, as MPICH 1.0.8's cartsuball expects, MPI_COMM_NULL away
       from rank 0); MPI-2.2 §7.5.7 calls it a zero-dimensional topology. */
    int none[2] = {0, 0}, same, npoint;
    MPI_Comm point;
    MPI_Cart_sub(grid, none, &point);
    CHECK_MSG(point != MPI_COMM_NULL, "rank %d got MPI_COMM_NULL from MPI_Cart_sub of no dimensions", rank);
    MPI_Comm_compare(point, MPI_COMM_SELF, &same);
    MPI_Cartdim_get(point, &npoint);
    CHECK_MSG(same == MPI_CONGRUENT && npoint == 0, "a point compares %d to MPI_COMM_SELF with %d dimensions", same, npoint);
    MPI_Comm_free(&point);
    MPI_Comm copy;
    MPI_Comm_dup(grid, &copy);
    int nd;
    MPI_Cartdim_get(copy, &nd);
    CHECK_MSG(nd == 2, "a duplicate keeps the topology: %d dimensions", nd);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
}

static void graph(int rank, int size)
{
    /* A ring: node i's neighbours are i-1 and i+1. */
    int index[16], edges[32], n = 0;
    for (int i = 0; i < size; i++) {
        edges[n++] = (i + size - 1) % size;
        edges[n++] = (i + 1) % size;
        index[i] = n;
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
    int count, nb[2], nnodes, nedges;
    MPI_Graph_neighbors_count(g, rank, &count);
    MPI_Graph_neighbors(g, rank, 2, nb);
    MPI_Graphdims_get(g, &nnodes, &nedges);
    CHECK_MSG(count == 2 && nb[1] == (rank + 1) % size && nnodes == size && nedges == 2 * size, "graph: %d neighbours, %d", count, nb[1]);
    MPI_Comm_free(&g);
}

static int deleted, copied;

static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copied++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c, (void)k, (void)value, (void)extra;
    deleted++;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int key, flag, *tag_ub, value = 42;
    void *got;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK_MSG(flag && *tag_ub >= 32767, "MPI_TAG_UB is %d", flag ? *tag_ub : -1);
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm dup, dup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, key, &value);
    MPI_Comm_dup(dup, &dup2);
    MPI_Comm_get_attr(dup2, key, &got, &flag);
    CHECK_MSG(flag && got == &value && copied == 1, "copied attribute: flag %d, %d copies", flag, copied);
    MPI_Comm_free(&dup2);
    MPI_Comm_delete_attr(dup, key);
    MPI_Comm_get_attr(dup, key, &got, &flag);
    CHECK_MSG(!flag && deleted == 2, "deleted attribute: flag %d, %d deletions", flag, deleted);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_set_name(dup, "halo");
    MPI_Comm_get_name(dup, name, &len);
    CHECK_MSG(strcmp(name, "halo") == 0 && len == 4, "name %s", name);
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK_MSG(strcmp(name, "MPI_COMM_WORLD") == 0, "world's name %s", name);
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    CHECK_MSG(strcmp(name, "MPI_DOUBLE") == 0, "MPI_DOUBLE's name %s", name);
    MPI_Comm_free(&dup);
    MPI_Comm_free_keyval(&key);
    CHECK_MSG(key == MPI_KEYVAL_INVALID, "a freed keyval is MPI_KEYVAL_INVALID");
}

static int handled, handled_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled++;
    handled_code = *code;
}

static void errors(int size)
{
    MPI_Errhandler eh;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    int x = 0, rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, dup);
    CHECK_MSG(rc == MPI_ERR_RANK && handled == 1 && handled_code == MPI_ERR_RANK, "handler ran %d times with %d, call returned %d", handled, handled_code,
        rc);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&dup);
}

static void environment(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING], value[16];
    int len, provided, flag, v, sv;
    MPI_Get_library_version(version, &len);
    CHECK_MSG(strstr(version, "cellblade") != NULL && len == (int)strlen(version), "library version %s", version);
    MPI_Get_version(&v, &sv);
    CHECK_MSG(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
    MPI_Query_thread(&provided);
    CHECK_MSG(provided == MPI_THREAD_SINGLE, "thread level %d", provided);
    double *mem;
    MPI_Alloc_mem(64 * sizeof(double), MPI_INFO_NULL, &mem);
    mem[63] = 1.0;
    MPI_Free_mem(mem);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hint", "yes");
    MPI_Info_get(info, "hint", sizeof value - 1, value, &flag);
    CHECK_MSG(flag && strcmp(value, "yes") == 0, "info value %s", value);
    MPI_Info_free(&info);
    CHECK_MSG(info == MPI_INFO_NULL, "a freed info is MPI_INFO_NULL");
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cart(rank, size);
    graph(rank, size);
    attributes();
    errors(size);
    environment();
    return mtest_finalize();
}
