/* The PPE side: fill 16 blocks of 16 KB with floats and run the SPE program over them, single
 * buffered (`./ppe.elf single`) or double buffered (`./ppe.elf double`, the default); compare
 * the two runs' simulated time (`cellblade run --out DIR`, result.json). */
#include <libspe2.h>
#include <stdio.h>
#include <string.h>

#define FLOATS (16 * 16384 / 4)

static float values[FLOATS] __attribute__((aligned(128)));

int main(int argc, char **argv)
{
    int twice = !(argc > 1 && strcmp(argv[1], "single") == 0);
    for (int i = 0; i < FLOATS; i++)
        values[i] = (float)(i % 8) * 0.125f;
    spe_program_handle_t *image = spe_image_open("spe.elf");
    if (image == NULL) {
        perror("spe.elf");
        return 1;
    }
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe_context_create / spe_program_load");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    if (spe_context_run(spe, &entry, 0, values, (void *)(long)twice, &stop) < 0) {
        perror("spe_context_run");
        return 1;
    }
    printf("PPE: the SPE exited with %d\n", stop.result.spe_exit_code);
    spe_context_destroy(spe);
    spe_image_close(image);
    return 0;
}
