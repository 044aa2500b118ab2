/* Attributes of datatypes (MPI-2.2 §6.7.4): keyvals of MPI_Type_create_keyval (env/errhan.c
 * keeps every keyval), values per datatype handle, predefined ones included. MPI_Type_dup
 * calls each keyval's copy function and MPI_Type_free its delete function (cb_type_copied,
 * cb_type_freeing, called by datatype/derived.c). Programs set few of them, so they are a
 * list, newest first. */
#include <stdlib.h>
#include "internal.h"

static struct type_attr {
    MPI_Datatype t;
    int k;
    void *value;
    struct type_attr *next;
} *type_attrs;

static struct type_attr **find(MPI_Datatype t, int k)
{
    struct type_attr **at = &type_attrs;
    while (*at && ((*at)->t != t || (*at)->k != k))
        at = &(*at)->next;
    return at;
}

static void add(MPI_Datatype t, int k, void *value)
{
    struct type_attr *a = malloc(sizeof *a);
    *a = (struct type_attr){t, k, value, type_attrs};
    type_attrs = a;
    cb_attr_set(k);
}

/* The attribute at `*at` deleted (its delete function called); kept if that fails. */
static int delete_at(struct type_attr **at)
{
    struct type_attr *a = *at;
    int rc = cb_attr_delete(a->t, a->k, a->value);
    if (rc == MPI_SUCCESS) {
        *at = a->next;
        free(a);
    }
    return rc;
}

static int check(const char *call, MPI_Datatype t, int k)
{
    cb_need_init(call);
    if (!cb_type_valid(t))
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)t);
    return cb_keyval_check(call, 1, k);
}

/* `t`'s attribute of keyval k deleted, if it has one. */
static int drop(const char *call, MPI_Datatype t, int k)
{
    CB_CHECK(check(call, t, k));
    struct type_attr **at = find(t, k);
    int rc = *at ? delete_at(at) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return cb_fail(call, MPI_COMM_WORLD, rc, "the delete function of keyval %d failed on datatype %#x", k, (unsigned)t);
    return MPI_SUCCESS;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del, int *keyval, void *extra_state)
{
    cb_need_init("MPI_Type_create_keyval");
    return cb_keyval_create("MPI_Type_create_keyval", 1, copy, del, extra_state, keyval);
}

int PMPI_Type_free_keyval(int *keyval)
{
    cb_need_init("MPI_Type_free_keyval");
    return cb_keyval_free("MPI_Type_free_keyval", 1, keyval);
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int keyval, void *attribute_val)
{
    CB_CHECK(drop("MPI_Type_set_attr", datatype, keyval));
    add(datatype, keyval, attribute_val);
    return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int keyval, void *attribute_val, int *flag)
{
    CB_CHECK(check("MPI_Type_get_attr", datatype, keyval));
    struct type_attr *a = *find(datatype, keyval);
    *flag = a != NULL;
    if (a)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int keyval)
{
    return drop("MPI_Type_delete_attr", datatype, keyval);
}

int cb_type_copied(MPI_Datatype from, MPI_Datatype to)
{
    for (struct type_attr *a = type_attrs; a; a = a->next) {
        if (a->t != from)
            continue;
        void *out = NULL;
        int flag;
        int rc = cb_attr_copy(from, a->k, a->value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return cb_fail("MPI_Type_dup", MPI_COMM_WORLD, rc, "the copy function of keyval %d failed on datatype %#x", a->k, (unsigned)from);
        if (flag) { /* cb_attr_copy counted it */
            struct type_attr *copy = malloc(sizeof *copy);
            *copy = (struct type_attr){to, a->k, out, type_attrs};
            type_attrs = copy;
        }
    }
    return MPI_SUCCESS;
}

int cb_type_freeing(MPI_Datatype t)
{
    struct type_attr **at = &type_attrs;
    while (*at) {
        if ((*at)->t != t) {
            at = &(*at)->next;
            continue;
        }
        int k = (*at)->k, rc = delete_at(at);
        if (rc != MPI_SUCCESS)
            return cb_fail("MPI_Type_free", MPI_COMM_WORLD, rc, "the delete function of keyval %d failed on datatype %#x", k, (unsigned)t);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
