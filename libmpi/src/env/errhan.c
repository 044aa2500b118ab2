/* Error handlers, attribute caching and communicator names (MPI-1.3 §5.7, §7.2; MPI-2.2 §6.7,
 * §8.3), all local to the process.
 *
 * Error handlers: MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, and the program's own from
 * CB_USER_EH on; cb_fail (env/init.c) calls a program's handler with the communicator and
 * the code, then returns the code. Attributes: keyvals from CB_FIRST_KEYVAL on, values per
 * communicator handle; MPI_Comm_dup calls each keyval's copy function and MPI_Comm_free its
 * delete function (cb_comm_copied, cb_comm_freeing, called by comm/comm.c). The predefined
 * attributes of MPI_COMM_WORLD (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL) are values
 * kept here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_EH 256
#define MAX_KEYVALS 128
#define FIRST_KEYVAL 16 /* below: the predefined attributes, mpi.h's MPI_TAG_UB ... */

static struct errhandler {
    int used;
    MPI_Comm_errhandler_function *fn;
} handlers[MAX_EH];

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    for (int i = 0; i < MAX_EH; i++)
        if (!handlers[i].used) {
            handlers[i] = (struct errhandler){1, function};
            *errhandler = CB_USER_EH + i;
            return MPI_SUCCESS;
        }
    return cb_fail("MPI_Comm_create_errhandler", MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d error handlers", MAX_EH);
}

int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}

static struct errhandler *user_eh(MPI_Errhandler eh)
{
    int i = eh - CB_USER_EH;
    return i >= 0 && i < MAX_EH && handlers[i].used ? &handlers[i] : NULL;
}

static int valid_eh(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || user_eh(eh);
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    struct errhandler *h = user_eh(*errhandler);
    if (!h && !valid_eh(*errhandler))
        return cb_fail("MPI_Errhandler_free", MPI_COMM_WORLD, MPI_ERR_ARG, "error handler %d is invalid", *errhandler);
    /* A communicator that uses it keeps calling it (the slot is never reused). */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int cb_errhandler_call(MPI_Errhandler eh, MPI_Comm comm, int code)
{
    struct errhandler *h = user_eh(eh);
    if (h)
        h->fn(&comm, &code);
    return code;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    struct cb_comm *c = NULL;
    cb_need_init("MPI_Comm_set_errhandler");
    CB_CHECK(cb_check_comm("MPI_Comm_set_errhandler", comm, &c));
    if (!valid_eh(errhandler))
        return cb_fail("MPI_Comm_set_errhandler", comm, MPI_ERR_ARG,
            "error handler %d is invalid: allowed MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN or one of MPI_Comm_create_errhandler", errhandler);
    c->eh = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    struct cb_comm *c = NULL;
    cb_need_init("MPI_Comm_get_errhandler");
    CB_CHECK(cb_check_comm("MPI_Comm_get_errhandler", comm, &c));
    *errhandler = c->eh;
    return MPI_SUCCESS;
}

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    cb_need_init("MPI_Comm_call_errhandler");
    CB_CHECK(cb_check_comm("MPI_Comm_call_errhandler", comm, NULL));
    cb_fail("MPI_Comm_call_errhandler", comm, errorcode, "called by the program");
    return MPI_SUCCESS;
}

/* Attributes. */
/* A freed keyval's slot is reused once no attribute of it is left (`refs` counts them). A
 * keyval is for communicators or for datatypes (env/type_attr.c), not both (MPI-2.2 §6.7). */
static struct keyval {
    int used, freed, refs, types;
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
} keyvals[MAX_KEYVALS];

static struct attr {
    int set;
    void *value;
} attrs[MAX_COMMS][MAX_KEYVALS];

static int tag_ub = CB_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 1;
/* MPI-2's: one application (mpirun starts one program), no room for more processes than
 * were started; the last error code (env/errcodes.c's), read when asked. */
static int appnum = 0, universe_size, last_used_code;

