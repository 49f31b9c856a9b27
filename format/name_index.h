/* format/name_index.h: a sorted index of names, for lookups by name in schemas of many
 * columns (a projection of n names over a schema of m columns was n linear scans: 20,000
 * names over 20,000 columns took 6 s to start, issue 23).
 *
 * Invariants:
 *  1. An index of n refs is sorted by name ignoring ASCII case (in ASCII alone, whatever the
 *     locale), then by name as spelled, then by position (`at`): the refs of one spelling are
 *     together, the first of them the one a linear scan from the start finds first, and the
 *     refs equal but for case are together.
 *  2. Lookups are binary searches: O(log n) string comparisons; a folded lookup then looks
 *     at one ref more (it tells one from several, never counts them all).
 *  3. The index borrows the names (the schema's arena or buffer outlives it); n is bounded by
 *     the schema's own limit (max_columns, PQA_FIELDS_MAX), and its bytes are
 *     n * sizeof(pq_name_ref). */
#ifndef RINGSCAN_FORMAT_NAME_INDEX_H
#define RINGSCAN_FORMAT_NAME_INDEX_H
#include <stdint.h>

typedef struct pq_name_ref {
    const char *name;
    int32_t at; /* the position of the named thing in its array */
} pq_name_ref;

/* strcasecmp in ASCII alone (<0, 0, >0): the order must not change with the locale between a
 * sort and a lookup (a host calling setlocale), and SQL names match but for ASCII case. */
int pq_ascii_casecmp(const char *a, const char *b);
/* Sorts refs[0..n) into invariant 1's order (n >= 0; every name non-NULL). */
void pq_name_index_sort(pq_name_ref *refs, int32_t n);
/* The position (`at`) of the first ref spelled as name, or -1. */
int32_t pq_name_index_find(const pq_name_ref *refs, int32_t n, const char *name);
/* As SQL identifiers match (pq_columns_find's rule): the first ref spelled as name, else the
 * only one whose name differs from it in case alone; its position, -1 when none matches, -2
 * when several do. */
int32_t pq_name_index_folded(const pq_name_ref *refs, int32_t n, const char *name);
/* As dictionary_columns names projected columns (scan/arrow_types.c), where one name may be
 * projected twice: the index in refs (not the position) of the first ref spelled as name,
 * else of the first ref of the one spelling equal to name but for case; -1 when none matches,
 * -2 when several spellings do. The refs of that spelling are refs[i], refs[i + 1], ... while
 * spelled alike, in the order of their positions. O(log n) comparisons. */
int32_t pq_name_index_spelling(const pq_name_ref *refs, int32_t n, const char *name);
/* The refs whose names equal name but for ASCII case: refs[i .. *end), i returned (i == *end
 * when none). O(log n) comparisons. */
int32_t pq_name_index_run(const pq_name_ref *refs, int32_t n, const char *name, int32_t *end);

#endif
