/* mpi.h of cellblade: MPI on the simulated SPEs of a dual-Cell blade (seed 004).
 *
 * Compile with `cellblade mpicc`, run with `cellblade mpirun -n N`. Every call declared below
 * is implemented by the rank library (as MPI_X and its profiling name PMPI_X): the whole of
 * MPI-1.3 (MPI_Cancel retracts a receive or a send no receive has matched yet), and the MPI-2
 * calls programs use with it (MPI_VERSION says 1.3: not all of MPI-2 is here). A call of MPI-2 or later that the library
 * lacks is declared unavailable (mpi_missing.h), so using it fails at compile time saying
 * that cellblade does not implement it. Messages are synchronous (seed 004 §3.1): a send
 * returns once the receiver has the data.
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
typedef int MPI_Group;
typedef int MPI_Info;
typedef long MPI_Aint;

/* MPI-1.3 §3.2.5 lets a status carry fields beyond the three public ones; the two private ones
   are named as MPICH names them (bytes in `count`), so programs written against MPICH that
   print them still compile. Read them with MPI_Get_count and MPI_Test_cancelled. */
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int count;     /* bytes received */
    int cancelled; /* nonzero when the request was cancelled */
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
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_INFO_NOKEY 22
#define MPI_ERR_LASTCODE 22

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
#define MPI_GROUP_NULL 0
#define MPI_GROUP_EMPTY 1
#define MPI_INFO_NULL 0
#define MPI_KEYVAL_INVALID (-1)
#define MPI_CART 1
#define MPI_GRAPH 2
/* Attribute keys of MPI_COMM_WORLD (MPI_Comm_get_attr): each value is an int. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_APPNUM 5
#define MPI_UNIVERSE_SIZE 6
#define MPI_LASTUSEDCODE 7

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
#define MPI_PACKED ((MPI_Datatype)0x1701)
/* Markers of a type's bounds in MPI_Type_struct (MPI-1): no data. */
#define MPI_LB ((MPI_Datatype)0x1800)
#define MPI_UB ((MPI_Datatype)0x1900)
/* MPI_Type_create_subarray's and _darray's array orders, and darray's distributions. */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* MPI_Type_get_envelope's combiners (MPI-2.2 §4.1.13). The F90 ones name constructors the
 * library lacks: no type has them. */
enum {
    MPI_COMBINER_NAMED = 1, MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR, MPI_COMBINER_HVECTOR_INTEGER,
    MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED_INTEGER, MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK,
    MPI_COMBINER_STRUCT_INTEGER, MPI_COMBINER_STRUCT, MPI_COMBINER_SUBARRAY, MPI_COMBINER_DARRAY, MPI_COMBINER_F90_REAL,
    MPI_COMBINER_F90_COMPLEX, MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED
};
/* Fortran's COMPLEX and DOUBLE COMPLEX (MPI-1.3 §3.2.2), in C two floats or two doubles. */
#define MPI_COMPLEX ((MPI_Datatype)0x1a08)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x1b10)
/* Fortran's other named datatypes (MPI-1.3 §3.2.2, §4.9.3), which a C program may name too:
 * each is the C type of its size (LOGICAL and INTEGER an int, REAL a float, DOUBLE PRECISION a
 * double, CHARACTER a char); the pairs for MPI_MAXLOC and MPI_MINLOC hold two of their type
 * (the index of the same type as the value). The optional sized types (MPI-2.2 §3.2.5) with no
 * C twin of that size, REAL16, COMPLEX32 and INTEGER16, are MPI_DATATYPE_NULL, as the standard
 * allows. */
