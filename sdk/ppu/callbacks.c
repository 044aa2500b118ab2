/* PPE-assisted library calls (libspe2's lib_builtin.c): an SPE stops with a code 0x2100 + n
 * (n = 0 to 255), the PPE thread running it calls handler n with the context's local store and
 * the SPU's next PC, and the SPE goes on after the word there (spe_context_run in libspe2.c).
 *
 * The table is libspe2's: numbers 0 to 3 are the library's own (spe_callback_handler_register and
 * _deregister refuse them with EACCES), and 0 (the C99 class, 0x2100), 1 (POSIX.1, 0x2101) and 5
 * (libea, 0x2105) hold its default handlers, which a program may replace (SPE_CALLBACK_UPDATE)
 * but not register anew. cellblade's SPE C library does not call them: its stdio reaches the PPE
 * by a call of its own (sdk/spu/stdio.c), so these three serve no operation and fail the call
 * (SPE_CALLBACK_ERROR), as libspe2's do for an operation they do not know. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "libspe2.h"
#include "ppu_runtime.h"

enum { HANDLERS = 256, RESERVED = 4 };

typedef int (*handler_t)(void *ls_base, unsigned int ls_address);

/* The default handlers' answer: the call is not served (libspe2's "unsupported" return). */
static int not_served(void *ls_base, unsigned int ls_address)
{
    (void)ls_base;
    (void)ls_address;
    errno = ENOSYS;
    return 1;
}

static handler_t handlers[HANDLERS] = {[0] = not_served, [1] = not_served, [5] = not_served};
static pthread_mutex_t handlers_lock = PTHREAD_MUTEX_INITIALIZER;

int spe_callback_handler_register(void *handler, unsigned int callnum, unsigned int mode)
{
    if (callnum >= HANDLERS || (mode != SPE_CALLBACK_NEW && mode != SPE_CALLBACK_UPDATE)) {
        errno = EINVAL;
        return -1;
    }
    int rc = 0;
    pthread_mutex_lock(&handlers_lock);
    if (mode == SPE_CALLBACK_NEW && (callnum < RESERVED || handlers[callnum] != NULL)) {
        errno = EACCES; /* the library's own numbers, or one taken */
        rc = -1;
    } else if (mode == SPE_CALLBACK_UPDATE && handlers[callnum] == NULL) {
        errno = ESRCH;
        rc = -1;
    } else if (handler == NULL) {
        errno = EINVAL;
        rc = -1;
    } else {
        handlers[callnum] = (handler_t)handler;
    }
    pthread_mutex_unlock(&handlers_lock);
    return rc;
}

int spe_callback_handler_deregister(unsigned int callnum)
{
    if (callnum >= HANDLERS) {
        errno = EINVAL;
        return -1;
    }
    if (callnum < RESERVED) {
        errno = EACCES;
        return -1;
    }
    int rc = 0;
    pthread_mutex_lock(&handlers_lock);
    if (handlers[callnum] == NULL) {
        errno = ESRCH;
        rc = -1;
    } else {
        handlers[callnum] = NULL;
    }
    pthread_mutex_unlock(&handlers_lock);
    return rc;
}

void *spe_callback_handler_query(unsigned int callnum)
{
    if (callnum >= HANDLERS) {
        errno = EINVAL;
        return NULL;
    }
    pthread_mutex_lock(&handlers_lock);
    handler_t h = handlers[callnum];
    pthread_mutex_unlock(&handlers_lock);
    if (h == NULL)
        errno = ESRCH;
    return (void *)h;
}

int cb_ppu_library_call(spe_context_ptr_t spe, unsigned int callnum, unsigned int npc)
{
    pthread_mutex_lock(&handlers_lock);
    handler_t h = callnum < HANDLERS ? handlers[callnum] : NULL;
    pthread_mutex_unlock(&handlers_lock);
    if (h == NULL) {
        errno = ENOSYS; /* libspe2: no handler registered for the call */
        return -1;
    }
    void *ls = spe_ls_area_get(spe);
    if (ls == NULL)
        return -1;
    return h(ls, npc);
}
