/* format/meta_check.c: the one place where the counts, offsets and sizes of a parsed
 * FileMetaData are checked against each other and against the file before anything uses them.
 *
 * pq_file_meta_parse checks each field alone (types, ranges >= 0, list lengths against the
 * bytes left); this file checks what only the whole footer can show. After it returns 0:
 *  1. Every row group holds 0..PQ_MAX_ROW_GROUP_ROWS rows and their sum is the file's num_rows
 *     (so no sum or product of row counts below can overflow an int64_t); a footer num_rows
 *     of 0 over groups that hold rows is set to their sum first (parquet-rs 0.3.0 wrote 0;
 *     pyarrow reads the groups' rows), the one field this file writes.
 *  2. Every column chunk without repetition levels holds exactly its row group's row count of
 *     values, so a decoder's value count is bounded by 1; a repeated leaf's chunk holds at least
 *     one value (a level) per row.
 *  3. A chunk's statistics count at most its values as nulls, and none in a REQUIRED column
 *     (a schema that says REQUIRED over pages written with nulls would decode their levels
 *     as values).
 *  4. Every chunk's data page offset and compressed size lie inside the file, and its
 *     uncompressed size is at most PQ_MAX_CHUNK_UNCOMPRESSED_BYTES, so size estimates made
 *     from it fit in any arithmetic on int64_t.
 * Statuses: RINGSCAN_EFORMAT for inconsistent metadata, RINGSCAN_ELIMIT for values past a
 * limit; the message names the row group and the column. */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "format/meta.h"

static int fail(pq_err *e, int status, const pq_file_meta *m, int32_t col, const char *fmt,
                long long a, long long b, int32_t rg)
{
    if (col >= 0) pq_err_column(e, m->columns[col].name);
    int rc = pq_errf(e, status, -1, fmt, a, b);
    if (e && rg >= 0) {
        char tail[48];
        snprintf(tail, sizeof tail, " (row group %d)", (int)rg);
        size_t n = strlen(e->msg);
        snprintf(e->msg + n, sizeof e->msg - n, "%s", tail);
    }
    return rc;
}

static int check_chunk(const pq_file_meta *m, int32_t rg, int32_t col, uint64_t file_size,
                       pq_err *e)
{
    const pq_chunk_meta *cm = &m->row_groups[rg].chunks[col];
    int64_t rows = m->row_groups[rg].num_rows, values = cm->num_values;
    bool repeated = m->columns[col].max_rep_level > 0;
    if (repeated ? values < rows : values != rows)
        return fail(e, RINGSCAN_EFORMAT, m, col, "column chunk holds %lld values, its row group %lld rows",
                    (long long)values, (long long)rows, rg);
    const pq_stats *st = &cm->stats; /* its null count is set even while pending (meta.h 6) */
    if (st->has_null_count && (st->null_count < 0 || st->null_count > values))
        return fail(e, RINGSCAN_EFORMAT, m, col, "statistics count %lld nulls among %lld values",
                    (long long)st->null_count, (long long)values, rg);
    if (st->has_null_count && st->null_count > 0 && m->columns[col].max_def_level == 0)
        return fail(e, RINGSCAN_EFORMAT, m, col,
                    "column is REQUIRED, its statistics count %lld nulls among %lld values",
                    (long long)st->null_count, (long long)values, rg);
    if (cm->data_page_offset < 0 || (uint64_t)cm->data_page_offset >= file_size)
        return fail(e, RINGSCAN_EFORMAT, m, col, "data page offset %lld outside the file of %lld bytes",
                    (long long)cm->data_page_offset, (long long)file_size, rg);
    if (cm->total_compressed_size < 0 || (uint64_t)cm->total_compressed_size > file_size)
        return fail(e, RINGSCAN_EFORMAT, m, col, "compressed size %lld reaches outside the file of %lld bytes",
                    (long long)cm->total_compressed_size, (long long)file_size, rg);
    if (cm->total_uncompressed_size < 0 || cm->total_uncompressed_size > PQ_MAX_CHUNK_UNCOMPRESSED_BYTES)
        return fail(e, RINGSCAN_ELIMIT, m, col, "uncompressed size %lld above the limit %lld",
                    (long long)cm->total_uncompressed_size, (long long)PQ_MAX_CHUNK_UNCOMPRESSED_BYTES, rg);
    return 0;
}

int pq_file_meta_check(pq_file_meta *m, uint64_t file_size, pq_err *e)
{
    assert(m && m->nrow_groups >= 0 && m->ncolumns >= 0);
    assert(m->nrow_groups == 0 || m->row_groups);
    int64_t sum = 0;
    for (int32_t rg = 0; rg < m->nrow_groups; rg++) {
        const pq_row_group *g = &m->row_groups[rg];
        if (g->num_rows < 0 || g->num_rows > PQ_MAX_ROW_GROUP_ROWS)
            return fail(e, RINGSCAN_ELIMIT, m, -1, "row group of %lld rows above the limit %lld",
                        (long long)g->num_rows, (long long)PQ_MAX_ROW_GROUP_ROWS, rg);
        sum += g->num_rows; /* <= 2^20 groups of <= 2^30 rows: no overflow (invariant 1) */
        for (int32_t c = 0; c < m->ncolumns; c++) {
            int rc = check_chunk(m, rg, c, file_size, e);
            if (rc) return rc;
        }
    }
    if (m->num_rows == 0 && sum > 0) /* parquet-rs 0.3.0 wrote 0: the groups' rows are read */
        m->num_rows = sum;
    if (sum != m->num_rows)
        return fail(e, RINGSCAN_EFORMAT, m, -1, "row groups hold %lld rows, the file says %lld",
                    (long long)sum, (long long)m->num_rows, -1);
    return 0;
}
