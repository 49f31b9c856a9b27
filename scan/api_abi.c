/* scan/api_abi.c: what keeps the public API's binary interface stable across versions: the
 * library's version, and the options struct read at the size the caller was built with
 * (ringscan.h, "ABI rules"). */
#include "ringscan.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bufpool.h"
#include "io/io.h"
#include "runtime/coro.h"
#include "scan/api_priv.h"

/* The options of the first version with struct_size (0.1.0) end with fetch_budget_bytes: a
 * caller's struct is never shorter. Fields appended later take their defaults when a caller
 * built before them passes a shorter struct. */
#define OPTIONS_V1_SIZE \
    (offsetof(ringscan_options, fetch_budget_bytes) + sizeof(int64_t))
/* A size no version's options will reach: a struct_size beyond it is garbage (options never
 * passed through ringscan_options_init), refused before a byte past this library's struct
 * is read (the zero check below would walk the caller's memory to its end). */
#define OPTIONS_SIZE_MAX 4096
_Static_assert(sizeof(ringscan_options) <= OPTIONS_SIZE_MAX / 2, "room for the options to grow");

_Atomic int64_t api_live_objects;

int64_t ringscan_live_objects(void) { return atomic_load_explicit(&api_live_objects, memory_order_relaxed); }

void ringscan_release_memory(void)
{
    bufpool_release(); /* (does nothing while a scan holds the pool) */
    io_stash_drain();
    (void)coro_stash_drain();
}

int ringscan_version(void) { return RINGSCAN_VERSION; }

const char *ringscan_version_string(void) { return RINGSCAN_VERSION_STRING; }

void ringscan_options_init(ringscan_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->limit = -1;
    o->policy = RINGSCAN_POLICY_ADAPTIVE;
    o->threads = 2;
    o->use_page_index = true;
    o->use_bloom = true;
    o->fetch_budget_bytes = -1;
}

/* -EINVAL with "what" as the message (no file: the arguments are the caller's). */
int scan_api_bad_arg(ringscan_error *err, const char *what)
{
    if (err) {
        err->status = -EINVAL;
        snprintf(err->message, sizeof err->message, "invalid argument: %s", what);
    }
    return -EINVAL;
}

/* The options' own values (not what they name in the file); 0 or -EINVAL with a message. */
int scan_api_check_options(const ringscan_options *o, ringscan_error *err)
{
    char what[160];
    const char *bad = NULL;
    if (o->columns && o->ncolumns < 0) bad = "ncolumns is negative";
    for (int i = 0; !bad && o->columns && i < o->ncolumns; i++)
        if (!o->columns[i]) snprintf(what, sizeof what, "columns[%d] is NULL", i), bad = what;
    if (!bad && o->limit < -1) bad = "limit below -1";
    if (!bad && (o->policy < RINGSCAN_POLICY_LAZY || o->policy > RINGSCAN_POLICY_ADAPTIVE))
        snprintf(what, sizeof what, "policy %d is not a ringscan_policy", (int)o->policy), bad = what;
    if (!bad && (o->io < RINGSCAN_IO_AUTO || o->io > RINGSCAN_IO_PREAD))
        snprintf(what, sizeof what, "io %d is not a ringscan_io", (int)o->io), bad = what;
    if (!bad && o->fetch_budget_bytes < -1) bad = "fetch_budget_bytes below -1";
    if (!bad && (o->threads < 0 || o->threads > EXEC_THREADS_MAX))
        snprintf(what, sizeof what, "threads %d outside 0..%d", o->threads, EXEC_THREADS_MAX), bad = what;
    return bad ? scan_api_bad_arg(err, bad) : 0;
}

int api_take_options(const ringscan_options *in, ringscan_options *out, const char *fn,
                     bool check, ringscan_error *err)
{
    size_t n = in->struct_size;
    const char *why = NULL;
    if (n < OPTIONS_V1_SIZE || n > OPTIONS_SIZE_MAX) {
        why = "options.struct_size is not a ringscan_options size (fill the options with "
              "ringscan_options_init first)";
    } else if (n > sizeof *out) {
        const unsigned char *tail = (const unsigned char *)in + sizeof *out;
        for (size_t i = 0; i < n - sizeof *out && !why; i++)
            if (tail[i]) why = "the options set fields this library does not know (built "
                               "against a newer ringscan.h: check ringscan_version())";
        n = sizeof *out;
    }
    if (why) {
        if (err) {
            err->status = -EINVAL;
            snprintf(err->message, sizeof err->message, "invalid argument: %s: %s", fn, why);
        }
        return -EINVAL;
    }
    ringscan_options_init(out);
    memcpy(out, in, n);
    out->struct_size = sizeof *out;
    if (!out->dictionary_columns) out->ndictionary_columns = 0; /* NULL: none, any count */
    if (out->read_mode != RINGSCAN_READ_COPY && out->read_mode != RINGSCAN_READ_MMAP) {
        char what[96]; /* checked here, not only by a scan's check: opening reads it */
        snprintf(what, sizeof what, "%s: read_mode %d is not a ringscan_read_mode", fn,
                 (int)out->read_mode);
        return scan_api_bad_arg(err, what);
    }
    return check ? scan_api_check_options(out, err) : 0;
}

void api_bound_out(flt_domain dom, const flt_lit *v, uint64_t version, bool set,
                   ringscan_topk_bound *out)
{
    *out = (ringscan_topk_bound){.set = set, .version = version};
    out->is_float = dom == FLT_DOM_F32 || dom == FLT_DOM_F64;
    if (set) out->i = out->is_float ? 0 : v->i, out->f = out->is_float ? v->f : 0;
}

/* Here, below api.c and api_dataset.c, which both drop a dataset's references. */
void api_dataset_unref(ringscan_dataset *d)
{
    int was = atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel);
    assert(was >= 1);
    if (was > 1) return;
    atomic_fetch_sub_explicit(&api_live_objects, 1, memory_order_relaxed);
    ds_list_free(&d->list);
    free(d);
}
