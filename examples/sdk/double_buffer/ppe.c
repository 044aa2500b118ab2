/* The PPE side of double buffering: 8 blocks of 4096 floats, element i worth i % 7. */
#include <libspe2.h>
#include <stdio.h>

static float data[8 * 4096] __attribute__((aligned(128)));

int main(void)
{
    double expected = 0;
    for (int i = 0; i < 8 * 4096; i++) {
        data[i] = (float)(i % 7);
        expected += data[i];
    }
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = image ? spe_context_create(0, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    if (spe_context_run(spe, &entry, 0, data, NULL, NULL) < 0) {
        perror("spe_context_run");
        return 1;
    }
    printf("PPE: expected %.0f\n", expected);
    spe_context_destroy(spe);
    return 0;
}