int cb_keyval_create(const char *call, int types, MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, void *extra,
    int *keyval)
{
    for (int k = FIRST_KEYVAL; k < MAX_KEYVALS; k++)
        if (!keyvals[k].used) {
            keyvals[k] = (struct keyval){1, 0, 0, types, copy, del, extra};
            *keyval = k;
            return MPI_SUCCESS;
        }
    return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d keyvals", MAX_KEYVALS - FIRST_KEYVAL);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, int *keyval, void *extra_state)
{
    return cb_keyval_create("MPI_Comm_create_keyval", 0, copy, del, extra_state, keyval);
}

int PMPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval, void *extra_state)
{
    return PMPI_Comm_create_keyval(copy, del, keyval, extra_state);
}

int cb_keyval_check(const char *call, int types, int k)
{
    if (k >= FIRST_KEYVAL && k < MAX_KEYVALS && keyvals[k].used && keyvals[k].types == types) /* freed too, while attributes use it */
        return MPI_SUCCESS;
    if (k >= FIRST_KEYVAL && k < MAX_KEYVALS && keyvals[k].used)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_KEYVAL, "keyval %d is a %s keyval: allowed one of MPI_%s_create_keyval", k,
            types ? "communicator" : "datatype", types ? "Type" : "Comm");
    return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_KEYVAL, "keyval %d is invalid", k);
}

static struct keyval *keyval_of(const char *call, int k)
{
    return cb_keyval_check(call, 0, k) == MPI_SUCCESS ? &keyvals[k] : NULL;
}

int cb_keyval_free(const char *call, int types, int *keyval)
{
    CB_CHECK(cb_keyval_check(call, types, *keyval));
    struct keyval *kv = &keyvals[*keyval];
    kv->freed = 1;
    kv->used = kv->refs > 0; /* attributes still set keep their delete function */
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *keyval)
{
    return cb_keyval_free("MPI_Comm_free_keyval", 0, keyval);
}

int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}

/* Keyval k's delete function on `value`, the attribute of object `obj`; once it succeeds the
 * attribute is gone (and a freed keyval with it, if it was the last). */
int cb_attr_delete(int obj, int k, void *value)
{
    int rc = keyvals[k].del ? keyvals[k].del(obj, k, value, keyvals[k].extra) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && --keyvals[k].refs == 0 && keyvals[k].freed)
        keyvals[k].used = 0;
    return rc;
}

/* Keyval k's copy function on the attribute `in` of `obj`, duplicated: *flag says whether the
 * copy `*out` is set on the new object. */
int cb_attr_copy(int obj, int k, void *in, void **out, int *flag)
{
    *flag = 0;
    if (!keyvals[k].used || !keyvals[k].copy)
        return MPI_SUCCESS;
    int rc = keyvals[k].copy(obj, k, keyvals[k].extra, in, out, flag);
    if (rc == MPI_SUCCESS && *flag)
        keyvals[k].refs++;
    return rc;
}

void cb_attr_set(int k)
{
    keyvals[k].refs++;
}

static int delete_attr(MPI_Comm comm, int k)
{
    struct attr *a = &attrs[comm][k];
    if (!a->set)
        return MPI_SUCCESS;
    int rc = cb_attr_delete(comm, k, a->value);
    if (rc == MPI_SUCCESS)
        a->set = 0;
    return rc;
}

static int attr_comm(const char *call, MPI_Comm comm)
{
    cb_need_init(call);
    return cb_check_comm(call, comm, NULL);
}

