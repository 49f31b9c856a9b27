/* scan/pqf_async.c: a Parquet footer read as futures by a task on a core (pqf_async.h): the
 * file opened (io_file_open_await: a local file's open and fstat, a simulated store's wrap, a
 * URL's suffix GET awaited), its tail read through the core's io context (io_read_tail: from
 * the suffix GET's bytes for a URL), then,
 * when the metadata is longer than the tail, the rest read the same way; parsed and checked by
 * pqfile.c's pieces, so a footer and its errors are the ones pqf_open_tail gives. */
#include "scan/pqf_async.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "runtime/exec.h"

/* Awaits *fu (a read of f at off): its bytes in *b, or a status with e filled naming the
 * range. */
static int await_bytes(fut_t *fu, const pqf_t *f, uint64_t off, const io_bytes **b, pq_err *e)
{
    if (!fu) return -ENOMEM;
    int rc = fut_await(fu);
    if (rc) return pqf_io_fail(e, rc, (int64_t)off, f->file->name, fut_message(fu));
    *b = fut_value(fu);
    return 0;
}

void (*pqf_async_read_hook)(const io_file_t *file);

/* rc, or -EIO with e naming the file when a page of f's mapping (io_map.c, read mode mmap)
 * was found past its end while the footer's bytes were parsed: they may be zeros, which
 * would otherwise fail the parse as a file that is not Parquet. */
static int check_faulted(const pqf_t *f, int rc, pq_err *e)
{
    char lost[sizeof e->msg];
    if (io_file_faulted(f->file, lost, sizeof lost))
        return pqf_io_fail(e, -EIO, -1, f->file->name, lost);
    return rc;
}

/* Reads and parses f's footer through io (tail, then the metadata's start when it is
 * longer). */
static int read_footer(pqf_t *f, io_ctx_t *io, size_t tail_max, const pq_meta_limits *limits,
                       pq_err *e)
{
    size_t tail_len;
    int rc = pqf_tail_len(f, tail_max, &tail_len, e);
    if (rc) return rc;
    uint64_t tail_off = f->file->size_bytes - tail_len;
    fut_t *tail = io_read_tail(io, f->file, tail_len), *rest = NULL;
    const io_bytes *t = NULL, *m = NULL;
    rc = await_bytes(tail, f, tail_off, &t, e);
    bool more = false;
    if (rc == 0 && pqf_async_read_hook) pqf_async_read_hook(f->file);
    if (rc == 0) f->tail_reads = 1, rc = pqf_footer_tail(f, t->data, t->len, limits, &more, e);
    if (rc == 0 && more) {
        f->tail_reads = 2;
        rest = io_read(io, f->file, f->meta_offset, f->meta_len);
        rc = await_bytes(rest, f, f->meta_offset, &m, e);
        if (rc == 0) rc = pqf_footer_meta(f, m->data, t->data, t->len, limits, e);
    }
    rc = check_faulted(f, rc, e); /* after the last use of the bytes (io_map.c inv. 2) */
    if (rest) fut_unref(rest);
    if (tail) fut_unref(tail);
    return rc;
}

int pqf_open_async(pqf_t **out, io_ctx_t *io, const char *path, const io_open_opts *o,
                   size_t tail_max, const pq_meta_limits *limits, pq_err *e)
{
    assert(out && io && path && exec_current());
    *out = NULL;
    pqf_t *f = pqf_new();
    if (!f) return -ENOMEM;
    char msg[256];
    int rc = io_file_open_await(io, &f->file, path, o, msg, sizeof msg);
    if (rc) {
        pqf_close(f);
        return pqf_io_fail(e, rc, -1, path, msg);
    }
    rc = read_footer(f, io, tail_max, limits, e);
    if (rc) {
        pqf_close(f);
        return rc;
    }
    *out = f;
    return 0;
}
