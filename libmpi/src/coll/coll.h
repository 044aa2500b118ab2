/* The seed's linear collectives that communicator construction (comm/comm.c) also runs. */
#ifndef CB_COLL_H
#define CB_COLL_H

#include "internal.h"

/* MPI_Init has run and `comm` is a live communicator (its record in *c). */
int coll_begin(const char *name, MPI_Comm comm, struct cb_comm **c);
/* MPI_ERR_BUFFER when `buf` (the argument named `arg`) is MPI_IN_PLACE on an intercommunicator. */
int coll_not_in_place(const char *name, MPI_Comm comm, const struct cb_comm *c, const void *buf, const char *arg);
int coll_bcast(const char *name, struct cb_comm *c, MPI_Comm comm, void *buf, int count, MPI_Datatype t, int root);
/* Rank order: every contribution to the root, then x_i op (x_i+1 op (...)). */
int coll_reduce(const char *name, struct cb_comm *c, MPI_Comm comm, const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, int root);
int coll_gatherv(const char *name, struct cb_comm *c, MPI_Comm comm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
    void *recvbuf, const int *counts, const int *displs, MPI_Datatype recvtype, int root);
/* counts[r] = n, displs[r] = r * n for every rank (to be freed). */
void coll_regular(struct cb_comm *c, int n, int **counts, int **displs);

#endif
