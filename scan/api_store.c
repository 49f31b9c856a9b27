/* scan/api_store.c: the store side of the C API: ringscan_options' store and S3 fields as
 * io/ takes them, and a file's store counters and cost model into ringscan_stats. */
#include "ringscan.h"

#include <stdatomic.h>

#include "scan/api_priv.h"

void scan_api_io_opts(const ringscan_options *o, io_open_opts *io)
{
    *io = (io_open_opts){.store = o->store, .s3_key_id = o->s3_access_key_id,
                          .s3_secret = o->s3_secret_access_key, .s3_token = o->s3_session_token,
                          .s3_region = o->s3_region, .s3_endpoint = o->s3_endpoint,
                          .tls_insecure = o->tls_insecure,
                          .etag_unchecked = o->unsafe_disable_etag_checks,
                          .read_mode = o->read_mode == RINGSCAN_READ_MMAP ? IO_READ_MMAP
                                                                         : IO_READ_COPY};
}

void scan_api_store_stats(io_file_t *f, ringscan_stats *out)
{
    if (!f || !f->be->remote) return; /* a local file's are 0 */
    out->store_requests = atomic_load_explicit(&f->requests, memory_order_relaxed);
    out->store_bytes = atomic_load_explicit(&f->bytes, memory_order_relaxed);
    out->store_body_copies = atomic_load_explicit(&f->body_copies, memory_order_relaxed);
    out->store_body_bytes_copied = atomic_load_explicit(&f->body_bytes_copied, memory_order_relaxed);
    out->store_model_ttfb_ns = atomic_load_explicit(&f->cost.ttfb_ns, memory_order_relaxed);
    out->store_model_bytes_per_s = atomic_load_explicit(&f->cost.bytes_per_s, memory_order_relaxed);
    out->store_model_samples = atomic_load_explicit(&f->cost.samples, memory_order_relaxed);
    out->store_model_bw_samples = atomic_load_explicit(&f->cost.bw_samples, memory_order_relaxed);
}
