/* The SPE side: its signal register 1 ORs what is written to it (SPE_CFG_SIGNOTIFY1_OR), so
 * the PPE's three writes arrive as one word; register 2 overwrites, so only the last stays. */
#include <spu_mfcio.h>
#include <stdio.h>

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)argp;
    (void)envp;
    spu_write_out_mbox(1); /* ready: the PPE writes the signals now */
    spu_read_in_mbox();    /* they are written */
    unsigned int one = spu_read_signal1(), two = spu_read_signal2();
    printf("SPE: signal 1 reads %#x, signal 2 reads %#x\n", one, two);
    return 0;
}
