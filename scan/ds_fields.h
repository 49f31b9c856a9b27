/* scan/ds_fields.h: a struct's fields looked up by name (issue 23): pairing a file's nested
 * field with a dataset's shape (ds_nmatch.c) and a union by name's struct fields
 * (ds_nunion.c) found each field by a walk over the other struct's fields, so a struct of
 * 20,000 fields in 3 files under union_by_name took 52 s to start and 24 s more to read
 * (bench/RESULTS.md, thirty-ninth session). The names go
 * into the dataset schema's own index (ds_names.h), one per struct, built when a pairing
 * starts on a struct and dropped when it ends.
 *
 * Invariants:
 *  1. on: entry k of names is the struct's k-th child (in schema order) and node[k] its node
 *     (in whatever node array the caller walks).
 *  2. !on (small structs, or an allocation failed): nothing is held, and the caller walks
 *     the fields as before; a lookup gives the same answer either way (ds_fields_pair's rule
 *     is the walk's: tests/unit/test_ds_fields.c), so running out of memory costs
 *     time, never a different result.
 *  3. Bytes: ds_names.h's per entry plus 4 for node[]; built in O(n) expected time, each
 *     lookup O(1) expected (a group of fields equal but for case is never walked). */
#ifndef RINGSCAN_SCAN_DS_FIELDS_H
#define RINGSCAN_SCAN_DS_FIELDS_H
#include <stdbool.h>
#include <stdint.h>

#include "scan/ds_names.h"

/* Structs with fewer children are walked (a walk of 16 names costs less than the tables). */
enum { DS_FIELDS_MIN = 16 };

typedef struct ds_fields {
    ds_names names; /* invariant 1 */
    int32_t *node;  /* [cap] */
    int32_t cap;    /* the children announced (ds_fields_init's n) */
    bool on;
} ds_fields;

/* Starts an index of a struct of n children to be paired with one of other children: on when
 * either has DS_FIELDS_MIN children (a walk of a few names each costs less than the tables;
 * many beside few: a lookup in the few would walk the many for case twins), else off
 * (invariant 2; off too when memory runs out). Never fails. */
void ds_fields_init(ds_fields *f, int32_t n, int32_t other);
/* Appends the next child (name borrowed: it outlives f) whose node is node; on -ENOMEM f is
 * freed and off (invariant 2). */
void ds_fields_add(ds_fields *f, const char *name, int32_t node);
/* With in and own on: the position in `in` of the child of in's struct named as `name`, a
 * child of own's struct: the first spelled so, else the only one whose name differs from it
 * in ASCII case alone, unless own's struct has another child equal to name but for case (a
 * and A are then two fields, each paired by its exact name); -1 when none. */
int32_t ds_fields_pair(const ds_fields *in, const ds_fields *own, const char *name);
void ds_fields_free(ds_fields *f);

#endif
