/* N reads of the decrementer, each a channel request to the simulator: the SPE library's own
 * PowerPC code for a request (the message, the socket's system calls) is marked uncharged, so
 * under `--compute model` a read costs what the simulator charges for the channel plus the
 * library call around it, not the thousands of cycles of its PowerPC implementation. */
#include <spu_mfcio.h>

#ifndef N
#define N 1000
#endif

int main(void)
{
    unsigned int sum = 0;
    for (int i = 0; i < N; i++)
        sum += spu_read_decrementer();
    return (int)(sum & 1);
}
