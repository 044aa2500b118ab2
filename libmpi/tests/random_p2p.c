/* A random point-to-point program, read from the file argv[1] (tests/test_mpi_property.py
 * writes it): each rank posts its operations in the file's order, then completes them all with
 * MPI_Waitany, then checks every received message's bytes and that the messages of one sender
 * and tag that one kind of receive took arrived in the order they were sent (MPI-1 §3.5).
 *
 * One line per operation:
 *   s RANK DEST TAG COMM SIZE SYNC   MPI_Isend (SYNC 0) or MPI_Issend (1) of SIZE bytes
 *   r RANK SOURCE TAG COMM           MPI_Irecv into 300 bytes; -1: MPI_ANY_SOURCE / MPI_ANY_TAG
 * COMM 0 and 1 are two duplicates of MPI_COMM_WORLD, which carries mtest_finalize's messages
 * (a fully wild receive on it would take one). A message's first bytes are its sender, tag,
 * communicator and sequence number (per receiver, tag and communicator), then a pattern. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define CAP 300
#define MAX_OPS 256

struct op {
    char kind;
    int peer, tag, comm, size, sync;
    unsigned char *buf;
};

static unsigned char pattern(int i, int seq)
{
    return (unsigned char)((i * 31) ^ seq);
}

static void fill(unsigned char *b, int size, int me, int tag, int comm, int seq)
{
    unsigned char head[4] = {(unsigned char)me, (unsigned char)tag, (unsigned char)comm, (unsigned char)seq};
    for (int i = 0; i < size; i++)
        b[i] = i < 4 ? head[i] : pattern(i, seq);
}

/* The received bytes are a message of `st`'s sender and tag on `comm`; returns its sequence
 * number, or -1 when it is too short to carry one. */
static int check_bytes(const unsigned char *b, const MPI_Status *st, int comm)
{
    int size;
    MPI_Get_count(st, MPI_BYTE, &size);
    if (size < 4)
        return -1;
    CHECK_MSG(b[0] == st->MPI_SOURCE && b[1] == st->MPI_TAG && b[2] == comm, "header %d %d %d from %d tag %d", b[0], b[1], b[2],
        st->MPI_SOURCE, st->MPI_TAG);
    for (int i = 4; i < size; i++)
        if (b[i] != pattern(i, b[3])) {
            CHECK_MSG(0, "byte %d of a message from %d is %d", i, st->MPI_SOURCE, b[i]);
            break;
        }
    return b[3];
}

int main(int argc, char **argv)
{
    int me, n = 0;
    static struct op ops[MAX_OPS];
    static int seq[16][64][2]; /* next sequence number by receiver, tag and communicator */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm comms[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    FILE *f = fopen(argv[1], "r");
    char kind;
    int rank, peer, tag, comm, size, sync;
    while (f && fscanf(f, " %c %d %d %d %d", &kind, &rank, &peer, &tag, &comm) == 5) {
        size = sync = 0;
        if (kind == 's' && fscanf(f, "%d %d", &size, &sync) != 2)
            break;
        if (rank == me && n < MAX_OPS)
            ops[n++] = (struct op){kind, peer, tag, comm, size, sync, malloc(CAP)};
    }
    CHECK_MSG(f != NULL, "cannot read %s", argv[1]);
    if (f)
        fclose(f);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        struct op *o = &ops[i];
        if (o->kind == 's') {
            fill(o->buf, o->size, me, o->tag, o->comm, seq[o->peer][o->tag][o->comm]++);
            (o->sync ? MPI_Issend : MPI_Isend)(o->buf, o->size, MPI_BYTE, o->peer, o->tag, comms[o->comm], &reqs[i]);
        } else {
            MPI_Irecv(o->buf, CAP, MPI_BYTE, o->peer == -1 ? MPI_ANY_SOURCE : o->peer, o->tag == -1 ? MPI_ANY_TAG : o->tag,
                comms[o->comm], &reqs[i]);
        }
    }
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)(n + 1));
    for (int done = 0; done < n; done++) {
        int at;
        MPI_Status st;
        MPI_Waitany(n, reqs, &at, &st);
        sts[at] = st;
    }
    /* Receives of one kind (source, tag, communicator as posted) take one sender's messages
     * of one tag in order: the last sequence number seen by (receive i's kind, sender, tag). */
    for (int i = 0; i < n; i++) {
        if (ops[i].kind != 'r')
            continue;
        int got = check_bytes(ops[i].buf, &sts[i], ops[i].comm);
        for (int j = i + 1; got >= 0 && j < n; j++) {
            struct op *a = &ops[i], *b = &ops[j];
            if (b->kind != 'r' || b->peer != a->peer || b->tag != a->tag || b->comm != a->comm)
                continue;
            if (sts[j].MPI_SOURCE != sts[i].MPI_SOURCE || sts[j].MPI_TAG != sts[i].MPI_TAG)
                continue;
            int later = check_bytes(b->buf, &sts[j], b->comm);
            CHECK_MSG(later < 0 || later > got, "message %d overtook %d from %d tag %d", later, got, sts[i].MPI_SOURCE, sts[i].MPI_TAG);
        }
    }
    for (int i = 0; i < n; i++)
        free(ops[i].buf);
    free(reqs);
    free(sts);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    return mtest_finalize();
}
