/* scan/ds_list_s3.c: an s3:// pattern's listing (ds_list_s3.h): io_s3_list's keys matched
 * against the pattern's components. */
#include "scan/ds_list_s3.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/status.h"
#include "scan/dataset.h"

/* Whether the components pc[0..np) (fnmatch patterns, "**" any number of components) match
 * kc[0..nk). Depth is bounded by the callers (DS_DEPTH_MAX components each). */
static bool comps_match(char **pc, int np, char **kc, int nk)
{
    if (np == 0) return nk == 0;
    if (strcmp(pc[0], "**") == 0) {
        for (int i = 0; i <= nk; i++)
            if (comps_match(pc + 1, np - 1, kc + i, nk - i)) return true;
        return np == 1 && nk > 0; /* a trailing ** names every key below */
    }
    return nk > 0 && fnmatch(pc[0], kc[0], FNM_PERIOD) == 0 && comps_match(pc + 1, np - 1, kc + 1, nk - 1);
}

/* s split at '/' (in place) into at most DS_DEPTH_MAX components; -1 past that. */
static int split_comps(char *s, char **out)
{
    int n = 0;
    for (char *t = strtok(s, "/"); t; t = strtok(NULL, "/")) {
        if (n == DS_DEPTH_MAX) return -1;
        out[n++] = t;
    }
    return n;
}

typedef struct s3_match {
    int (*add)(void *ctx, const char *url);
    void *ctx;
    const char *bucket;  /* "s3://bucket/" */
    char **pc;
    int np;
} s3_match;

/* io_s3_list's callback: a key the pattern matches becomes a path. */
static int s3_key(void *ctx, const char *key)
{
    s3_match *m = ctx;
    char *copy = fail_strdup(key), *kc[DS_DEPTH_MAX];
    if (!copy) return -ENOMEM;
    int nk = split_comps(copy, kc), rc = 0;
    if (nk >= 0 && comps_match(m->pc, m->np, kc, nk)) {
        char *full = fail_malloc(strlen(m->bucket) + strlen(key) + 1);
        if (!full) rc = -ENOMEM;
        else sprintf(full, "%s%s", m->bucket, key), rc = m->add(m->ctx, full), free(full);
    }
    free(copy);
    return rc;
}

int ds_list_s3(const char *p, const io_open_opts *io, int max, int (*add)(void *ctx, const char *url),
               void *ctx, pq_err *e)
{
    const char *b = p + 5, *slash = strchr(b, '/');
    if (!slash || slash == b) return pq_errf(e, -EINVAL, -1, "%.200s: not s3://bucket/pattern", p);
    size_t blen = (size_t)(slash - b) + 6, plen = strlen(slash + 1);
    char *bucket = fail_malloc(blen + 1), *pat = fail_malloc(plen + 32), *url = fail_malloc(strlen(p) + 1);
    char *pc[DS_DEPTH_MAX];
    int rc = bucket && pat && url ? 0 : -ENOMEM;
    if (rc == 0) {
        memcpy(bucket, p, blen), bucket[blen] = 0;
        sprintf(pat, "%s%s", slash + 1, p[strlen(p) - 1] == '/' ? "**/*.parquet" : "");
        size_t head = strcspn(p, "*?[");            /* the listing's prefix: the literal head */
        memcpy(url, p, head), url[head] = 0;
    }
    int np = rc == 0 ? split_comps(pat, pc) : 0;
    if (rc == 0 && np < 0)
        rc = pq_errf(e, RINGSCAN_ELIMIT, -1, "%.200s: more than %d components", p, DS_DEPTH_MAX);
    char msg[256] = "";
    s3_match m = {.add = add, .ctx = ctx, .bucket = bucket, .pc = pc, .np = np};
    if (rc == 0) rc = io_s3_list(url, io, (int64_t)max * 16 + 1024, s3_key, &m, msg, sizeof msg);
    if (rc && msg[0]) pq_errf(e, rc, -1, "%s", msg);
    free(bucket), free(pat), free(url);
    return rc;
}

