/* Error classes, codes and their strings (MPI-1.3 §7.4, MPI-2.2 §8.5): the predefined classes
 * 0 to MPI_ERR_LASTCODE, each its own code, then the classes and codes a program adds with
 * MPI_Add_error_class and MPI_Add_error_code, numbered on from there in the order added. All
 * local to the process; MPI-2.2 asks every process to add the same ones in the same order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_ADDED 1024 /* MPICH's adderr adds 192 */

static struct added {
    int class_of; /* a class is its own class */
    char *string; /* NULL: none given */
} added[MAX_ADDED];
static int n_added;

static const char *predefined_name(int code)
{
    static const char *names[] = {"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE",
        "MPI_ERR_TAG", "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT",
        "MPI_ERR_GROUP", "MPI_ERR_OP", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG",
        "MPI_ERR_UNKNOWN", "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN",
        "MPI_ERR_IN_STATUS", "MPI_ERR_PENDING", "MPI_ERR_KEYVAL", "MPI_ERR_NO_MEM", "MPI_ERR_INFO_NOKEY"};
    return code >= 0 && code <= MPI_ERR_LASTCODE ? names[code] : NULL;
}

static struct added *added_code(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < n_added ? &added[i] : NULL;
}

int cb_last_used_code(void)
{
    return MPI_ERR_LASTCODE + n_added;
}

const char *cb_error_name(int code)
{
    const char *name = predefined_name(code);
    if (name)
        return name;
    struct added *a = added_code(code);
    return !a ? "an unknown error code" : a->string ? a->string : "an error code the program added";
}

static int add(const char *call, int class_of, int *out)
{
    cb_need_init(call);
    if (n_added == MAX_ADDED)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d error classes and codes added", MAX_ADDED);
    int code = MPI_ERR_LASTCODE + 1 + n_added;
    added[n_added++] = (struct added){class_of < 0 ? code : class_of, NULL};
    *out = code;
    return MPI_SUCCESS;
}

int PMPI_Add_error_class(int *errorclass)
{
    return add("MPI_Add_error_class", -1, errorclass);
}

static int is_class(int code)
{
    struct added *a = added_code(code);
    return predefined_name(code) || (a && a->class_of == code);
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    if (!is_class(errorclass))
        return cb_fail("MPI_Add_error_code", MPI_COMM_WORLD, MPI_ERR_ARG,
            "error class %d is invalid: allowed 0 to %d and those of MPI_Add_error_class", errorclass, cb_last_used_code());
    return add("MPI_Add_error_code", errorclass, errorcode);
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    const char *call = "MPI_Add_error_string";
    struct added *a = added_code(errorcode);
    if (!a)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "error code %d is invalid: allowed the added ones, %d to %d", errorcode,
            MPI_ERR_LASTCODE + 1, cb_last_used_code());
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "the string is %zu characters: allowed up to %d", strlen(string),
            MPI_MAX_ERROR_STRING - 1);
    free(a->string);
    a->string = strdup(string);
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    struct added *a = added_code(errorcode);
    if (!a && !predefined_name(errorcode))
        return MPI_ERR_ARG;
    *errorclass = a ? a->class_of : errorcode;
    return MPI_SUCCESS;
}

/* An added code's string is the program's ("" if it gave none, MPI-2.2 §8.5). */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    struct added *a = added_code(errorcode);
    const char *name = a ? (a->string ? a->string : "") : predefined_name(errorcode);
    if (!name)
        return MPI_ERR_ARG;
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
#pragma weak MPI_Add_error_code = PMPI_Add_error_code
#pragma weak MPI_Add_error_string = PMPI_Add_error_string
#pragma weak MPI_Error_string = PMPI_Error_string
#pragma weak MPI_Error_class = PMPI_Error_class