#define MPI_LOGICAL ((MPI_Datatype)0x1c04)
#define MPI_INTEGER ((MPI_Datatype)0x1d04)
#define MPI_REAL ((MPI_Datatype)0x1e04)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x1f08)
#define MPI_CHARACTER ((MPI_Datatype)0x2001)
#define MPI_2INTEGER ((MPI_Datatype)0x2108)
#define MPI_2REAL ((MPI_Datatype)0x2208)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x2310)
#define MPI_2COMPLEX ((MPI_Datatype)0x2410)
#define MPI_2DOUBLE_COMPLEX ((MPI_Datatype)0x2520)
#define MPI_REAL4 ((MPI_Datatype)0x2604)
#define MPI_REAL8 ((MPI_Datatype)0x2708)
#define MPI_COMPLEX8 ((MPI_Datatype)0x2808)
#define MPI_COMPLEX16 ((MPI_Datatype)0x2910)
#define MPI_INTEGER1 ((MPI_Datatype)0x2a01)
#define MPI_INTEGER2 ((MPI_Datatype)0x2b02)
#define MPI_INTEGER4 ((MPI_Datatype)0x2c04)
#define MPI_INTEGER8 ((MPI_Datatype)0x2d08)
#define MPI_REAL16 MPI_DATATYPE_NULL
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_INTEGER16 MPI_DATATYPE_NULL
/* MPI_Type_match_size's type classes (MPI-2.2 §16.2.5). */
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

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
#define MPI_BOTTOM ((void *)0) /* absolute addresses (MPI_Get_address) as displacements */

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3) /* the root's own rank argument in a collective on an intercommunicator */
#define MPI_UNDEFINED (-32766)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_BSEND_OVERHEAD 32

typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in, void *attribute_val_out,
    int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
int MPI_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN MPI_NULL_COPY_FN
#define MPI_COMM_DUP_FN MPI_DUP_FN
#define MPI_COMM_NULL_DELETE_FN MPI_NULL_DELETE_FN
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int keyval, void *extra_state, void *attribute_val_in,
    void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int keyval, void *attribute_val, void *extra_state);
