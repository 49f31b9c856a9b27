/* scan/ds_names.h: a dataset schema's column names indexed for lookups by name, grown as
 * files add columns to a union by name (issue 23: each file's column was matched by a scan of
 * the schema, and each projected name by another: a dataset of 3 files of 20,000 columns
 * took 30 s to start a scan of every name).
 *
 * Invariants:
 *  1. Entries [0, n) are the schema's columns [0, n) in order (ds_schema.cols), each name
 *     borrowed: the schema frees a column's name only after ds_names_cut or ds_names_free
 *     dropped its entry, and never renames a column.
 *  2. Two open-addressing tables of cap slots (a power of two, at most half full, so every
 *     probe sequence meets an empty slot) hold entry + 1 (0: empty): `exact`, per distinct
 *     name, its first entry; `folded`, per name folded to ASCII lower case (in ASCII alone,
 *     whatever the locale, as format/name_index.c folds), the first entry of its group.
 *  3. A group (the entries whose names are equal but for ASCII case) is linked in entry order
 *     from its first entry through next[] (-1 ends it); tail[first] is its last entry.
 *  4. A lookup hashes its name once and probes an expected O(1) slots; walking a group costs
 *     its size (names that differ in case alone: rarely more than one). Bytes: 24 per entry
 *     and 8 per slot, at most 2 slots per entry and 64 slots at least; n < DS_NAMES_MAX. */
#ifndef RINGSCAN_SCAN_DS_NAMES_H
#define RINGSCAN_SCAN_DS_NAMES_H
#include <stddef.h>
#include <stdint.h>

enum { DS_NAMES_MAX = 1 << 28 }; /* entries (so 2 * cap never overflows an int32_t) */

typedef struct ds_names {
    int32_t n;                  /* entries (invariant 1) */
    int32_t ncap;               /* room in name, hash_exact, hash_folded, next, tail */
    int32_t cap;                /* slots in exact and folded: 0, or a power of two >= 2 n */
    const char **name;          /* [ncap], borrowed */
    uint32_t *hash_exact;       /* [ncap]: each name's hashes, to skip unequal names and */
    uint32_t *hash_folded;      /* to rehash without reading them */
    int32_t *next;              /* [ncap]: the next entry of the group, or -1 (invariant 3) */
    int32_t *tail;              /* [ncap]: a group's last entry, at its first */
    int32_t *exact;             /* [cap] (invariant 2) */
    int32_t *folded;            /* [cap] */
} ds_names;

/* Appends name (non-NULL; borrowed: invariant 1) as entry x->n. 0, or -ENOMEM (x unchanged). */
int ds_names_add(ds_names *x, const char *name);
/* The first entry spelled as name[0 .. len) (name need not end there), or -1. */
int32_t ds_names_exact(const ds_names *x, const char *name, size_t len);
/* The first entry of the group of name[0 .. len) (its names equal to it but for ASCII case),
 * or -1; x->next[] walks the rest. */
int32_t ds_names_group(const ds_names *x, const char *name, size_t len);
/* Keeps entries [0, n) (n <= x->n): the tables rebuilt from them; allocates nothing. */
void ds_names_cut(ds_names *x, int32_t n);
void ds_names_free(ds_names *x);

#endif
