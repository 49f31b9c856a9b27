/* scan/api_store.c: the store side of the C API: ringscan_options' store and S3 fields as
 * io/ takes them, and a file's store counters and cost model into ringscan_stats. */
#include "ringscan.h"

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

void scan_api_store_stats(const io_store_counts *c, ringscan_stats *out)
{
    out->store_requests = c->requests, out->store_bytes = c->bytes;
    out->store_body_copies = c->body_copies, out->store_body_bytes_copied = c->body_bytes_copied;
    out->store_model_ttfb_ns = c->model_ttfb_ns, out->store_model_bytes_per_s = c->model_bytes_per_s;
    out->store_model_samples = c->model_samples, out->store_model_bw_samples = c->model_bw_samples;
}
