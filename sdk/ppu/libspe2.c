/* libspe2 on the simulated blade (libspe2.h): each call is a request to the simulator over the
 * PPE program's socket (CELLBLADE_SDK_FD), answered when the call returns on the simulated blade.
 *
 * Each PPE thread has a connection of its own (threads.c), so that one thread waits in
 * spe_context_run while others create, run and mail other contexts, as on the blade. Each SPE
 * context is the simulator's number for it; an image is its path, which the simulator starts
 * under qemu-user when the context runs. */
#define _GNU_SOURCE
#include "libspe2.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/sdk_wire.h"
#include "ppu_runtime.h"

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t be16(const unsigned char *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}


/* What an opened image is: the handle programs see, and the file behind it, on a list of those
 * open. A handle that is not on it is an embedded image (ppu-embedspu), whose elf_image is the
 * executable. */
struct image {
    spe_program_handle_t handle;
    char *path;
    struct image *next;
};
static struct image *opened;
static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;

/* `program` as an image spe_image_open gave, taken off the list if `take`; NULL if it is not. */
static struct image *opened_image(const spe_program_handle_t *program, int take)
{
    pthread_mutex_lock(&opened_lock);
    struct image **at = &opened;
    while (*at != NULL && &(*at)->handle != program)
        at = &(*at)->next;
    struct image *found = *at;
    if (found != NULL && take)
        *at = found->next;
    pthread_mutex_unlock(&opened_lock);
    return found;
}

/* The simulator's answer to `req` (and its payload into `into`), on the calling thread's
 * connection; -1 and errno when there is none or the simulator has gone. */
static int call(const struct cb_request *req, const void *payload, uint32_t len,
                struct cb_answer *ans, void *into, uint32_t room)
{
    int simulator = cb_ppu_connection();
    if (simulator < 0)
        return -1;
    return cb_sdk_call(simulator, req, payload, len, ans, into, room);
}

static int answered(const struct cb_answer *ans)
{
    if (ans->status < 0) {
        errno = -ans->status;
        return -1;
    }
    return 0;
}

/* A gang is the simulator's number for it: the simulator places a gang's affinity chain. */
struct spe_gang_context {
    uint32_t number;
};