/* The attribute of a valid `keyval` deleted from `comm` (its delete function called). */
static int drop_attr(const char *call, MPI_Comm comm, int keyval)
{
    CB_CHECK(attr_comm(call, comm));
    if (!keyval_of(call, keyval))
        return MPI_ERR_KEYVAL;
    int rc = delete_attr(comm, keyval);
    if (rc != MPI_SUCCESS)
        return cb_fail(call, comm, rc, "the delete function of keyval %d failed", keyval);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
    CB_CHECK(drop_attr("MPI_Comm_set_attr", comm, keyval));
    attrs[comm][keyval] = (struct attr){1, attribute_val};
    cb_attr_set(keyval);
    return MPI_SUCCESS;
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    const char *call = "MPI_Comm_get_attr";
    CB_CHECK(attr_comm(call, comm));
    universe_size = cb_world_size();
    last_used_code = cb_last_used_code();
    int *predefined[] = {[MPI_TAG_UB] = &tag_ub, [MPI_HOST] = &host, [MPI_IO] = &io, [MPI_WTIME_IS_GLOBAL] = &wtime_global,
        [MPI_APPNUM] = &appnum, [MPI_UNIVERSE_SIZE] = &universe_size, [MPI_LASTUSEDCODE] = &last_used_code};
    if (keyval >= 0 && keyval < (int)(sizeof predefined / sizeof *predefined) && predefined[keyval]) {
        *flag = comm == MPI_COMM_WORLD;
        if (*flag)
            *(int **)attribute_val = predefined[keyval];
        return MPI_SUCCESS;
    }
    if (!keyval_of(call, keyval))
        return MPI_ERR_KEYVAL;
    *flag = attrs[comm][keyval].set;
    if (*flag)
        *(void **)attribute_val = attrs[comm][keyval].value;
    return MPI_SUCCESS;
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    return drop_attr("MPI_Comm_delete_attr", comm, keyval);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}

/* Communicator names: a freed communicator's slot forgets its name (cb_comm_freeing). */
static char names[MAX_COMMS][MPI_MAX_OBJECT_NAME];

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    CB_CHECK(attr_comm("MPI_Comm_set_name", comm));
    snprintf(names[comm], MPI_MAX_OBJECT_NAME, "%s", comm_name);
    return MPI_SUCCESS;
}

const char *cb_comm_name(MPI_Comm comm)
{
    return names[comm][0] ? names[comm] : comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : comm == MPI_COMM_SELF ? "MPI_COMM_SELF" : "";
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    CB_CHECK(attr_comm("MPI_Comm_get_name", comm));
    *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", cb_comm_name(comm));
    return MPI_SUCCESS;
}

/* Datatype names: the predefined types' own until the program names them (MPI-2.2 §6.8 lets
 * it name any datatype), the program's for derived ones. MPI_LONG_LONG_INT and MPI_LONG_LONG
 * are one handle, named by the shorter (MPICH's suite accepts it as a prefix of the longer). */
static char type_names[CB_MAX_TYPES][MPI_MAX_OBJECT_NAME];
static char renamed[256][MPI_MAX_OBJECT_NAME]; /* predefined types, by kind (datatype/basic.c) */

