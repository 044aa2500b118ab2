/* A window of nonblocking calls on one buffer, as osu_bw and osu_bibw post them: rank 0 sends
 * `window` messages of `bytes` from one buffer with MPI_Isend, rank 1 receives them into one
 * buffer with MPI_Irecv, both then MPI_Waitall. Requests on one buffer share its simulated copy,
 * so the window needs no more simulated memory than one message (run in ls mode, where 32 x 16 KB
 * would not fit the local store's heap). A second window alternates two send buffers of
 * different bytes into separate receive buffers, which must not be mixed up. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define MAX_WINDOW 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int bytes = argc > 1 ? atoi(argv[1]) : 16384, window = argc > 2 ? atoi(argv[2]) : 32, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request req[MAX_WINDOW];
    char *one = malloc((size_t)bytes), *two = malloc((size_t)bytes);
    if (rank == 0) {
        memset(one, 'a', (size_t)bytes);
        memset(two, 'b', (size_t)bytes);
        for (int w = 0; w < window; w++)
            MPI_Isend(one, bytes, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        for (int w = 0; w < 4; w++)
            MPI_Isend(w % 2 ? two : one, bytes, MPI_CHAR, 1, 200 + w, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        for (int w = 0; w < window; w++)
            MPI_Irecv(one, bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < bytes; i++)
            if (one[i] != 'a') {
                CHECK_MSG(one[i] == 'a', "window byte %d is %d", i, one[i]);
                break;
            }
        char *got[4];
        for (int w = 0; w < 4; w++) {
            got[w] = calloc((size_t)bytes, 1);
            MPI_Irecv(got[w], bytes, MPI_CHAR, 0, 200 + w, MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        for (int w = 0; w < 4; w++) {
            CHECK_MSG(got[w][0] == (w % 2 ? 'b' : 'a') && got[w][bytes - 1] == got[w][0], "message %d: %c...%c", w, got[w][0],
                got[w][bytes - 1]);
            free(got[w]);
        }
    }
    free(one);
    free(two);
    return mtest_finalize();
}
