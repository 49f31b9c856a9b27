/* io/io_file.c: opening files and the synchronous pread loop used for metadata.
 *
 * Owns: io_file_t (fd, size, name). An io_file_t never changes after io_file_open, so any
 * number of cores may read it at once.
 * Invariants:
 *  1. io_read_sync returns 0 only when exactly len bytes were copied.
 *  2. Every loop is bounded by the bytes left (each pass either advances or ends). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "common/fail.h"

int io_file_open(io_file_t **out, const char *path, char *err, size_t errlen)
{
    assert(out && path);
    size_t n = strnlen(path, IO_NAME_MAX);
    if (n == 0 || n >= IO_NAME_MAX) {
        if (err) snprintf(err, errlen, "invalid path (empty or over %d bytes)", IO_NAME_MAX);
        return -EINVAL;
    }
    /* O_NONBLOCK: opening a FIFO without a writer (or a device) must not block; it has no
     * effect on a regular file, the only kind kept. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int rc = -errno;
        if (err) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
        return rc;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int rc = -errno;
        if (err) snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(-rc));
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        if (err) snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -EINVAL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int rc = -errno;
        if (err) snprintf(err, errlen, "%s: cannot clear O_NONBLOCK: %s", path, strerror(-rc));
        close(fd);
        return rc;
    }
    io_file_t *f = fail_malloc(sizeof *f + n + 1);
    if (!f) {
        close(fd);
        if (err) snprintf(err, errlen, "%s: out of memory", path);
        return -ENOMEM;
    }
    f->fd = fd;
    f->size_bytes = (uint64_t)st.st_size;
    memcpy(f->name, path, n + 1);
    *out = f;
    return 0;
}

void io_file_close(io_file_t *f)
{
    if (!f) return;
    assert(f->fd >= 0);
    close(f->fd);
    free(f);
}

int io_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, char *err, size_t errlen)
{
    assert(f && (buf || len == 0));
    uint8_t *p = buf;
    size_t done = 0;
    int eintr = 0;
    while (done < len) {
        size_t chunk = len - done > EXEC_READ_BYTES_MAX ? EXEC_READ_BYTES_MAX : len - done;
        ssize_t r = pread(f->fd, p + done, chunk, (off_t)(off + done));
        if (r < 0 && (errno == EINTR || errno == EAGAIN) && ++eintr < 1000) continue;
        if (r < 0) {
            int rc = -errno;
            if (err)
                snprintf(err, errlen, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") failed: %s",
                         f->name, off, off + len, strerror(-rc));
            return rc;
        }
        if (r == 0) {
            if (err)
                snprintf(err, errlen,
                         "%s: unexpected end of file reading bytes [%" PRIu64 ", %" PRIu64
                         ") (file size %" PRIu64 ")",
                         f->name, off, off + len, f->size_bytes);
            return -EIO;
        }
        assert((size_t)r <= chunk);
        done += (size_t)r;
    }
    return 0;
}