spe_gang_context_ptr_t spe_gang_context_create(unsigned int flags)
{
    if (flags != 0) {
        errno = EINVAL; /* libspe2 defines no gang flags */
        return NULL;
    }
    struct spe_gang_context *gang = calloc(1, sizeof *gang);
    if (gang == NULL)
        return NULL;
    struct cb_request req = {CB_GANG_CREATE, 0, 0, 0, 0, 0};
    struct cb_answer ans;
    if (call(&req, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0) {
        free(gang);
        return NULL;
    }
    gang->number = (uint32_t)ans.value;
    return gang;
}

int spe_gang_context_destroy(spe_gang_context_ptr_t gang)
{
    if (gang == NULL) {
        errno = ESRCH;
        return -1;
    }
    struct cb_request req = {CB_GANG_DESTROY, gang->number, 0, 0, 0, 0};
    struct cb_answer ans;
    if (call(&req, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0)
        return -1;
    free(gang);
    return 0;
}

/* Contexts are created by the simulator, which chooses their SPEs: b and c name the gang and the
 * affinity neighbour, each as its number + 1 (0: none). */
static spe_context_ptr_t create(unsigned int flags, spe_context_ptr_t neighbour,
                                spe_gang_context_ptr_t gang)
{
    struct spe_context *spe = calloc(1, sizeof *spe);
    if (spe == NULL)
        return NULL;
    struct cb_request req = {CB_CONTEXT_CREATE, flags, gang != NULL ? gang->number + 1 : 0,
                             neighbour != NULL ? neighbour->number + 1 : 0, 0, 0};
    struct cb_answer ans;
    if (call(&req, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0) {
        free(spe);
        return NULL;
    }
    spe->number = (uint32_t)ans.value;
    spe->flags = flags;
    return spe;
}

spe_context_ptr_t spe_context_create(unsigned int flags, spe_gang_context_ptr_t gang)
{
    return create(flags, NULL, gang);
}

spe_context_ptr_t spe_context_create_affinity(unsigned int flags,
                                              spe_context_ptr_t affinity_neighbor,
                                              spe_gang_context_ptr_t gang)
{
    return create(flags, affinity_neighbor, gang);
}

int spe_stop_info_read(spe_context_ptr_t spe, spe_stop_info_t *stopinfo)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    if (stopinfo == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (spe->flags & SPE_EVENTS_ENABLE) {
        /* With events, each stop is read once, in order (EAGAIN: none left), from the
         * simulator, which queued it when the SPE stopped: the same on every run, whichever
         * PPE thread reads it. */
        struct cb_request req = {CB_STOP_INFO_READ, spe->number, 0, 0, 0, 0};
        struct cb_answer ans;
        if (call(&req, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0)
            return -1;
        spe_stop_info_t info = {.stop_reason = ans.a};
        info.result.spe_exit_code = (int)ans.value; /* the union's every member is the code */
        *stopinfo = info;
        return 0;
    }
    errno = ENOTSUP; /* libspe2 keeps stops for spe_stop_info_read only with events */
    return -1;
}

int spe_cpu_info_get(int info_requested, int cpu_node)
{
    struct cb_request req = {CB_CPU_INFO, (uint32_t)info_requested, (uint32_t)cpu_node, 0, 0, 0};
    struct cb_answer ans;
    if (call(&req, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0)
        return -1;
    return (int)ans.value;
}

static int simple(uint32_t op, spe_context_ptr_t spe, uint32_t b, const void *payload,
                  uint32_t len, struct cb_answer *ans, void *into, uint32_t room)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    struct cb_request req = {op, spe->number, b, 0, 0, 0};
    return call(&req, payload, len, ans, into, room) != 0 ? -1 : answered(ans);
}

int spe_context_destroy(spe_context_ptr_t spe)
{
    struct cb_answer ans;
    if (simple(CB_CONTEXT_DESTROY, spe, 0, NULL, 0, &ans, NULL, 0) != 0)
        return -1;
    if (spe->ls != NULL)
        munmap(spe->ls, spe->ls_size);
    cb_ppu_ps_release(spe);
    free(spe);
    return 0;
}

spe_program_handle_t *spe_image_open(const char *filename)
{
    FILE *f = fopen(filename, "rb");
    if (f == NULL)
        return NULL;
    /* An SPE executable must be executable, as libspe2 refuses others (EACCES). */
    if (access(filename, X_OK) != 0) {
        fclose(f);
        errno = EACCES;
        return NULL;
    }
    unsigned char head[4096];
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    /* An SPE executable of the simulated blade: a 32-bit big-endian ELF file (spu-gcc's) with
     * a segment in local store (below 256 KB), which a PPE executable (at 0x10000000) has not;
     * libspe2 refuses anything else with EINVAL. */
    int spe_elf = got >= 52 && memcmp(head, "\177ELF", 4) == 0 && head[4] == 1 && head[5] == 2;
    if (spe_elf) {
        uint32_t phoff = be32(head + 28), phentsize = be16(head + 42), phnum = be16(head + 44);
        int in_ls = 0;
        for (uint32_t i = 0; i < phnum && phoff + (i + 1) * phentsize <= got; i++) {
            const unsigned char *ph = head + phoff + i * phentsize;
            if (be32(ph) == 1 /* PT_LOAD */ && be32(ph + 8) < 0x40000)
                in_ls = 1;
        }
        spe_elf = in_ls;
    }
    if (!spe_elf) {
        errno = EINVAL;
        return NULL;
    }
    struct image *image = calloc(1, sizeof *image);
    char *path = realpath(filename, NULL);
    if (image == NULL || path == NULL) {
        free(image);
        free(path);
        return NULL;
    }
    image->handle.handle_size = sizeof image->handle;
    image->path = path;
    pthread_mutex_lock(&opened_lock);
    image->next = opened;
    opened = image;
    pthread_mutex_unlock(&opened_lock);
    return &image->handle;
}

int spe_image_close(spe_program_handle_t *program)
{
    if (program == NULL) {
        errno = EINVAL;
        return -1;
    }
    struct image *image = opened_image(program, 1);
    if (image == NULL) {
        errno = EINVAL; /* an embedded image is the program's own, not opened */
        return -1;
    }
    free(image->path);
    free(image);
    return 0;
}

/* The size of the 32-bit big-endian ELF executable at `elf`: the end of its last part (section
 * headers, or a segment's bytes), read from its headers. */
static uint32_t elf_size(const unsigned char *elf)
{
    uint32_t shoff = be32(elf + 32), end = shoff + (uint32_t)be16(elf + 46) * be16(elf + 48);
    uint32_t phoff = be32(elf + 28), phentsize = be16(elf + 42), phnum = be16(elf + 44);
    for (uint32_t i = 0; i < phnum; i++) {
        const unsigned char *ph = elf + phoff + i * phentsize;
        uint32_t last = be32(ph + 4) + be32(ph + 16);
        end = last > end ? last : end;
    }
    return end;
}

int spe_program_load(spe_context_ptr_t spe, spe_program_handle_t *program)
{
    if (program == NULL) {
        errno = EINVAL;
        return -1;
    }
    struct cb_answer ans;
    const struct image *image = opened_image(program, 0);
    if (image != NULL) {
        const char *path = image->path;
        if (simple(CB_PROGRAM_LOAD, spe, 0, path, (uint32_t)strlen(path), &ans, NULL, 0) != 0)
            return -1;
    } else {
        const unsigned char *elf = program->elf_image;
        if (elf == NULL || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 1 || elf[5] != 2) {
            errno = ENOEXEC;
            return -1;
        }
        if (simple(CB_PROGRAM_LOAD, spe, 1, elf, elf_size(elf), &ans, NULL, 0) != 0)
            return -1;
    }
    spe->handle = *program;
    return 0;
}

/* A PPE-assisted call of the SPE program: write its bytes to the PPE's own stdio. */
static void carry_out(const struct cb_answer *ans, const char *bytes)
{
    FILE *to = ans->a == 1 ? stdout : ans->a == 2 ? stderr : NULL;
    if (to != NULL) {
        fwrite(bytes, 1, ans->len, to);
    } else {
        ssize_t ignored = write((int)ans->a, bytes, ans->len);
        (void)ignored;
    }
}

int spe_context_run(spe_context_ptr_t spe, unsigned int *entry, unsigned int runflags, void *argp,
                    void *envp, spe_stop_info_t *stopinfo)
{
    if (spe == NULL || entry == NULL) {
        errno = spe == NULL ? ESRCH : EINVAL;
        return -1;
    }
    uint64_t speid = (uint64_t)(uintptr_t)spe;
    uint64_t arg = (uint64_t)(uintptr_t)argp, env = (uint64_t)(uintptr_t)envp, arg_rest = 0;
    if (runflags & SPE_RUN_USER_REGS) {
        /* The 48 bytes at argp are r3, r4 and r5 whole: main's three arguments are their
         * preferred (first) doublewords. */
        if (argp == NULL) {
            errno = EINVAL;
            return -1;
        }
        const unsigned long long *regs = argp;
        speid = regs[0];
        arg = regs[2];
        env = regs[4];
        /* r4's second doubleword too: elfspe's argument block names its effective address and
         * size there, which the SPE's start code reads (sdk/elfspe/elfspe.c). */
        arg_rest = regs[3];
    }
    unsigned char id[16];
    for (int i = 0; i < 8; i++) {
        id[i] = (unsigned char)(speid >> (56 - 8 * i));
        id[8 + i] = (unsigned char)(arg_rest >> (56 - 8 * i));
    }
    struct cb_request req = {CB_CONTEXT_RUN, spe->number, runflags, *entry, arg, env};
    enum { ROOM = 1 << 20 }; /* the largest PPE-assisted write (wire.rs MAX_PAYLOAD) */
    char *bytes = malloc(ROOM);
    if (bytes == NULL)
        return -1;
    struct cb_answer ans;
    int r = call(&req, id, sizeof id, &ans, bytes, ROOM);
    while (r == 0 && (ans.status == CB_RUN_CALL || ans.status == CB_RUN_LIBRARY_CALL)) {
        /* The simulator decided (by SPE_NO_CALLBACKS) that the stop is a library call; its
         * handler's value goes back, and a failure ends the run there (SPE_CALLBACK_ERROR). */
        int handled = 0;
        if (ans.status == CB_RUN_CALL)
            carry_out(&ans, bytes);
        else
            handled = cb_ppu_library_call(spe, ans.a, (unsigned int)ans.value);
        struct cb_request resume = {CB_CONTEXT_RESUME, spe->number, (uint32_t)handled, 0, 0, 0};
        r = call(&resume, NULL, 0, &ans, bytes, ROOM);
    }
    free(bytes);
    if (r != 0 || answered(&ans) != 0)
        return -1;
    spe_stop_info_t info = {.stop_reason = ans.a};
    int result = 0;
    switch (ans.a) {
    case SPE_EXIT:
        info.result.spe_exit_code = (int)ans.value;
        *entry = 0; /* a stop instruction's exit code: a run may go on past it, as on the SPU */
        break;
    case SPE_ISOLATION_ERROR:
        info.result.spe_isolation_error = (int)ans.value;
        *entry = 0;
        errno = EFAULT;
        result = -1;
        break;
    case SPE_STOP_AND_SIGNAL:
        info.result.spe_signal_code = (int)ans.value;
        result = (int)ans.value;
        /* libspe2 gives the SPU's next PC, where a run continues; the SPU's PC is not known
         * here, and any entry but SPE_DEFAULT_ENTRY continues after the stop (a program that
         * ended, by exit() or main's return, starts again). */
        *entry = 0;
        break;
    case SPE_CALLBACK_ERROR:
        info.result.spe_callback_error = (int)ans.value;
        *entry = 0; /* stopped at the call, as after a stop-and-signal */
        errno = EFAULT;
        result = -1;
        break;
    case SPE_RUNTIME_EXCEPTION:
        info.result.spe_runtime_exception = (int)ans.value;
        errno = EIO;
        result = -1;
        break;
    default:
        info.result.spe_runtime_error = (int)ans.value;
        errno = EFAULT;
        result = -1;
    }
    if (stopinfo != NULL)
        *stopinfo = info;
    return result;
}

/* As libspe2 checks the three mailbox calls: the context first (ESRCH), then the words, at
 * least one of them, and the behaviour (EINVAL). */
static int mbox_checked(spe_context_ptr_t spe, const unsigned int *mbox_data, int count,
                        int has_behavior, unsigned int behavior)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    if (mbox_data == NULL || count < 1
        || (has_behavior
            && (behavior < SPE_MBOX_ALL_BLOCKING || behavior > SPE_MBOX_ANY_NONBLOCKING))) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int spe_in_mbox_write(spe_context_ptr_t spe, unsigned int *mbox_data, int count,
                      unsigned int behavior)
{
    if (mbox_checked(spe, mbox_data, count, 1, behavior) != 0)
        return -1;
    unsigned char words[4 * 64];
    int done = 0;
    while (done < count) {
        int n = count - done > 64 ? 64 : count - done;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 4; k++)
                words[4 * i + k] = (unsigned char)(mbox_data[done + i] >> (24 - 8 * k));
        struct cb_answer ans;
        if (simple(CB_IN_MBOX_WRITE, spe, behavior, words, (uint32_t)(4 * n), &ans, NULL, 0) != 0)
            return -1;
        done += (int)ans.value;
        if ((int)ans.value < n)
            break;
    }
    return done;
}

static int status(uint32_t op, spe_context_ptr_t spe)
{
    struct cb_answer ans;
    return simple(op, spe, 0, NULL, 0, &ans, NULL, 0) != 0 ? -1 : (int)ans.value;
}

int spe_in_mbox_status(spe_context_ptr_t spe)
{
    return status(CB_IN_MBOX_STATUS, spe);
}

int spe_out_mbox_status(spe_context_ptr_t spe)
{
    return status(CB_OUT_MBOX_STATUS, spe);
}

int spe_out_mbox_read(spe_context_ptr_t spe, unsigned int *mbox_data, int count)
{
    if (mbox_checked(spe, mbox_data, count, 0, 0) != 0)
        return -1;
    unsigned char words[4 * 64];
    int n = count > 64 ? 64 : count;
    struct cb_answer ans;
    if (simple(CB_OUT_MBOX_READ, spe, (uint32_t)n, NULL, 0, &ans, words, sizeof words) != 0)
        return -1;
    for (uint32_t i = 0; i < ans.value; i++)
        mbox_data[i] = (unsigned)words[4 * i] << 24 | (unsigned)words[4 * i + 1] << 16
                       | (unsigned)words[4 * i + 2] << 8 | words[4 * i + 3];
    return (int)ans.value;
}

int spe_out_intr_mbox_read(spe_context_ptr_t spe, unsigned int *mbox_data, int count,
                           unsigned int behavior)
{
    if (mbox_checked(spe, mbox_data, count, 1, behavior) != 0)
        return -1;
    unsigned char words[4 * 64];
    int done = 0;
    while (done < count) {
        int n = count - done > 64 ? 64 : count - done;
        /* After the first word ANY_BLOCKING reads what is there without waiting. */
        unsigned int how = done > 0 && behavior == SPE_MBOX_ANY_BLOCKING ? SPE_MBOX_ANY_NONBLOCKING
                                                                        : behavior;
        struct cb_request req = {CB_OUT_INTR_MBOX_READ, spe->number, how, (uint32_t)n, 0, 0};
        struct cb_answer ans;
        if (call(&req, NULL, 0, &ans, words, sizeof words) != 0 || answered(&ans) != 0)
            return -1;
        for (uint32_t i = 0; i < ans.value; i++)
            mbox_data[done + i] = be32(words + 4 * i);
        done += (int)ans.value;
        if ((int)ans.value < n)
            break;
    }
    return done;
}

int spe_out_intr_mbox_status(spe_context_ptr_t spe)
{
    return status(CB_OUT_INTR_MBOX_STATUS, spe);
}

int spe_signal_write(spe_context_ptr_t spe, unsigned int signal_reg, unsigned int data)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    struct cb_request req = {CB_SIGNAL_WRITE, spe->number, signal_reg, 0, data, 0};
    struct cb_answer ans;
    return call(&req, NULL, 0, &ans, NULL, 0) != 0 ? -1 : answered(&ans);
}

/* Map the context's local store: the simulator hands over its file, and is told where it is,
 * so that a DMA to an address in it is one to that local store. */
static int map_local_store(spe_context_ptr_t spe)
{
    int simulator = cb_ppu_connection();
    if (simulator < 0)
        return -1;
    struct cb_request req = {CB_LS_AREA, spe->number, 0, 0, 0, 0};
    struct cb_answer ans;
    int file;
    if (cb_sdk_call_receiving(simulator, &req, &ans, &file) != 0)
        return -1;
    if (answered(&ans) != 0 || file < 0)
        return -1;
    struct stat st;
    void *at = fstat(file, &st) == 0
                   ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0)
                   : MAP_FAILED;
    close(file);
    if (at == MAP_FAILED)
        return -1;
    struct cb_request mapped = {CB_LS_MAPPED, spe->number, 0, 0, (uint64_t)(uintptr_t)at, 0};
    if (cb_sdk_call(simulator, &mapped, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0) {
        munmap(at, (size_t)st.st_size);
        return -1;
    }
    spe->ls = at;
    spe->ls_size = (size_t)st.st_size;
    return 0;
}

void *spe_ls_area_get(spe_context_ptr_t spe)
{
    if (spe == NULL) {
        errno = ESRCH;
        return NULL;
    }
    if (spe->ls == NULL && map_local_store(spe) != 0)
        return NULL;
    return spe->ls;
}

int spe_ls_size_get(spe_context_ptr_t spe)
{
    return spe_ls_area_get(spe) == NULL ? -1 : (int)spe->ls_size;
}

/* Proxy DMA: the simulator queues the command in the SPE's MFC (tid and rid, the transfer and
 * replacement classes, do not change a transfer on the simulated blade). */
static int mfcio(uint32_t opcode, spe_context_ptr_t spe, unsigned int ls, void *ea,
                 unsigned int size, unsigned int tag)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    if (tag > 15) {
        errno = EINVAL; /* libspe2's proxy tag groups are 0 to 15 */
        return -1;
    }
    struct cb_request req = {CB_MFCIO, spe->number, opcode, tag, (uint64_t)(uintptr_t)ea,
                             (uint64_t)ls << 32 | size};
    struct cb_answer ans;
    return call(&req, NULL, 0, &ans, NULL, 0) != 0 ? -1 : answered(&ans);
}

#define CB_MFCIO_CALL(name, opcode)                                                                \
    int spe_mfcio_##name(spe_context_ptr_t spe, unsigned int ls, void *ea, unsigned int size,      \
                         unsigned int tag, unsigned int tid, unsigned int rid)                     \
    {                                                                                              \
        (void)tid;                                                                                 \
        (void)rid;                                                                                 \
        return mfcio(opcode, spe, ls, ea, size, tag);                                              \
    }
