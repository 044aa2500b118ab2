/* The PPE program's threads, as the simulator must see them: each has its own connection, made
 * when it is created (pthread_create, which ppu-gcc links through --wrap), so that its calls come
 * in its own order at its own simulated time, starting at its creator's; its exit and every
 * pthread_join are told to the simulator, which therefore never waits for a thread that waits for
 * another. Mutexes and condition variables (pthread_mutex_lock, pthread_cond_wait, _signal,
 * _broadcast, linked through --wrap too) wait in simulated time: a thread that cannot go on
 * sleeps one poll interval on the simulated blade and tries again, so the others, the one it
 * waits for among them, run on meanwhile (see cb_wait_for_another). A spin on a shared word
 * is not seen: the simulator, waiting for the next call of the thread whose turn it is, would
 * wait for ever if that thread waited for another thread's progress. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/sdk_wire.h"
#include "ppu_runtime.h"

int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg);
int __real_pthread_join(pthread_t thread, void **result);
int __real_pthread_mutex_lock(pthread_mutex_t *mutex);
int __real_pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int __real_pthread_cond_signal(pthread_cond_t *cond);
int __real_pthread_cond_broadcast(pthread_cond_t *cond);

static __thread int connection = -1;
static int main_connected;

/* The simulator's number of each thread the program created, to join it by. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct created {
    pthread_t thread;
    uint32_t number;
} *table;
static size_t table_used, table_room;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* The PPE program dies with its launcher (`cellblade run`), which would otherwise leave it
 * running with nobody to serve it: PR_SET_PDEATHSIG before main, and a launcher that died
 * before the prctl is caught by comparing getppid() with the pid it gave. */
__attribute__((constructor)) static void die_with_the_launcher(void)
{
    const char *parent = getenv("CELLBLADE_SDK_PARENT");
    if (parent == NULL)
        return;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)atol(parent))
        _exit(128 + SIGKILL);
}

int cb_ppu_connection(void)
{
    if (connection >= 0)
        return connection;
    const char *fd = getenv("CELLBLADE_SDK_FD");
    if (fd == NULL || main_connected) {
        fprintf(stderr, "libspe2: this program runs its SPE contexts on the simulated blade: "
                        "start it with `cellblade run`\n");
        errno = ENOSYS;
        return -1;
    }
    /* The first thread to call is the main one: threads created later connect as they start. */
    main_connected = 1;
    connection = atoi(fd);
    struct cb_request hello = {CB_PPE_HELLO, (uint32_t)(sizeof(void *) * 8), 0, 0, 0, 0};
    struct cb_answer ok;
    if (cb_sdk_call(connection, &hello, NULL, 0, &ok, NULL, 0) != 0)
        return -1;
    return connection;
}

static void say_exit(void *unused)
{
    (void)unused;
    struct cb_request bye = {CB_THREAD_EXIT, 0, 0, 0, 0, 0};
    struct cb_answer ok;
    if (connection >= 0 && cb_sdk_call(connection, &bye, NULL, 0, &ok, NULL, 0) == 0)
        close(connection);
    connection = -1;
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, say_exit);
}

struct start {
    void *(*start)(void *);
    void *arg;
    int connection;
};

static void *started(void *given)
{
    struct start s = *(struct start *)given;
    free(given);
    connection = s.connection;
    /* Any non-NULL value makes the key's destructor run at the thread's exit, however it exits. */
    pthread_setspecific(exit_key, (void *)1);
    return s.start(s.arg);
}

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg)
{
    int creator = cb_ppu_connection();
    if (creator < 0)
        return __real_pthread_create(thread, attr, start, arg);
    pthread_once(&exit_key_once, make_exit_key);
    int pair[2];
    struct start *s = malloc(sizeof *s);
    if (s == NULL || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        free(s);
        return EAGAIN;
    }
    struct cb_request req = {CB_THREAD_CREATE, 0, 0, 0, 0, 0};
    struct cb_answer ans;
    int sent = cb_sdk_call_passing(creator, &req, pair[1], &ans);
    close(pair[1]);
    if (sent != 0 || ans.status < 0) {
        close(pair[0]);
        free(s);
        return EAGAIN;
    }
    *s = (struct start){start, arg, pair[0]};
    int r = __real_pthread_create(thread, attr, started, s);
    if (r != 0) {
        close(pair[0]); /* the simulator sees the thread gone at once */
        free(s);
        return r;
    }
    pthread_mutex_lock(&table_lock);
    if (table_used == table_room) {
        size_t room = table_room ? 2 * table_room : 16;
        struct created *grown = realloc(table, room * sizeof *table);
        if (grown != NULL) {
            table = grown;
            table_room = room;
        }
    }
    if (table_used < table_room)
        table[table_used++] = (struct created){*thread, (uint32_t)ans.value};
    pthread_mutex_unlock(&table_lock);
    return 0;
}

