/* The SPE side: DMA 64 floats in from the PPE's array (its address is argp), take their
 * absolute values, DMA them back, and tell the PPE through the outbound mailbox. */
#include <spu_mfcio.h>
#include <stdio.h>

#define COUNT 64
#define TAG 3

static float values[COUNT] __attribute__((aligned(128)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    printf("SPE: fetching %d floats from %#llx\n", COUNT, argp);
    mfc_get(values, argp, sizeof values, TAG, 0, 0);
    mfc_write_tag_mask(1 << TAG);
    mfc_read_tag_status_all();
    for (int i = 0; i < COUNT; i++)
        values[i] = values[i] < 0 ? -values[i] : values[i];
    mfc_put(values, argp, sizeof values, TAG, 0, 0);
    mfc_read_tag_status_all();
    spu_write_out_mbox(COUNT);
    return 0;
}
