/* Stop and signal: the SPE stops twice with its own codes; each time the PPE's
 * spe_context_run returns the code, and running the context again continues after the stop. */
#include <spu_mfcio.h>
#include <stdio.h>

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    unsigned int count = (unsigned int)argp;
    spu_stop(0x1234);
    count++;
    spu_stop(0x0042);
    count++;
    printf("SPE: went on after both stops, count %u\n", count);
    return (int)count;
}
