/* mpi.h of cellblade: MPI on the simulated SPEs of a dual-Cell blade (seed 004).
 *
 * Compile with `cellblade mpicc`, run with `cellblade mpirun -n N`. Every call below is
 * implemented in cellblade_mpi.c (as MPI_X and its profiling name PMPI_X); a call that is not
 * declared here fails at link time. Messages are synchronous (seed 004 §3.1): a send returns
 * once the receiver has the data.
 */
#ifndef CELLBLADE_MPI_H
#define CELLBLADE_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 1
#define MPI_SUBVERSION 3

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef long MPI_Aint;

typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int cb_bytes; /* bytes received: read it with MPI_Get_count */
} MPI_Status;

/* Error classes. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_LASTCODE 19

#define MPI_COMM_NULL 0
#define MPI_COMM_WORLD 1
#define MPI_COMM_SELF 2
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3
#define MPI_REQUEST_NULL 0
#define MPI_DATATYPE_NULL 0
#define MPI_ERRHANDLER_NULL 0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2

/* Predefined datatypes: the handle's low byte is its size in bytes. */
#define MPI_CHAR ((MPI_Datatype)0x0101)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x0201)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x0301)
#define MPI_BYTE ((MPI_Datatype)0x0401)
#define MPI_SHORT ((MPI_Datatype)0x0502)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x0602)
#define MPI_INT ((MPI_Datatype)0x0704)
#define MPI_UNSIGNED ((MPI_Datatype)0x0804)
#define MPI_LONG ((MPI_Datatype)(0x0900 | sizeof(long)))
#define MPI_UNSIGNED_LONG ((MPI_Datatype)(0x0a00 | sizeof(unsigned long)))
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x0b08)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x0c08)
#define MPI_FLOAT ((MPI_Datatype)0x0d04)
#define MPI_DOUBLE ((MPI_Datatype)0x0e08)
#define MPI_LONG_DOUBLE ((MPI_Datatype)(0x0f00 | sizeof(long double)))
#define MPI_WCHAR ((MPI_Datatype)(0x1000 | sizeof(wchar_t)))
/* Pair types for MPI_MAXLOC and MPI_MINLOC: a value and an int index. */
#define MPI_FLOAT_INT ((MPI_Datatype)(0x1100 | sizeof(struct { float v; int i; })))
#define MPI_DOUBLE_INT ((MPI_Datatype)(0x1200 | sizeof(struct { double v; int i; })))
#define MPI_LONG_INT ((MPI_Datatype)(0x1300 | sizeof(struct { long v; int i; })))
#define MPI_2INT ((MPI_Datatype)(0x1400 | sizeof(struct { int v; int i; })))
#define MPI_SHORT_INT ((MPI_Datatype)(0x1500 | sizeof(struct { short v; int i; })))
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)(0x1600 | sizeof(struct { long double v; int i; })))

/* Predefined reduction operations. */
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

#define MPI_IN_PLACE ((void *)1)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB 0x7fffffff
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define CB_DECLARE(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

CB_DECLARE(int, Init, (int *argc, char ***argv))
CB_DECLARE(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
CB_DECLARE(int, Initialized, (int *flag))
CB_DECLARE(int, Finalize, (void))
CB_DECLARE(int, Finalized, (int *flag))
CB_DECLARE(int, Abort, (MPI_Comm comm, int errorcode))
CB_DECLARE(int, Comm_rank, (MPI_Comm comm, int *rank))
CB_DECLARE(int, Comm_size, (MPI_Comm comm, int *size))
CB_DECLARE(int, Get_processor_name, (char *name, int *resultlen))
CB_DECLARE(int, Get_version, (int *version, int *subversion))
CB_DECLARE(double, Wtime, (void))
CB_DECLARE(double, Wtick, (void))
CB_DECLARE(int, Error_string, (int errorcode, char *string, int *resultlen))
CB_DECLARE(int, Error_class, (int errorcode, int *errorclass))
CB_DECLARE(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
CB_DECLARE(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
CB_DECLARE(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
CB_DECLARE(int, Type_size, (MPI_Datatype datatype, int *size))
CB_DECLARE(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
CB_DECLARE(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
CB_DECLARE(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
CB_DECLARE(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Wait, (MPI_Request *request, MPI_Status *status))
CB_DECLARE(int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
CB_DECLARE(int, Barrier, (MPI_Comm comm))
CB_DECLARE(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
CB_DECLARE(int, Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]))
CB_DECLARE(int, Testany, (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status))
CB_DECLARE(int, Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status))
CB_DECLARE(int, Request_free, (MPI_Request *request))
CB_DECLARE(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
CB_DECLARE(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
CB_DECLARE(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
CB_DECLARE(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
    void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
CB_DECLARE(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
    int recvtag, MPI_Comm comm, MPI_Status *status))
CB_DECLARE(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
CB_DECLARE(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
CB_DECLARE(int, Comm_free, (MPI_Comm *comm))
CB_DECLARE(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
CB_DECLARE(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_commit, (MPI_Datatype *datatype))
CB_DECLARE(int, Type_free, (MPI_Datatype *datatype))
CB_DECLARE(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
CB_DECLARE(int, Op_create, (MPI_User_function *function, int commute, MPI_Op *op))
CB_DECLARE(int, Op_free, (MPI_Op *op))
CB_DECLARE(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
CB_DECLARE(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
CB_DECLARE(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CB_DECLARE(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm))
CB_DECLARE(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
    const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
CB_DECLARE(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, int root, MPI_Comm comm))
CB_DECLARE(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
CB_DECLARE(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, MPI_Comm comm))
CB_DECLARE(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
CB_DECLARE(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
    MPI_Datatype recvtype, MPI_Comm comm))
CB_DECLARE(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CB_DECLARE(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CB_DECLARE(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
    MPI_Op op, MPI_Comm comm))

#undef CB_DECLARE

/* cellblade extensions. Computing between MPI calls costs no simulated time; a program that
 * models its SPU work charges it with these (the rank's simulated clock advances):
 * MPIX_Compute_cycles: SPU core cycles. MPIX_Compute_dp_fma: scalar double-precision
 * multiply-adds, each one DP instruction at the machine file's DP issue interval. */
int MPIX_Compute_cycles(double core_cycles);
int MPIX_Compute_dp_fma(double count);

#ifdef __cplusplus
}
#endif
#endif
