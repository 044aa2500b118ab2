/* The PPE's mailbox calls in each of libspe2's behaviours: spe_in_mbox_write and
 * spe_out_intr_mbox_read with SPE_MBOX_ALL_BLOCKING, SPE_MBOX_ANY_BLOCKING and
 * SPE_MBOX_ANY_NONBLOCKING, the status calls, and the non-blocking spe_out_mbox_read. The main
 * thread prints only after the SPE has ended, so that the output's order does not depend on
 * the host's scheduling of the two PPE threads. */
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>

static void *run(void *spe)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    if (spe_context_run(spe, &entry, 0, NULL, NULL, NULL) < 0)
        perror("spe_context_run");
    return NULL;
}

int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = image ? spe_context_create(0, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, run, spe);
    unsigned int six[6] = {1, 2, 3, 4, 5, 6}, got[3] = {0, 0, 0}, none = 0, out = 0;
    int all = spe_in_mbox_write(spe, six, 6, SPE_MBOX_ALL_BLOCKING);
    int intr = spe_out_intr_mbox_read(spe, got, 3, SPE_MBOX_ALL_BLOCKING);
    int empty = spe_out_intr_mbox_read(spe, &none, 1, SPE_MBOX_ANY_NONBLOCKING);
    unsigned int five[5] = {10, 20, 30, 40, 50};
    int fitted = spe_in_mbox_write(spe, five, 5, SPE_MBOX_ANY_NONBLOCKING);
    int room = spe_in_mbox_status(spe);
    spe_signal_write(spe, SPE_SIG_NOTIFY_REG_1, 1);
    int last = spe_in_mbox_write(spe, five + 4, 1, SPE_MBOX_ANY_BLOCKING);
    unsigned int pair[2] = {0, 0};
    int any = spe_out_intr_mbox_read(spe, pair, 2, SPE_MBOX_ANY_BLOCKING);
    int polls = 0;
    while (spe_out_mbox_read(spe, &out, 1) == 0)
        polls++;
    pthread_join(thread, NULL);
    printf("PPE: ALL_BLOCKING wrote %d of 6 words\n", all);
    printf("PPE: ALL_BLOCKING read %d interrupt words: %u %u %u\n", intr, got[0], got[1], got[2]);
    printf("PPE: ANY_NONBLOCKING read %d from an empty interrupt mailbox\n", empty);
    printf("PPE: ANY_NONBLOCKING wrote %d of 5 words, leaving %d free\n", fitted, room);
    printf("PPE: ANY_BLOCKING wrote %d word\n", last);
    printf("PPE: ANY_BLOCKING read %d of 2 interrupt words: %u\n", any, pair[0]);
    printf("PPE: the outbound mailbox gave %u\n", out);
    spe_context_destroy(spe);
    return 0;
}