int __wrap_pthread_join(pthread_t thread, void **result)
{
    long number = -1;
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < table_used; i++)
        if (pthread_equal(table[i].thread, thread)) {
            number = table[i].number;
            table[i] = table[--table_used];
            break;
        }
    pthread_mutex_unlock(&table_lock);
    if (number >= 0 && connection >= 0) {
        struct cb_request req = {CB_THREAD_JOIN, (uint32_t)number, 0, 0, 0, 0};
        struct cb_answer ans;
        cb_sdk_call(connection, &req, NULL, 0, &ans, NULL, 0);
    }
    return __real_pthread_join(thread, result);
}

/* This thread waits for another PPE thread's progress (a mutex it holds, a condition it will
 * signal): one poll interval passes on the simulated blade. Whatever the other thread does on
 * the host between two of its calls happens at its last call's simulated time, which is before
 * this thread's next try whenever the simulator serves that try, so the outcome of each try is
 * the same on every run. */
static int wait_for_another(void)
{
    struct cb_request req = {CB_PPE_WAIT_HOST, 0, 0, 0, 0, 0};
    struct cb_answer ans;
    return cb_sdk_call(connection, &req, NULL, 0, &ans, NULL, 0);
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *mutex)
{
    if (connection < 0)
        return __real_pthread_mutex_lock(mutex);
    for (;;) {
        int r = pthread_mutex_trylock(mutex);
        if (r != EBUSY)
            return r;
        if (wait_for_another() != 0)
            return __real_pthread_mutex_lock(mutex); /* the simulator has gone */
    }
}

/* Each condition variable's signal count, kept beside it: a waiter waits until the count moves
 * (a wake-up that POSIX allows to be spurious, as a broadcast's is for every waiter). */
static pthread_mutex_t signals_lock = PTHREAD_MUTEX_INITIALIZER;
static struct signalled {
    const pthread_cond_t *cond;
    unsigned long count;
} *signals;
static size_t signals_used, signals_room;

static unsigned long signal_count(const pthread_cond_t *cond, int bump)
{
    __real_pthread_mutex_lock(&signals_lock);
    size_t i = 0;
    while (i < signals_used && signals[i].cond != cond)
        i++;
    if (i == signals_used && signals_used == signals_room) {
        size_t room = signals_room ? 2 * signals_room : 16;
        struct signalled *grown = realloc(signals, room * sizeof *signals);
        if (grown != NULL) {
            signals = grown;
            signals_room = room;
        }
    }
    unsigned long count = 0;
    if (i < signals_room) {
        if (i == signals_used)
            signals[signals_used++] = (struct signalled){cond, 0};
        signals[i].count += bump != 0;
        count = signals[i].count;
    }
    pthread_mutex_unlock(&signals_lock);
    return count;
}

int __wrap_pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    if (connection < 0)
        return __real_pthread_cond_wait(cond, mutex);
    unsigned long seen = signal_count(cond, 0);
    pthread_mutex_unlock(mutex);
    while (signal_count(cond, 0) == seen)
        if (wait_for_another() != 0)
            break;
    return __wrap_pthread_mutex_lock(mutex);
}

int __wrap_pthread_cond_signal(pthread_cond_t *cond)
{
    signal_count(cond, 1);
    return __real_pthread_cond_signal(cond);
}

int __wrap_pthread_cond_broadcast(pthread_cond_t *cond)
{
    signal_count(cond, 1);
    return __real_pthread_cond_broadcast(cond);
}
