/* The rank's connection to the simulator is close-on-exec (a program it starts cannot keep
 * a dead job alive), and the rank dies with its launcher (PR_SET_PDEATHSIG). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int sig = 0;
    MPI_Init(&argc, &argv);
    int fd = atoi(getenv("CELLBLADE_MPI_FD"));
    CHECK_MSG(fcntl(fd, F_GETFD) & FD_CLOEXEC, "the channel's socket %d is inherited by exec", fd);
    CHECK_MSG(prctl(PR_GET_PDEATHSIG, &sig) == 0 && sig == SIGKILL, "parent-death signal %d", sig);
    return mtest_finalize();
}
