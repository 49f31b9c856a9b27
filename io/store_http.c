/* io/store_http.c: HTTP(S) and S3 objects (issue 20). Not built yet: opening a URL is refused
 * with a clear error, and no read can reach this backend. */
#include <errno.h>
#include <stdio.h>

#include "io/io.h"

static int http_read(void *core, exec_t *e, io_file_t *f, exec_op_t *op, void *buf,
                     uint64_t len, uint64_t off, char *why, size_t whylen)
{
    (void)core, (void)e, (void)f, (void)op, (void)buf, (void)len, (void)off;
    snprintf(why, whylen, "HTTP is not supported by this build");
    return -ENOTSUP;
}

static int http_cancel(void *core, exec_t *e, exec_op_t *op)
{
    (void)core, (void)e, (void)op;
    return -ENOENT;
}

static int http_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, char *err,
                          size_t errlen)
{
    (void)off, (void)buf, (void)len;
    if (err) snprintf(err, errlen, "%s: HTTP is not supported by this build", f->name);
    return -ENOTSUP;
}

static void http_close(io_file_t *f)
{
    (void)f;
}

const io_backend io_backend_http = {
    .name = "http", .id = 2, .remote = true, .read = http_read, .cancel = http_cancel,
    .read_sync = http_read_sync, .close = http_close,
};

int io_http_open(io_file_t **out, const char *url, const io_open_opts *o, char *err,
                 size_t errlen)
{
    (void)out, (void)o;
    if (err) snprintf(err, errlen, "%s: HTTP and S3 are not supported by this build yet", url);
    return -ENOTSUP;
}
