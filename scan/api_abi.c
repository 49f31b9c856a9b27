/* scan/api_abi.c: what keeps the public API's binary interface stable across versions: the
 * library's version, and the options struct read at the size the caller was built with
 * (ringscan.h, "ABI rules"). */
#include "ringscan.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "io/io.h"
#include "scan/api_priv.h"

/* The options of the first version with struct_size (0.1.0) end with fetch_budget_bytes: a
 * caller's struct is never shorter. Fields appended later take their defaults when a caller
 * built before them passes a shorter struct. */
#define OPTIONS_V1_SIZE \
    (offsetof(ringscan_options, fetch_budget_bytes) + sizeof(int64_t))

_Atomic int64_t api_live_objects;

int64_t ringscan_live_objects(void) { return atomic_load_explicit(&api_live_objects, memory_order_relaxed); }

void ringscan_release_memory(void) { io_stash_drain(); }

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

int api_take_options(const ringscan_options *in, ringscan_options *out, const char *fn,
                     ringscan_error *err)
{
    size_t n = in->struct_size;
    const char *why = NULL;
    if (n < OPTIONS_V1_SIZE) {
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
    return 0;
}

void api_bound_out(flt_domain dom, const flt_lit *v, uint64_t version, bool set,
                   ringscan_topk_bound *out)
{
    *out = (ringscan_topk_bound){.set = set, .version = version};
    out->is_float = dom == FLT_DOM_F32 || dom == FLT_DOM_F64;
    if (set) out->i = out->is_float ? 0 : v->i, out->f = out->is_float ? v->f : 0;
}
