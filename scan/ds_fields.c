/* scan/ds_fields.c: a struct's fields by name (ds_fields.h, invariants there). */
#include "scan/ds_fields.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

void ds_fields_init(ds_fields *f, int32_t n, int32_t other)
{
    assert(n >= 0 && other >= 0);
    *f = (ds_fields){0};
    if (n < DS_FIELDS_MIN && other < DS_FIELDS_MIN) return;
    f->node = fail_malloc(sizeof *f->node * (size_t)n + 1);
    f->on = f->node != NULL, f->cap = n;
}

void ds_fields_add(ds_fields *f, const char *name, int32_t node)
{
    if (!f->on) return;
    int32_t k = f->names.n;
    assert(f->node && k >= 0 && k < f->cap); /* (no more children than announced) */
    if (ds_names_add(&f->names, name) != 0) {
        ds_fields_free(f); /* invariant 2: the caller walks */
        return;
    }
    f->node[k] = node;
}

int32_t ds_fields_pair(const ds_fields *in, const ds_fields *own, const char *name)
{
    assert(in->on && own->on);
    size_t len = strlen(name);
    int32_t at = ds_names_exact(&in->names, name, len);
    if (at >= 0) return at;
    at = ds_names_group(&in->names, name, len); /* none so spelled: the only one but for case */
    if (at < 0 || in->names.next[at] >= 0) return -1;
    int32_t mine = ds_names_group(&own->names, name, len);
    assert(mine >= 0); /* (name is one of own's: its group holds it) */
    return own->names.next[mine] < 0 ? at : -1; /* (own's a and A: each by exact name) */
}

void ds_fields_free(ds_fields *f)
{
    ds_names_free(&f->names);
    free(f->node);
    *f = (ds_fields){0};
}
