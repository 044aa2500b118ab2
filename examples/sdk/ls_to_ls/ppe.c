/* The PPE side: run the receiver and the sender (spe.c), each from a thread of its own, and
 * hand the sender the receiver's buffer as an effective address. */
#include <libspe2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static spe_context_ptr_t spe[2];

static void *run(void *which)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    long i = (long)which;
    if (spe_context_run(spe[i], &entry, 0, (void *)i, NULL, NULL) < 0)
        perror("spe_context_run");
    return NULL;
}

static unsigned int mail_from(spe_context_ptr_t s)
{
    unsigned int word;
    while (spe_out_mbox_read(s, &word, 1) == 0)
        ;
    return word;
}

int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    pthread_t thread[2];
    for (long i = 0; i < 2; i++) {
        spe[i] = spe_context_create(0, NULL);
        if (spe[i] == NULL || spe_program_load(spe[i], image) != 0) {
            perror("spe.elf");
            return 1;
        }
        pthread_create(&thread[i], NULL, run, (void *)i);
    }
    char *receiver_ls = spe_ls_area_get(spe[1]);
    unsigned int offset = mail_from(spe[1]);
    uint64_t ea = (uint64_t)(uintptr_t)(receiver_ls + offset);
    unsigned int words[2] = {(unsigned int)(ea >> 32), (unsigned int)ea};
    spe_in_mbox_write(spe[0], words, 2, SPE_MBOX_ALL_BLOCKING);
    mail_from(spe[0]);
    printf("PPE: the receiver's local store holds \"%s\" (%d bytes of local store)\n",
           receiver_ls + offset, spe_ls_size_get(spe[1]));
    unsigned int go = 1;
    spe_in_mbox_write(spe[1], &go, 1, SPE_MBOX_ALL_BLOCKING);
    for (int i = 0; i < 2; i++) {
        pthread_join(thread[i], NULL);
        spe_context_destroy(spe[i]);
    }
    return 0;
}
