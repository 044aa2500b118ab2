/* The MPI calls cellblade's rank library does not implement, declared unavailable so that
 * a program using one fails at compile time naming it, instead of an implicit declaration and
 * then a link error. Included by mpi.h; the calls the library has are declared there. */
#ifndef CELLBLADE_MPI_MISSING_H
#define CELLBLADE_MPI_MISSING_H

#ifdef __cplusplus
#define CB_MISSING_ARGS (...)
#else
#define CB_MISSING_ARGS ()
#endif
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define CB_MISSING_ATTR(name) __attribute__((unavailable(name " is not implemented by cellblade")))
#endif
#endif
#ifndef CB_MISSING_ATTR
#define CB_MISSING_ATTR(name) __attribute__((error(name " is not implemented by cellblade")))
#endif
#define CB_MISSING(name) \
    int MPI_##name CB_MISSING_ARGS CB_MISSING_ATTR("MPI_" #name); \
    int PMPI_##name CB_MISSING_ARGS CB_MISSING_ATTR("PMPI_" #name);

CB_MISSING(Comm_spawn)
CB_MISSING(Comm_spawn_multiple)
CB_MISSING(Comm_get_parent)
CB_MISSING(Open_port)
CB_MISSING(Close_port)
CB_MISSING(Comm_accept)
CB_MISSING(Comm_connect)
CB_MISSING(Comm_join)
CB_MISSING(Comm_disconnect)
CB_MISSING(Lookup_name)
CB_MISSING(Publish_name)
CB_MISSING(Unpublish_name)
CB_MISSING(Win_create)
CB_MISSING(Win_allocate)
CB_MISSING(Win_free)
CB_MISSING(Win_fence)
CB_MISSING(Win_lock)
CB_MISSING(Win_unlock)
CB_MISSING(Win_post)
CB_MISSING(Win_start)
CB_MISSING(Win_complete)
CB_MISSING(Win_wait)
CB_MISSING(Win_get_group)
CB_MISSING(Win_set_name)
CB_MISSING(Win_get_name)
CB_MISSING(Win_create_errhandler)
CB_MISSING(Win_set_errhandler)
CB_MISSING(Win_get_errhandler)
CB_MISSING(Put)
CB_MISSING(Get)
CB_MISSING(Accumulate)
CB_MISSING(File_open)
CB_MISSING(File_close)
CB_MISSING(File_delete)
CB_MISSING(File_read)
CB_MISSING(File_write)
CB_MISSING(File_read_at)
CB_MISSING(File_write_at)
CB_MISSING(File_read_all)
CB_MISSING(File_write_all)
CB_MISSING(File_set_view)
CB_MISSING(File_get_size)
CB_MISSING(File_create_errhandler)
CB_MISSING(File_set_errhandler)
CB_MISSING(File_get_errhandler)
CB_MISSING(Type_match_size)
CB_MISSING(Type_create_f90_integer)
CB_MISSING(Type_create_f90_real)
CB_MISSING(Type_create_f90_complex)
CB_MISSING(Type_size_x)
CB_MISSING(Type_get_extent_x)
CB_MISSING(Get_elements_x)
CB_MISSING(Grequest_start)
CB_MISSING(Grequest_complete)
CB_MISSING(Status_set_elements)
CB_MISSING(Status_set_cancelled)
CB_MISSING(Comm_create_group)
CB_MISSING(Comm_split_type)
CB_MISSING(Comm_idup)
CB_MISSING(Comm_set_info)
CB_MISSING(Comm_get_info)
CB_MISSING(Ibarrier)
CB_MISSING(Ibcast)
CB_MISSING(Ireduce)
CB_MISSING(Iallreduce)
CB_MISSING(Igather)
CB_MISSING(Igatherv)
CB_MISSING(Iscatter)
CB_MISSING(Iscatterv)
CB_MISSING(Iallgather)
CB_MISSING(Iallgatherv)
CB_MISSING(Ialltoall)
CB_MISSING(Ialltoallv)
CB_MISSING(Ialltoallw)
CB_MISSING(Ireduce_scatter)
CB_MISSING(Ireduce_scatter_block)
CB_MISSING(Iscan)
CB_MISSING(Iexscan)
CB_MISSING(Reduce_local)
CB_MISSING(Op_commutative)
CB_MISSING(Dist_graph_create)
CB_MISSING(Dist_graph_create_adjacent)
CB_MISSING(Dist_graph_neighbors)
CB_MISSING(Dist_graph_neighbors_count)
CB_MISSING(Neighbor_allgather)
CB_MISSING(Neighbor_allgatherv)
CB_MISSING(Neighbor_alltoall)
CB_MISSING(Neighbor_alltoallv)
CB_MISSING(Neighbor_alltoallw)
CB_MISSING(Mprobe)
CB_MISSING(Improbe)
CB_MISSING(Mrecv)
CB_MISSING(Imrecv)

/* Constants of what the library lacks: Fortran's datatypes. Unavailable objects, so a program
 * naming one fails to compile saying so. */
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define CB_MISSING_CONST(type, name) extern const type name CB_MISSING_ATTR(#name);
#endif
#endif
#ifndef CB_MISSING_CONST /* a compiler without `unavailable`: left undeclared */
#define CB_MISSING_CONST(type, name)
#endif
#define CB_MISSING_TYPES(X) X(MPI_LOGICAL) X(MPI_REAL) X(MPI_DOUBLE_PRECISION) \
    X(MPI_INTEGER) X(MPI_2INTEGER) X(MPI_2REAL) X(MPI_2DOUBLE_PRECISION) X(MPI_2COMPLEX) X(MPI_2DOUBLE_COMPLEX) \
    X(MPI_CHARACTER) X(MPI_REAL4) X(MPI_REAL8) X(MPI_REAL16) X(MPI_COMPLEX8) X(MPI_COMPLEX16) X(MPI_COMPLEX32) \
    X(MPI_INTEGER1) X(MPI_INTEGER2) X(MPI_INTEGER4) X(MPI_INTEGER8) X(MPI_INTEGER16)
#define CB_MISSING_TYPE(name) CB_MISSING_CONST(MPI_Datatype, name)
CB_MISSING_TYPES(CB_MISSING_TYPE)
#undef CB_MISSING_TYPE
#undef CB_MISSING_TYPES
#undef CB_MISSING_CONST

#undef CB_MISSING
#endif
