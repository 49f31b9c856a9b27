/* format/name_index.c: the sorted name index of name_index.h (invariants there). */
#include "format/name_index.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int pq_ascii_casecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y || x == 0) return x - y;
    }
}

static int ref_cmp(const void *a, const void *b)
{
    const pq_name_ref *x = a, *y = b;
    int c = pq_ascii_casecmp(x->name, y->name);
    if (c == 0) c = strcmp(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

void pq_name_index_sort(pq_name_ref *refs, int32_t n)
{
    assert(n >= 0 && (n == 0 || refs));
    qsort(refs, (size_t)n, sizeof *refs, ref_cmp);
}

/* The first ref not below name: ignoring case alone (exact false), or then as spelled. */
static int32_t lower_bound(const pq_name_ref *refs, int32_t n, const char *name, bool exact)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) { /* invariant 2: at most log2(n) + 1 steps */
        int32_t mid = lo + (hi - lo) / 2;
        int c = pq_ascii_casecmp(refs[mid].name, name);
        if (c == 0 && exact) c = strcmp(refs[mid].name, name);
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int32_t pq_name_index_find(const pq_name_ref *refs, int32_t n, const char *name)
{
    int32_t i = lower_bound(refs, n, name, true);
    return i < n && strcmp(refs[i].name, name) == 0 ? refs[i].at : -1;
}

int32_t pq_name_index_folded(const pq_name_ref *refs, int32_t n, const char *name)
{
    int32_t exact = pq_name_index_find(refs, n, name);
    if (exact >= 0) return exact;
    int32_t i = lower_bound(refs, n, name, false);
    if (i >= n || pq_ascii_casecmp(refs[i].name, name) != 0) return -1;
    if (i + 1 < n && pq_ascii_casecmp(refs[i + 1].name, name) == 0) return -2; /* several */
    return refs[i].at;
}

/* The first ref above name ignoring case alone (one past the refs equal to it but for case). */
static int32_t upper_bound(const pq_name_ref *refs, int32_t n, const char *name)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) { /* invariant 2 */
        int32_t mid = lo + (hi - lo) / 2;
        if (pq_ascii_casecmp(refs[mid].name, name) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int32_t pq_name_index_spelling(const pq_name_ref *refs, int32_t n, const char *name)
{
    int32_t i = lower_bound(refs, n, name, true);
    if (i < n && strcmp(refs[i].name, name) == 0) return i;
    i = lower_bound(refs, n, name, false);
    if (i >= n || pq_ascii_casecmp(refs[i].name, name) != 0) return -1;
    int32_t last = upper_bound(refs, n, name) - 1; /* (the run is sorted by spelling: one */
    assert(last >= i);                             /* spelling when its ends agree) */
    return strcmp(refs[i].name, refs[last].name) == 0 ? i : -2;
}

int32_t pq_name_index_run(const pq_name_ref *refs, int32_t n, const char *name, int32_t *end)
{
    int32_t i = lower_bound(refs, n, name, false);
    *end = upper_bound(refs, n, name);
    assert(i <= *end && *end <= n);
    return i;
}
