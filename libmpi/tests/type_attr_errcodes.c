/* MPI-2 calls MPICH's MPI-1 directories use: datatype attributes (MPI-2.2 §6.7.4) and the
 * program's own error classes, codes and strings (§8.5). Local: every rank checks alone. */
#include <stdint.h>
#include <string.h>
#include "mtest.h"

static int copies, deletes, fail_copy, fail_delete;

static int copy_fn(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    copies++;
    *(intptr_t *)out = (intptr_t)in + 1; /* the copy is one more, so it can be told apart */
    *flag = 1;
    return fail_copy ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype t, int k, void *value, void *extra)
{
    (void)t, (void)k, (void)value, (void)extra;
    deletes++;
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void type_attrs(void)
{
    int key, flag = 0, rc;
    void *v = NULL;
    MPI_Datatype t, dup, dup2 = MPI_INT;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Type_get_attr(t, key, &v, &flag);
    CHECK_MSG(!flag, "a new type has an attribute");
    MPI_Type_set_attr(t, key, (void *)(intptr_t)7);
    MPI_Type_set_attr(t, key, (void *)(intptr_t)8); /* replaces 7: its delete function runs */
    CHECK_MSG(deletes == 1, "replacing the attribute ran %d deletes", deletes);
    MPI_Type_dup(t, &dup);
    MPI_Type_get_attr(dup, key, &v, &flag);
    CHECK_MSG(flag && (intptr_t)v == 9 && copies == 1, "dup's attribute: flag %d value %ld after %d copies", flag, (long)(intptr_t)v, copies);
    MPI_Type_get_attr(t, key, &v, &flag);
    CHECK_MSG(flag && (intptr_t)v == 8, "the original's attribute: flag %d value %ld", flag, (long)(intptr_t)v);
    /* Predefined types carry attributes too. */
    MPI_Type_set_attr(MPI_DOUBLE, key, (void *)(intptr_t)3);
    MPI_Type_get_attr(MPI_DOUBLE, key, &v, &flag);
    CHECK_MSG(flag && (intptr_t)v == 3, "MPI_DOUBLE's attribute: flag %d value %ld", flag, (long)(intptr_t)v);
    MPI_Type_delete_attr(MPI_DOUBLE, key);
    MPI_Type_get_attr(MPI_DOUBLE, key, &v, &flag);
    CHECK_MSG(!flag, "MPI_DOUBLE's attribute survived its delete");
    /* Failures of the program's functions are the calls' errors, and leave things as they were. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    fail_copy = 1;
    rc = MPI_Type_dup(t, &dup2);
    CHECK_MSG(rc == MPI_ERR_OTHER && dup2 == MPI_DATATYPE_NULL, "a failing copy: MPI_Type_dup returned %d, type %#x", rc, (unsigned)dup2);
    fail_copy = 0;
    fail_delete = 1;
    rc = MPI_Type_delete_attr(t, key);
    CHECK_MSG(rc == MPI_ERR_OTHER, "a failing delete: MPI_Type_delete_attr returned %d", rc);
    MPI_Type_get_attr(t, key, &v, &flag);
    CHECK_MSG(flag, "an attribute whose delete failed is gone");
    fail_delete = 0;
    int ckey;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL);
    rc = MPI_Type_set_attr(t, ckey, NULL);
    CHECK_MSG(rc == MPI_ERR_KEYVAL, "a communicator keyval on a datatype: %d", rc);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL);
    CHECK_MSG(rc == MPI_ERR_KEYVAL, "a datatype keyval on a communicator: %d", rc);
    MPI_Comm_free_keyval(&ckey);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int before = deletes;
    MPI_Type_free_keyval(&key);
    MPI_Type_free(&dup); /* the freed keyval still deletes the attributes left */
    MPI_Type_free(&t);
    CHECK_MSG(deletes == before + 2 && key == MPI_KEYVAL_INVALID, "freeing both types ran %d deletes", deletes - before);
}

static void error_codes(void)
{
    int cls, code, code2, out, len, last, flag;
    int *lastp;
    char s[MPI_MAX_ERROR_STRING];
    MPI_Add_error_class(&cls);
    CHECK_MSG(cls > MPI_ERR_LASTCODE, "a new class %d is predefined", cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_code(MPI_ERR_OTHER, &code2); /* predefined classes take codes too */
    MPI_Add_error_string(code, "the widget broke");
    MPI_Error_class(code, &out);
    CHECK_MSG(out == cls, "class of code %d is %d, added to %d", code, out, cls);
    MPI_Error_class(code2, &out);
    CHECK_MSG(out == MPI_ERR_OTHER, "class of code %d is %d", code2, out);
    MPI_Error_class(cls, &out);
    CHECK_MSG(out == cls, "a class's class is %d", out);
    MPI_Error_string(code, s, &len);
    CHECK_MSG(strcmp(s, "the widget broke") == 0 && len == 16, "string '%s' (%d)", s, len);
    MPI_Error_string(code2, s, &len);
    CHECK_MSG(len == 0 && s[0] == '\0', "a code without a string gave '%s'", s);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag);
    last = *lastp;
    CHECK_MSG(flag && last == code2, "MPI_LASTUSEDCODE is %d, the last code added %d", last, code2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Add_error_code(last + 5, &out);
    CHECK_MSG(rc == MPI_ERR_ARG, "a code for class %d: %d", last + 5, rc);
    rc = MPI_Add_error_string(MPI_ERR_TAG, "mine");
    CHECK_MSG(rc == MPI_ERR_ARG, "a string for a predefined code: %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    type_attrs();
    error_codes();
    return mtest_finalize();
}
