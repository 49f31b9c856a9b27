/* scan/api_store.c: the store side of the C API: ringscan_options' store and S3 fields as
 * io/ takes them, a file's store counters and cost model into ringscan_stats, and the calls
 * on a path or a status alone (no file). */
#include "ringscan.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/fail.h"
#include "common/status.h"
#include "scan/api_priv.h"

const char *ringscan_strerror(int status)
{
    return status_text(status);
}

/* A NULL path is shown as "" and is no pattern (ringscan.h: every call checks its arguments;
 * both trapped on it). */
void ringscan_path_shown(char *out, size_t cap, const char *path)
{
    if (out && cap > 0) io_path_shown(out, cap, path ? path : "");
}

bool ringscan_path_is_pattern(const char *path)
{
    if (!path) return false;
    return io_is_url(path) ? io_url_has_pattern(path) : strpbrk(path, "*?[") != NULL;
}

void scan_api_io_opts(const ringscan_options *o, io_open_opts *io)
{
    *io = (io_open_opts){.store = o->store, .s3_key_id = o->s3_access_key_id,
                          .s3_secret = o->s3_secret_access_key, .s3_token = o->s3_session_token,
                          .s3_region = o->s3_region, .s3_endpoint = o->s3_endpoint,
                          .tls_insecure = o->tls_insecure,
                          .etag_unchecked = o->unsafe_disable_etag_checks,
                          .read_mode = o->read_mode == RINGSCAN_READ_MMAP ? IO_READ_MMAP
                                                                         : IO_READ_COPY,
                          .cancel = (io_cancel *)o->cancel};
}

/* A ringscan_cancel is io/'s io_cancel (store.h), its references counted there. */
ringscan_cancel *ringscan_cancel_new(void)
{
    return (ringscan_cancel *)io_cancel_new();
}

void ringscan_cancel_request(ringscan_cancel *c)
{
    if (c) io_cancel_request((io_cancel *)c);
}

void ringscan_cancel_free(ringscan_cancel *c)
{
    io_cancel_unref((io_cancel *)c);
}

int scan_api_io_own(io_open_opts *io, char **owned)
{
    const char **f[] = {&io->store, &io->s3_key_id, &io->s3_secret, &io->s3_token, &io->s3_region,
                        &io->s3_endpoint};
    enum { N = sizeof f / sizeof f[0] };
    size_t len[N], total = 1;
    for (int i = 0; i < N; i++) len[i] = *f[i] ? strlen(*f[i]) + 1 : 0, total += len[i];
    char *p = *owned = fail_malloc(total);
    if (!p) return -ENOMEM;
    for (int i = 0; i < N; i++)
        if (*f[i]) memcpy(p, *f[i], len[i]), *f[i] = p, p += len[i];
    assert(p < *owned + total);
    return 0;
}

void scan_api_store_stats(const io_store_counts *c, ringscan_stats *out)
{
    out->store_requests = c->requests, out->store_bytes = c->bytes;
    out->store_body_copies = c->body_copies, out->store_body_bytes_copied = c->body_bytes_copied;
    out->store_model_ttfb_ns = c->model_ttfb_ns, out->store_model_bytes_per_s = c->model_bytes_per_s;
    out->store_model_samples = c->model_samples, out->store_model_bw_samples = c->model_bw_samples;
}
