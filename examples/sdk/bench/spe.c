/* The SDK bench's SPE side (python/cellblade/sdk/bench.py): `envp` rounds of the workload
 * the PPE names in argp's low word: 0, a 128-byte GET and a wait for its tag; 1, a mailbox
 * ping-pong with the PPE (read the inbound word, write it back outbound). */
#include <spu_mfcio.h>

static char line[128] __attribute__((aligned(128)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    unsigned int rounds = (unsigned int)envp;
    if ((argp & 1) == 0) {
        mfc_write_tag_mask(1);
        for (unsigned int i = 0; i < rounds; i++) {
            mfc_get(line, argp, sizeof line, 0, 0, 0);
            mfc_read_tag_status_all();
        }
    } else {
        for (unsigned int i = 0; i < rounds; i++)
            spu_write_out_mbox(spu_read_in_mbox());
    }
    return 0;
}
