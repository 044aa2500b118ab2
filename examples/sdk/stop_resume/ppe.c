/* The PPE side of stop and signal: each spe_context_run returns at the SPE's stop with
 * SPE_STOP_AND_SIGNAL and its code; the next run, with the entry the last one gave back,
 * continues after the stop, until the SPE exits. The context has events (SPE_EVENTS_ENABLE),
 * so libspe2 keeps every stop for spe_stop_info_read, which reads them in order. */
#include <errno.h>
#include <libspe2.h>
#include <stdio.h>

int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = image ? spe_context_create(SPE_EVENTS_ENABLE, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    for (;;) {
        int r = spe_context_run(spe, &entry, 0, (void *)5, NULL, &stop);
        if (r < 0) {
            perror("spe_context_run");
            return 1;
        }
        if (stop.stop_reason != SPE_STOP_AND_SIGNAL)
            break;
        printf("PPE: stopped and signalled %#x (returned %#x)\n", stop.result.spe_signal_code, r);
    }
    printf("PPE: exited with %d\n", stop.result.spe_exit_code);
    spe_stop_info_t kept;
    while (spe_stop_info_read(spe, &kept) == 0)
        printf("PPE: spe_stop_info_read: reason %u, code %#x\n", kept.stop_reason,
               kept.result.spe_exit_code);
    printf("PPE: then %s\n", errno == EAGAIN ? "EAGAIN" : "?");
    spe_context_destroy(spe);
    return 0;
}
