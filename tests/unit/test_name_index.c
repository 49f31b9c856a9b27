/* tests for format/name_index.c's lookups that replaced walks: pq_name_index_spelling against
 * the walk dictionary_columns made over the projection (scan/arrow_types.c's dict_col and the
 * copies it marked), and pq_name_index_run against a walk for the names equal but for case
 * (format/meta.c pq_file_meta_top_name's top-level fields), over random names with case
 * variants, a name projected several times, and growth up to 20,000 names. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rand_names.h"
#include "format/name_index.h"

enum { NAMES = 4000, NAME_BYTES = 5, WIDE = 20000 };

static char pool[NAMES][NAME_BYTES + 1];
static pq_name_ref refs[WIDE];

static uint64_t rng = 0x9e3779b97f4a7c15u;

static void draw(char *out) { rn_draw(&rng, out, 0, NAME_BYTES, "aAb_"); }

static bool fold_same(const char *a, const char *b) { return rn_fold_same(a, b); }

/* dict_col as it was: the first spelled so, else the first equal but for case when every one
 * is spelled alike; n when none or several spellings. */
static int32_t dict_walk(int32_t n, const char *name)
{
    int32_t exact = 0, folded = n;
    while (exact < n && strcmp(pool[exact], name) != 0) exact++;
    if (exact < n) return exact;
    for (int32_t i = 0; i < n; i++) {
        if (!fold_same(pool[i], name)) continue;
        if (folded < n && strcmp(pool[folded], pool[i]) != 0) return n; /* several */
        if (folded == n) folded = i;
    }
    return folded;
}

/* Every lookup of name over pool[0 .. n) (refs sorted) against the walks. */
static void agrees(int32_t n, const char *name)
{
    int32_t want = dict_walk(n, name), r = pq_name_index_spelling(refs, n, name);
    int32_t got = r >= 0 ? refs[r].at : n;
    if (got != want) fprintf(stderr, "  %d names, '%s': %d, the walk %d\n", (int)n, name, (int)got, (int)want);
    CHECK_EQ_I64(got, want);
    if (r == -2) /* several spellings: the walk found an equal one it could not choose */
        for (int32_t i = 0; i < n; i++) CHECK(strcmp(pool[i], name) != 0);
    int32_t marked = 0; /* the copies marked: every one spelled as the found one, no other */
    for (int32_t k = r; r >= 0 && k < n && strcmp(refs[k].name, pool[got]) == 0; k++, marked++)
        CHECK(k == r || refs[k].at > refs[k - 1].at);
    int32_t copies = 0;
    for (int32_t i = 0; r >= 0 && i < n; i++) copies += strcmp(pool[i], pool[got]) == 0;
    CHECK_EQ_I64(marked, copies);
    int32_t end, lo = pq_name_index_run(refs, n, name, &end), alike = 0;
    for (int32_t i = 0; i < n; i++) alike += fold_same(pool[i], name);
    CHECK_EQ_I64(end - lo, alike);
    for (int32_t k = lo; k < end; k++) CHECK(fold_same(refs[k].name, name));
}

static void sorted(int32_t n)
{
    for (int32_t i = 0; i < n; i++) refs[i] = (pq_name_ref){pool[i], i};
    pq_name_index_sort(refs, n);
}

static void random_names(void)
{
    static const int32_t sizes[] = {0, 1, 2, 7, 50, 400, NAMES};
    char key[NAME_BYTES + 1];
    for (int32_t i = 0; i < NAMES; i++) draw(pool[i]);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) { /* growth: prefixes */
        int32_t n = sizes[s];
        sorted(n);
        for (int32_t i = 0; i < n; i += 3) agrees(n, pool[i]);
        for (int k = 0; k < 300; k++) draw(key), agrees(n, key);
    }
}

/* 20,000 projected names c0 .. c19999, every 5th projected twice, every 7th in upper case. */
static void wide_projection(void)
{
    static char names[WIDE][12];
    int32_t n = 0;
    for (int32_t i = 0; n < WIDE; i++) {
        snprintf(names[n], sizeof names[n], "%c%d", i % 7 ? 'c' : 'C', (int)i);
        refs[n] = (pq_name_ref){names[n], n}, n++;
        if (i % 5 || n == WIDE) continue;
        refs[n] = (pq_name_ref){names[n - 1], n}, n++; /* a copy */
    }
    pq_name_index_sort(refs, n);
    char key[12];
    for (int32_t i = 0, at = 0; at < WIDE; i++) {
        snprintf(key, sizeof key, "c%d", (int)i); /* (an upper-case one found but for case) */
        int32_t r = pq_name_index_spelling(refs, n, key);
        CHECK(r >= 0 && refs[r].at == at);
        bool copy = i % 5 == 0 && at + 1 < WIDE;
        if (r >= 0 && copy) CHECK(r + 1 < n && refs[r + 1].at == at + 1);
        at += copy ? 2 : 1;
    }
    CHECK_EQ_I64(pq_name_index_spelling(refs, n, "c20000000"), -1);
}

int main(void)
{
    RUN(random_names);
    RUN(wide_projection);
    return CHECK_DONE("test_name_index");
}
