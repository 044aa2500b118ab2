/* The SPE side: add 1 to a counter in main memory 1000 times, each time with the lock-line
 * reservation (getllar, then putllc until it succeeds), so no other SPE's update is lost. */
#include <spu_mfcio.h>

#define TIMES 1000

static volatile unsigned int line[32] __attribute__((aligned(128)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    for (int i = 0; i < TIMES; i++) {
        do {
            mfc_getllar(line, argp, 0, 0);
            mfc_read_atomic_status();
            line[0]++;
            mfc_putllc(line, argp, 0, 0);
        } while (mfc_read_atomic_status() & MFC_PUTLLC_STATUS);
    }
    return 0;
}
