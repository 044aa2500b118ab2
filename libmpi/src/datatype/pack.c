/* MPI_Pack, MPI_Unpack and MPI_Pack_size (MPI-1.3 §3.13): the packed form is the same one
 * messages of derived types travel in (datatype/derived.c's walk), so a buffer packed here and
 * sent as MPI_PACKED is received by a matching datatype, and the other way round. Local calls:
 * no simulated time. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int check_room(const char *call, MPI_Comm comm, int position, size_t bytes, int size)
{
    if (position < 0)
        return cb_fail(call, comm, MPI_ERR_ARG, "position %d is negative", position);
    if ((size_t)position + bytes > (size_t)(size < 0 ? 0 : size))
        return cb_fail(call, comm, MPI_ERR_TRUNCATE, "%zu bytes at position %d do not fit the %d-byte buffer", bytes, position, size);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    const char *call = "MPI_Pack";
    size_t bytes;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, NULL));
    CB_CHECK(cb_check_buffer(call, comm, incount, datatype, &bytes));
    CB_CHECK(check_room(call, comm, *position, bytes, outsize));
    cb_pack(inbuf, incount, datatype, (char *)outbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    const char *call = "MPI_Unpack";
    size_t bytes;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, NULL));
    CB_CHECK(cb_check_buffer(call, comm, outcount, datatype, &bytes));
    CB_CHECK(check_room(call, comm, *position, bytes, insize));
    cb_unpack((const char *)inbuf + *position, bytes, datatype, outbuf);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    const char *call = "MPI_Pack_size";
    size_t bytes;
    cb_need_init(call);
    CB_CHECK(cb_check_comm(call, comm, NULL));
    if (!cb_type_valid(datatype))
        return cb_fail(call, comm, MPI_ERR_TYPE, "datatype %#x is invalid", (unsigned)datatype);
    if (incount < 0)
        return cb_fail(call, comm, MPI_ERR_COUNT, "count %d is negative", incount);
    bytes = (size_t)incount * cb_type_size(datatype);
    *size = (int)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
#pragma weak MPI_Unpack = PMPI_Unpack
#pragma weak MPI_Pack_size = PMPI_Pack_size
