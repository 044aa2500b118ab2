/* An SPE program's stdout and stderr are the PPE's, as libspe2's default C99 handler made them:
 * each write stops the SPE with a PPE-assisted call that the PPE thread running the context
 * carries out on its own stdio, in order with the PPE's own output, and the SPE goes on.
 * Unbuffered, as the SPU's C library sent each printf to the PPE as one call. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/types.h>

#include "spu_runtime.h"

static ssize_t to_ppe(void *cookie, const char *bytes, size_t n)
{
    uint32_t fd = (uint32_t)(uintptr_t)cookie;
    size_t done = 0;
    while (done < n) {
        uint32_t part = n - done > (1u << 20) ? (1u << 20) : (uint32_t)(n - done);
        cb_spu_call(CB_SPU_PPE_CALL, CB_CALL_WRITE, fd, 0, 0, 0, bytes + done, part);
        done += part;
    }
    return (ssize_t)n;
}

static FILE *stream_to_ppe(uintptr_t fd)
{
    cookie_io_functions_t io = {.read = NULL, .write = to_ppe, .seek = NULL, .close = NULL};
    FILE *f = fopencookie((void *)fd, "w", io);
    if (f != NULL)
        setvbuf(f, NULL, _IONBF, 0);
    return f;
}

void cb_spu_stdio_to_ppe(void)
{
    FILE *out = stream_to_ppe(1), *err = stream_to_ppe(2);
    if (out != NULL)
        stdout = out;
    if (err != NULL)
        stderr = err;
}
