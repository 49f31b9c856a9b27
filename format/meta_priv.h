/* format/meta_priv.h: declarations shared by format/meta*.c only (not a public interface).
 *
 * Invariants:
 *  1. An arena hands out 16-byte aligned memory that lives until pq_arena_free, zeroed by
 *     pq_arena_alloc (pq_arena_copy fills it with its source instead).
 *  2. A pq_raw_stats points into the buffer being parsed; it is resolved (copied into an
 *     arena, with the usability rules applied) before that buffer may go away. A footer's
 *     chunk statistics are parsed from the arena's copy of their bytes (meta.h 6).
 */
#ifndef RINGSCAN_FORMAT_META_PRIV_H
#define RINGSCAN_FORMAT_META_PRIV_H
#include "format/meta.h"
#include "format/thrift.h"

typedef struct pq_arena pq_arena;

pq_arena *pq_arena_new(void);
/* Zeroed memory of n bytes, or NULL (-ENOMEM) when n is too large or malloc fails. */
void *pq_arena_alloc(pq_arena *a, size_t n);
/* Copy of n bytes (not zeroed beyond them), or NULL (-ENOMEM). */
void *pq_arena_copy(pq_arena *a, const void *p, size_t n);
/* Copy of n bytes plus a terminating NUL. */
char *pq_arena_strdup(pq_arena *a, const uint8_t *p, size_t n);
void pq_arena_free(pq_arena *a);

/* Statistics as written, before the rules of meta_stats.c are applied. */
typedef struct pq_raw_stats {
    const uint8_t *min, *max;             /* legacy fields 2 / 1 */
    const uint8_t *min_value, *max_value; /* fields 6 / 5 */
    uint32_t min_len, max_len, min_value_len, max_value_len;
    bool has_min, has_max, has_min_value, has_max_value;
    bool has_min_exact, min_exact, has_max_exact, max_exact;
    bool has_null_count, has_distinct, has_nan_count;
    int64_t null_count, distinct_count, nan_count;
    bool present;                         /* the Statistics struct was there */
} pq_raw_stats;

/* Reads a Statistics struct (the field header was consumed). 0 or status. */
int pq_raw_stats_read(pq_tr *r, pq_raw_stats *s);
/* Walks a Statistics struct (the field header was consumed) as pq_tr_skip would, keeping only
 * its null count: *has_null_count and *null_count are what pq_raw_stats_read would give
 * whenever it succeeds on the same bytes. Fails only where pq_tr_skip fails. 0 or status. */
int pq_raw_stats_skim(pq_tr *r, bool *has_null_count, int64_t *null_count);
/* Applies the usability rules for column c of a file written by created_by (may be NULL) and
 * copies min/max into a (so out outlives the parsed buffer). 0 or -ENOMEM. */
int pq_stats_resolve(const pq_raw_stats *raw, const pq_column_desc *c, const char *created_by,
                     pq_arena *a, pq_stats *out);
/* Page statistics: copies raw fields without rules (min/max point into the parsed buffer,
 * preferring min_value/max_value); usable stays false. */
void pq_stats_from_raw(const pq_raw_stats *raw, pq_stats *out);
/* True for "parquet-mr version X.Y..." with X.Y < 1.10. */
bool pq_created_by_old_parquet_mr(const char *created_by);

/* Parses the schema list (the field header was consumed) into m->columns. */
int pq_schema_read(pq_tr *r, pq_file_meta *m, pq_arena *a, const pq_meta_limits *lim,
                   pq_err *e);
/* Renames the nodes[0..n) (pre-order, parents known) whose names equal an earlier sibling's
 * but for ASCII case, as DuckDB reads them (meta_names.c); new names live in a. Paths are
 * the caller's to rebuild. Returns the number renamed, or -ENOMEM (e set). */
int pq_schema_rename(pq_schema_node *nodes, int32_t n, pq_arena *a, pq_err *e);

#endif
