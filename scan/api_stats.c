/* scan/api_stats.c: a scan's counters and plan text (ringscan_scan_stats, ringscan_scan_explain)
 * from its file's scan or its dataset's. */
#include "ringscan.h"

#include <stdatomic.h>
#include <string.h>

#include "scan/api_priv.h"
#include "scan/ds_scan.h"
#include "scan/scan.h"

void ringscan_scan_stats(ringscan_scan *s, ringscan_stats *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!s) return;
    scan_stats st;
    int64_t files = 1, pruned = 0, footers = 1;
    bool complete = false;
    if (s->ds) ds_scan_stats(s->ds, &st, &files, &pruned, &footers, &complete);
    else scan_get_stats(s->scan, &st), complete = scan_finished(s->scan);
    *out = (ringscan_stats){.reads = st.reads, .bytes_read = st.bytes_read, .bytes_used = st.bytes_used,
                            .bytes_wasted = st.bytes_wasted, .cancelled_reads = st.cancelled_reads,
                            .row_groups_total = st.row_groups_total,
                            .row_groups_pruned = st.row_groups_pruned, .pages_total = st.pages_total,
                            .pages_pruned = st.pages_pruned, .rows_scanned = st.rows_scanned,
                            .rows_out = st.rows_out - atomic_load(&s->rows_dropped), .io_uring = st.uring, .splits = st.splits,
                            .splits_all_false = st.splits_all_false, .plan_reads = st.plan_reads,
                            .plan_bytes = st.plan_bytes, .pages_dict_evaluated = st.dict_eval_pages,
                            .pages_sel_evaluated = st.sel_eval_pages,
                            .bytes_decompressed = st.bytes_decompressed, .steals = st.steals,
                            .reads_lent = st.reads_lent, .splits_done = st.splits_done,
                            .topk_splits_pruned = st.topk_splits_dead,
                            .topk_rows_kept = st.topk_rows_kept,
                            .topk_pages_pruned = st.topk_pages_dead,
                            .complete = complete, .files = files, .files_pruned = pruned,
                            .footers_read = footers, .runtimes = st.runtimes,
                            .core_rows_min = st.core_rows_min, .core_rows_max = st.core_rows_max,
                            .bytes_skipped = st.bytes_skipped,
                            .budget_peak_bytes = st.budget_peak_bytes,
                            .footer_bytes_peak = st.footer_bytes_peak,
                            .footer_reads = st.footer_reads,
                            .footers_on_cores = st.footers_on_cores,
                            .reads_kept = st.reads_kept, .bytes_kept = st.bytes_kept};
    if (!s->ds && s->file) out->footer_reads = s->file->f->tail_reads; /* its own footer's */
    io_store_counts sc;
    if (s->ds) ds_scan_store(s->ds, &sc);
    else io_file_counts(s->file ? s->file->f->file : NULL, &sc);
    scan_api_store_stats(&sc, out);
    _Static_assert(sizeof out->io_backend == sizeof st.io_backend, "io_backend sizes differ");
    memcpy(out->io_backend, st.io_backend, sizeof out->io_backend);
}

const char *ringscan_scan_explain(ringscan_scan *s)
{
    return !s ? "" : s->ds ? ds_scan_explain(s->ds) : scan_explain(s->scan);
}
