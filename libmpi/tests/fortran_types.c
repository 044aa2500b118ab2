/* Fortran's named datatypes from C (MPI-1.3 §3.2.2, §4.9.3) and MPI_Type_match_size
 * (MPI-2.2 §16.2.5): each type's name and size, a reduction on each kind of them (INTEGER
 * sum, REAL max, DOUBLE PRECISION product, LOGICAL and, the 2REAL and 2INTEGER pairs' MINLOC
 * and MAXLOC), a message of REAL8, and the sized type match_size gives; a class or size no
 * type has is an error naming it. A predefined type takes the name the program gives it. */
#include <string.h>
#include "mtest.h"

static void check_name(MPI_Datatype t, const char *want, int size)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, got;
    MPI_Type_get_name(t, name, &len);
    CHECK_MSG(strcmp(name, want) == 0 && len == (int)strlen(want), "named %s, expected %s", name, want);
    MPI_Type_size(t, &got);
    CHECK_MSG(got == size, "%s has %d bytes, expected %d", want, got, size);
}

static void match(int typeclass, int size, MPI_Datatype want)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_match_size(typeclass, size, &t);
    CHECK_MSG(rc == MPI_SUCCESS && t == want, "class %d, %d bytes: rc %d, type %#x, expected %#x", typeclass, size, rc, t, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_name(MPI_INTEGER, "MPI_INTEGER", 4);
    check_name(MPI_REAL, "MPI_REAL", 4);
    check_name(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8);
    check_name(MPI_LOGICAL, "MPI_LOGICAL", 4);
    check_name(MPI_CHARACTER, "MPI_CHARACTER", 1);
    check_name(MPI_2REAL, "MPI_2REAL", 8);
    check_name(MPI_2DOUBLE_COMPLEX, "MPI_2DOUBLE_COMPLEX", 32);
    check_name(MPI_REAL8, "MPI_REAL8", 8);
    check_name(MPI_INTEGER1, "MPI_INTEGER1", 1);
    check_name(MPI_COMPLEX16, "MPI_COMPLEX16", 16);
    CHECK_MSG(MPI_REAL16 == MPI_DATATYPE_NULL, "REAL16 has no C twin here: MPI_DATATYPE_NULL");
    check_name(MPI_LONG_LONG_INT, "MPI_LONG_LONG", 8); /* one handle: the MPI-2 name */
    MPI_Type_set_name(MPI_INT, "int"); /* a predefined type may be renamed too (MPI-2.2 §6.8) */
    check_name(MPI_INT, "int", 4);
    check_name(MPI_INTEGER, "MPI_INTEGER", 4);

    int n = rank + 1, isum = 0, land = 1, all = 0;
    float rmax = 0;
    double prod = 0;
    MPI_Allreduce(&n, &isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
    CHECK_MSG(isum == size * (size + 1) / 2, "INTEGER sum %d", isum);
    float r = (float)(rank * 1.5);
    MPI_Allreduce(&r, &rmax, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(rmax == (float)((size - 1) * 1.5), "REAL max %g", rmax);
    double d = 2.0;
    MPI_Allreduce(&d, &prod, 1, MPI_DOUBLE_PRECISION, MPI_PROD, MPI_COMM_WORLD);
    CHECK_MSG(prod == (double)(1 << size), "DOUBLE PRECISION product %g", prod);
    MPI_Allreduce(&land, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
    CHECK_MSG(all == 1, "LOGICAL and %d", all);
    /* Value and index of one type: the smallest value is the last rank's, ties by index. */
    float pair[2] = {(float)(size - rank), (float)rank}, low[2];
    MPI_Allreduce(pair, low, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK_MSG(low[0] == 1.0f && low[1] == (float)(size - 1), "2REAL MINLOC (%g, %g)", low[0], low[1]);
    int ipair[2] = {7, rank}, high[2];
    MPI_Allreduce(ipair, high, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK_MSG(high[0] == 7 && high[1] == 0, "2INTEGER MAXLOC tie goes to the lowest index: (%d, %d)", high[0], high[1]);
    if (size > 1 && rank < 2) {
        double v[3] = {1.25, -2.5, 3.75}, w[3] = {0, 0, 0};
        if (rank == 0)
            MPI_Send(v, 3, MPI_REAL8, 1, 4, MPI_COMM_WORLD);
        else {
            MPI_Status st;
            int count;
            MPI_Recv(w, 3, MPI_REAL8, 0, 4, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_REAL8, &count);
            CHECK_MSG(count == 3 && memcmp(v, w, sizeof v) == 0, "REAL8 message: %d of (%g, %g, %g)", count, w[0], w[1], w[2]);
        }
    }

    match(MPI_TYPECLASS_REAL, 4, MPI_REAL4);
    match(MPI_TYPECLASS_REAL, 8, MPI_REAL8);
    match(MPI_TYPECLASS_REAL, (int)sizeof(long double), MPI_LONG_DOUBLE);
    match(MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2);
    match(MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8);
    match(MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    int rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t), cls;
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_ARG, "a 3-byte integer: class %d", cls);
    rc = MPI_Type_match_size(9, 4, &t);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_ARG, "type class 9: class %d", cls);
    int b = 1;
    rc = MPI_Allreduce(&b, &all, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK_MSG(cls == MPI_ERR_OP, "MPI_SUM on LOGICAL: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mtest_finalize();
}
