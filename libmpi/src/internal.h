/* Shared inside the rank library (the C files under libmpi/src); not for programs, which see
 * only libmpi/include. Each declaration names the file that defines it when that is not obvious. */
#ifndef CB_INTERNAL_H
#define CB_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

/* Communicator handles are below this (env/init.c's table; errhan.c's and topo.c's beside it).
 * MPICH's comm/cmfree holds 1020 at once. */
#define MAX_COMMS 2048

struct cb_comm {
    int used, size, rank, ctx;
    int *world; /* local rank -> world rank */
    MPI_Errhandler eh;
    int refs, freed; /* MPI_Comm_free's semantics: pending requests keep a freed communicator */
    /* An intercommunicator (comm/intercomm.c): size and world are the remote group's, which
     * point-to-point ranks name; rank is in the local group, kept here with a hidden
     * intracommunicator over it. */
    int inter, local_size;
    int *local_world;
    MPI_Comm local_comm;
};

struct cb_comm *cb_comm_get(MPI_Comm comm); /* NULL once the user freed it */
struct cb_comm *cb_comm_live(MPI_Comm comm); /* also a freed one that pending requests still hold */
void cb_die(const char *call, const char *what) __attribute__((noreturn)); /* env/init.c: a misuse MPI has no class for */
void cb_comm_hold(MPI_Comm comm);
void cb_comm_release(MPI_Comm comm);
void cb_need_init(const char *call);
int cb_fail(const char *call, MPI_Comm comm, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int cb_check_comm(const char *call, MPI_Comm comm, struct cb_comm **out);
int cb_world_size(void);

/* Datatypes (datatype/basic.c). */
#define CB_DERIVED 0x10000 /* derived datatypes' handles: from here on (datatype/derived.c) */
#define CB_MAX_TYPES 4096  /* derived datatypes at once; MPICH's datatype/tfree holds 1025 */
int cb_type_valid(MPI_Datatype t);
int cb_predefined(MPI_Datatype t);      /* datatype/basic.c: a predefined type that carries data */
MPI_Aint cb_basic_align(MPI_Datatype t); /* datatype/basic.c: C's alignment of a predefined type */
size_t cb_basic_size(MPI_Datatype t);   /* datatype/basic.c: a predefined type's size (a pair's: value + int) */
int cb_pair(MPI_Datatype t, size_t *vsize, size_t *ioff); /* datatype/basic.c: 1 for a pair type */
MPI_Aint cb_type_lb(MPI_Datatype t);
void cb_type_hold(MPI_Datatype t); /* a pending request keeps its derived type past MPI_Type_free */
void cb_type_release(MPI_Datatype t);
/* datatype/contents.c: what made a derived type, for MPI_Type_get_envelope and _contents. */
void cb_type_record(MPI_Datatype t, int combiner, int ni, const int *ints, int na, const MPI_Aint *addrs, int nd, const MPI_Datatype *types);
void cb_type_record_blocks(MPI_Datatype t, int combiner, int count, const int *lens, int len, const int *idisps, const MPI_Aint *adisps,
    const MPI_Datatype *olds, MPI_Datatype old);
void cb_type_forget(MPI_Datatype t);
size_t cb_type_size(MPI_Datatype t);
size_t cb_type_element_bytes(MPI_Datatype t, int count); /* MPI_Status_set_elements */
int cb_type_direct(MPI_Datatype t); /* its bytes in memory are its message: no packing (not a pair type) */
/* The predefined type every element of `t` is made of; *n = elements of it in `count` of `t`. */
MPI_Datatype cb_type_base(MPI_Datatype t, int count, int *n);
MPI_Aint cb_type_extent(MPI_Datatype t);
int cb_check_buffer(const char *call, MPI_Comm comm, int count, MPI_Datatype t, size_t *bytes);
void cb_pack(const void *buf, int count, MPI_Datatype t, char *out);
void cb_unpack(const char *in, size_t bytes, MPI_Datatype t, void *buf);
int cb_reduce_local(const void *in, void *inout, int count, MPI_Datatype t, MPI_Op op);
int cb_check_op(const char *call, MPI_Comm comm, MPI_Op op, MPI_Datatype t);
int cb_op_commutes(MPI_Op op);

/* Point-to-point on a communicator, arguments already checked; `coll` selects the
 * communicator's collective context. */
int cb_send(const char *call, struct cb_comm *c, MPI_Comm comm, int coll, const void *buf, int count, MPI_Datatype t, int dest, int tag);
int cb_recv(const char *call, struct cb_comm *c, MPI_Comm comm, int coll, void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Status *st);
int cb_sendrecv(const char *call, struct cb_comm *c, MPI_Comm comm, int coll, const void *sbuf, int scount, MPI_Datatype stype, int dest,
    int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Status *st);
int cb_world_barrier(void);
/* One request to the simulator (crates/cellblade/src/mpi/wire.rs): returns the answer's error
 * field; its source and count through the pointers (either may be NULL). */
int cb_call(uint32_t op, int a, int b, int c, uint64_t len, const void *payload, void *into, int *source, uint64_t *count);
/* wire.rs's COLL_QUERY and COLL_SEED (mpi/collective.rs), the `a` and answer of OP_COLL. */
#define CB_COLL_QUERY (-1)
#define CB_COLL_SEED (-2)
int cb_new_comm(int size, int rank, const int *world, int ctx, MPI_Errhandler eh, MPI_Comm *out);

/* The rank's state page for the launcher (env/fault.c). */
enum { CB_PHASE_NONE, CB_PHASE_RUNNING, CB_PHASE_FINALIZED, CB_PHASE_ABORTED, CB_PHASE_LOST };
void cb_state_call(const char *call);  /* the user's call now running (not copied: a literal) */
void cb_state_comm(const char *call, MPI_Comm comm); /* `call`'s communicator, if it is the user's call */
void cb_state_inside(int inside);      /* 1: waiting in it for the simulator; 0: back in the program */
void cb_state_request(const char *made_by, MPI_Comm comm); /* a wait's one request: "MPI_Wait for MPI_Recv_init" on its communicator */
/* An MPI call the library makes itself (MPI_Allgather's MPI_Allgatherv): the report names the
 * program's call, not this one. */
#define CB_INNER(call) (cb_state_inner_begin(), cb_state_inner_done(call))
void cb_state_inner_begin(void);
int cb_state_inner_done(int rc);
void cb_state_phase(int phase, int code);
void cb_exit(int code) __attribute__((noreturn)); /* flush stdio, then _exit */

/* Requests (pt2pt/requests.c) for pt2pt/persistent.c's persistent ones. */
int cb_request_make(const char *name, uint32_t op, const void *buf, int count, MPI_Datatype t, int peer, int tag, MPI_Comm comm, MPI_Request *request);
int cb_request_start(const char *name, MPI_Request request);
int cb_request_inactive(MPI_Request r); /* a persistent request not started: as MPI_REQUEST_NULL */
int cb_request_buffered(const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *request);
#define CB_OP_BSEND 0x100                /* cb_request_make's op for MPI_Bsend_init (no wire code) */

/* Error handlers, attributes, names (env/errhan.c) and topologies (topo/topo.c). */
#define CB_USER_EH 16 /* the program's error handlers: handles from here on */
#define CB_TAG_UB 0x7fffffff /* the largest tag (crates/cellblade/src/mpi/mod.rs's) */
int cb_errhandler_call(MPI_Errhandler eh, MPI_Comm comm, int code);
const char *cb_error_name(int code); /* env/errcodes.c: a code's class name, or an added code's string */
int cb_last_used_code(void);         /* env/errcodes.c: MPI_LASTUSEDCODE */
/* Keyvals (env/errhan.c), for communicators (`types` 0) or datatypes (1, env/type_attr.c). */
int cb_keyval_create(const char *call, int types, MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, void *extra,
    int *keyval);
int cb_keyval_check(const char *call, int types, int k);
int cb_keyval_free(const char *call, int types, int *keyval);
void cb_attr_set(int k);
int cb_attr_copy(int obj, int k, void *in, void **out, int *flag);
int cb_attr_delete(int obj, int k, void *value);
int cb_type_copied(MPI_Datatype from, MPI_Datatype to); /* MPI_Type_dup: its attributes (env/type_attr.c) */
int cb_type_freeing(MPI_Datatype t);                    /* MPI_Type_free: delete them */
int cb_comm_copied(MPI_Comm from, MPI_Comm to); /* MPI_Comm_dup: attributes and topology */
int cb_comm_freeing(MPI_Comm comm);             /* MPI_Comm_free: delete them */
const char *cb_comm_name(MPI_Comm comm);        /* a valid communicator's name, "" if it has none */
void cb_topo_copy(MPI_Comm from, MPI_Comm to);
void cb_topo_drop(MPI_Comm comm);

/* Contexts (comm/comm.c) and intercommunicators (comm/intercomm.c). */
int cb_agree_ctx(const char *name, MPI_Comm comm, int *ctx); /* collective over an intracommunicator */
void cb_ctx_taken(int ctx);                                   /* a context agreed elsewhere is used */
int cb_intercomm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int cb_intercomm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
void cb_intercomm_freeing(MPI_Comm comm);
int cb_inter_barrier(MPI_Comm comm, struct cb_comm *c);
int cb_inter_allgatherv(const char *name, MPI_Comm comm, struct cb_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
    void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype); /* coll/alltoallv.c */

#define CB_CHECK(x)                                                                              \
    do {                                                                                         \
        int rc_ = (x);                                                                           \
        if (rc_ != MPI_SUCCESS)                                                                  \
            return rc_;                                                                          \
    } while (0)
#endif
