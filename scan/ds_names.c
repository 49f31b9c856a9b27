/* scan/ds_names.c: the name index of a dataset's schema (ds_names.h, invariants there). */
#include "scan/ds_names.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

static inline int fold(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* FNV-1a of name[0 .. len), its bytes folded to ASCII lower case when folded. */
static uint32_t hash(const char *name, size_t len, bool folded)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)name[i];
        h = (h ^ (uint32_t)(folded ? fold(c) : c)) * 16777619u;
    }
    return h;
}

/* Whether entry name e is name[0 .. len): as spelled, or but for ASCII case (folded). */
static bool same(const char *e, const char *name, size_t len, bool folded)
{
    for (size_t i = 0; i < len; i++) {
        int a = (unsigned char)e[i], b = (unsigned char)name[i];
        if (a == 0 || (folded ? fold(a) != fold(b) : a != b)) return false;
    }
    return e[len] == 0;
}

/* The slot of table t holding name[0 .. len) (hash h), else the empty slot ending its probe
 * sequence (invariant 2: there is one). */
static uint32_t probe(const ds_names *x, const int32_t *t, const char *name, size_t len,
                      uint32_t h, bool folded)
{
    uint32_t mask = (uint32_t)x->cap - 1;
    const uint32_t *hs = folded ? x->hash_folded : x->hash_exact;
    for (uint32_t i = h & mask, k = 0;; i = (i + 1) & mask, k++) {
        assert(k < (uint32_t)x->cap); /* at most half full: an empty slot comes first */
        int32_t e = t[i] - 1;
        if (e < 0 || (hs[e] == h && same(x->name[e], name, len, folded))) return i;
    }
}

/* Entry e into both tables and its group (the entries before it are in them). */
static void place(ds_names *x, int32_t e)
{
    assert(e >= 0 && e < x->n && 2 * (int64_t)x->n <= x->cap);
    const char *name = x->name[e];
    size_t len = strlen(name);
    uint32_t i = probe(x, x->exact, name, len, x->hash_exact[e], false);
    if (x->exact[i] == 0) x->exact[i] = e + 1; /* else the first so spelled keeps it */
    i = probe(x, x->folded, name, len, x->hash_folded[e], true);
    x->next[e] = -1, x->tail[e] = e;
    if (x->folded[i] == 0) {
        x->folded[i] = e + 1;
        return;
    }
    int32_t first = x->folded[i] - 1;
    assert(first < e && x->next[x->tail[first]] == -1);
    x->next[x->tail[first]] = e, x->tail[first] = e;
}

/* Tables of cap slots, every entry placed again. 0 or -ENOMEM (x unchanged). */
static int rehash(ds_names *x, int32_t cap)
{
    int32_t *exact = fail_calloc((size_t)cap, sizeof *exact);
    int32_t *folded = fail_calloc((size_t)cap, sizeof *folded);
    if (!exact || !folded) {
        free(exact), free(folded);
        return -ENOMEM;
    }
    free(x->exact), free(x->folded);
    x->exact = exact, x->folded = folded, x->cap = cap;
    for (int32_t e = 0; e < x->n; e++) place(x, e);
    return 0;
}

/* Room for entry x->n in the entry arrays. 0 or -ENOMEM (x's entries unchanged). */
static int grow_entries(ds_names *x)
{
    if (x->n < x->ncap) return 0;
    int32_t ncap = x->ncap ? 2 * x->ncap : 32;
    const char **name = fail_realloc(x->name, sizeof *name * (size_t)ncap);
    if (name) x->name = name;
    uint32_t *he = name ? fail_realloc(x->hash_exact, sizeof *he * (size_t)ncap) : NULL;
    if (he) x->hash_exact = he;
    uint32_t *hf = he ? fail_realloc(x->hash_folded, sizeof *hf * (size_t)ncap) : NULL;
    if (hf) x->hash_folded = hf;
    int32_t *next = hf ? fail_realloc(x->next, sizeof *next * (size_t)ncap) : NULL;
    if (next) x->next = next;
    int32_t *tail = next ? fail_realloc(x->tail, sizeof *tail * (size_t)ncap) : NULL;
    if (tail) x->tail = tail;
    if (!tail) return -ENOMEM; /* (the arrays grown so far keep their first ncap entries) */
    x->ncap = ncap;
    return 0;
}

int ds_names_add(ds_names *x, const char *name)
{
    assert(name && x->n >= 0 && x->n <= x->ncap);
    if (x->n >= DS_NAMES_MAX - 1) return -ENOMEM; /* (ds_names.h: the tables' bound) */
    int rc = grow_entries(x);
    if (rc == 0 && 2 * (x->n + 1) > x->cap) rc = rehash(x, x->cap ? 2 * x->cap : 64);
    if (rc) return rc;
    size_t len = strlen(name);
    int32_t e = x->n++;
    x->name[e] = name;
    x->hash_exact[e] = hash(name, len, false), x->hash_folded[e] = hash(name, len, true);
    place(x, e);
    return 0;
}

int32_t ds_names_exact(const ds_names *x, const char *name, size_t len)
{
    if (x->cap == 0) return -1;
    return x->exact[probe(x, x->exact, name, len, hash(name, len, false), false)] - 1;
}

int32_t ds_names_group(const ds_names *x, const char *name, size_t len)
{
    if (x->cap == 0) return -1;
    return x->folded[probe(x, x->folded, name, len, hash(name, len, true), true)] - 1;
}

void ds_names_cut(ds_names *x, int32_t n)
{
    assert(n >= 0 && n <= x->n);
    if (x->cap == 0) return;
    memset(x->exact, 0, sizeof *x->exact * (size_t)x->cap);
    memset(x->folded, 0, sizeof *x->folded * (size_t)x->cap);
    x->n = n;
    for (int32_t e = 0; e < n; e++) place(x, e);
}

void ds_names_free(ds_names *x)
{
    free(x->name), free(x->hash_exact), free(x->hash_folded), free(x->next), free(x->tail);
    free(x->exact), free(x->folded);
    *x = (ds_names){0};
}