CB_MFCIO_CALL(put, 0x20)
CB_MFCIO_CALL(putb, 0x21)
CB_MFCIO_CALL(putf, 0x22)
CB_MFCIO_CALL(get, 0x40)
CB_MFCIO_CALL(getb, 0x41)
CB_MFCIO_CALL(getf, 0x42)

int spe_mfcio_tag_status_read(spe_context_ptr_t spe, unsigned int mask, unsigned int behavior,
                              unsigned int *tag_status)
{
    if (spe == NULL) {
        errno = ESRCH;
        return -1;
    }
    if (behavior < SPE_TAG_ALL || behavior > SPE_TAG_IMMEDIATE || tag_status == NULL
        || (mask & ~0xFFFFu) != 0) {
        errno = EINVAL;
        return -1;
    }
    struct cb_request req = {CB_MFCIO_TAG_STATUS, spe->number, behavior, mask, 0, 0};
    struct cb_answer ans;
    if (call(&req, NULL, 0, &ans, NULL, 0) != 0 || answered(&ans) != 0)
        return -1;
    *tag_status = (unsigned int)ans.value;
    return 0;
}

/* An event handler: the units registered with it, which spe_event_wait hands the simulator. */
struct event_handler {
    pthread_mutex_t lock;
    spe_event_unit_t *units;
    int used, room;
};

