/* The PPE side: hand an array of 64 floats to an SPE, which replaces them by their absolute
 * values, and read its mailbox word when it has stopped. */
#include <libspe2.h>
#include <stdio.h>

#define COUNT 64

static float values[COUNT] __attribute__((aligned(128)));

int main(int argc, char **argv)
{
    const char *image_path = argc > 1 ? argv[1] : "spe.elf";
    for (int i = 0; i < COUNT; i++)
        values[i] = (i % 2 ? -0.5f : 0.5f) * i;
    spe_program_handle_t *image = spe_image_open(image_path);
    if (image == NULL) {
        perror(image_path);
        return 1;
    }
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe_context_create / spe_program_load");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    printf("PPE: starting the SPE\n");
    if (spe_context_run(spe, &entry, 0, values, NULL, &stop) < 0) {
        perror("spe_context_run");
        return 1;
    }
    unsigned int done = 0;
    int words = spe_out_mbox_read(spe, &done, 1);
    printf("PPE: the SPE exited with %d and mailed %d word(s): %u\n", stop.result.spe_exit_code,
           words, done);
    for (int i = 0; i < 8; i++)
        printf("%g%s", values[i], i < 7 ? " " : "\n");
    spe_context_destroy(spe);
    spe_image_close(image);
    return 0;
}