static const char *predefined_name(MPI_Datatype t)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
    } known[] = {{MPI_CHAR, "MPI_CHAR"}, {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"}, {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"},
        {MPI_BYTE, "MPI_BYTE"}, {MPI_SHORT, "MPI_SHORT"}, {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"}, {MPI_INT, "MPI_INT"},
        {MPI_UNSIGNED, "MPI_UNSIGNED"}, {MPI_LONG, "MPI_LONG"}, {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"},
        {MPI_LONG_LONG, "MPI_LONG_LONG"}, {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"}, {MPI_FLOAT, "MPI_FLOAT"},
        {MPI_DOUBLE, "MPI_DOUBLE"}, {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"}, {MPI_WCHAR, "MPI_WCHAR"}, {MPI_FLOAT_INT, "MPI_FLOAT_INT"},
        {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"}, {MPI_LONG_INT, "MPI_LONG_INT"}, {MPI_2INT, "MPI_2INT"}, {MPI_SHORT_INT, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"}, {MPI_PACKED, "MPI_PACKED"}, {MPI_LB, "MPI_LB"}, {MPI_UB, "MPI_UB"},
        {MPI_COMPLEX, "MPI_COMPLEX"}, {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"}, {MPI_LOGICAL, "MPI_LOGICAL"},
        {MPI_INTEGER, "MPI_INTEGER"}, {MPI_REAL, "MPI_REAL"}, {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"},
        {MPI_CHARACTER, "MPI_CHARACTER"}, {MPI_2INTEGER, "MPI_2INTEGER"}, {MPI_2REAL, "MPI_2REAL"},
        {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"}, {MPI_2COMPLEX, "MPI_2COMPLEX"},
        {MPI_2DOUBLE_COMPLEX, "MPI_2DOUBLE_COMPLEX"}, {MPI_REAL4, "MPI_REAL4"}, {MPI_REAL8, "MPI_REAL8"},
        {MPI_COMPLEX8, "MPI_COMPLEX8"}, {MPI_COMPLEX16, "MPI_COMPLEX16"}, {MPI_INTEGER1, "MPI_INTEGER1"},
        {MPI_INTEGER2, "MPI_INTEGER2"}, {MPI_INTEGER4, "MPI_INTEGER4"}, {MPI_INTEGER8, "MPI_INTEGER8"}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (known[i].t == t)
            return known[i].name;
    return NULL;
}

static char *type_name_slot(MPI_Datatype t)
{
    if (predefined_name(t))
        return renamed[(t >> 8) & 0xff];
    int i = t - CB_DERIVED;
    return i >= 0 && i < CB_MAX_TYPES && cb_type_valid(t) ? type_names[i] : NULL;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    char *slot = type_name_slot(datatype);
    if (!slot)
        return cb_fail("MPI_Type_set_name", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    snprintf(slot, MPI_MAX_OBJECT_NAME, "%s", type_name);
    return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const char *name = predefined_name(datatype);
    char *slot = type_name_slot(datatype);
    if (!slot)
        return cb_fail("MPI_Type_get_name", MPI_COMM_WORLD, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", slot[0] || !name ? slot : name);
    return MPI_SUCCESS;
}

/* MPI_Comm_dup: each attribute whose copy function says so is copied; the topology too. */
int cb_comm_copied(MPI_Comm from, MPI_Comm to)
{
    cb_topo_copy(from, to);
    for (int k = FIRST_KEYVAL; k < MAX_KEYVALS; k++) {
        attrs[to][k].set = 0;
        if (!attrs[from][k].set)
            continue;
        void *out = NULL;
        int flag;
        int rc = cb_attr_copy(from, k, attrs[from][k].value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return cb_fail("MPI_Comm_dup", from, rc, "the copy function of keyval %d failed", k);
        if (flag)
            attrs[to][k] = (struct attr){1, out};
    }
    return MPI_SUCCESS;
}

/* MPI_Comm_free: every attribute is deleted (its delete function called), the name forgotten. */
int cb_comm_freeing(MPI_Comm comm)
{
    for (int k = FIRST_KEYVAL; k < MAX_KEYVALS; k++) {
        int rc = delete_attr(comm, k);
        if (rc != MPI_SUCCESS)
            return cb_fail("MPI_Comm_free", comm, rc, "the delete function of keyval %d failed", k);
    }
    cb_topo_drop(comm);
    cb_intercomm_freeing(comm);
    names[comm][0] = '\0';
    return MPI_SUCCESS;
}

/* The predefined copy and delete functions. */
int MPI_NULL_COPY_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_DUP_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_NULL_DELETE_FN(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c, (void)k, (void)value, (void)extra;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Keyval_create = PMPI_Keyval_create
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
#pragma weak MPI_Keyval_free = PMPI_Keyval_free
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
#pragma weak MPI_Attr_put = PMPI_Attr_put
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
#pragma weak MPI_Attr_get = PMPI_Attr_get
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
#pragma weak MPI_Attr_delete = PMPI_Attr_delete
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
#pragma weak MPI_Type_set_name = PMPI_Type_set_name
#pragma weak MPI_Type_get_name = PMPI_Type_get_name
