/* The PPE side: open the SPE executable, create a context, run it on an array of 64 floats,
 * print the result. */
#include <libspe2.h>
#include <stdio.h>

#define COUNT 64

static float values[COUNT] __attribute__((aligned(128)));

int main(void)
{
    for (int i = 0; i < COUNT; i++)
        values[i] = (float)(i % 3 == 0 ? -i : i) / 4;
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = image ? spe_context_create(0, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    if (spe_context_run(spe, &entry, 0, values, NULL, NULL) < 0) {
        perror("spe_context_run");
        return 1;
    }
    for (int i = 0; i < COUNT; i++)
        printf("%g%s", values[i], i % 16 == 15 ? "\n" : " ");
    spe_context_destroy(spe);
    spe_image_close(image);
    return 0;
}
