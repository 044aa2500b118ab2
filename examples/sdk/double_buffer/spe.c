/* Double buffering: while the SPE sums one 16 KB block, the MFC brings the next into the other
 * buffer (tag 0 and tag 1 in turn), so the DMA of block i + 1 overlaps the work on block i. */
#include <spu_mfcio.h>
#include <stdio.h>

#define BLOCK 4096 /* floats: 16 KB, the largest single DMA */
#define BLOCKS 8

static float buffer[2][BLOCK] __attribute__((aligned(128)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    double sum = 0;
    int cur = 0;
    mfc_get(buffer[0], argp, sizeof buffer[0], 0, 0, 0);
    for (int i = 0; i < BLOCKS; i++) {
        int next = cur ^ 1;
        if (i + 1 < BLOCKS)
            mfc_get(buffer[next], argp + (i + 1) * sizeof buffer[0], sizeof buffer[0], next, 0,
                    0);
        mfc_write_tag_mask(1 << cur);
        mfc_read_tag_status_all();
        for (int k = 0; k < BLOCK; k++)
            sum += buffer[cur][k];
        cur = next;
    }
    printf("SPE: %d blocks of %d floats summed to %.0f\n", BLOCKS, BLOCK, sum);
    return 0;
}
