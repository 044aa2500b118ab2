/* The PPE side of hello: one context, run in the main thread until the SPE program exits. */
#include <libspe2.h>
#include <stdio.h>

int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = image ? spe_context_create(0, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    if (spe_context_run(spe, &entry, 0, (void *)42, NULL, &stop) < 0) {
        perror("spe_context_run");
        return 1;
    }
    printf("PPE: the SPE exited with %d\n", stop.result.spe_exit_code);
    spe_context_destroy(spe);
    spe_image_close(image);
    return 0;
}
