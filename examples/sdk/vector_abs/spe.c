/* The SPE side of the SDK's smallest pair: DMA 64 floats in, take their absolute values four
 * at a time with spu_cmpgt and spu_sel, DMA them back. */
#include <spu_intrinsics.h>
#include <spu_mfcio.h>

#define COUNT 64
#define TAG 1

static vector float values[COUNT / 4] __attribute__((aligned(128)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    mfc_get(values, argp, sizeof values, TAG, 0, 0);
    mfc_write_tag_mask(1 << TAG);
    mfc_read_tag_status_all();
    vector float zero = spu_splats(0.0f);
    for (int i = 0; i < COUNT / 4; i++) {
        vector unsigned int negative = spu_cmpgt(zero, values[i]);
        values[i] = spu_sel(values[i], spu_sub(zero, values[i]), negative);
    }
    mfc_put(values, argp, sizeof values, TAG, 0, 0);
    mfc_read_tag_status_all();
    return 0;
}
