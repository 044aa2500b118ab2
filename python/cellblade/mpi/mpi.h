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
CB_DECLARE(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Wait, (MPI_Request *request, MPI_Status *status))
CB_DECLARE(int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
CB_DECLARE(int, Barrier, (MPI_Comm comm))

#undef CB_DECLARE

#ifdef __cplusplus
}
#endif
#endif