spe_event_handler_ptr_t spe_event_handler_create(void)
{
    struct event_handler *h = calloc(1, sizeof *h);
    if (h != NULL)
        pthread_mutex_init(&h->lock, NULL);
    return h;
}

int spe_event_handler_destroy(spe_event_handler_ptr_t evhandler)
{
    struct event_handler *h = evhandler;
    if (h == NULL) {
        errno = ESRCH;
        return -1;
    }
    free(h->units); /* units still registered go with it, as in libspe2 */
    free(h);
    return 0;
}

static int event_unit_checked(struct event_handler *h, const spe_event_unit_t *event)
{
    if (h == NULL || event == NULL || event->spe == NULL) {
        errno = h == NULL ? ESRCH : EINVAL;
        return -1;
    }
    if (!(event->spe->flags & SPE_EVENTS_ENABLE) || (event->events & ~SPE_EVENT_ALL_EVENTS)) {
        errno = ENOTSUP; /* a context created without SPE_EVENTS_ENABLE, or no such event */
        return -1;
    }
    return 0;
}

int spe_event_handler_register(spe_event_handler_ptr_t evhandler, spe_event_unit_t *event)
{
    struct event_handler *h = evhandler;
    if (event_unit_checked(h, event) != 0)
        return -1;
    pthread_mutex_lock(&h->lock);
    int i = 0;
    while (i < h->used && h->units[i].spe != event->spe)
        i++;
    if (i == h->used) {
        if (h->used == h->room) {
            int room = h->room ? 2 * h->room : 16;
            spe_event_unit_t *grown = realloc(h->units, (size_t)room * sizeof *grown);
            if (grown == NULL) {
                pthread_mutex_unlock(&h->lock);
                return -1;
            }
            h->units = grown;
            h->room = room;
        }
        h->used++;
    }
    h->units[i] = *event; /* registering a context again replaces its events and data */
    pthread_mutex_unlock(&h->lock);
    return 0;
}

