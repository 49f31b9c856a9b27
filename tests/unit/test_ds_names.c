/* tests for scan/ds_names.c: every lookup agrees with the linear scans it replaced (the first
 * entry spelled so; the entries equal but for ASCII case, in order), over names drawn so that
 * case variants, exact repeats, length-bounded keys and table growth all occur, before and
 * after a cut. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rand_names.h"
#include "scan/ds_names.h"

enum { NAMES = 3000, NAME_MAX_BYTES = 8 };

static char pool[NAMES][NAME_MAX_BYTES + 1];

static uint64_t rng = 0x9e3779b97f4a7c15u;

static void draw(char *out) { rn_draw(&rng, out, 0, NAME_MAX_BYTES, "aAbB_."); }

static bool ascii_same(const char *a, const char *b, size_t len, bool folded)
{
    for (size_t i = 0; i < len; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (folded && x >= 'A' && x <= 'Z') x += 32;
        if (folded && y >= 'A' && y <= 'Z') y += 32;
        if (x == 0 || x != y) return false;
    }
    return a[len] == 0;
}

/* Every lookup of key[0 .. len) in x (entries pool[0 .. x->n)) against a scan of the pool. */
static void agrees(const ds_names *x, const char *key, size_t len)
{
    int32_t exact = -1, first = -1;
    for (int32_t i = 0; i < x->n && exact < 0; i++)
        if (ascii_same(pool[i], key, len, false)) exact = i;
    CHECK_EQ_I64(ds_names_exact(x, key, len), exact);
    int32_t g = ds_names_group(x, key, len);
    for (int32_t i = 0; i < x->n; i++) {
        if (!ascii_same(pool[i], key, len, true)) continue;
        if (first < 0) CHECK_EQ_I64(g, i); /* the group's first, then each in order */
        first = i;
        if (g != i) {
            fprintf(stderr, "  key '%.*s': entry %d missing from its group\n", (int)len, key, (int)i);
            CHECK(g == i);
            return;
        }
        g = x->next[g];
    }
    CHECK_EQ_I64(g, -1); /* nothing past the last */
}

static void check_all(const ds_names *x)
{
    char key[NAME_MAX_BYTES + 8];
    for (int32_t i = 0; i < x->n; i += 7) agrees(x, pool[i], strlen(pool[i]));
    for (int k = 0; k < 500; k++) { /* keys of any spelling, some in no entry */
        draw(key);
        agrees(x, key, strlen(key));
        size_t len = strlen(key);
        strcat(key, ".x"); /* a bounded key: its first len bytes alone */
        agrees(x, key, len);
    }
}

static void lookups_agree(void)
{
    ds_names x = {0};
    CHECK_EQ_I64(ds_names_exact(&x, "a", 1), -1); /* an empty index */
    CHECK_EQ_I64(ds_names_group(&x, "a", 1), -1);
    for (int32_t i = 0; i < NAMES; i++) draw(pool[i]);
    for (int32_t i = 0; i < NAMES / 2; i++) CHECK(ds_names_add(&x, pool[i]) == 0);
    CHECK(x.cap >= 2 * x.n && (x.cap & (x.cap - 1)) == 0);
    check_all(&x);
    ds_names_cut(&x, NAMES / 5); /* as ds_schema_drop_parts: the tail's entries gone */
    CHECK_EQ_I64(x.n, NAMES / 5);
    check_all(&x);
    for (int32_t i = NAMES / 5; i < NAMES; i++) CHECK(ds_names_add(&x, pool[i]) == 0);
    check_all(&x);
    ds_names_cut(&x, 0);
    CHECK_EQ_I64(ds_names_exact(&x, pool[0], strlen(pool[0])), -1);
    ds_names_free(&x);
}

/* Column names as a wide schema has them: c0 .. c19999 and, every 3rd, its upper-case twin. */
static void wide_schema(void)
{
    static char names[26667][16];
    ds_names x = {0};
    int32_t n = 0;
    for (int32_t i = 0; i < 20000; i++) {
        snprintf(names[n], sizeof names[n], "c%d", (int)i);
        CHECK(ds_names_add(&x, names[n++]) == 0);
        if (i % 3) continue;
        snprintf(names[n], sizeof names[n], "C%d", (int)i);
        CHECK(ds_names_add(&x, names[n++]) == 0);
    }
    char key[16];
    for (int32_t i = 0, e = 0; i < 20000; i++) {
        snprintf(key, sizeof key, "c%d", (int)i);
        CHECK_EQ_I64(ds_names_exact(&x, key, strlen(key)), e);
        CHECK_EQ_I64(ds_names_group(&x, key, strlen(key)), e);
        CHECK_EQ_I64(x.next[e], i % 3 ? -1 : e + 1);
        key[0] = 'C';
        CHECK_EQ_I64(ds_names_exact(&x, key, strlen(key)), i % 3 ? -1 : e + 1);
        e += i % 3 ? 1 : 2;
    }
    ds_names_free(&x);
}

int main(void)
{
    RUN(lookups_agree);
    RUN(wide_schema);
    return CHECK_DONE("test_ds_names");
}
