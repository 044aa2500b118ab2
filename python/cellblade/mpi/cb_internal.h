/* Shared inside the rank library (cellblade_mpi.c, cb_types.c, cb_coll.c); not for programs. */
#ifndef CB_INTERNAL_H
#define CB_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

struct cb_comm {
    int used, size, rank, ctx;
    int *world; /* local rank -> world rank */
    MPI_Errhandler eh;
    int refs, freed; /* MPI_Comm_free's semantics: pending requests keep a freed communicator */
};

struct cb_comm *cb_comm_get(MPI_Comm comm); /* NULL once the user freed it */
void cb_comm_hold(MPI_Comm comm);
void cb_comm_release(MPI_Comm comm);
void cb_need_init(const char *call);
int cb_fail(const char *call, MPI_Comm comm, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int cb_check_comm(const char *call, MPI_Comm comm, struct cb_comm **out);
int cb_world_size(void);

/* Datatypes (cb_types.c). */
int cb_type_valid(MPI_Datatype t);
void cb_type_hold(MPI_Datatype t); /* a pending request keeps its derived type past MPI_Type_free */
void cb_type_release(MPI_Datatype t);
size_t cb_type_size(MPI_Datatype t);
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

#define CB_CHECK(x)                                                                              \
    do {                                                                                         \
        int rc_ = (x);                                                                           \
        if (rc_ != MPI_SUCCESS)                                                                  \
            return rc_;                                                                          \
    } while (0)
#endif