int spe_event_handler_deregister(spe_event_handler_ptr_t evhandler, spe_event_unit_t *event)
{
    struct event_handler *h = evhandler;
    if (event_unit_checked(h, event) != 0)
        return -1;
    pthread_mutex_lock(&h->lock);
    int i = 0;
    while (i < h->used && h->units[i].spe != event->spe)
        i++;
    int found = i < h->used;
    if (found) {
        h->units[i].events &= ~event->events;
        if (h->units[i].events == 0)
            h->units[i] = h->units[--h->used];
    }
    pthread_mutex_unlock(&h->lock);
    if (!found) {
        errno = ENOENT;
        return -1;
    }
    return 0;
}

/* The simulator waits in simulated time (a timeout is of simulated milliseconds) for any of
 * the registered events, and says which units' which events happened. */
int spe_event_wait(spe_event_handler_ptr_t evhandler, spe_event_unit_t *events, int max_events,
                   int timeout)
{
    struct event_handler *h = evhandler;
    if (h == NULL) {
        errno = ESRCH;
        return -1;
    }
    if (events == NULL || max_events <= 0) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&h->lock);
    int n = h->used;
    spe_event_unit_t *units = malloc(((size_t)n + 1) * sizeof *units);
    unsigned char *words = malloc(((size_t)n + 1) * 8);
    if (units == NULL || words == NULL) {
        pthread_mutex_unlock(&h->lock);
        free(units);
        free(words);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        units[i] = h->units[i];
        uint32_t w[2] = {units[i].spe->number, units[i].events};
        for (int k = 0; k < 8; k++)
            words[8 * i + k] = (unsigned char)(w[k / 4] >> (24 - 8 * (k % 4)));
    }
    pthread_mutex_unlock(&h->lock);
    struct cb_request req = {CB_EVENT_WAIT, 0, 0, (uint32_t)max_events,
                             (uint64_t)(int64_t)timeout, 0};
    struct cb_answer ans;
    int r = call(&req, words, (uint32_t)(8 * n), &ans, words, (uint32_t)(8 * n + 8));
    if (r == 0)
        r = answered(&ans);
    int got = 0;
    if (r == 0) {
        for (got = 0; got < (int)ans.value && got < max_events; got++) {
            uint32_t at = be32(words + 8 * got), fired = be32(words + 8 * got + 4);
            events[got] = units[at];
            events[got].events = fired;
        }
    }
    free(units);
    free(words);
    return r == 0 ? got : -1;
}
