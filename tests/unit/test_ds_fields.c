/* tests for scan/ds_fields.c: a struct field found through the two structs' name indexes is
 * the one the walks it replaced (ds_nmatch.c field_of and alike, ds_nunion.c child_named)
 * found: the first spelled so, else the only one equal but for ASCII case unless the other
 * struct has a case twin of it; over random fields with case variants, repeats and every
 * size from the walk's to a 20,000-field struct's. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rand_names.h"
#include "common/fail.h"
#include "scan/ds_fields.h"

enum { FIELDS = 3000, NAME_BYTES = 5, WIDE = 20000 };

static char in_names[FIELDS][NAME_BYTES + 1], own_names[FIELDS][NAME_BYTES + 1];

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint32_t next_rand(void) { return rn_next(&rng); }

static void draw(char *out) { rn_draw(&rng, out, 1, NAME_BYTES, "aAbB"); }

static bool fold_same(const char *a, const char *b) { return rn_fold_same(a, b); }

/* The walk ds_fields replaced (field_of with alike): in's position of name, or -1. */
static int32_t walk(const char (*in)[NAME_BYTES + 1], int32_t nin,
                    const char (*own)[NAME_BYTES + 1], int32_t nown, const char *name)
{
    int32_t folded = -1, n = 0, alike = 0;
    for (int32_t g = 0; g < nin; g++) {
        if (strcmp(in[g], name) == 0) return g;
        if (fold_same(in[g], name)) folded = g, n++;
    }
    for (int32_t c = 0; c < nown; c++) alike += fold_same(own[c], name);
    return n == 1 && alike == 1 ? folded : -1;
}

static void build(ds_fields *f, const char (*names)[NAME_BYTES + 1], int32_t n, int32_t other)
{
    ds_fields_init(f, n, other);
    for (int32_t k = 0; k < n; k++) ds_fields_add(f, names[k], 1000 + 3 * k);
}

/* Structs of nin and nown random fields: every field of own looked up in in. */
static void sizes(int32_t nin, int32_t nown)
{
    for (int32_t k = 0; k < nin; k++) draw(in_names[k]);
    for (int32_t k = 0; k < nown; k++) draw(own_names[k]);
    for (int32_t k = 0; k < nown && nin > 0; k += 4) /* (some spelled as in's, exactly) */
        strcpy(own_names[k], in_names[next_rand() % (uint32_t)nin]);
    ds_fields in, own;
    build(&in, in_names, nin, nown), build(&own, own_names, nown, nin);
    bool many = nin >= DS_FIELDS_MIN || nown >= DS_FIELDS_MIN;
    CHECK(in.on == many && own.on == many); /* (small beside small: walked) */
    for (int32_t c = 0; many && c < nown; c++) {
        int32_t want = walk(in_names, nin, own_names, nown, own_names[c]);
        int32_t got = ds_fields_pair(&in, &own, own_names[c]);
        if (got != want)
            fprintf(stderr, "  %d x %d fields, '%s': %d, the walk %d\n", (int)nin, (int)nown,
                    own_names[c], (int)got, (int)want);
        CHECK_EQ_I64(got, want);
        if (got >= 0) CHECK_EQ_I64(in.node[got], 1000 + 3 * got);
    }
    ds_fields_free(&in), ds_fields_free(&own);
    CHECK(!in.on && in.node == NULL);
}

static void random_fields(void)
{
    static const int32_t n[] = {0, 1, 5, 15, 16, 17, 64, 300, FIELDS};
    for (size_t a = 0; a < sizeof n / sizeof *n; a++)
        for (size_t b = 0; b < sizeof n / sizeof *n; b++)
            if (n[b] > 0) sizes(n[a], n[b]);
}

/* A 20,000-field struct beside one of the same fields reversed, every 3rd in upper case, and
 * one holding both "f7" and "F7" (each paired by its exact name only). */
static void wide_struct(void)
{
    static char a[WIDE][12], b[WIDE + 1][12];
    ds_fields in, own;
    ds_fields_init(&in, WIDE, WIDE + 1), ds_fields_init(&own, WIDE + 1, WIDE);
    for (int32_t k = 0; k < WIDE; k++) {
        snprintf(a[k], sizeof a[k], "f%d", (int)k);
        ds_fields_add(&in, a[k], k);
    }
    for (int32_t k = 0; k < WIDE; k++) {
        snprintf(b[k], sizeof b[k], "%c%d", (WIDE - 1 - k) % 3 ? 'f' : 'F', (int)(WIDE - 1 - k));
        ds_fields_add(&own, b[k], k);
    }
    strcpy(b[WIDE], "f3"); /* own's F3 now has a twin: neither pairs but by exact name */
    ds_fields_add(&own, b[WIDE], WIDE);
    CHECK(in.on && own.on);
    for (int32_t k = 0; k < WIDE; k++) {
        int32_t f = WIDE - 1 - k, want = f == 3 ? -1 : f;
        CHECK_EQ_I64(ds_fields_pair(&in, &own, b[k]), want);
    }
    CHECK_EQ_I64(ds_fields_pair(&in, &own, "f3"), 3);
    ds_fields_free(&in), ds_fields_free(&own);
}

/* Out of memory at each allocation an index of 100 fields makes: the index is off, holding
 * nothing (ds_fields.h invariant 2: the callers walk instead), or whole and right. */
static void out_of_memory(void)
{
    static char names[100][8];
    for (int k = 0; k < 100; k++) snprintf(names[k], sizeof names[k], "f%d", k);
    for (int nth = 1; nth <= 40; nth++) {
        ds_fields x;
        fail_arm(FAIL_ALLOC, nth, false);
        ds_fields_init(&x, 100, 0);
        for (int k = 0; k < 100; k++) ds_fields_add(&x, names[k], k);
        bool fired = fail_points_fired() > 0;
        fail_disarm();
        CHECK(x.on != fired);
        if (!x.on) CHECK(x.node == NULL && x.names.n == 0 && x.names.cap == 0);
        for (int k = 0; x.on && k < 100; k++) CHECK_EQ_I64(ds_fields_pair(&x, &x, names[k]), k);
        ds_fields_free(&x);
    }
}

int main(void)
{
    RUN(random_fields);
    RUN(wide_struct);
    RUN(out_of_memory);
    return CHECK_DONE("test_ds_fields");
}
