/* The PPE side of a kernel's run under `cellblade run`: one context running the SPE executable
 * named by argv[1] (default spe.elf) to its end, its exit code printed. The kernels are SPE
 * programs alone; this runs one on the simulated blade, so that its code is charged there. */
#include <libspe2.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    spe_program_handle_t *image = spe_image_open(argc > 1 ? argv[1] : "spe.elf");
    spe_context_ptr_t spe = spe_context_create(0, NULL);
    if (image == NULL || spe == NULL || spe_program_load(spe, image) != 0) {
        perror("spe_image_open / spe_context_create / spe_program_load");
        return 1;
    }
    unsigned int entry = SPE_DEFAULT_ENTRY;
    spe_stop_info_t stop;
    if (spe_context_run(spe, &entry, 0, NULL, NULL, &stop) < 0) {
        perror("spe_context_run");
        return 2;
    }
    printf("exit %d\n", stop.result.spe_exit_code);
    return 0;
}
