/* The environment beyond MPI_Init (MPI-1.3 chapter 7, and the MPI-2 basics programs use with
 * MPI-1): the library's version, threads, memory, profiling control and MPI_Info objects.
 * Each rank is one single-threaded process, so MPI_THREAD_SINGLE is what MPI_Init_thread
 * provides. MPI_Info objects hold keys and values; no call here reads any hint, so every call
 * that takes one accepts MPI_INFO_NULL or any object alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int PMPI_Get_library_version(char *version, int *resultlen)
{
    *resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
        "cellblade MPI %d.%d: seed 004's synchronous-mode MPI on the simulated SPEs of a dual-Cell blade", MPI_VERSION, MPI_SUBVERSION);
    return MPI_SUCCESS;
}

int PMPI_Query_thread(int *provided)
{
    *provided = MPI_THREAD_SINGLE;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    *flag = 1;
    return MPI_SUCCESS;
}

int PMPI_Pcontrol(const int level, ...)
{
    (void)level; /* no profiling levels: the simulator traces with `mpirun --trace` */
    return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    if (size < 0)
        return cb_fail("MPI_Alloc_mem", MPI_COMM_WORLD, MPI_ERR_ARG, "size %ld is negative", (long)size);
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        return cb_fail("MPI_Alloc_mem", MPI_COMM_WORLD, MPI_ERR_NO_MEM, "%ld bytes are not available", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}

/* MPI_Info: a list of (key, value) pairs in the order they were set. */
#define MAX_INFOS 256
static struct info {
    int used, n;
    char (*keys)[MPI_MAX_INFO_KEY + 1];
    char **values;
} infos[MAX_INFOS];

static struct info *info_of(const char *call, MPI_Info info)
{
    if (info >= 1 && info < MAX_INFOS && infos[info].used)
        return &infos[info];
    cb_fail(call, MPI_COMM_WORLD, MPI_ERR_ARG, "info %d is invalid", info);
    return NULL;
}

int PMPI_Info_create(MPI_Info *info)
{
    for (int i = 1; i < MAX_INFOS; i++)
        if (!infos[i].used) {
            infos[i] = (struct info){1, 0, NULL, NULL};
            *info = i;
            return MPI_SUCCESS;
        }
    return cb_fail("MPI_Info_create", MPI_COMM_WORLD, MPI_ERR_INTERN, "more than %d info objects", MAX_INFOS - 1);
}

static int find(const struct info *in, const char *key)
{
    for (int k = 0; k < in->n; k++)
        if (strcmp(in->keys[k], key) == 0)
            return k;
    return -1;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    struct info *in = info_of("MPI_Info_set", info);
    if (!in)
        return MPI_ERR_ARG;
    if (strlen(key) > MPI_MAX_INFO_KEY || strlen(value) > MPI_MAX_INFO_VAL)
        return cb_fail("MPI_Info_set", MPI_COMM_WORLD, MPI_ERR_ARG, "key or value is too long: allowed %d and %d characters",
            MPI_MAX_INFO_KEY, MPI_MAX_INFO_VAL);
    int k = find(in, key);
    if (k < 0) {
        k = in->n++;
        in->keys = realloc(in->keys, sizeof *in->keys * (size_t)in->n);
        in->values = realloc(in->values, sizeof *in->values * (size_t)in->n);
        snprintf(in->keys[k], sizeof in->keys[k], "%s", key);
    } else
        free(in->values[k]);
    in->values[k] = strdup(value);
    return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    struct info *in = info_of("MPI_Info_get", info);
    if (!in)
        return MPI_ERR_ARG;
    int k = find(in, key);
    *flag = k >= 0;
    if (*flag && valuelen >= 0)
        snprintf(value, (size_t)valuelen + 1, "%s", in->values[k]);
    return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    struct info *in = info_of("MPI_Info_get_valuelen", info);
    if (!in)
        return MPI_ERR_ARG;
    int k = find(in, key);
    *flag = k >= 0;
    if (*flag)
        *valuelen = (int)strlen(in->values[k]);
    return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    struct info *in = info_of("MPI_Info_delete", info);
    if (!in)
        return MPI_ERR_ARG;
    int k = find(in, key);
    if (k < 0)
        return cb_fail("MPI_Info_delete", MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, "key %s is not set", key);
    free(in->values[k]);
    for (int j = k + 1; j < in->n; j++) {
        memcpy(in->keys[j - 1], in->keys[j], sizeof in->keys[j]);
        in->values[j - 1] = in->values[j];
    }
    in->n--;
    return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    struct info *in = info_of("MPI_Info_get_nkeys", info);
    if (!in)
        return MPI_ERR_ARG;
    *nkeys = in->n;
    return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    struct info *in = info_of("MPI_Info_get_nthkey", info);
    if (!in)
        return MPI_ERR_ARG;
    if (n < 0 || n >= in->n)
        return cb_fail("MPI_Info_get_nthkey", MPI_COMM_WORLD, MPI_ERR_ARG, "key %d is invalid: allowed 0 to %d", n, in->n - 1);
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", in->keys[n]);
    return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    struct info *in = info_of("MPI_Info_dup", info);
    if (!in)
        return MPI_ERR_ARG;
    CB_CHECK(CB_INNER(PMPI_Info_create(newinfo)));
    for (int k = 0; k < infos[info].n; k++)
        CB_CHECK(CB_INNER(PMPI_Info_set(*newinfo, infos[info].keys[k], infos[info].values[k])));
    return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
    struct info *in = info_of("MPI_Info_free", *info);
    if (!in)
        return MPI_ERR_ARG;
    for (int k = 0; k < in->n; k++)
        free(in->values[k]);
    free(in->keys);
    free(in->values);
    in->used = 0;
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
#pragma weak MPI_Query_thread = PMPI_Query_thread
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
#pragma weak MPI_Free_mem = PMPI_Free_mem
#pragma weak MPI_Info_create = PMPI_Info_create
#pragma weak MPI_Info_set = PMPI_Info_set
#pragma weak MPI_Info_get = PMPI_Info_get
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
#pragma weak MPI_Info_delete = PMPI_Info_delete
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
#pragma weak MPI_Info_dup = PMPI_Info_dup
#pragma weak MPI_Info_free = PMPI_Info_free
