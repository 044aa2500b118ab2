/* The PPE side: four SPEs, each run from a thread of its own, add to one counter at once. */
#include <libspe2.h>
#include <pthread.h>
#include <stdio.h>

#define SPES 4

static unsigned int counter[32] __attribute__((aligned(128)));

static void *run(void *context)
{
    unsigned int entry = SPE_DEFAULT_ENTRY;
    if (spe_context_run(context, &entry, 0, counter, NULL, NULL) < 0)
        perror("spe_context_run");
    return NULL;
}

int main(void)
{
    spe_program_handle_t *image = spe_image_open("spe.elf");
    if (image == NULL) {
        perror("spe.elf");
        return 1;
    }
    spe_context_ptr_t spe[SPES];
    pthread_t thread[SPES];
    for (int i = 0; i < SPES; i++) {
        spe[i] = spe_context_create(0, NULL);
        if (spe[i] == NULL || spe_program_load(spe[i], image) != 0) {
            perror("spe_context_create / spe_program_load");
            return 1;
        }
        pthread_create(&thread[i], NULL, run, spe[i]);
    }
    for (int i = 0; i < SPES; i++) {
        pthread_join(thread[i], NULL);
        spe_context_destroy(spe[i]);
    }
    printf("counter = %u (%d SPEs, 1000 atomic increments each)\n", counter[0], SPES);
    spe_image_close(image);
    return 0;
}
