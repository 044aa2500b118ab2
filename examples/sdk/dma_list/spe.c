/* The SPE side: gather every fourth 128-byte row of the PPE's 16 x 128-byte table with one DMA
 * list (four elements), add 1 to each byte, and scatter them back with another. */
#include <spu_mfcio.h>
#include <stdio.h>

#define ROWS 4
#define ROW 128

static unsigned char rows[ROWS][ROW] __attribute__((aligned(128)));
static mfc_list_element_t list[ROWS] __attribute__((aligned(8)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    for (int i = 0; i < ROWS; i++) {
        list[i].notify = 0;
        list[i].size = ROW;
        list[i].eal = mfc_ea2l(argp) + 4 * ROW * i;
    }
    mfc_getl(rows, argp, list, sizeof list, 2, 0, 0);
    mfc_write_tag_mask(1 << 2);
    mfc_read_tag_status_all();
    printf("SPE: gathered rows starting %u %u %u %u\n", rows[0][0], rows[1][0], rows[2][0],
           rows[3][0]);
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < ROW; j++)
            rows[i][j]++;
    mfc_putl(rows, argp, list, sizeof list, 2, 0, 0);
    mfc_read_tag_status_all();
    return 0;
}
