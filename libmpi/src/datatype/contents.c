/* What each derived datatype was made by (MPI-2.2 §4.1.13): the combiner and the arguments of
 * the constructor call, kept per type for MPI_Type_get_envelope and MPI_Type_get_contents.
 * Every constructor records itself last (cb_type_record), so a constructor built on another
 * (MPI_Type_create_subarray) overwrites what its parts recorded. A record holds the datatypes
 * it names (cb_type_hold) until its type's slot is released (cb_type_forget). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static struct recipe {
    int combiner, ni, na, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Datatype *types;
} recipes[CB_MAX_TYPES];

static struct recipe *recipe(MPI_Datatype t)
{
    int i = t - CB_DERIVED;
    return i >= 0 && i < CB_MAX_TYPES ? &recipes[i] : NULL;
}

static void *copy_of(const void *from, size_t bytes)
{
    void *to = malloc(bytes ? bytes : 1);
    if (bytes)
        memcpy(to, from, bytes);
    return to;
}

void cb_type_forget(MPI_Datatype t)
{
    struct recipe *r = recipe(t);
    if (!r || !r->combiner)
        return;
    for (int i = 0; i < r->nd; i++)
        cb_type_release(r->types[i]);
    free(r->ints);
    free(r->addrs);
    free(r->types);
    *r = (struct recipe){0};
}

void cb_type_record(MPI_Datatype t, int combiner, int ni, const int *ints, int na, const MPI_Aint *addrs, int nd, const MPI_Datatype *types)
{
    struct recipe *r = recipe(t);
    if (!r)
        return;
    for (int i = 0; i < nd; i++) /* before forgetting: `types` may be the old record's own */
        cb_type_hold(types[i]);
    struct recipe next = {combiner, ni, na, nd, copy_of(ints, sizeof(int) * (size_t)ni), copy_of(addrs, sizeof(MPI_Aint) * (size_t)na),
        copy_of(types, sizeof(MPI_Datatype) * (size_t)nd)};
    cb_type_forget(t);
    *r = next;
}

/* count, then each block's length (or the one `len`), then each block's displacement in
 * elements (`idisps`) or bytes (`adisps`), then each block's type (`olds`) or the one `old`. */
void cb_type_record_blocks(MPI_Datatype t, int combiner, int count, const int *lens, int len, const int *idisps, const MPI_Aint *adisps,
    const MPI_Datatype *olds, MPI_Datatype old)
{
    int nl = lens ? count : 1, *ints = malloc(sizeof(int) * (size_t)(1 + nl + (idisps ? count : 0)));
    ints[0] = count;
    for (int b = 0; b < nl; b++)
        ints[1 + b] = lens ? lens[b] : len;
    for (int b = 0; idisps && b < count; b++)
        ints[1 + nl + b] = idisps[b];
    cb_type_record(t, combiner, 1 + nl + (idisps ? count : 0), ints, adisps ? count : 0, adisps, olds ? count : 1, olds ? olds : &old);
    free(ints);
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner)
{
    struct recipe *r = recipe(datatype);
    if (!cb_type_valid(datatype))
        return cb_fail("MPI_Type_get_envelope", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    int named = !r || !r->combiner;
    *num_integers = named ? 0 : r->ni;
    *num_addresses = named ? 0 : r->na;
    *num_datatypes = named ? 0 : r->nd;
    *combiner = named ? MPI_COMBINER_NAMED : r->combiner;
    return MPI_SUCCESS;
}

/* A derived type named in a record, as a new handle to free (MPI-2.2 §4.1.13): a duplicate
 * that tells what the original was made by. */
static MPI_Datatype handed_out(MPI_Datatype t)
{
    MPI_Datatype copy;
    if (cb_predefined(t) || t == MPI_LB || t == MPI_UB || CB_INNER(PMPI_Type_dup(t, &copy)) != MPI_SUCCESS)
        return t;
    struct recipe *from = recipe(t);
    if (from->combiner)
        cb_type_record(copy, from->combiner, from->ni, from->ints, from->na, from->addrs, from->nd, from->types);
    return copy;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[],
    MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    const char *call = "MPI_Type_get_contents";
    struct recipe *r = recipe(datatype);
    if (!cb_type_valid(datatype) || !r || !r->combiner)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is not a derived datatype: allowed the program's own",
            (unsigned)datatype);
    if (max_integers < r->ni || max_addresses < r->na || max_datatypes < r->nd)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG,
            "room for %d integers, %d addresses, %d datatypes is too little: MPI_Type_get_envelope says %d, %d, %d", max_integers,
            max_addresses, max_datatypes, r->ni, r->na, r->nd);
    if (r->ni)
        memcpy(array_of_integers, r->ints, sizeof(int) * (size_t)r->ni);
    if (r->na)
        memcpy(array_of_addresses, r->addrs, sizeof(MPI_Aint) * (size_t)r->na);
    for (int i = 0; i < r->nd; i++)
        array_of_datatypes[i] = handed_out(r->types[i]);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
