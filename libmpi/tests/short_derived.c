/* A short message into a derived type (issue 22): 3 doubles received into one
 * MPI_Type_vector of 6 (and into a Type_contiguous(4)) land in the buffer, the last partial
 * element by basic element; MPI_Get_count says 3 doubles (undefined for the derived type) and
 * MPI_Get_elements 3. A send from a NULL buffer with a non-zero count is MPI_ERR_BUFFER. */
#include <string.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, count;
    double three[3] = {1.5, 2.5, 3.5}, into[12];
    MPI_Datatype vec, con;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(6, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_contiguous(4, MPI_DOUBLE, &con);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&con);
    if (rank == 0) {
        MPI_Send(three, 3, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        MPI_Send(three, 3, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Send(NULL, 1000, MPI_INT, 1, 3, MPI_COMM_WORLD);
        CHECK_MSG(rc == MPI_ERR_BUFFER, "MPI_Send(NULL, 1000) returned %d", rc);
        MPI_Send(three, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        for (int i = 0; i < 12; i++)
            into[i] = -1;
        MPI_Recv(into, 1, vec, 0, 1, MPI_COMM_WORLD, &st);
        CHECK_MSG(into[0] == 1.5 && into[2] == 2.5 && into[4] == 3.5 && into[1] == -1 && into[6] == -1, "vector: %g %g %g %g", into[0],
            into[2], into[4], into[6]);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK_MSG(count == 3, "Get_count of doubles %d", count);
        MPI_Get_count(&st, vec, &count);
        CHECK_MSG(count == MPI_UNDEFINED, "Get_count of the vector %d", count);
        MPI_Get_elements(&st, vec, &count);
        CHECK_MSG(count == 3, "Get_elements %d", count);
        for (int i = 0; i < 12; i++)
            into[i] = -1;
        MPI_Recv(into, 1, con, 0, 2, MPI_COMM_WORLD, &st);
        CHECK_MSG(into[0] == 1.5 && into[1] == 2.5 && into[2] == 3.5 && into[3] == -1, "contiguous: %g %g %g %g", into[0], into[1],
            into[2], into[3]);
        MPI_Get_elements(&st, con, &count);
        CHECK_MSG(count == 3, "Get_elements %d", count);
        MPI_Recv(into, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &st);
        CHECK_MSG(into[0] == 1.5, "the message after the refused one: %g", into[0]);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&con);
    return mtest_finalize();
}
