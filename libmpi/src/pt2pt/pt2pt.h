/* What the blocking calls (pt2pt.c) and the requests (requests.c) share. */
#ifndef CB_PT2PT_H
#define CB_PT2PT_H

#include <stddef.h>
#include "channel.h"
#include "internal.h"

/* The wire's context word of communicator `c`: its point-to-point or (coll) collective one. */
int p2p_wire_ctx(struct cb_comm *c, int coll);
void p2p_set_status(MPI_Status *st, int source, int tag, int error, int bytes);
/* A buffer's bytes, packed when its type is derived; `*tmp` is to be freed. */
const char *p2p_packed(const void *buf, int count, MPI_Datatype t, size_t bytes, char **tmp);
/* Deliver an answer's bytes (already in `into`, or in the packed `tmp`) and status. */
int p2p_received(const char *name, struct cb_comm *c, MPI_Comm comm, struct answer a, void *buf, MPI_Datatype t, char *tmp, size_t cap,
    MPI_Status *st);
int p2p_check_send(const char *name, const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm, struct cb_comm **c);
int p2p_check_recv(const char *name, const void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm, struct cb_comm **c);

#endif
