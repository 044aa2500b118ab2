/* The SDK bench's PPE side: `ppe.elf WORKLOAD SPES ROUNDS` runs SPES contexts, each from a
 * thread of its own, ROUNDS rounds of WORKLOAD (dma or mailbox: see spe.c). */
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPES 16

static char lines[MAX_SPES][128] __attribute__((aligned(128)));
static spe_context_ptr_t spe[MAX_SPES];
static unsigned long rounds;
static int mailbox;

static void *run(void *arg)
{
    long i = (long)arg;
    unsigned int entry = SPE_DEFAULT_ENTRY;
    /* An odd argp asks for the mailbox ping-pong (the lines are 128-byte aligned). */
    void *argp = (char *)lines[i] + mailbox;
    if (spe_context_run(spe[i], &entry, 0, argp, (void *)rounds, NULL) < 0)
        perror("spe_context_run");
    return NULL;
}

static void *ping(void *arg)
{
    spe_context_ptr_t s = arg;
    for (unsigned long r = 0; r < rounds; r++) {
        unsigned int word = (unsigned int)r, back = 0;
        spe_in_mbox_write(s, &word, 1, SPE_MBOX_ALL_BLOCKING);
        while (spe_out_mbox_read(s, &back, 1) == 0)
            ;
        if (back != word)
            fprintf(stderr, "mailbox: sent %u, got %u\n", word, back);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoi(argv[2]) < 1 || atoi(argv[2]) > MAX_SPES) {
        fprintf(stderr, "usage: ppe.elf dma|mailbox SPES(1-16) ROUNDS\n");
        return 2;
    }
    mailbox = strcmp(argv[1], "mailbox") == 0;
    int spes = atoi(argv[2]);
    rounds = strtoul(argv[3], NULL, 0);
    spe_program_handle_t *image = spe_image_open("spe.elf");
    if (image == NULL) {
        perror("spe.elf");
        return 1;
    }
    pthread_t runs[MAX_SPES], pings[MAX_SPES];
    for (long i = 0; i < spes; i++) {
        spe[i] = spe_context_create(0, NULL);
        spe_program_load(spe[i], image);
        pthread_create(&runs[i], NULL, run, (void *)i);
        if (mailbox)
            pthread_create(&pings[i], NULL, ping, spe[i]);
    }
    for (int i = 0; i < spes; i++) {
        if (mailbox)
            pthread_join(pings[i], NULL);
        pthread_join(runs[i], NULL);
    }
    return 0;
}
