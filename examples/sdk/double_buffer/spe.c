/* The SPE side: stream BLOCKS blocks of 16 KB of floats in from the PPE's array (its address is
 * argp) and sum the squares of each, the DMA of a block either waited for before its
 * computation (envp 0: single buffering) or issued while the block before it is computed
 * (envp 1: double buffering, two buffers and two tags). With `--compute model` the sums cost
 * the SPU cycles they would take, so double buffering hides the DMAs behind them and the run
 * is shorter in simulated time; with `--compute zero` the sums are free and there is nothing
 * to hide them behind. */
#include <spu_mfcio.h>
#include <stdio.h>

#define BLOCKS 16
#define BLOCK_BYTES 16384
#define VECTORS (BLOCK_BYTES / 16)

static vector float buffer[2][VECTORS] __attribute__((aligned(128)));

/* Four independent accumulators of two multiply-adds a vector each: plain vector arithmetic,
 * priced as the SPU's fma (the SDK's spu_madd is emulated in software, see sdk/cost/README.md). */
static void sum_squares(const vector float *v, vector float acc[4])
{
    for (int i = 0; i < VECTORS; i += 4) {
        acc[0] = v[i] * v[i] + acc[0];
        acc[1] = v[i + 1] * v[i + 1] + acc[1];
        acc[2] = v[i + 2] * v[i + 2] + acc[2];
        acc[3] = v[i + 3] * v[i + 3] + acc[3];
        acc[0] = v[i + 1] * v[i + 2] + acc[0];
        acc[1] = v[i + 2] * v[i + 3] + acc[1];
        acc[2] = v[i + 3] * v[i] + acc[2];
        acc[3] = v[i] * v[i + 1] + acc[3];
    }
}

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    int twice = envp != 0;
    vector float acc[4] = {{0}, {0}, {0}, {0}};
    /* The decrementer counts down at the timebase rate (14.318 MHz on a QS20). */
    unsigned int start = spu_read_decrementer();
    mfc_get(buffer[0], argp, BLOCK_BYTES, 0, 0, 0);
    for (int b = 0; b < BLOCKS; b++) {
        int now = twice ? b & 1 : 0;
        if (twice && b + 1 < BLOCKS) /* the next block into the other buffer, on its own tag */
            mfc_get(buffer[now ^ 1], argp + (unsigned long long)(b + 1) * BLOCK_BYTES,
                    BLOCK_BYTES, now ^ 1, 0, 0);
        mfc_write_tag_mask(1 << now);
        mfc_read_tag_status_all();
        sum_squares(buffer[now], acc);
        if (!twice && b + 1 < BLOCKS)
            mfc_get(buffer[0], argp + (unsigned long long)(b + 1) * BLOCK_BYTES, BLOCK_BYTES, 0,
                    0, 0);
    }
    unsigned int ticks = start - spu_read_decrementer();
    vector float all = acc[0] + acc[1] + acc[2] + acc[3];
    float sum = 0;
    for (int k = 0; k < 4; k++)
        sum += ((float *)&all)[k];
    printf("SPE: %s buffering, %d blocks, sum %.1f\n", twice ? "double" : "single", BLOCKS, sum);
    printf("SPE: %u decrementer ticks\n", ticks);
    return 0;
}