#define MPI_TYPE_NULL_COPY_FN MPI_NULL_COPY_FN /* MPI_Datatype and MPI_Comm are both int: the same functions */
#define MPI_TYPE_DUP_FN MPI_DUP_FN
#define MPI_TYPE_NULL_DELETE_FN MPI_NULL_DELETE_FN

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
CB_DECLARE(int, Add_error_class, (int *errorclass))
CB_DECLARE(int, Add_error_code, (int errorclass, int *errorcode))
CB_DECLARE(int, Add_error_string, (int errorcode, const char *string))
CB_DECLARE(int, Get_library_version, (char *version, int *resultlen))
CB_DECLARE(int, Query_thread, (int *provided))
CB_DECLARE(int, Is_thread_main, (int *flag))
CB_DECLARE(int, Pcontrol, (const int level, ...))
CB_DECLARE(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
CB_DECLARE(int, Free_mem, (void *base))
CB_DECLARE(int, Info_create, (MPI_Info *info))
CB_DECLARE(int, Info_set, (MPI_Info info, const char *key, const char *value))
CB_DECLARE(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
CB_DECLARE(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
CB_DECLARE(int, Info_delete, (MPI_Info info, const char *key))
CB_DECLARE(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
CB_DECLARE(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
CB_DECLARE(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
CB_DECLARE(int, Info_free, (MPI_Info *info))
CB_DECLARE(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler))
CB_DECLARE(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
CB_DECLARE(int, Errhandler_free, (MPI_Errhandler *errhandler))
CB_DECLARE(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
CB_DECLARE(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
CB_DECLARE(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
CB_DECLARE(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
CB_DECLARE(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
CB_DECLARE(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, int *keyval, void *extra_state))
CB_DECLARE(int, Keyval_create, (MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval, void *extra_state))
CB_DECLARE(int, Comm_free_keyval, (int *keyval))
CB_DECLARE(int, Keyval_free, (int *keyval))
CB_DECLARE(int, Comm_set_attr, (MPI_Comm comm, int keyval, void *attribute_val))
CB_DECLARE(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
CB_DECLARE(int, Comm_get_attr, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
CB_DECLARE(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
CB_DECLARE(int, Comm_delete_attr, (MPI_Comm comm, int keyval))
CB_DECLARE(int, Attr_delete, (MPI_Comm comm, int keyval))
CB_DECLARE(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
CB_DECLARE(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
CB_DECLARE(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
CB_DECLARE(int, Type_create_subarray, (int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
    MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_create_darray, (int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
    const int psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
CB_DECLARE(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[],
    MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
CB_DECLARE(int, Type_create_keyval, (MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del, int *keyval, void *extra_state))
CB_DECLARE(int, Type_free_keyval, (int *keyval))
CB_DECLARE(int, Type_set_attr, (MPI_Datatype datatype, int keyval, void *attribute_val))
CB_DECLARE(int, Type_get_attr, (MPI_Datatype datatype, int keyval, void *attribute_val, int *flag))
CB_DECLARE(int, Type_delete_attr, (MPI_Datatype datatype, int keyval))
CB_DECLARE(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
CB_DECLARE(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
CB_DECLARE(int, Type_size, (MPI_Datatype datatype, int *size))
CB_DECLARE(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
CB_DECLARE(int, Buffer_attach, (void *buffer, int size))
CB_DECLARE(int, Buffer_detach, (void *buffer_addr, int *size))
CB_DECLARE(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
CB_DECLARE(int, Start, (MPI_Request *request))
CB_DECLARE(int, Startall, (int count, MPI_Request requests[]))
CB_DECLARE(int, Waitsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
CB_DECLARE(int, Testsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
CB_DECLARE(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
CB_DECLARE(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
CB_DECLARE(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
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
CB_DECLARE(int, Cancel, (MPI_Request *request))
CB_DECLARE(int, Test_cancelled, (const MPI_Status *status, int *flag))
CB_DECLARE(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
/* Generalized requests (MPI-2.2 §12.2): the program completes them; a wait calls its query
 * function for the status, then its free function. */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
CB_DECLARE(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
    MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
CB_DECLARE(int, Grequest_complete, (MPI_Request request))
CB_DECLARE(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
CB_DECLARE(int, Status_set_cancelled, (MPI_Status *status, int flag))
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
CB_DECLARE(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
CB_DECLARE(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
    MPI_Comm *newintercomm))
CB_DECLARE(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
CB_DECLARE(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
CB_DECLARE(int, Comm_test_inter, (MPI_Comm comm, int *flag))
CB_DECLARE(int, Comm_remote_size, (MPI_Comm comm, int *size))
CB_DECLARE(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
CB_DECLARE(int, Group_size, (MPI_Group group, int *size))
CB_DECLARE(int, Group_rank, (MPI_Group group, int *rank))
CB_DECLARE(int, Group_free, (MPI_Group *group))
CB_DECLARE(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
CB_DECLARE(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
CB_DECLARE(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
CB_DECLARE(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
CB_DECLARE(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
CB_DECLARE(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
CB_DECLARE(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
CB_DECLARE(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
CB_DECLARE(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
CB_DECLARE(int, Cart_create, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
CB_DECLARE(int, Dims_create, (int nnodes, int ndims, int dims[]))
CB_DECLARE(int, Topo_test, (MPI_Comm comm, int *status))
CB_DECLARE(int, Cartdim_get, (MPI_Comm comm, int *ndims))
CB_DECLARE(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
CB_DECLARE(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
CB_DECLARE(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
CB_DECLARE(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
CB_DECLARE(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
CB_DECLARE(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
CB_DECLARE(int, Graph_create, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
CB_DECLARE(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
CB_DECLARE(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
CB_DECLARE(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
CB_DECLARE(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
CB_DECLARE(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
CB_DECLARE(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_commit, (MPI_Datatype *datatype))
CB_DECLARE(int, Type_free, (MPI_Datatype *datatype))
CB_DECLARE(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
CB_DECLARE(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
CB_DECLARE(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
CB_DECLARE(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
CB_DECLARE(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
CB_DECLARE(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_indexed, (int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_create_indexed_block, (int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype))
CB_DECLARE(int, Type_hindexed, (int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Type_create_hindexed, (int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype oldtype,
    MPI_Datatype *newtype))
CB_DECLARE(int, Type_struct, (int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[], MPI_Datatype *newtype))
CB_DECLARE(int, Type_create_struct, (int count, const int blocklengths[], const MPI_Aint displacements[], const MPI_Datatype types[],
    MPI_Datatype *newtype))
CB_DECLARE(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
CB_DECLARE(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
CB_DECLARE(int, Get_address, (const void *location, MPI_Aint *address))
CB_DECLARE(int, Address, (void *location, MPI_Aint *address))
CB_DECLARE(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
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
CB_DECLARE(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
    const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
CB_DECLARE(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
    void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
CB_DECLARE(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CB_DECLARE(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
CB_DECLARE(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
    MPI_Op op, MPI_Comm comm))
CB_DECLARE(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
    MPI_Op op, MPI_Comm comm))

#undef CB_DECLARE

#include "mpi_missing.h"

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
