/* The PPE side: a table of 16 rows of 128 bytes, row r filled with r; an SPE adds 1 to rows
 * 0, 4, 8 and 12 through DMA lists. */
#include <libspe2.h>
#include <stdio.h>

static unsigned char table[16][128] __attribute__((aligned(128)));

int main(void)
{
    for (int r = 0; r < 16; r++)
        for (int j = 0; j < 128; j++)
            table[r][j] = (unsigned char)r;
    spe_program_handle_t *image = spe_image_open("spe.elf");
    spe_context_ptr_t spe = image ? spe_context_create(0, NULL) : NULL;
    if (spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe.elf");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    if (spe_context_run(spe, &entry, 0, table, NULL, NULL) < 0) {
        perror("spe_context_run");
        return 1;
    }
    printf("PPE: the rows start");
    for (int r = 0; r < 16; r++)
        printf(" %u", table[r][0]);
    printf(", and row 4 ends %u\n", table[4][127]);
    spe_context_destroy(spe);
    return 0;
}
