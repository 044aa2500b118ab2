/* The SPE side of the mailbox modes: it reads what the PPE writes into its inbound mailbox and
 * writes words to its outbound interrupt mailbox and outbound mailbox, in the order the PPE
 * side (ppe.c) expects, then reports what it read. */
#include <spu_mfcio.h>
#include <stdio.h>

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)argp;
    (void)envp;
    unsigned int first = 0, second = 0;
    /* 1: six words, more than the mailbox's four entries: the PPE's ALL_BLOCKING write waits
     * for these reads. */
    for (int i = 0; i < 6; i++)
        first += spu_read_in_mbox();
    /* 2: three words to the one-entry interrupt mailbox: each write after the first waits for
     * the PPE to read the one before. */
    for (unsigned int w = 100; w < 103; w++)
        spu_write_out_intr_mbox(w);
    /* 3: the PPE fills the mailbox without blocking while this SPE waits for a signal. */
    spu_read_signal1();
    int waiting = spu_stat_in_mbox();
    for (int i = 0; i < 5; i++)
        second += spu_read_in_mbox();
    /* 4: one interrupt-mailbox word and one outbound-mailbox word. */
    spu_write_out_intr_mbox(7);
    spu_write_out_mbox(8);
    printf("SPE: read 6 words summing to %u; %d were waiting after the signal; then 5 summing to %u\n",
           first, waiting, second);
    return 0;
}
