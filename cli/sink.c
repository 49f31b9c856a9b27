/* cli/sink.c: the buffered output sink of the `ringscan` binary (issue 18, defect 6: stdio's
 * errors were never checked, so `scan ... > /dev/full` printed nothing, kept a cut last line
 * on a full disk, and exited 0).
 *
 * Invariants:
 *  1. Every byte a command prints as its result goes through one cli_sink (cli_out() for
 *     standard output); nothing else writes to its fd, so no stdio buffer can reorder it.
 *  2. s->len < SINK_BUF_BYTES between calls; a write that does not fit flushes first, and
 *     one larger than the buffer goes to the fd directly.
 *  3. s->err holds the first failure (negative errno) and is sticky: once set, nothing more
 *     is written and every call returns it. A command checks it after each unit it prints
 *     (a batch, a line) and stops early, freeing what it holds.
 *  4. write(2) is retried on EINTR and continued after a short write; 0 bytes written for a
 *     non-empty request is -EIO (nothing else would make progress).
 *  5. A closed pipe is not an error to report: `ringscan scan F | head` ends quietly.
 *     main() ignores SIGPIPE, so the write fails with EPIPE instead of killing the process
 *     mid-scan; the command then stops as for any write error (the scan is freed) and the
 *     process exits SINK_EXIT_PIPE (141 = 128 + SIGPIPE, the status a shell shows for a
 *     tool killed by the default SIGPIPE, e.g. `seq 1e9 | head`), without a message.
 */
#include "cli/sink.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sink_init(cli_sink *s, int fd, const char *name)
{
    assert(fd >= -1 && name); /* -1: a memory sink (sink.h) */
    s->fd = fd;
    s->name = name;
    s->err = 0;
    s->closed = false;
    s->len = 0;
}

cli_sink *cli_out(void)
{
    static cli_sink out;
    static bool ready;
    if (!ready) {
        sink_init(&out, STDOUT_FILENO, "standard output");
        ready = true;
    }
    return &out;
}

/* Writes all n bytes of p to fd. 0 or negative errno. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -errno;
        if (r == 0) return -EIO;
        assert((size_t)r <= n);
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int sink_flush(cli_sink *s)
{
    if (s->err) return s->err;
    assert(!s->closed && s->len < SINK_BUF_BYTES);
    if (s->fd < 0) return s->err = -EFBIG; /* a memory sink is full: its text stays */
    int rc = write_all(s->fd, s->buf, s->len);
    s->len = 0;
    if (rc) s->err = rc;
    return rc;
}

int sink_write(cli_sink *s, const void *p, size_t n)
{
    if (s->err) return s->err;
    if (s->len + n < SINK_BUF_BYTES) {
        if (n) memcpy(s->buf + s->len, p, n); /* p may be NULL when n == 0 */
        s->len += n;
        return 0;
    }
    int rc = sink_flush(s);
    if (rc) return rc;
    if (n < SINK_BUF_BYTES) {
        memcpy(s->buf, p, n);
        s->len = n;
        return 0;
    }
    rc = write_all(s->fd, p, n);
    if (rc) s->err = rc;
    return rc;
}

int sink_puts(cli_sink *s, const char *str)
{
    return sink_write(s, str, strlen(str));
}

int sink_printf(cli_sink *s, const char *fmt, ...)
{
    if (s->err) return s->err;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return s->err = -EINVAL;
    if ((size_t)n < sizeof small) return sink_write(s, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big) return s->err = -ENOMEM;
    va_start(ap, fmt);
    int m = vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    assert(m == n);
    int rc = sink_write(s, big, (size_t)m);
    free(big);
    return rc;
}

int sink_close(cli_sink *s)
{
    if (s->closed) return s->err;
    int rc = sink_flush(s);
    s->closed = true;
    /* Linux releases the fd even when close fails: never retried */
    if (close(s->fd) != 0 && !rc && errno != EINTR) rc = s->err = -errno;
    return rc;
}

int sink_exit_status(const cli_sink *s, int status)
{
    if (!s->err) return status;
    if (s->err == -EPIPE) return SINK_EXIT_PIPE;
    fprintf(stderr, "ringscan: error writing %s: %s\n", s->name, strerror(-s->err));
    return status ? status : 1;
}
