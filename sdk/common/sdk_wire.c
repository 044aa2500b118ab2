/* The SDK programs' side of the wire to the simulator (sdk_wire.h). */
#define _GNU_SOURCE
#include "sdk_wire.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REQUEST_BYTES 40
#define ANSWER_BYTES 24

static int put_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static int get_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EPIPE;
            return -1;
        }
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static void encode(unsigned char b[REQUEST_BYTES], const struct cb_request *req, uint32_t len)
{
    uint32_t w[4] = {htobe32(req->op), htobe32(req->a), htobe32(req->b), htobe32(req->c)};
    uint64_t d = htobe64(req->d), e = htobe64(req->e);
    uint32_t l = htobe32(len), zero = 0;
    memcpy(b, w, 16);
    memcpy(b + 16, &d, 8);
    memcpy(b + 24, &e, 8);
    memcpy(b + 32, &l, 4);
    memcpy(b + 36, &zero, 4);
}

int cb_sdk_send(int fd, const struct cb_request *req, const void *payload, uint32_t len)
{
    unsigned char b[REQUEST_BYTES];
    encode(b, req, len);
    if (put_all(fd, b, sizeof b) != 0)
        return -1;
    return len > 0 ? put_all(fd, payload, len) : 0;
}

int cb_sdk_call_passing(int fd, const struct cb_request *req, int passed, struct cb_answer *ans)
{
    unsigned char b[REQUEST_BYTES];
    encode(b, req, 0);
    union {
        struct cmsghdr header;
        char room[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = b, .iov_len = sizeof b};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.room,
                         .msg_controllen = sizeof control.room};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &passed, sizeof(int));
    ssize_t sent;
    do
        sent = sendmsg(fd, &msg, 0);
    while (sent < 0 && errno == EINTR);
    if (sent < 0)
        return -1;
    if ((size_t)sent < sizeof b && put_all(fd, b + sent, sizeof b - (size_t)sent) != 0)
        return -1;
    return cb_sdk_answer(fd, ans, NULL, 0);
}

static int decode_answer(const unsigned char b[ANSWER_BYTES], struct cb_answer *ans)
{
    uint32_t status, a, len;
    uint64_t value;
    memcpy(&status, b, 4);
    memcpy(&a, b + 4, 4);
    memcpy(&value, b + 8, 8);
    memcpy(&len, b + 16, 4);
    ans->status = (int32_t)be32toh(status);
    ans->a = be32toh(a);
    ans->value = be64toh(value);
    ans->len = be32toh(len);
    return 0;
}

int cb_sdk_answer(int fd, struct cb_answer *ans, void *into, uint32_t room)
{
    unsigned char b[ANSWER_BYTES];
    if (get_all(fd, b, sizeof b) != 0 || decode_answer(b, ans) != 0)
        return -1;
    if (ans->len > room) {
        errno = EMSGSIZE;
        return -1;
    }
    return ans->len > 0 ? get_all(fd, into, ans->len) : 0;
}

int cb_sdk_call(int fd, const struct cb_request *req, const void *payload, uint32_t len,
                struct cb_answer *ans, void *into, uint32_t room)
{
    if (cb_sdk_send(fd, req, payload, len) != 0)
        return -1;
    return cb_sdk_answer(fd, ans, into, room);
}

int cb_sdk_call_receiving(int fd, const struct cb_request *req, struct cb_answer *ans,
                          int *passed)
{
    *passed = -1;
    if (cb_sdk_send(fd, req, NULL, 0) != 0)
        return -1;
    unsigned char b[ANSWER_BYTES];
    union {
        struct cmsghdr header;
        char room[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {.iov_base = b, .iov_len = sizeof b};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.room,
                         .msg_controllen = sizeof control.room};
    ssize_t got;
    do
        got = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(passed, CMSG_DATA(c), sizeof(int));
    if ((size_t)got < sizeof b && get_all(fd, b + got, sizeof b - (size_t)got) != 0)
        return -1;
    return decode_answer(b, ans) == 0 && ans->len == 0 ? 0 : -1;
}
