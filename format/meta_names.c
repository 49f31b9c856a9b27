/* format/meta_names.c: the names a schema's fields are read under when two fields of one group
 * (or two top-level columns) have names that differ in case alone. SQL identifiers match
 * without regard to case, so DuckDB renames such a field, and ringscan reads it as DuckDB does
 * (DuckDB 2.0.1's read_parquet, tests/cli/case_names.py): the fields of a group, in file
 * order, each keep their name unless an earlier one (as renamed) equals it but for ASCII case;
 * then the name becomes name + "_" + k, where k counts how often that name (lowercased) was
 * met before (1 the first time), and the test repeats on the new name. So `a, A` read as
 * `a, A_1`; `a, A, a` as `a, A_1, a_2`; `a_1, a, A` as `a_1, a, A_1_1`.
 *
 * Invariants:
 *  1. After pq_schema_rename no two children of one parent have names equal but for ASCII
 *     case; a renamed node keeps the file's spelling in `spelled` (NULL when not renamed).
 *  2. One table of (parent, lowercased name) -> times met, of a power of two >= 2n slots for
 *     n nodes: every name inserted is a final name (at most n), so a probe always ends.
 *  3. A rename loop makes at most n passes: each pass's candidate is strictly longer and
 *     equal but for case to a distinct name already in the table; so a pass's bytes are
 *     those of a name the footer holds (as renamed) plus at most 11, and a crafted chain
 *     (`a`, `a_1`, `a_1_1`, ... then `A`) costs time and arena bytes in proportion to the
 *     footer's own name bytes.
 *  4. The table's hash is seeded per table (name_seed): a footer's names cannot be chosen to
 *     fall in one probe cluster (with FNV-1a unseeded, 20,000 such names took 0.54 s, about
 *     13 s at max_columns). The names read do not depend on probe order.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/meta_priv.h"
#include "common/fail.h"

typedef struct name_slot {
    const char *name; /* NULL: empty */
    int32_t parent;
    uint32_t met;     /* times the lowercased name was asked for */
} name_slot;

typedef struct name_table {
    name_slot *slots;
    size_t mask;
    uint64_t seed;    /* invariant 4 */
} name_table;

static uint64_t mix64(uint64_t x) /* splitmix64's finalizer */
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A table's seed: the addresses of its slots and of this function's static, both placed by
 * ASLR, so names chosen to collide in one process's table do not in another's (no
 * syscall: format/ does no I/O). */
static uint64_t name_seed(const name_slot *slots)
{
    static const char here;
    return mix64((uint64_t)(uintptr_t)slots ^ mix64((uint64_t)(uintptr_t)&here));
}

static size_t name_hash(const name_table *t, int32_t parent, const char *s)
{
    uint64_t h = 1469598103934665603ull ^ t->seed ^ (uint32_t)parent;
    for (; *s; s++) h = (h ^ (uint8_t)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s)) * 1099511628211ull;
    return (size_t)mix64(h ^ t->seed);
}

/* The slot of (parent, name) as SQL identifiers compare: the one holding it, else the empty
 * slot where it belongs. */
static name_slot *name_find(name_table *t, int32_t parent, const char *name)
{
    size_t i = name_hash(t, parent, name) & t->mask;
    for (size_t probes = 0; probes <= t->mask; probes++, i = (i + 1) & t->mask) {
        name_slot *s = &t->slots[i];
        if (!s->name || (s->parent == parent && strcasecmp(s->name, name) == 0)) return s;
    }
    assert(!"name table full"); /* invariant 2 */
    return NULL;
}

/* Node nd's name as read (invariant 1's rule), inserted in t; NULL on -ENOMEM. */
static const char *name_pick(name_table *t, const pq_schema_node *nd, pq_arena *a, int32_t n)
{
    const char *cur = nd->name;
    name_slot *s = name_find(t, nd->parent, cur);
    for (int32_t pass = 0; s->name; pass++) {
        assert(pass < n); /* invariant 3 */
        unsigned k = s->met++;
        size_t len = strlen(cur) + 12;
        char *next = pq_arena_alloc(a, len);
        if (!next) return NULL;
        snprintf(next, len, "%s_%u", cur, k);
        cur = next;
        s = name_find(t, nd->parent, cur);
    }
    *s = (name_slot){.name = cur, .parent = nd->parent, .met = 1};
    return cur;
}

int pq_schema_rename(pq_schema_node *nodes, int32_t n, pq_arena *a, pq_err *e)
{
    assert(n >= 0);
    size_t cap = 2;
    while (cap < 2 * (size_t)n) cap *= 2;
    name_table t = {.slots = fail_calloc(cap, sizeof *t.slots), .mask = cap - 1};
    if (!t.slots) return pq_errf(e, -ENOMEM, -1, "out of memory");
    t.seed = name_seed(t.slots);
    int renamed = 0;
    for (int32_t i = 0; i < n; i++) {
        const char *nm = name_pick(&t, &nodes[i], a, n);
        if (!nm) {
            free(t.slots);
            return pq_errf(e, -ENOMEM, -1, "out of memory");
        }
        if (nm == nodes[i].name) continue;
        nodes[i].spelled = nodes[i].name;
        nodes[i].name = nm;
        renamed++;
    }
    free(t.slots);
    return renamed;
}
