/* The PPE side: write signal register 1 (OR mode) three times and register 2 (overwrite) twice,
 * while the SPE waits, then tell it through its mailbox. */
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
    spe_context_ptr_t spe = image ? spe_context_create(SPE_CFG_SIGNOTIFY1_OR, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, run, spe);
    unsigned int ready = 0, go = 1;
    while (spe_out_mbox_read(spe, &ready, 1) == 0)
        ;
    spe_signal_write(spe, SPE_SIG_NOTIFY_REG_1, 0x1);
    spe_signal_write(spe, SPE_SIG_NOTIFY_REG_1, 0x10);
    spe_signal_write(spe, SPE_SIG_NOTIFY_REG_1, 0x100);
    spe_signal_write(spe, SPE_SIG_NOTIFY_REG_2, 0xaa);
    spe_signal_write(spe, SPE_SIG_NOTIFY_REG_2, 0xbb);
    spe_in_mbox_write(spe, &go, 1, SPE_MBOX_ALL_BLOCKING);
    pthread_join(thread, NULL);
    printf("PPE: a write to register 3 is refused: %d\n", spe_signal_write(spe, 3, 1));
    spe_context_destroy(spe);
    return 0;
}
