/* Two SPEs running this program (argp 0: the sender, 1: the receiver): the receiver mails the
 * local-store address of its buffer to the PPE, which adds it to the receiver's local store as
 * mapped in the PPE (spe_ls_area_get) and mails the sum to the sender; the sender PUTs its
 * message there, SPE to SPE, and says so; the PPE tells the receiver, which prints it. */
#include <spu_mfcio.h>
#include <stdio.h>

static char message[64] __attribute__((aligned(128)));

int main(unsigned long long speid, unsigned long long argp, unsigned long long envp)
{
    (void)speid;
    (void)envp;
    if (argp == 1) {
        spu_write_out_mbox((unsigned int)message); /* a local-store address, 0 to 256 KB */
        spu_read_in_mbox();                        /* the message is there */
        printf("receiver: \"%s\"\n", message);
        return 0;
    }
    unsigned int high = spu_read_in_mbox(), low = spu_read_in_mbox();
    snprintf(message, sizeof message, "hello from the sender's local store");
    mfc_put(message, mfc_hl2ea(high, low), sizeof message, 5, 0, 0);
    mfc_write_tag_mask(1 << 5);
    mfc_read_tag_status_all();
    spu_write_out_mbox(1);
    return 0;
}
