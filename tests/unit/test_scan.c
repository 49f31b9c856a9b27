/* tests for the scan engine (scan/scan.c, plan.c, split.c, take.c):
 *
 *  - property: seeded random files (types, nulls, dictionary, page sizes, codecs, page index,
 *    bloom filters) and random conjunctions; every policy x threads {1,2} x ordered returns
 *    exactly the rows a plain reference loop over the generated values returns (ordered: the
 *    exact row sequence; unordered: the sorted multiset of row hashes), with consistent
 *    counters. RINGSCAN_TEST_SEED=N replays one seed; RINGSCAN_TEST_SEEDS=N sets how many.
 *  - cancellation: conjuncts all-false on every split (statistics cannot show it): under lazy
 *    and adaptive no byte of a later column is read (an io fault hook records every read);
 *    under eager the speculative reads are counted cancelled or wasted, never used.
 *  - ordering: a cheap, selective conjunct written last ends first in the adaptive order.
 *  - pruning: row groups and pages pruned on sorted keys equal the counts computed here.
 *  - LIMIT: exact rows, file order with --ordered, the scan stops early. */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "filter/expr.h"
#include "scan/scan_impl.h"
#include "test_scan_common.h"

/* ====================================================================== generated tables */

typedef enum { G_I32, G_I64, G_DBL, G_STR, G_BOOL, G_DATE, G_DEC, G_FLBA, G_NTYPES } gtype;
enum { FLBA_W = 4, STR_MAX = 12, MAX_COLS = 6 };

typedef struct gval {
    int64_t i; /* ints, bool, date, decimal (unscaled); double: x where value = x / 4 */
    double d;
    uint8_t s[STR_MAX];
    int slen;
} gval;

typedef struct gcol {
    gtype t;
    char name[16];
    pq_column_desc d;
    bool *null;
    gval *v;
} gcol;

typedef struct gtable {
    int ncols;
    int64_t rows;
    int64_t rg_rows, page_rows;
    gcol c[MAX_COLS];
    pq_column_desc sch[MAX_COLS];
} gtable;

static const pq_physical phys_of[G_NTYPES] = {PQ_INT32, PQ_INT64, PQ_DOUBLE, PQ_BYTE_ARRAY,
                                              PQ_BOOLEAN, PQ_INT32, PQ_INT64,
                                              PQ_FIXED_LEN_BYTE_ARRAY};
static const pq_logical logical_of[G_NTYPES] = {PQ_LOGICAL_NONE, PQ_LOGICAL_NONE, PQ_LOGICAL_NONE,
                                                PQ_LOGICAL_STRING, PQ_LOGICAL_NONE,
                                                PQ_LOGICAL_DATE, PQ_LOGICAL_DECIMAL,
                                                PQ_LOGICAL_NONE};

/* Letters of x in base 26, exactly n of them (fixed length: order = numeric order). */
static void letters(uint64_t x, uint8_t *out, int n)
{
    for (int k = n - 1; k >= 0; k--, x /= 26) out[k] = (uint8_t)('a' + x % 26);
}

/* The value of type t made from integer x (mode decides strings' shape). */
static gval make_val(gtype t, int64_t x, bool fixed_len_strings)
{
    gval g;
    memset(&g, 0, sizeof g);
    switch (t) {
    case G_I32: g.i = (int32_t)x; break;
    case G_I64: g.i = x * 1000003; break;
    case G_DBL: g.i = x, g.d = (double)x / 4.0; break;
    case G_BOOL: g.i = x & 1; break;
    case G_DATE: g.i = 18000 + x % 20000; break;
    case G_DEC: g.i = x * 7 - 50; break;
    case G_STR:
        if (fixed_len_strings) {
            g.slen = 6;
            letters((uint64_t)(x < 0 ? -x : x), g.s, 6);
        } else {
            uint64_t h = ts_mix(0, (uint64_t)x);
            g.slen = (int)(h % 9);
            for (int k = 0; k < g.slen; k++) g.s[k] = (uint8_t)('a' + (h >> (8 + 3 * k)) % 6);
        }
        break;
    case G_FLBA:
        g.slen = FLBA_W;
        letters((uint64_t)(x < 0 ? -x : x), g.s, FLBA_W);
        break;
    default: abort();
    }
    return g;
}

/* Fills column c of t with seeded values: small cardinality, monotone, or wide. */
static void gen_column(gtable *t, int ci, gtype ty)
{
    gcol *c = &t->c[ci];
    c->t = ty;
    snprintf(c->name, sizeof c->name, "c%d_%d", ci, (int)ty);
    bool opt = ts_rnd() % 3 != 0;
    c->d = ts_desc(c->name, phys_of[ty], ty == G_FLBA ? FLBA_W : 0, opt, logical_of[ty]);
    int mode = (int)(ts_rnd() % 3);
    int64_t card = ts_range(2, 60);
    int null_pct = !opt ? 0 : ts_rnd() % 5 == 0 ? 60 : ts_rnd() % 4 == 0 ? 0 : 10;
    int64_t step = ts_range(1, 5);
    c->null = calloc((size_t)t->rows, sizeof *c->null);
    c->v = calloc((size_t)t->rows, sizeof *c->v);
    for (int64_t r = 0; r < t->rows; r++) {
        c->null[r] = (int64_t)(ts_rnd() % 100) < null_pct;
        int64_t x = mode == 0   ? ts_range(-card / 2, card)
                    : mode == 1 ? r * step / 7 + ts_range(0, 3)
                                : (int64_t)(ts_rnd() % 2000001) - 1000000;
        c->v[r] = make_val(ty, x, mode == 1);
        if (c->null[r]) memset(&c->v[r], 0, sizeof c->v[r]);
    }
    t->sch[ci] = c->d;
}

static void gtable_free(gtable *t)
{
    for (int i = 0; i < t->ncols; i++) {
        free(t->c[i].null);
        free(t->c[i].v);
    }
}

/* The writer's input for column c. */
static void column_vec(const gcol *c, int64_t rows, pq_vec *v)
{
    ts_vec_new(v, c->d.physical, c->d.type_length, rows, rows * STR_MAX + 1);
    for (int64_t r = 0; r < rows; r++) {
        const gval *g = &c->v[r];
        bool n = c->null[r];
        switch (c->t) {
        case G_I32:
        case G_DATE: {
            int32_t x = (int32_t)g->i;
            ts_put_fixed(v, &x, n);
            break;
        }
        case G_I64:
        case G_DEC: ts_put_fixed(v, &g->i, n); break;
        case G_DBL: ts_put_fixed(v, &g->d, n); break;
        case G_BOOL: {
            uint8_t b = (uint8_t)g->i;
            ts_put_fixed(v, &b, n);
            break;
        }
        case G_STR: ts_put_bytes(v, g->s, g->slen, n); break;
        case G_FLBA: ts_put_fixed(v, g->s, n); break;
        default: abort();
        }
    }
}

static int write_table(const gtable *t, const char *path, const pq_writer_opts *o)
{
    pq_vec cols[MAX_COLS];
    for (int i = 0; i < t->ncols; i++) column_vec(&t->c[i], t->rows, &cols[i]);
    int rc = ts_write(path, t->sch, t->ncols, cols, t->rows, o);
    for (int i = 0; i < t->ncols; i++) pq_vec_free(&cols[i]);
    return rc;
}

/* ====================================================================== predicates */

typedef enum { P_EQ, P_NE, P_LT, P_LE, P_GT, P_GE, P_BETWEEN, P_IN, P_ISNULL, P_NOTNULL,
               P_PREFIX, P_NOPS } gop;

typedef struct gterm {
    gop op;
    int nlits;
    gval lit[4];
} gterm;

typedef struct gpred {
    int col;
    int nterms;
    gterm t[3];
} gpred;

typedef struct gquery {
    int npreds;
    gpred p[4];
    char text[2048];
} gquery;

static int cmp_val(gtype t, const gval *a, const gval *b)
{
    switch (t) {
    case G_DBL: return a->d < b->d ? -1 : a->d > b->d;
    case G_STR:
    case G_FLBA: {
        int n = a->slen < b->slen ? a->slen : b->slen;
        int c = memcmp(a->s, b->s, (size_t)n);
        if (c) return c < 0 ? -1 : 1;
        return a->slen < b->slen ? -1 : a->slen > b->slen;
    }
    default: return a->i < b->i ? -1 : a->i > b->i;
    }
}

/* SQL semantics: null matches only IS NULL. */
static bool eval_term(gtype t, const gterm *tm, bool null, const gval *v)
{
    if (tm->op == P_ISNULL) return null;
    if (null) return false;
    switch (tm->op) {
    case P_EQ: return cmp_val(t, v, &tm->lit[0]) == 0;
    case P_NE: return cmp_val(t, v, &tm->lit[0]) != 0;
    case P_LT: return cmp_val(t, v, &tm->lit[0]) < 0;
    case P_LE: return cmp_val(t, v, &tm->lit[0]) <= 0;
    case P_GT: return cmp_val(t, v, &tm->lit[0]) > 0;
    case P_GE: return cmp_val(t, v, &tm->lit[0]) >= 0;
    case P_BETWEEN: return cmp_val(t, v, &tm->lit[0]) >= 0 && cmp_val(t, v, &tm->lit[1]) <= 0;
    case P_IN:
        for (int k = 0; k < tm->nlits; k++)
            if (cmp_val(t, v, &tm->lit[k]) == 0) return true;
        return false;
    case P_NOTNULL: return true;
    case P_PREFIX:
        return v->slen >= tm->lit[0].slen && memcmp(v->s, tm->lit[0].s, (size_t)tm->lit[0].slen) == 0;
    default: abort();
    }
}

static bool eval_row(const gtable *t, const gquery *q, int64_t r)
{
    for (int k = 0; k < q->npreds; k++) {
        const gpred *p = &q->p[k];
        const gcol *c = &t->c[p->col];
        bool any = false;
        for (int j = 0; j < p->nterms && !any; j++) any = eval_term(c->t, &p->t[j], c->null[r], &c->v[r]);
        if (!any) return false;
    }
    return true;
}

/* Appends literal g of type t as filter text. */
static void render_lit(char *buf, size_t n, gtype t, const gval *g)
{
    size_t len = strlen(buf);
    char *o = buf + len;
    n -= len;
    switch (t) {
    case G_DBL: snprintf(o, n, "%.17g", g->d); break;
    case G_BOOL: snprintf(o, n, "%s", g->i ? "TRUE" : "FALSE"); break;
    case G_STR:
    case G_FLBA: snprintf(o, n, "'%.*s'", g->slen, (const char *)g->s); break;
    case G_DATE: {
        /* civil from days (Howard Hinnant's algorithm) */
        int64_t z = g->i + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
        int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
        int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
        snprintf(o, n, "DATE '%04lld-%02lld-%02lld'", (long long)(y + (m <= 2)), (long long)m, (long long)d);
        break;
    }
    case G_DEC: {
        int64_t a = g->i < 0 ? -g->i : g->i;
        snprintf(o, n, "%s%lld.%02lld", g->i < 0 ? "-" : "", (long long)(a / 100), (long long)(a % 100));
        break;
    }
    default: snprintf(o, n, "%lld", (long long)g->i); break;
    }
}

static void cat(char *buf, size_t n, const char *s)
{
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s", s);
}

static void render_term(char *buf, size_t n, const gcol *c, const gterm *tm)
{
    static const char *const ops[] = {" = ", " <> ", " < ", " <= ", " > ", " >= "};
    cat(buf, n, c->name);
    switch (tm->op) {
    case P_BETWEEN:
        cat(buf, n, " BETWEEN ");
        render_lit(buf, n, c->t, &tm->lit[0]);
        cat(buf, n, " AND ");
        render_lit(buf, n, c->t, &tm->lit[1]);
        break;
    case P_IN:
        cat(buf, n, " IN (");
        for (int k = 0; k < tm->nlits; k++) {
            if (k) cat(buf, n, ", ");
            render_lit(buf, n, c->t, &tm->lit[k]);
        }
        cat(buf, n, ")");
        break;
    case P_ISNULL: cat(buf, n, " IS NULL"); break;
    case P_NOTNULL: cat(buf, n, " IS NOT NULL"); break;
    case P_PREFIX: {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, " LIKE '%.*s%%'", tm->lit[0].slen, (const char *)tm->lit[0].s);
        break;
    }
    default:
        cat(buf, n, tm->op == P_NE && ts_rnd() % 2 ? " != " : ops[tm->op]);
        render_lit(buf, n, c->t, &tm->lit[0]);
    }
}

/* A literal from the data (a random non-null row), sometimes nudged off the data. */
static gval pick_lit(const gtable *t, const gcol *c)
{
    gval g;
    memset(&g, 0, sizeof g);
    for (int tries = 0; tries < 50; tries++) {
        int64_t r = (int64_t)(ts_rnd() % (uint64_t)t->rows);
        if (!c->null[r]) {
            g = c->v[r];
            break;
        }
    }
    if (ts_rnd() % 5 == 0) {
        if (c->t == G_DBL) g.d += 0.125;
        else if (c->t == G_STR && g.slen < STR_MAX) g.s[g.slen++] = 'c';
        else if (c->t != G_STR && c->t != G_FLBA && c->t != G_BOOL && c->t != G_I64) g.i += 1;
    }
    return g;
}

static gterm gen_term(const gtable *t, const gcol *c)
{
    gterm tm;
    memset(&tm, 0, sizeof tm);
    for (;;) {
        tm.op = (gop)(ts_rnd() % P_NOPS);
        bool text = c->t == G_STR || c->t == G_FLBA;
        if (tm.op == P_PREFIX && !text) continue;
        if (c->t == G_BOOL && !(tm.op == P_EQ || tm.op == P_NE || tm.op == P_IN ||
                                tm.op == P_ISNULL || tm.op == P_NOTNULL))
            continue;
        break;
    }
    switch (tm.op) {
    case P_ISNULL:
    case P_NOTNULL: break;
    case P_BETWEEN:
        tm.nlits = 2;
        tm.lit[0] = pick_lit(t, c);
        tm.lit[1] = pick_lit(t, c);
        if (cmp_val(c->t, &tm.lit[0], &tm.lit[1]) > 0 && ts_rnd() % 4) {
            gval x = tm.lit[0];
            tm.lit[0] = tm.lit[1];
            tm.lit[1] = x;
        }
        break;
    case P_IN:
        tm.nlits = (int)ts_range(1, 4);
        for (int k = 0; k < tm.nlits; k++) tm.lit[k] = pick_lit(t, c);
        break;
    case P_PREFIX:
        tm.nlits = 1;
        tm.lit[0] = pick_lit(t, c);
        if (tm.lit[0].slen > 0) tm.lit[0].slen = (int)ts_range(1, tm.lit[0].slen < 3 ? tm.lit[0].slen : 3);
        break;
    default:
        tm.nlits = 1;
        tm.lit[0] = pick_lit(t, c);
    }
    return tm;
}

static void gen_query(const gtable *t, gquery *q)
{
    memset(q, 0, sizeof *q);
    q->npreds = (int)ts_range(1, 4);
    for (int k = 0; k < q->npreds; k++) {
        gpred *p = &q->p[k];
        p->col = (int)(ts_rnd() % (uint64_t)t->ncols);
        p->nterms = ts_rnd() % 5 == 0 ? (int)ts_range(2, 3) : 1;
        for (int j = 0; j < p->nterms; j++) p->t[j] = gen_term(t, &t->c[p->col]);
        if (k) cat(q->text, sizeof q->text, " AND ");
        if (p->nterms > 1) cat(q->text, sizeof q->text, "(");
        for (int j = 0; j < p->nterms; j++) {
            if (j) cat(q->text, sizeof q->text, " OR ");
            render_term(q->text, sizeof q->text, &t->c[p->col], &p->t[j]);
        }
        if (p->nterms > 1) cat(q->text, sizeof q->text, ")");
    }
}

/* ====================================================================== row hashes */

static uint64_t hash_ref(const gtable *t, const int *proj, int nproj, int64_t r)
{
    uint64_t h = 0x1234;
    for (int j = 0; j < nproj; j++) {
        const gcol *c = &t->c[proj[j]];
        const gval *g = &c->v[r];
        if (c->null[r]) {
            h = ts_mix(h, 0xdead);
            continue;
        }
        switch (c->t) {
        case G_DBL: {
            uint64_t b;
            memcpy(&b, &g->d, 8);
            h = ts_mix(h, b);
            break;
        }
        case G_STR:
        case G_FLBA: h = ts_hash_bytes(h, g->s, g->slen); break;
        default: h = ts_mix(h, (uint64_t)g->i);
        }
    }
    return h;
}

static uint64_t hash_out(const gtable *t, const int *proj, int nproj, const scan_batch *b,
                         int64_t i)
{
    uint64_t h = 0x1234;
    for (int j = 0; j < nproj; j++) {
        const gcol *c = &t->c[proj[j]];
        const pq_vec *v = &b->cols[j];
        if (!pq_vec_is_valid(v, i)) {
            h = ts_mix(h, 0xdead);
            continue;
        }
        switch (c->t) {
        case G_I32:
        case G_DATE: h = ts_mix(h, (uint64_t)(int64_t)((const int32_t *)(const void *)v->values)[i]); break;
        case G_I64:
        case G_DEC: h = ts_mix(h, (uint64_t)((const int64_t *)(const void *)v->values)[i]); break;
        case G_DBL: {
            uint64_t x;
            memcpy(&x, v->values + 8 * i, 8);
            h = ts_mix(h, x);
            break;
        }
        case G_BOOL: h = ts_mix(h, pq_bit_get(v->values, i)); break;
        case G_STR: /* data is NULL when every string of the batch is empty */
            h = ts_hash_bytes(h, v->data ? v->data + v->offsets[i] : v->data, v->offsets[i + 1] - v->offsets[i]);
            break;
        case G_FLBA: h = ts_hash_bytes(h, v->values + (size_t)i * FLBA_W, FLBA_W); break;
        default: abort();
        }
    }
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ====================================================================== running scans */

typedef struct run_result {
    int status;
    int64_t n;
    uint64_t *h;          /* row hashes in output order */
    scan_stats st;
    int64_t rows_unpruned; /* rows of splits not pruned at planning */
    bool pruned_match;     /* a pruned split or page held a matching row */
} run_result;

static uint64_t cur_seed;
static const char *cur_what = "";

static void report_fail(const char *what, const char *query, const scan_opts *o)
{
    fprintf(stderr, "  seed %llu (replay: RINGSCAN_TEST_SEED=%llu) %s: %s policy=%d threads=%d "
                    "ordered=%d io=%d limit=%lld split_rows=%lld\n    where: %s\n",
            (unsigned long long)cur_seed, (unsigned long long)cur_seed, cur_what, what, o->policy,
            o->threads, o->ordered, o->io, (long long)o->limit, (long long)o->split_rows, query);
}

/* Runs one scan; fills r (hashes of every output row in order). */
static void run_scan(pqf_t *f, const gtable *t, const char *query, const int *proj, int nproj,
                     const scan_opts *o, const bool *match, run_result *r)
{
    memset(r, 0, sizeof *r);
    pq_err e = {.offset = -1};
    flt_expr *ex = NULL;
    if (query[0] && flt_parse(query, f->meta.columns, f->meta.ncolumns, &ex, &e) != 0) {
        fprintf(stderr, "  parse error: %s\n", e.msg);
        r->status = e.status ? e.status : -1;
        return;
    }
    scan_t *s = NULL;
    r->status = scan_start(f, proj, nproj, ex, o, &s, &e);
    if (r->status) {
        fprintf(stderr, "  scan_start: %s\n", e.msg);
        return;
    }
    for (int i = 0; i < s->plan.nsplits; i++) {
        const scan_split *sp = &s->plan.splits[i];
        int64_t base = (int64_t)sp->rg * t->rg_rows + sp->row_lo;
        if (!sp->pruned) r->rows_unpruned += sp->nrows;
        for (int64_t k = 0; match && k < sp->nrows; k++)
            if (match[base + k] && (sp->pruned || (sp->rows0.len && !flt_mask_get(&sp->rows0, k))))
                r->pruned_match = true;
    }
    int64_t cap = 1024;
    r->h = malloc(sizeof(uint64_t) * (size_t)cap);
    scan_batch b;
    int rc, last_split = -1;
    while ((rc = scan_next(s, &b, &e)) == 1) {
        bool shape = b.ncols == nproj && b.rows > 0;
        for (int j = 0; j < b.ncols; j++) shape = shape && b.cols[j].length == b.rows;
        if (o->ordered && b.split <= last_split) shape = false;
        last_split = b.split;
        if (!shape) {
            report_fail("bad batch shape", query, o);
            r->status = -1;
        }
        while (r->n + b.rows > cap) cap *= 2, r->h = realloc(r->h, sizeof(uint64_t) * (size_t)cap);
        for (int64_t i = 0; shape && i < b.rows; i++) r->h[r->n++] = hash_out(t, proj, nproj, &b, i);
        scan_batch_free(&b);
    }
    if (rc < 0) {
        fprintf(stderr, "  scan_next: %s (status %d)\n", e.msg, rc);
        r->status = rc;
    }
    scan_get_stats(s, &r->st);
    scan_free(s);
}

/* Compares r against the expected rows; prints the seed on failure. */
static bool check_run(const run_result *r, const uint64_t *exp, int64_t nexp, const char *query,
                      const scan_opts *o)
{
    bool ok = r->status == 0 && r->n == nexp && (uint64_t)r->st.rows_out == (uint64_t)nexp &&
              r->st.rows_scanned == r->rows_unpruned && !r->pruned_match &&
              r->st.bytes_read + r->st.bytes_kept >= r->st.bytes_used;
    if (ok && o->ordered) {
        for (int64_t i = 0; ok && i < nexp; i++) ok = r->h[i] == exp[i];
    } else if (ok) {
        uint64_t *a = malloc(sizeof(uint64_t) * (size_t)(nexp + 1));
        uint64_t *b = malloc(sizeof(uint64_t) * (size_t)(nexp + 1));
        memcpy(a, exp, sizeof(uint64_t) * (size_t)nexp);
        memcpy(b, r->h, sizeof(uint64_t) * (size_t)nexp);
        qsort(a, (size_t)nexp, 8, cmp_u64);
        qsort(b, (size_t)nexp, 8, cmp_u64);
        ok = nexp == 0 || memcmp(a, b, 8 * (size_t)nexp) == 0;
        free(a);
        free(b);
    }
    if (!ok) {
        char what[300];
        snprintf(what, sizeof what, "%s: status %d rows %lld expected %lld rows_out %lld scanned %lld "
                 "unpruned %lld pruned_match %d", r->n == nexp ? "rows differ" : "row count differs", r->status, (long long)r->n, (long long)nexp,
                 (long long)r->st.rows_out, (long long)r->st.rows_scanned,
                 (long long)r->rows_unpruned, r->pruned_match);
        report_fail(what, query, o);
    }
    return ok;
}

/* ====================================================================== property test */

static void gen_table(gtable *t)
{
    memset(t, 0, sizeof *t);
    t->ncols = (int)ts_range(2, MAX_COLS);
    t->rows = ts_range(2000, 30000);
    for (int i = 0; i < t->ncols; i++) gen_column(t, i, (gtype)(ts_rnd() % G_NTYPES));
}

static bool one_seed(uint64_t seed, int queries)
{
    ts_rng = seed * 0x2545f4914f6cdd1dull + 1;
    cur_seed = seed;
    gtable t;
    gen_table(&t);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    static const pq_codec codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_ZSTD};
    wo.codec = codecs[ts_rnd() % 3];
    wo.row_group_rows = t.rg_rows = ts_range(300, 5000);
    wo.page_rows = t.page_rows = ts_range(20, 800);
    wo.dictionary = ts_rnd() % 3 != 0;
    wo.page_index = ts_rnd() % 3 != 0;
    if (ts_rnd() % 2) wo.page_bytes = ts_range(256, 8192); /* pages of columns misalign */
    uint8_t flags[MAX_COLS];
    for (int i = 0; i < t.ncols; i++)
        flags[i] = (uint8_t)((t.c[i].t != G_BOOL && ts_rnd() % 3 == 0 ? PQ_WCOL_BLOOM : 0) |
                             (ts_rnd() % 5 == 0 ? PQ_WCOL_NO_DICT : 0));
    wo.col_flags = flags;
    char path[256];
    ts_path(path, sizeof path, "prop.parquet");
    bool ok = write_table(&t, path, &wo) == 0;
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    if (ok && pqf_open(&f, path, NULL, &e) != 0) {
        fprintf(stderr, "  seed %llu: pqf_open: %s\n", (unsigned long long)seed, e.msg);
        ok = false;
    }
    bool *match = calloc((size_t)t.rows, sizeof *match);
    uint64_t *exp = malloc(sizeof(uint64_t) * (size_t)t.rows);
    for (int qi = 0; ok && qi < queries; qi++) {
        gquery q;
        gen_query(&t, &q);
        int proj[MAX_COLS + 1], nproj = (int)ts_range(1, t.ncols);
        for (int j = 0; j < nproj; j++) proj[j] = (int)(ts_rnd() % (uint64_t)t.ncols);
        if (ts_rnd() % 2) proj[0] = q.p[0].col; /* a filter column projected */
        int64_t nexp = 0;
        for (int64_t r = 0; r < t.rows; r++) {
            match[r] = eval_row(&t, &q, r);
            if (match[r]) exp[nexp++] = hash_ref(&t, proj, nproj, r);
        }
        if (getenv("RINGSCAN_TEST_VERBOSE"))
            fprintf(stderr, "seed %llu rows %lld rg %lld page %lld: %lld match: %s\n", (unsigned long long)seed,
                    (long long)t.rows, (long long)t.rg_rows, (long long)t.page_rows, (long long)nexp, q.text);
        exec_io_backend io = seed % 3 == 1 ? EXEC_IO_PREAD : EXEC_IO_AUTO;
        bool use_pi = ts_rnd() % 4 != 0, use_bloom = ts_rnd() % 4 != 0;
        /* row groups cut at page boundaries into splits, pages straddling the cuts */
        int64_t split_rows = ts_rnd() % 3 == 0 ? SCAN_SPLIT_ROWS : ts_range(40, 2000);
        int64_t rg_pruned = -1, pages_pruned = -1;
        for (int pol = 0; ok && pol < 3; pol++)
            for (int th = 1; ok && th <= 2; th++)
                for (int ord = 0; ok && ord < 2; ord++) {
                    scan_opts o;
                    scan_opts_default(&o);
                    o.policy = (scan_policy)pol;
                    o.threads = th;
                    o.ordered = ord;
                    o.io = io;
                    o.use_page_index = use_pi;
                    o.use_bloom = use_bloom;
                    o.split_rows = split_rows;
                    run_result r;
                    cur_what = "property";
                    run_scan(f, &t, q.text, proj, nproj, &o, match, &r);
                    ok = check_run(&r, exp, nexp, q.text, &o);
                    if (ok && rg_pruned >= 0 && (r.st.row_groups_pruned != rg_pruned ||
                                                 r.st.pages_pruned != pages_pruned)) {
                        report_fail("pruning counts differ between runs", q.text, &o);
                        ok = false;
                    }
                    rg_pruned = r.st.row_groups_pruned;
                    pages_pruned = r.st.pages_pruned;
                    free(r.h);
                }
    }
    free(match);
    free(exp);
    pqf_close(f);
    gtable_free(&t);
    return ok;
}

static void test_property(void)
{
    const char *one = getenv("RINGSCAN_TEST_SEED");
    const char *many = getenv("RINGSCAN_TEST_SEEDS");
    if (one) {
        CHECK(one_seed(strtoull(one, NULL, 10), 4));
        return;
    }
    int n = many ? atoi(many) : 24;
    int failed = 0;
    for (int s = 1; s <= n && failed < 3; s++) {
        bool ok = one_seed((uint64_t)s, 3);
        CHECK(ok);
        failed += !ok;
    }
}

/* ====================================================================== io read log */

typedef struct read_log {
    pthread_mutex_t mu;
    int n;
    uint64_t off[1 << 14], len[1 << 14];
} read_log;

static read_log rlog = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int64_t log_read(void *ctx, const io_file_t *f, uint64_t off, uint64_t len)
{
    (void)ctx;
    (void)f;
    pthread_mutex_lock(&rlog.mu);
    if (rlog.n < (int)(sizeof rlog.off / sizeof rlog.off[0])) {
        rlog.off[rlog.n] = off;
        rlog.len[rlog.n] = len;
        rlog.n++;
    }
    pthread_mutex_unlock(&rlog.mu);
    return (int64_t)len;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* ====================================================================== cancellation */

enum { CX_RGS = 40, CX_RG_ROWS = 1000 };

/* a, b: even ints with 0 and 10000 in every row group; c: strings of 'a'..'y' with "a" and
 * "zzzz" in every row group; d, e: projection only. a = 5001, b = 7001, c = 'zz' are
 * all-false on every split and no statistic shows it (no bloom, no page index). */
static int write_cancel_file(const char *path, pq_column_desc *sch)
{
    int64_t rows = CX_RGS * CX_RG_ROWS;
    sch[0] = ts_desc("a", PQ_INT32, 0, false, PQ_LOGICAL_NONE);
    sch[1] = ts_desc("b", PQ_INT64, 0, true, PQ_LOGICAL_NONE);
    sch[2] = ts_desc("c", PQ_BYTE_ARRAY, 0, false, PQ_LOGICAL_STRING);
    sch[3] = ts_desc("d", PQ_DOUBLE, 0, true, PQ_LOGICAL_NONE);
    sch[4] = ts_desc("e", PQ_INT32, 0, false, PQ_LOGICAL_NONE);
    pq_vec v[5];
    for (int i = 0; i < 5; i++) ts_vec_new(&v[i], sch[i].physical, 0, rows, rows * 8);
    for (int64_t r = 0; r < rows; r++) {
        int64_t k = r % CX_RG_ROWS;
        int32_t a = k == 0 ? 0 : k == 1 ? 10000 : (int32_t)(ts_rnd() % 5001) * 2;
        int64_t b = k == 2 ? 0 : k == 3 ? 10000 : (int64_t)(ts_rnd() % 5001) * 2;
        uint8_t s[8];
        int n = k == 4 ? 1 : k == 5 ? 4 : (int)ts_range(1, 6);
        for (int j = 0; j < n; j++) s[j] = k == 4 ? 'a' : k == 5 ? 'z' : (uint8_t)('a' + ts_rnd() % 25);
        double d = (double)r;
        int32_t e = (int32_t)r;
        ts_put_fixed(&v[0], &a, false);
        ts_put_fixed(&v[1], &b, r % 11 == 0 && k > 3);
        ts_put_bytes(&v[2], s, n, false);
        ts_put_fixed(&v[3], &d, false);
        ts_put_fixed(&v[4], &e, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.codec = PQ_CODEC_UNCOMPRESSED;
    wo.row_group_rows = CX_RG_ROWS;
    int rc = ts_write(path, sch, 5, v, rows, &wo);
    for (int i = 0; i < 5; i++) pq_vec_free(&v[i]);
    return rc;
}

/* Chunk byte ranges [rg][col]. */
static void chunk_ranges(pqf_t *f, uint64_t off[][5], uint64_t len[][5])
{
    for (int rg = 0; rg < f->meta.nrow_groups; rg++)
        for (int c = 0; c < 5; c++) {
            pq_err e = {.offset = -1};
            int rc = pq_chunk_range(&f->meta.row_groups[rg].chunks[c], f->file->size_bytes,
                                    &off[rg][c], &len[rg][c], &e);
            if (rc) abort();
        }
}

static scan_t *start_cancel_scan(pqf_t *f, const char *where, const int *proj, int nproj,
                                 scan_policy pol, int threads)
{
    scan_opts o;
    scan_opts_default(&o);
    o.policy = pol;
    o.threads = threads;
    o.io_opts.gap_bytes = 0; /* no hole reads across chunks: every byte read was wanted */
    o.io_opts.fault = log_read;
    pq_err e = {.offset = -1};
    flt_expr *ex = NULL;
    if (flt_parse(where, f->meta.columns, f->meta.ncolumns, &ex, &e) != 0) return NULL;
    scan_t *s = NULL;
    if (scan_start(f, proj, nproj, ex, &o, &s, &e) != 0) return NULL;
    return s;
}

static int64_t drain(scan_t *s)
{
    scan_batch b;
    pq_err e = {.offset = -1};
    int64_t rows = 0;
    int rc;
    while ((rc = scan_next(s, &b, &e)) == 1) {
        rows += b.rows;
        scan_batch_free(&b);
    }
    if (rc < 0) fprintf(stderr, "  scan_next: %s (status %d, offset %lld, column %s)\n", e.msg, rc, (long long)e.offset, e.column);
    return rc < 0 ? rc : rows;
}

/* The stats of scan s of f with reads and bytes_read less the planning and footer reads: the
 * data's. */
static scan_stats data_stats(pqf_t *f, scan_t *s)
{
    scan_stats st;
    scan_get_stats(s, &st);
    CHECK(st.reads >= st.plan_reads + (uint64_t)f->tail_reads);
    st.reads -= st.plan_reads + (uint64_t)f->tail_reads;
    st.bytes_read -= st.plan_bytes;
    return st;
}

static void test_cancel_lazy_adaptive(void)
{
    char path[256];
    ts_path(path, sizeof path, "cancel.parquet");
    pq_column_desc sch[5];
    ts_rng = 77;
    CHECK(write_cancel_file(path, sch) == 0);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&f, path, NULL, &e) == 0);
    if (!f) return;
    static uint64_t off[CX_RGS][5], len[CX_RGS][5];
    chunk_ranges(f, off, len);
    const int proj[] = {3, 4};
    const char *wheres[] = {"a = 5001", "a = 5001 AND b = 7001 AND c = 'zz'"};
    for (int w = 0; w < 2; w++)
        for (int pol = 0; pol < 3; pol += 2) /* LAZY, ADAPTIVE */
            for (int th = 1; th <= 2; th++) {
                rlog.n = 0;
                scan_t *s = start_cancel_scan(f, wheres[w], proj, 2, (scan_policy)pol, th);
                CHECK(s != NULL);
                if (!s) continue;
                CHECK_EQ_I64(drain(s), 0);
                scan_stats st;
                scan_get_stats(s, &st);
                int npred = w == 0 ? 1 : 3;
                CHECK_EQ_I64(st.row_groups_pruned, 0);
                CHECK_EQ_I64(st.splits_all_false, CX_RGS);
                CHECK_EQ_I64(st.rows_out, 0);
                CHECK_EQ_I64(st.rows_scanned, CX_RGS * CX_RG_ROWS);
                CHECK_EQ_I64(st.requests_registered, CX_RGS * (npred + 2));
                /* every read but one column per split was dropped before submission */
                CHECK_EQ_I64(st.requests_dropped, CX_RGS * (npred + 1));
                CHECK_EQ_I64(st.cancelled_reads, CX_RGS * (npred + 1));
                CHECK_EQ_I64(st.bytes_wasted, 0);
                /* per row group: exactly one predicate column read, no projection byte */
                uint64_t logged = 0;
                int bad_proj = 0, bad_many = 0;
                for (int rg = 0; rg < CX_RGS; rg++) {
                    int cols_read = 0;
                    for (int c = 0; c < 5; c++) {
                        bool hit = false;
                        for (int i = 0; i < rlog.n; i++)
                            hit = hit || overlaps(rlog.off[i], rlog.len[i], off[rg][c], len[rg][c]);
                        if (hit && c >= 3) bad_proj++;
                        if (hit && c < 3) cols_read++;
                        if (c >= npred && c < 3 && hit) bad_proj++;
                    }
                    if (cols_read != 1) bad_many++;
                }
                for (int i = 0; i < rlog.n; i++) logged += rlog.len[i];
                CHECK_EQ_I64(bad_proj, 0);
                CHECK_EQ_I64(bad_many, 0);
                CHECK_EQ_I64(st.bytes_read - st.plan_bytes, logged);
                CHECK_EQ_I64(st.bytes_used, st.bytes_read);
                if (chk_case_failed)
                    fprintf(stderr, "  cancel: where '%s' policy %d threads %d\n", wheres[w], pol, th);
                scan_free(s);
            }
    pqf_close(f);
}

/* Eager wants every read at split start; when the first conjunct's mask is all-false the
 * rest are released: each is either dropped unsubmitted, cancelled in flight, or read and
 * then discarded, which must count as wasted, never as used. */
static void test_cancel_eager(void)
{
    char path[256];
    ts_path(path, sizeof path, "cancel.parquet");
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&f, path, NULL, &e) == 0);
    if (!f) return;
    static uint64_t off[CX_RGS][5], len[CX_RGS][5];
    chunk_ranges(f, off, len);
    uint64_t a_bytes = 0, rest_bytes = 0;
    for (int rg = 0; rg < CX_RGS; rg++) {
        a_bytes += len[rg][0];
        rest_bytes += len[rg][1] + len[rg][2] + len[rg][3] + len[rg][4]; /* b, c: a hole */
    }
    const int proj[] = {3, 4};
    for (int th = 1; th <= 2; th++) {
        rlog.n = 0;
        scan_t *s = start_cancel_scan(f, "a = 5001", proj, 2, SCAN_EAGER, th);
        CHECK(s != NULL);
        if (!s) continue;
        CHECK_EQ_I64(drain(s), 0);
        scan_stats st;
        scan_get_stats(s, &st);
        CHECK_EQ_I64(st.splits_all_false, CX_RGS);
        CHECK_EQ_I64(st.requests_registered, CX_RGS * 3);
        /* only the first conjunct's bytes were used */
        CHECK_EQ_I64(st.bytes_used, st.plan_bytes + a_bytes);
        /* what was read of d and e is wasted; what was not was cancelled / dropped */
        uint64_t logged = 0;
        for (int i = 0; i < rlog.n; i++) logged += rlog.len[i];
        CHECK_EQ_I64(st.bytes_read - st.plan_bytes, logged);
        CHECK_EQ_I64(st.bytes_used + st.bytes_wasted, st.bytes_read);
        CHECK(st.bytes_wasted <= rest_bytes);
        /* eager submits d and e with a: every split shows either wasted bytes or cancels */
        CHECK(st.bytes_wasted > 0 || st.cancelled_reads > 0);
        CHECK(logged > a_bytes); /* eager did speculate */
        scan_free(s);
    }
    pqf_close(f);
}

/* A later conjunct behind an all-false one: the adaptive order measures it only on the
 * splits where it is moved to the front (never measured yet, or exploring). */
static void test_cancel_later_conjunct(void)
{
    char path[256];
    ts_path(path, sizeof path, "cancel.parquet");
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&f, path, NULL, &e) == 0);
    if (!f) return;
    static uint64_t off[CX_RGS][5], len[CX_RGS][5];
    chunk_ranges(f, off, len);
    const int proj[] = {4};
    for (int pol = 0; pol < 3; pol += 2) {
        rlog.n = 0;
        scan_t *s = start_cancel_scan(f, "a = 5001 AND b >= 0", proj, 1, (scan_policy)pol, 1);
        CHECK(s != NULL);
        if (!s) continue;
        CHECK_EQ_I64(drain(s), 0);
        scan_stats st;
        scan_get_stats(s, &st);
        int b_reads = 0, e_reads = 0;
        for (int rg = 0; rg < CX_RGS; rg++)
            for (int i = 0; i < rlog.n; i++) {
                b_reads += overlaps(rlog.off[i], rlog.len[i], off[rg][1], len[rg][1]);
                e_reads += overlaps(rlog.off[i], rlog.len[i], off[rg][4], len[rg][4]);
            }
        CHECK_EQ_I64(e_reads, 0);
        /* b is read on the first split after a was measured and when exploration moves it
         * forward (one split in FLT_ORDER_EXPLORE_PERIOD), nowhere else */
        CHECK(b_reads <= 1 + CX_RGS / FLT_ORDER_EXPLORE_PERIOD + SCAN_TASKS_PER_CORE);
        fprintf(stderr, "  note: policy %d: b read on %d of %d splits\n", pol, b_reads, CX_RGS);
        scan_free(s);
    }
    pqf_close(f);
}

/* ====================================================================== selected PLAIN pages */

/* A split whose first page of k and s has nulls among the selected rows and whose later PLAIN
 * pages have none: the later pages' selected values are copied by the selected-rows path, and
 * must come out valid. They came out null (validity bits left unset once the vector held a
 * null) until fuzz_column found it. Sums the valid values of each projected column. */
static void test_plain_sel_after_nulls(void)
{
    enum { ROWS = 2000, PAGE = 100 };
    pq_column_desc sch[3] = {ts_desc("f", PQ_INT32, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("k", PQ_INT64, 0, true, PQ_LOGICAL_NONE),
                             ts_desc("s", PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_STRING)};
    pq_vec v[3];
    ts_vec_new(&v[0], PQ_INT32, 0, ROWS, 0);
    ts_vec_new(&v[1], PQ_INT64, 0, ROWS, 0);
    ts_vec_new(&v[2], PQ_BYTE_ARRAY, 0, ROWS, ROWS * 8);
    int64_t want_valid = 0, want_k = 0, want_bytes = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        int32_t f = (int32_t)(r % 10);
        int64_t k = r * 7;
        char str[16];
        int n = snprintf(str, sizeof str, "v%lld", (long long)r);
        bool null = r < PAGE && f == 3; /* the first page's selected rows */
        ts_put_fixed(&v[0], &f, false);
        ts_put_fixed(&v[1], &k, null);
        ts_put_bytes(&v[2], (const uint8_t *)str, n, null);
        if (f == 3 && !null) want_valid++, want_k += k, want_bytes += n;
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.page_rows = PAGE;
    wo.dictionary = false;
    char path[256];
    ts_path(path, sizeof path, "plain_sel.parquet");
    CHECK(ts_write(path, sch, 3, v, ROWS, &wo) == 0);
    for (int i = 0; i < 3; i++) pq_vec_free(&v[i]);
    pqf_t *fl = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&fl, path, NULL, &e) == 0);
    flt_expr *ex = NULL;
    if (fl) CHECK(flt_parse("f = 3", fl->meta.columns, 3, &ex, &e) == 0);
    scan_opts o;
    scan_opts_default(&o);
    o.threads = 1;
    scan_t *sc = NULL;
    const int proj[] = {1, 2};
    if (ex) CHECK(scan_start(fl, proj, 2, ex, &o, &sc, &e) == 0);
    int64_t rows = 0, valid_k = 0, valid_s = 0, sum_k = 0, bytes = 0;
    scan_batch b;
    while (sc && scan_next(sc, &b, &e) == 1) {
        for (int64_t i = 0; i < b.rows; i++) {
            if (pq_vec_is_valid(&b.cols[0], i))
                valid_k++, sum_k += ((const int64_t *)(const void *)b.cols[0].values)[i];
            if (pq_vec_is_valid(&b.cols[1], i))
                valid_s++, bytes += b.cols[1].offsets[i + 1] - b.cols[1].offsets[i];
        }
        rows += b.rows;
        scan_batch_free(&b);
    }
    CHECK_EQ_I64(rows, ROWS / 10);
    CHECK_EQ_I64(valid_k, want_valid);
    CHECK_EQ_I64(valid_s, want_valid);
    CHECK_EQ_I64(sum_k, want_k);
    CHECK_EQ_I64(bytes, want_bytes);
    if (sc) scan_free(sc);
    pqf_close(fl);
}

/* The schema and columns of rows rows: key (INT64) = row, v (INT32) = row % 50. */
static void key_mod50(int64_t rows, pq_column_desc sch[2], pq_vec v[2])
{
    sch[0] = ts_desc("key", PQ_INT64, 0, false, PQ_LOGICAL_NONE);
    sch[1] = ts_desc("v", PQ_INT32, 0, false, PQ_LOGICAL_NONE);
    ts_vec_new(&v[0], PQ_INT64, 0, rows, 0);
    ts_vec_new(&v[1], PQ_INT32, 0, rows, 0);
    for (int64_t r = 0; r < rows; r++) {
        int32_t x = (int32_t)(r % 50);
        ts_put_fixed(&v[0], &r, false);
        ts_put_fixed(&v[1], &x, false);
    }
}

/* Few row groups without offset indexes, two threads: the plan cuts each kept group evenly
 * for the cores (plan.c cut_even; before, the groups stayed whole and one core ran most of
 * them), each split walking its chunks' pages from the start and decoding only those its rows
 * touch, pages straddling the cuts (pages of 3,000 rows, cuts at 13,333 and 26,666) decoded
 * by both. With and without dictionaries and a filter evaluated page by page: every row once,
 * in its place (key = row, v = row % 50 within each batch), at most one read per column
 * and group, and the cores' split counts add up to the plan's (their sleep within their
 * wall time: the per-core time's bookkeeping, core_time.h). */
static void test_cut_unindexed(void)
{
    enum { CU_RG = 40000, CU_ROWS = 3 * CU_RG, CU_PAGE = 3000 };
    for (int dict = 0; dict < 2; dict++) {
        pq_column_desc sch[2];
        pq_vec v[2];
        key_mod50(CU_ROWS, sch, v);
        pq_writer_opts wo;
        pq_writer_opts_default(&wo);
        wo.row_group_rows = CU_RG;
        wo.page_rows = CU_PAGE;
        wo.page_index = false;
        wo.dictionary = dict;
        char path[256];
        ts_path(path, sizeof path, "cut_unindexed.parquet");
        CHECK(ts_write(path, sch, 2, v, CU_ROWS, &wo) == 0);
        for (int i = 0; i < 2; i++) pq_vec_free(&v[i]);
        pqf_t *f = NULL;
        pq_err e = {.offset = -1};
        CHECK(pqf_open(&f, path, NULL, &e) == 0);
        if (!f) return;
        uint64_t reads[4] = {0, 0, 0, 0};
        /* 3: two threads, no cuts; 4: two threads, the default even-cut floor (64 Ki rows),
         * above these groups' pieces of 13,333 rows: they stay whole */
        for (int threads = 1; threads <= 4; threads++) {
            for (int filtered = 0; filtered < 2; filtered++) {
                scan_opts o;
                scan_opts_default(&o);
                o.threads = threads >= 3 ? 2 : threads;
                if (threads == 3) o.split_rows = 0;
                if (threads < 4) o.even_cut_min_rows = 1;
                flt_expr *ex = NULL;
                if (filtered) CHECK(flt_parse("v < 10", f->meta.columns, 2, &ex, &e) == 0);
                scan_t *sc = NULL;
                const int proj[] = {0, 1};
                CHECK(scan_start(f, proj, 2, ex, &o, &sc, &e) == 0);
                if (!sc) continue;
                int64_t rows = 0, sum = 0, bad = 0;
                scan_batch b;
                while (scan_next(sc, &b, &e) == 1) {
                    const int64_t *k = (const int64_t *)(const void *)b.cols[0].values;
                    const int32_t *x = (const int32_t *)(const void *)b.cols[1].values;
                    for (int64_t i = 0; i < b.rows; i++) {
                        bad += x[i] != k[i] % 50 || (filtered && x[i] >= 10) ||
                               (!filtered && i > 0 && k[i] != k[i - 1] + 1);
                        sum += k[i];
                    }
                    rows += b.rows;
                    scan_batch_free(&b);
                }
                scan_stats st;
                scan_get_stats(sc, &st);
                int64_t want = filtered ? CU_ROWS / 5 : CU_ROWS, want_sum = 0;
                for (int64_t r = 0; r < CU_ROWS; r++) want_sum += !filtered || r % 50 < 10 ? r : 0;
                CHECK_EQ_I64(rows, want);
                CHECK_EQ_I64(sum, want_sum);
                CHECK_EQ_I64(bad, 0);
                CHECK_EQ_I64(st.splits, threads == 2 ? 9 : 3); /* cut in three: 8 wanted / 3 */
                int64_t core_splits = 0;
                for (int c = 0; c < st.ncores; c++) {
                    const scan_core_stats *k = &st.core[c];
                    core_splits += k->splits;
                    uint64_t asleep = k->io_ns + k->dict_ns + k->window_ns + k->claim_ns +
                                      k->drain_ns + k->other_ns;
                    CHECK(k->wall_ns > 0 && asleep <= k->wall_ns); /* consistent, not a time */
                }
                CHECK_EQ_I64(st.ncores, o.threads);
                CHECK_EQ_I64(core_splits, st.splits);
                if (!filtered) reads[threads - 1] = st.reads;
                scan_free(sc);
            }
        }
        /* at most one read per column and row group: a cut group's splits share its unit's
         * request, or are lent it (each reading its whole chunks would be 18); the uncut scan
         * may merge groups into runs (2 reads here), which cut groups leave out */
        CHECK(reads[1] >= reads[2] && reads[1] <= 2 * 3);
        pqf_close(f);
    }
}

/* ====================================================================== ordering */

/* Writes the two columns v (freed) of rows rows to the test file name without dictionaries, in
 * row groups of rg_rows and pages of page_rows (0: the writer's default); the path into path. */
static void write_plain2(const char *name, const pq_column_desc sch[2], pq_vec v[2], int64_t rows,
                         int64_t rg_rows, int64_t page_rows, char path[256])
{
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = rg_rows;
    if (page_rows) wo.page_rows = page_rows;
    wo.dictionary = false;
    ts_path(path, 256, name);
    CHECK(ts_write(path, sch, 2, v, rows, &wo) == 0);
    pq_vec_free(&v[0]);
    pq_vec_free(&v[1]);
}

/* scan_opts.batch_fn: each batch with rows goes through it once, on the core that ran its
 * split, before the consumer takes it; refused with a limit or ORDER BY keys. */
enum { BF_RG = 5000, BF_GROUPS = 8, BF_ROWS = BF_RG * BF_GROUPS };

typedef struct bf_seen {
    int threads;
    int core_of[BF_GROUPS];       /* the core whose hook saw the group's batch, -1: none */
    int64_t batches[2], rows[2], sum[2]; /* per core: each written by its core only */
    int64_t calls_bad;            /* a call with a bad core or a batch seen twice */
} bf_seen;

static void bf_hook(void *ctx, int core, const scan_batch *b)
{
    bf_seen *w = ctx;
    if (core < 0 || core >= w->threads || b->rows <= 0 || b->ncols != 2) {
        w->calls_bad++; /* racy only when it fails */
        return;
    }
    const int64_t *k = (const int64_t *)(const void *)b->cols[0].values;
    int rg = (int)(k[0] / BF_RG);
    if (rg < 0 || rg >= BF_GROUPS || w->core_of[rg] != -1) {
        w->calls_bad++;
        return;
    }
    w->core_of[rg] = core;
    w->batches[core]++;
    w->rows[core] += b->rows;
    for (int64_t i = 0; i < b->rows; i++) w->sum[core] += k[i];
}

static void test_batch_fn(void)
{
    pq_column_desc sch[2];
    pq_vec v[2];
    key_mod50(BF_ROWS, sch, v);
    char path[256];
    write_plain2("batch_fn.parquet", sch, v, BF_ROWS, BF_RG, 1000, path);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&f, path, NULL, &e) == 0);
    if (!f) return;
    const int proj[] = {0, 1};
    int64_t want_sum = 0;
    for (int64_t r = 0; r < BF_ROWS; r++) want_sum += r % 50 < 10 ? r : 0;
    for (int threads = 1; threads <= 2; threads++) {
        bf_seen w = {.threads = threads};
        for (int g = 0; g < BF_GROUPS; g++) w.core_of[g] = -1;
        scan_opts o;
        scan_opts_default(&o);
        o.threads = threads;
        o.batch_fn = bf_hook, o.batch_ctx = &w;
        flt_expr *ex = NULL;
        CHECK(flt_parse("v < 10", f->meta.columns, 2, &ex, &e) == 0);
        scan_t *sc = NULL;
        CHECK(scan_start(f, proj, 2, ex, &o, &sc, &e) == 0);
        if (!sc) continue;
        int64_t rows = 0, sum = 0, batches = 0, unseen = 0;
        scan_batch b;
        while (scan_next(sc, &b, &e) == 1) {
            const int64_t *k = (const int64_t *)(const void *)b.cols[0].values;
            int rg = (int)(k[0] / BF_RG);
            unseen += rg < 0 || rg >= BF_GROUPS || w.core_of[rg] < 0; /* the hook came first */
            for (int64_t i = 0; i < b.rows; i++) sum += k[i];
            rows += b.rows, batches++;
            scan_batch_free(&b);
        }
        scan_stats st;
        scan_get_stats(sc, &st);
        CHECK_EQ_I64(rows, BF_ROWS / 5);
        CHECK_EQ_I64(sum, want_sum);
        CHECK_EQ_I64(batches, BF_GROUPS); /* one split, so one batch, per row group */
        CHECK_EQ_I64(unseen, 0);
        CHECK_EQ_I64(w.calls_bad, 0);
        CHECK_EQ_I64(st.ncores, threads);
        int64_t hook_rows = 0, hook_sum = 0;
        for (int c = 0; c < threads; c++) {
            CHECK_EQ_I64(w.batches[c], st.core[c].splits); /* every split of c had rows */
            int on_c = 0;
            for (int g = 0; g < BF_GROUPS; g++) on_c += w.core_of[g] == c;
            CHECK_EQ_I64(on_c, w.batches[c]);
            hook_rows += w.rows[c], hook_sum += w.sum[c];
        }
        CHECK_EQ_I64(hook_rows, rows);
        CHECK_EQ_I64(hook_sum, sum);
        if (threads == 1) CHECK_EQ_I64(w.batches[0], BF_GROUPS);
        scan_free(sc);
    }
    for (int refused = 0; refused < 2; refused++) { /* a limit, then an ORDER BY key */
        bf_seen w = {.threads = 2};
        scan_opts o;
        scan_opts_default(&o);
        o.batch_fn = bf_hook, o.batch_ctx = &w;
        if (refused == 0) o.limit = 10;
        else o.nkeys = 1, o.keys[0] = (scan_order_key){.col = 0, .desc = true};
        scan_t *sc = NULL;
        pq_err e2 = {.offset = -1};
        CHECK_EQ_I64(scan_start(f, proj, 2, NULL, &o, &sc, &e2), -EINVAL);
        CHECK(sc == NULL && e2.status == -EINVAL);
    }
    pqf_close(f);
}

static void test_ordering(void)
{
    enum { RGS = 40, RG_ROWS = 2000 };
    int64_t rows = RGS * RG_ROWS;
    pq_column_desc sch[2] = {ts_desc("s", PQ_BYTE_ARRAY, 0, false, PQ_LOGICAL_STRING),
                             ts_desc("k", PQ_INT32, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v[2];
    ts_vec_new(&v[0], PQ_BYTE_ARRAY, 0, rows, rows * 24);
    ts_vec_new(&v[1], PQ_INT32, 0, rows, 0);
    ts_rng = 99;
    int64_t expect = 0;
    for (int64_t r = 0; r < rows; r++) {
        uint8_t s[24];
        int n = (int)ts_range(12, 24);
        for (int j = 0; j < n; j++) s[j] = (uint8_t)('a' + ts_rnd() % 26);
        s[0] = ts_rnd() % 10 ? 'a' : 'b'; /* ~90% pass s LIKE 'a%' */
        int32_t k = (int32_t)(ts_rnd() % 2000); /* ~1% pass k < 20 */
        if (r % RG_ROWS == 0) k = 0;
        if (r % RG_ROWS == 1) k = 1999;
        expect += s[0] == 'a' && k < 20;
        ts_put_bytes(&v[0], s, n, false);
        ts_put_fixed(&v[1], &k, false);
    }
    char path[256];
    write_plain2("order.parquet", sch, v, rows, RG_ROWS, 0, path);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&f, path, NULL, &e) == 0);
    if (!f) return;
    for (int pol = 0; pol < 3; pol++) {
        scan_opts o;
        scan_opts_default(&o);
        o.policy = (scan_policy)pol;
        o.threads = 1;
        o.explain = true;
        flt_expr *ex = NULL;
        CHECK(flt_parse("s LIKE 'a%' AND k < 20", f->meta.columns, 2, &ex, &e) == 0);
        scan_t *s = NULL;
        const int proj[] = {0, 1};
        CHECK(scan_start(f, proj, 2, ex, &o, &s, &e) == 0);
        if (!s) continue;
        CHECK_EQ_I64(drain(s), expect);
        scan_stats st;
        scan_get_stats(s, &st);
        const char *x = scan_explain(s);
        CHECK(strstr(x, "conjunct order (start): #1 s -> #2 k\n") != NULL);
        /* the order the file's last split ran in (39 does not explore; 15 and 31 do), k first */
        const char *fin = strstr(x, "conjunct order (final, split 39; ");
        CHECK(fin != NULL && strstr(fin, "): #2 k (rows in ") != NULL && strchr(fin, '\n')[1] == 0);
        int32_t perm[2];
        flt_order_snapshot(s->pol.order, 0, perm);
        CHECK_EQ_I64(perm[0], 1);
        /* B moved first early: A saw only a small share of the rows */
        uint64_t a_in = atomic_load(&s->pol.order->st[0].rows_in);
        uint64_t b_in = atomic_load(&s->pol.order->st[1].rows_in);
        CHECK(b_in > (uint64_t)rows * 8 / 10);
        CHECK(a_in < (uint64_t)rows / 2); /* never reordered: a_in == rows */
        if (chk_case_failed) fprintf(stderr, "  ordering policy %d explain:\n%s\n", pol, x);
        scan_free(s);
    }
    pqf_close(f);
}

/* A string conjunct after a selective one, on PLAIN pages of a column nothing else needs:
 * each page is evaluated from the values of the rows that reach it only (sel_eval_pages), with
 * nulls among them (decoded whole, then taken) and without; the rows match a reference. */
static void test_string_after_selective(void)
{
    enum { ROWS = 30000, RG = 10000, PAGE = 1000 };
    for (int nullable = 0; nullable < 2; nullable++) {
        pq_column_desc sch[2] = {ts_desc("s", PQ_BYTE_ARRAY, 0, nullable, PQ_LOGICAL_STRING),
                                 ts_desc("k", PQ_INT32, 0, false, PQ_LOGICAL_NONE)};
        pq_vec v[2];
        ts_vec_new(&v[0], PQ_BYTE_ARRAY, 0, ROWS, ROWS * 20);
        ts_vec_new(&v[1], PQ_INT32, 0, ROWS, 0);
        ts_rng = 7 + (uint64_t)nullable;
        int64_t expect = 0;
        for (int64_t r = 0; r < ROWS; r++) {
            uint8_t s[20];
            int n = (int)ts_range(1, 20);
            for (int j = 0; j < n; j++) s[j] = (uint8_t)('a' + ts_rnd() % 26);
            bool null = nullable && ts_rnd() % 7 == 0;
            int32_t k = (int32_t)(ts_rnd() % 100); /* ~3% pass k < 3 */
            expect += !null && k < 3 && s[0] >= 'm';
            ts_put_bytes(&v[0], s, n, null);
            ts_put_fixed(&v[1], &k, false);
        }
        char path[256];
        write_plain2("strsel.parquet", sch, v, ROWS, RG, PAGE, path);
        const int proj[] = {1};
        for (int pol = 0; pol < 3; pol++) {
            pqf_t *f = NULL;
            pq_err e = {.offset = -1};
            CHECK(pqf_open(&f, path, NULL, &e) == 0);
            if (!f) return;
            scan_opts o;
            scan_opts_default(&o);
            o.policy = (scan_policy)pol;
            flt_expr *ex = NULL;
            CHECK(flt_parse("k < 3 AND s >= 'm'", f->meta.columns, 2, &ex, &e) == 0);
            scan_t *s = NULL;
            CHECK(scan_start(f, proj, 1, ex, &o, &s, &e) == 0);
            if (s) {
                CHECK_EQ_I64(drain(s), expect);
                scan_stats st;
                scan_get_stats(s, &st);
                CHECK_EQ_I64(st.sel_eval_pages, ROWS / PAGE); /* k first: stated order is kept */
                scan_free(s);
            }
            pqf_close(f);
        }
    }
}

/* ====================================================================== read-ahead */

/* Scans a steal test repeats until a steal was lent: whether the second core starts while the
 * first still has units left is up to the scheduler (on this VM, some hours, about 1 scan in
 * 12 had a steal, so 20 tries failed about 1 run of test_steal_lends in 6). */
enum { STEAL_TRIES = 200 };

/* the sorted file's groups are 10x larger: each core's scan then lasts long enough (a few ms)
 * for the other core to start while units are left to steal */
enum { RA_RGS = 24, RA_RG_ROWS = 2000, RA_SORTED_RG_ROWS = 20000 };

/* Scans the read-ahead file with k and v projected; checks the rows and the sum of v, returns
 * the data's stats. */
static scan_stats ra_scan(pqf_t *f, const char *where, scan_policy pol, int threads,
                          int64_t limit, int64_t expect_rows, int64_t expect_sum)
{
    scan_opts o;
    scan_opts_default(&o);
    o.policy = pol;
    o.threads = threads;
    o.limit = limit;
    o.io = EXEC_IO_PREAD; /* a read call per range: io_uring may split one */
    pq_err e = {.offset = -1};
    flt_expr *ex = NULL;
    scan_stats st = {0};
    if (where) CHECK(flt_parse(where, f->meta.columns, 2, &ex, &e) == 0);
    scan_t *s = NULL;
    const int proj[] = {0, 1};
    CHECK(scan_start(f, proj, 2, ex, &o, &s, &e) == 0);
    if (!s) return st;
    scan_batch b;
    int64_t rows = 0, sum = 0;
    while (scan_next(s, &b, &e) == 1) {
        const int64_t *v = (const int64_t *)(const void *)b.cols[1].values;
        for (int64_t i = 0; i < b.rows; i++) sum += v[i];
        rows += b.rows;
        scan_batch_free(&b);
    }
    CHECK_EQ_I64(rows, expect_rows);
    if (expect_sum >= 0) CHECK_EQ_I64(sum, expect_sum);
    st = data_stats(f, s);
    scan_free(s);
    return st;
}

/* The read-ahead file: RA_RGS row groups of rg_rows rows and two columns (k = row % 7, or with
 * sorted the row group's index; v random), too small to cut; *sum: the sum of v; *data: the
 * bytes of both columns of every row group. */
static pqf_t *ahead_file(bool sorted, int64_t rg_rows, int64_t *sum, uint64_t *data)
{
    int64_t rows = RA_RGS * rg_rows;
    *sum = 0;
    pq_column_desc sch[2] = {ts_desc("k", PQ_INT32, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("v", PQ_INT64, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v[2];
    ts_vec_new(&v[0], PQ_INT32, 0, rows, 0);
    ts_vec_new(&v[1], PQ_INT64, 0, rows, 0);
    ts_rng = 5;
    for (int64_t r = 0; r < rows; r++) {
        int32_t k = (int32_t)(sorted ? r / rg_rows : r % 7);
        int64_t x = (int64_t)(ts_rnd() % 1000000);
        *sum += x;
        ts_put_fixed(&v[0], &k, false);
        ts_put_fixed(&v[1], &x, false);
    }
    char path[256];
    write_plain2(sorted ? "ahead_sorted.parquet" : "ahead.parquet", sch, v, rows, rg_rows, 0, path);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(pqf_open(&f, path, NULL, &e) == 0);
    if (f) io_file_unkeep(f->file); /* its last groups' chunks lie in the tail: read them all */
    *data = 0;
    for (int rg = 0; f && rg < RA_RGS; rg++)
        for (int c = 0; c < 2; c++)
            *data += (uint64_t)f->meta.row_groups[rg].chunks[c].total_compressed_size;
    return f;
}

/* Row groups too small to cut are units of one split: when the policy wants every column
 * up front, a core reserves a run of them and wants their reads at once, so the columns of
 * consecutive row groups, laid out back to back, are one read (not one per task in flight),
 * and nothing is lost or read twice. With a limit there is no read-ahead. */
static void test_read_ahead(void)
{
    int64_t rows = RA_RGS * RA_RG_ROWS, sum;
    uint64_t data;
    pqf_t *f = ahead_file(false, RA_RG_ROWS, &sum, &data);
    if (!f) return;
    /* one thread, every column wanted: the whole file is one read of exactly its columns */
    scan_stats st = ra_scan(f, NULL, SCAN_ADAPTIVE, 1, -1, rows, sum);
    CHECK_EQ_I64(st.reads, 1);
    CHECK_EQ_I64(st.bytes_read, data);
    CHECK_EQ_I64(st.bytes_wasted, 0);
    st = ra_scan(f, "k >= 0", SCAN_EAGER, 1, -1, rows, sum);
    CHECK_EQ_I64(st.reads, 1);
    CHECK_EQ_I64(st.bytes_used, data);
    /* adaptive: before any split ran, the statistics (k in 0..6) say these conjuncts keep
     * rows in every split, so the first run is read ahead as under eager: one read */
    st = ra_scan(f, "k >= 0", SCAN_ADAPTIVE, 1, -1, rows, sum);
    CHECK_EQ_I64(st.reads, 1);
    CHECK_EQ_I64(st.bytes_used, data);
    st = ra_scan(f, "k < 3", SCAN_ADAPTIVE, 1, -1, rows * 3 / 7 + 1, -1);
    CHECK_EQ_I64(st.reads, 1);
    CHECK_EQ_I64(st.bytes_used, data);
    /* lazy wants nothing ahead: a read per column per row group, some coalesced by the tasks */
    st = ra_scan(f, "k >= 0", SCAN_LAZY, 1, -1, rows, sum);
    CHECK(st.reads > RA_RGS / SCAN_TASKS_PER_CORE);
    /* two threads: every row once; test_run_steal has the reads */
    for (int pol = 0; pol < 3; pol++) {
        st = ra_scan(f, "k < 3", (scan_policy)pol, 2, -1, rows * 3 / 7 + 1, -1);
        CHECK_EQ_I64(st.bytes_used + st.bytes_wasted, st.bytes_read);
        CHECK(st.bytes_read >= data);
        st = ra_scan(f, NULL, (scan_policy)pol, 2, -1, rows, sum);
        CHECK_EQ_I64(st.bytes_used, data); /* a gap read over may hold the other core's units */
        CHECK_EQ_I64(st.bytes_used + st.bytes_wasted, st.bytes_read);
        CHECK(st.reads <= RA_RGS); /* how many runs meet in a read depends on timing */
    }
    /* a limit met by the first row group: the window's splits at most, no run read ahead */
    st = ra_scan(f, NULL, SCAN_ADAPTIVE, 1, 10, 10, -1);
    CHECK(st.bytes_read <= data / RA_RGS * (SCAN_TASKS_PER_CORE * 2 + 1));
    pqf_close(f);
}

/* The footer's tail read grows with the file (a remote file's page index grows with its
 * pages), within its bounds, and never past the file; a local file's is smaller. */
static void test_tail_bytes(void)
{
    CHECK_EQ_I64(pqf_tail_bytes(100, true), 100);
    CHECK_EQ_I64(pqf_tail_bytes(10 << 20, true), PQF_TAIL_MIN_BYTES);
    CHECK_EQ_I64(pqf_tail_bytes((uint64_t)2496806030, true), 2496806030 / PQF_TAIL_SHARE);
    CHECK_EQ_I64(pqf_tail_bytes((uint64_t)1 << 40, true), PQF_TAIL_MAX_BYTES);
    CHECK_EQ_I64(pqf_tail_bytes(100, false), 100);
    CHECK_EQ_I64(pqf_tail_bytes(10 << 20, false), PQF_LOCAL_TAIL_MIN_BYTES);
    CHECK_EQ_I64(pqf_tail_bytes(233953262, false), 233953262 / PQF_LOCAL_TAIL_SHARE); /* sf=1 */
    CHECK_EQ_I64(pqf_tail_bytes((uint64_t)2496806030, false), PQF_LOCAL_TAIL_MAX_BYTES);
}

/* ====================================================================== pruning */

enum { PR_ROWS = 20000, PR_RG = 1000, PR_PAGE = 100 };

static pqf_t *open_sorted(bool page_index, bool bloom)
{
    pq_column_desc sch[3] = {ts_desc("key", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("v", PQ_INT32, 0, true, PQ_LOGICAL_NONE),
                             ts_desc("u", PQ_INT64, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v[3];
    for (int i = 0; i < 3; i++) ts_vec_new(&v[i], sch[i].physical, 0, PR_ROWS, 0);
    ts_rng = 5;
    for (int64_t r = 0; r < PR_ROWS; r++) {
        int32_t x = (int32_t)(ts_rnd() % 1000);
        int64_t u = (r % PR_RG) == 0 ? 0 : (r % PR_RG) == 1 ? 1000000 : (int64_t)(ts_rnd() % 500000) * 2;
        ts_put_fixed(&v[0], &r, false);
        ts_put_fixed(&v[1], &x, r % 13 == 0);
        ts_put_fixed(&v[2], &u, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = PR_RG;
    wo.page_rows = PR_PAGE;
    wo.page_index = page_index;
    uint8_t flags[3] = {0, bloom ? PQ_WCOL_BLOOM : 0, bloom ? PQ_WCOL_BLOOM : 0};
    wo.col_flags = flags;
    char path[256];
    ts_path(path, sizeof path, page_index ? "sorted_pi.parquet" : "sorted.parquet");
    int rc = ts_write(path, sch, 3, v, PR_ROWS, &wo);
    for (int i = 0; i < 3; i++) pq_vec_free(&v[i]);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    if (rc || pqf_open(&f, path, NULL, &e)) return NULL;
    return f;
}

static scan_stats scan_count(pqf_t *f, const char *where, const int *proj, int nproj, int64_t *rows,
                             bool bloom)
{
    scan_opts o;
    scan_opts_default(&o);
    o.use_bloom = bloom;
    pq_err e = {.offset = -1};
    flt_expr *ex = NULL;
    scan_stats st;
    memset(&st, 0, sizeof st);
    *rows = -1;
    if (flt_parse(where, f->meta.columns, f->meta.ncolumns, &ex, &e)) return st;
    scan_t *s = NULL;
    if (scan_start(f, proj, nproj, ex, &o, &s, &e)) return st;
    *rows = drain(s);
    st = data_stats(f, s);
    scan_free(s);
    return st;
}

/* Expected pruning of lo <= key <= hi on the sorted file. */
static void expect_pruning(int64_t lo, int64_t hi, bool page_index, int ncols_needed,
                           int64_t *rg_pruned, int64_t *pages_total, int64_t *pages_pruned)
{
    *rg_pruned = *pages_total = *pages_pruned = 0;
    for (int64_t a = 0; a < PR_ROWS; a += PR_RG) {
        int64_t b = a + PR_RG - 1;
        if (b < lo || a > hi) {
            ++*rg_pruned;
            continue;
        }
        if (!page_index) continue;
        for (int64_t p = a; p <= b; p += PR_PAGE) {
            *pages_total += ncols_needed;
            if (p + PR_PAGE - 1 < lo || p > hi) *pages_pruned += ncols_needed;
        }
    }
}

static void test_pruning(void)
{
    for (int pi = 0; pi < 2; pi++) {
        pqf_t *f = open_sorted(pi, false);
        CHECK(f != NULL);
        if (!f) continue;
        struct { int64_t lo, hi; int nproj; } cases[] = {
            {4550, 7419, 1}, {4550, 7419, 2}, {0, 99, 1}, {19950, 25000, 2}, {12345, 12345, 1},
            {-5, -1, 1}, {0, 19999, 2},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            char where[128];
            snprintf(where, sizeof where, "key >= %lld AND key <= %lld", (long long)cases[i].lo,
                     (long long)cases[i].hi);
            const int proj[] = {0, 1};
            int64_t rows, rg, pt, pp;
            scan_stats st = scan_count(f, where, proj, cases[i].nproj, &rows, true);
            expect_pruning(cases[i].lo, cases[i].hi, pi, cases[i].nproj, &rg, &pt, &pp);
            int64_t lo = cases[i].lo < 0 ? 0 : cases[i].lo, hi = cases[i].hi > PR_ROWS - 1 ? PR_ROWS - 1 : cases[i].hi;
            CHECK_EQ_I64(rows, hi >= lo ? hi - lo + 1 : 0);
            CHECK_EQ_I64(st.row_groups_total, PR_ROWS / PR_RG);
            CHECK_EQ_I64(st.row_groups_pruned, rg);
            CHECK_EQ_I64(st.pages_total, pt);
            CHECK_EQ_I64(st.pages_pruned, pp);
            CHECK_EQ_I64(st.rows_scanned, (PR_ROWS / PR_RG - rg) * PR_RG);
            /* the page index came with the footer's tail read: no read of its own */
            CHECK_EQ_I64(st.plan_reads, 0);
            CHECK_EQ_I64(st.plan_bytes, 0); /* bytes read, and none were */
            if (chk_case_failed) fprintf(stderr, "  pruning: page_index %d where %s\n", pi, where);
        }
        /* a conjunct the statistics cannot decide prunes nothing */
        int64_t rows;
        const int proj[] = {1};
        scan_stats st = scan_count(f, "v = 500 AND key >= 0", proj, 1, &rows, true);
        CHECK_EQ_I64(st.row_groups_pruned, 0);
        CHECK_EQ_I64(st.pages_pruned, 0);
        CHECK((f->index_bytes != NULL) == (pi == 1));
        if (f->index_bytes) { /* the kept span answers exactly the ranges inside it */
            uint8_t b[16];
            uint64_t o = f->index_off;
            size_t n = f->index_len;
            CHECK(n > 16 && pqf_index_bytes(f, o, b, 16) && pqf_index_bytes(f, o + n - 16, b, 16));
            CHECK(memcmp(b, f->index_bytes + n - 16, 16) == 0);
            CHECK(!pqf_index_bytes(f, o - 1, b, 16) && !pqf_index_bytes(f, o + n - 15, b, 16));
            CHECK(!pqf_index_bytes(f, o + n + 1, b, 0) && pqf_index_bytes(f, o + n, b, 0));
            /* without them, planning reads the index once and prunes the same */
            free(f->index_bytes);
            f->index_bytes = NULL;
            scan_stats st2 = scan_count(f, "key >= 4550 AND key <= 7419", proj, 1, &rows, true);
            CHECK_EQ_I64(st2.plan_reads, 1);
            CHECK(st2.plan_bytes > 0 && st2.plan_bytes <= f->index_len);
            CHECK_EQ_I64(rows, 7419 - 4550 + 1);
            CHECK(st2.pages_pruned > 0);
        }
        pqf_close(f);
    }
}

/* A page index outside a local file's tail but inside a remote one's (~350 KB of index on a
 * ~2 MB file): locally the footer is one read and planning reads the index once (the needed
 * columns' span); through a simulated store the tail brings it and planning reads nothing.
 * Both prune the same pages and return the same rows. */
static void test_index_outside_tail(void)
{
    enum { ROWS = 200000, RG = 20000, PAGE = 20 };
    char path[256];
    ts_path(path, sizeof path, "index_outside_tail.parquet");
    CHECK_EQ_I64(ts_write_ids(path, "key", ROWS, RG, PAGE, true), 0);
    int64_t pruned[2] = {-1, -1};
    for (int remote = 0; remote < 2; remote++) {
        io_open_opts io = {.store = remote ? "sim:ttfb=1ms,bw=1000MB/s" : NULL};
        pqf_t *f = NULL;
        pq_err e = {.offset = -1};
        CHECK_EQ_I64(pqf_open_with(&f, path, &io, NULL, &e), 0);
        if (!f) continue;
        uint64_t size = f->file->size_bytes, tail = pqf_tail_bytes(size, remote);
        CHECK_EQ_I64(tail, remote ? PQF_TAIL_MIN_BYTES : PQF_LOCAL_TAIL_MIN_BYTES);
        CHECK_EQ_I64(f->tail_reads, 1);
        CHECK_EQ_I64(f->index_bytes != NULL, remote); /* kept only when the tail held it */
        uint64_t lo = UINT64_MAX, hi = 0; /* the index's span: every row group's two indexes */
        for (int rg = 0; rg < f->meta.nrow_groups; rg++) {
            const pq_chunk_meta *cm = &f->meta.row_groups[rg].chunks[0];
            CHECK(cm->has_offset_index && cm->has_column_index);
            uint64_t a = (uint64_t)cm->offset_index_offset, b = (uint64_t)cm->column_index_offset;
            lo = a < lo ? a : lo, lo = b < lo ? b : lo;
            a += (uint64_t)cm->offset_index_length, b += (uint64_t)cm->column_index_length;
            hi = a > hi ? a : hi, hi = b > hi ? b : hi;
        }
        CHECK(lo < size - PQF_LOCAL_TAIL_MIN_BYTES && lo >= size - PQF_TAIL_MIN_BYTES);
        const int proj[] = {0};
        int64_t rows;
        scan_stats st = scan_count(f, "key >= 30000 AND key < 30100", proj, 1, &rows, false);
        CHECK_EQ_I64(rows, 100);
        CHECK_EQ_I64(st.plan_reads, remote ? 0 : 1);
        CHECK_EQ_I64(st.plan_bytes, remote ? 0 : hi - lo);
        CHECK_EQ_I64(st.row_groups_pruned, ROWS / RG - 1);
        pruned[remote] = st.pages_pruned;
        pqf_close(f);
    }
    CHECK_EQ_I64(pruned[0], RG / PAGE - 100 / PAGE);
    CHECK_EQ_I64(pruned[1], pruned[0]);
}

/* The chunks a footer's tail held whole (pqfile.h): a file smaller than its tail keeps every
 * chunk, so its scan reads nothing but the footer, locally (pread and mmap) and through a
 * simulated store, and its values are the file's as it was at open even when the file is
 * overwritten before the scan; a file just over the tail keeps only its last group's chunks
 * and reads the others. */
static void kept_scan(const char *path, const io_open_opts *io, int64_t rows_all,
                      bool overwrite, uint64_t *kept, int64_t *reads)
{
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK_EQ_I64(pqf_open_with(&f, path, io, NULL, &e), 0);
    if (!f) return;
    CHECK_EQ_I64(f->tail_reads, 1);
    *kept = f->file->kept_len;
    if (overwrite && f->file->kept) { /* the chunks' bytes zeroed in place, after the open */
        int fd = open(path, O_WRONLY);
        uint8_t zero[4096] = {0};
        for (uint64_t o = f->file->kept_off; fd >= 0 && o < f->file->kept_off + f->file->kept_len;
             o += sizeof zero)
            CHECK(pwrite(fd, zero, sizeof zero, (off_t)o) == (ssize_t)sizeof zero);
        if (fd >= 0) close(fd);
    }
    const int proj[] = {0};
    int64_t rows;
    scan_stats st = scan_count(f, "key >= 0", proj, 1, &rows, false);
    CHECK_EQ_I64(rows, rows_all);
    scan_stats in = scan_count(f, "key >= 1500 AND key < 1600", proj, 1, &rows, false);
    CHECK_EQ_I64(rows, 100);
    CHECK_EQ_I64(in.bytes_kept <= st.bytes_kept, true);
    *reads = (int64_t)st.reads;
    CHECK_EQ_I64(st.bytes_used, st.bytes_read + st.bytes_kept);
    pqf_close(f);
}

static void test_kept_chunks(void)
{
    char small[256], big[256];
    ts_path(small, sizeof small, "kept_small.parquet");
    ts_path(big, sizeof big, "kept_big.parquet");
    CHECK_EQ_I64(ts_write_ids(small, "key", 3000, 1000, 100, false), 0);
    CHECK_EQ_I64(ts_write_ids(big, "key", 12000, 3000, 100, false), 0);
    struct stat sb, ss;
    CHECK(stat(small, &ss) == 0 && stat(big, &sb) == 0);
    CHECK(ss.st_size < PQF_LOCAL_TAIL_MIN_BYTES);
    CHECK(sb.st_size > PQF_LOCAL_TAIL_MIN_BYTES && sb.st_size < 2 * PQF_LOCAL_TAIL_MIN_BYTES);
    io_open_opts modes[3] = {{.read_mode = IO_READ_COPY}, {.read_mode = IO_READ_MMAP},
                             {.store = "sim:ttfb=1ms,bw=1000MB/s"}};
    for (int m = 0; m < 3; m++) {
        uint64_t kept;
        int64_t reads;
        kept_scan(small, &modes[m], 3000, false, &kept, &reads);
        CHECK(kept > 0 && kept < (uint64_t)ss.st_size);
        CHECK_EQ_I64(reads, 0); /* data reads (the footer's tail aside) */
        /* the big file: locally the tail holds its last groups but not its first; remotely the
         * tail (1 MiB at least) is the whole file */
        kept_scan(big, &modes[m], 12000, false, &kept, &reads);
        CHECK(kept > 0);
        if (m < 2) CHECK(reads > 0 && kept <= PQF_LOCAL_TAIL_MIN_BYTES);
        else CHECK_EQ_I64(reads, 0);
        if (chk_case_failed)
            fprintf(stderr, "  kept chunks: mode %d, big file %lld bytes: kept %llu, reads %lld\n", m,
                    (long long)sb.st_size, (unsigned long long)kept, (long long)reads);
    }
    uint64_t kept;
    int64_t reads;
    kept_scan(small, &modes[0], 3000, true, &kept, &reads); /* overwritten after its open */
    CHECK_EQ_I64(reads, 0);
}

/* Bloom filters prune = / IN on values inside [min, max] that no row holds. */
static void test_bloom_pruning(void)
{
    for (int bl = 0; bl < 2; bl++) {
        pqf_t *f = open_sorted(false, true);
        CHECK(f != NULL);
        if (!f) return;
        int64_t rows;
        const int proj[] = {0};
        scan_stats st = scan_count(f, "u = 4321", proj, 1, &rows, bl);
        CHECK_EQ_I64(rows, 0);
        if (bl) CHECK(st.row_groups_pruned >= PR_ROWS / PR_RG - 2); /* 1% false positives */
        else CHECK_EQ_I64(st.row_groups_pruned, 0);
        /* a value present in one row group keeps that row group */
        scan_stats st2 = scan_count(f, "u IN (1000000, 4321)", proj, 1, &rows, bl);
        CHECK_EQ_I64(rows, PR_ROWS / PR_RG);
        CHECK_EQ_I64(st2.row_groups_pruned, 0); /* 1000000 is in every row group */
        /* an OR over two columns: pruned where neither column's filter has its value (v
         * holds 0..999 only, so v = 5000 is absent everywhere; v = 7 is in every group) */
        scan_stats st3 = scan_count(f, "u = 4321 OR v = 5000", proj, 1, &rows, bl);
        CHECK_EQ_I64(rows, 0);
        if (bl) CHECK(st3.row_groups_pruned >= PR_ROWS / PR_RG - 2);
        else CHECK_EQ_I64(st3.row_groups_pruned, 0);
        /* v = 7 is absent from some groups (1000 draws of 0..999 each): only those go, and
         * the rows are the ones a scan without bloom filters finds */
        int64_t want;
        (void)scan_count(f, "u = 4321 OR v = 7", proj, 1, &want, false);
        scan_stats st4 = scan_count(f, "u = 4321 OR v = 7", proj, 1, &rows, bl);
        CHECK(want > 0 && rows == want);
        CHECK(bl ? st4.row_groups_pruned > 0 && st4.row_groups_pruned < PR_ROWS / PR_RG
                 : st4.row_groups_pruned == 0);
        scan_stats st5 = scan_count(f, "u = 4321 OR v < 500", proj, 1, &rows, bl);
        CHECK_EQ_I64(st5.row_groups_pruned, 0); /* a part bloom filters cannot answer */
        pqf_close(f);
    }
}

/* ====================================================================== limit */

static void test_limit(void)
{
    pqf_t *f = open_sorted(false, false);
    CHECK(f != NULL);
    if (!f) return;
    const int proj[] = {0, 1};
    for (int ord = 0; ord < 2; ord++)
        for (int pol = 0; pol < 3; pol++)
            for (int th = 1; th <= 2; th++) {
                scan_opts o;
                scan_opts_default(&o);
                o.policy = (scan_policy)pol;
                o.threads = th;
                o.ordered = ord;
                o.limit = 1500;
                pq_err e = {.offset = -1};
                flt_expr *ex = NULL;
                /* key % 2 is not expressible: use a filter passing ~half the rows */
                CHECK(flt_parse("(v < 500 OR v IS NULL)", f->meta.columns, 3, &ex, &e) == 0);
                scan_t *s = NULL;
                CHECK(scan_start(f, proj, 2, ex, &o, &s, &e) == 0);
                if (!s) continue;
                scan_batch b;
                int64_t n = 0, prev = -1;
                bool in_order = true, valid = true;
                int rc;
                while ((rc = scan_next(s, &b, &e)) == 1) {
                    const int64_t *k = (const int64_t *)(const void *)b.cols[0].values;
                    for (int64_t i = 0; i < b.rows; i++) {
                        if (k[i] <= prev) in_order = false;
                        prev = k[i];
                        bool null = !pq_vec_is_valid(&b.cols[1], i);
                        int32_t v = ((const int32_t *)(const void *)b.cols[1].values)[i];
                        if (!(null || v < 500)) valid = false;
                    }
                    n += b.rows;
                    scan_batch_free(&b);
                }
                CHECK_EQ_I64(rc, 0);
                CHECK_EQ_I64(n, 1500);
                CHECK(valid);
                scan_stats st;
                scan_get_stats(s, &st);
                CHECK_EQ_I64(st.rows_out, 1500);
                /* at most the window of splits ran (plus the ones in their tasks) */
                CHECK(st.rows_scanned <= (int64_t)(th * SCAN_TASKS_PER_CORE * 2 + th * SCAN_TASKS_PER_CORE) * PR_RG);
                CHECK(st.rows_scanned < PR_ROWS);
                if (ord) {
                    CHECK(in_order);
                    /* the first 1500 passing rows in file order: the last key is known */
                    CHECK(prev < 3 * 1500);
                }
                if (chk_case_failed) fprintf(stderr, "  limit: ordered %d policy %d threads %d\n", ord, pol, th);
                scan_free(s);
            }
    /* limit 0: nothing, at once */
    scan_opts o;
    scan_opts_default(&o);
    o.limit = 0;
    scan_t *s = NULL;
    pq_err e = {.offset = -1};
    CHECK(scan_start(f, proj, 2, NULL, &o, &s, &e) == 0);
    if (s) {
        CHECK_EQ_I64(drain(s), 0);
        scan_free(s);
    }
    pqf_close(f);
}

/* Ordered output with a limit gives exactly the first n matching rows of the file. */
static void test_limit_ordered_exact(void)
{
    pqf_t *f = open_sorted(false, false);
    CHECK(f != NULL);
    if (!f) return;
    for (int64_t lim = 1; lim < PR_ROWS; lim = lim * 7 + 3) {
        scan_opts o;
        scan_opts_default(&o);
        o.ordered = true;
        o.limit = lim;
        const int proj[] = {0};
        scan_t *s = NULL;
        pq_err e = {.offset = -1};
        CHECK(scan_start(f, proj, 1, NULL, &o, &s, &e) == 0);
        if (!s) continue;
        scan_batch b;
        int64_t n = 0;
        bool seq = true;
        while (scan_next(s, &b, &e) == 1) {
            const int64_t *k = (const int64_t *)(const void *)b.cols[0].values;
            for (int64_t i = 0; i < b.rows; i++) seq = seq && k[i] == n + i;
            n += b.rows;
            scan_batch_free(&b);
        }
        CHECK_EQ_I64(n, lim);
        CHECK(seq);
        scan_free(s);
    }
    pqf_close(f);
}

/* Freeing a scan mid-way (consumer gone) stops it and releases everything. */
static void test_free_midway(void)
{
    pqf_t *f = open_sorted(true, false);
    CHECK(f != NULL);
    if (!f) return;
    for (int pol = 0; pol < 3; pol++) {
        scan_opts o;
        scan_opts_default(&o);
        o.policy = (scan_policy)pol;
        const int proj[] = {0, 1, 2};
        pq_err e = {.offset = -1};
        flt_expr *ex = NULL;
        CHECK(flt_parse("v > 10", f->meta.columns, 3, &ex, &e) == 0);
        scan_t *s = NULL;
        CHECK(scan_start(f, proj, 3, ex, &o, &s, &e) == 0);
        if (!s) continue;
        scan_batch b;
        CHECK_EQ_I64(scan_next(s, &b, &e), 1);
        scan_batch_free(&b);
        scan_free(s);
    }
    pqf_close(f);
}

/* ============================================================ row-range splits */

enum { RR_ROWS = 6400, RR_PAGE = 100, RR_SPLIT = 400 };

/* One row group of RR_ROWS rows (key = row, v = row % 50, both dictionary-encoded), pages of
 * RR_PAGE rows with a page index. */
static pqf_t *open_one_group(void)
{
    pq_column_desc sch[2] = {ts_desc("key", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("v", PQ_INT32, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v[2];
    for (int i = 0; i < 2; i++) ts_vec_new(&v[i], sch[i].physical, 0, RR_ROWS, 0);
    for (int64_t r = 0; r < RR_ROWS; r++) {
        int32_t x = (int32_t)(r % 50);
        ts_put_fixed(&v[0], &r, false);
        ts_put_fixed(&v[1], &x, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = RR_ROWS;
    wo.page_rows = RR_PAGE;
    wo.page_index = true;
    char path[256];
    ts_path(path, sizeof path, "one_group.parquet");
    int rc = ts_write(path, sch, 2, v, RR_ROWS, &wo);
    for (int i = 0; i < 2; i++) pq_vec_free(&v[i]);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    if (rc || pqf_open(&f, path, NULL, &e)) return NULL;
    return f;
}

/* Scans f ordered on one core under policy: every key must come out in order, lo..hi-1. */
static scan_stats scan_range_check(pqf_t *f, const char *where, scan_policy pol, int64_t lo,
                                   int64_t hi, int *nsplits, int *shared_units)
{
    scan_opts o;
    scan_opts_default(&o);
    o.split_rows = RR_SPLIT;
    o.threads = 1;
    o.ordered = true;
    o.policy = pol;
    scan_stats st;
    memset(&st, 0, sizeof st);
    pq_err e = {.offset = -1};
    flt_expr *ex = NULL;
    CHECK(flt_parse(where, f->meta.columns, f->meta.ncolumns, &ex, &e) == 0);
    const int proj[] = {0, 1};
    scan_t *s = NULL;
    CHECK(scan_start(f, proj, 2, ex, &o, &s, &e) == 0);
    if (!s) return st;
    *nsplits = s->plan.nsplits;
    *shared_units = 0;
    for (int u = 0; u < s->fetch.nunits; u++) *shared_units += s->fetch.units[u].shared;
    scan_batch b;
    int64_t next = lo;
    int rc;
    while ((rc = scan_next(s, &b, &e)) == 1) {
        for (int64_t i = 0; i < b.rows; i++, next++) {
            CHECK_EQ_I64(((const int64_t *)(const void *)b.cols[0].values)[i], next);
            CHECK_EQ_I64(((const int32_t *)(const void *)b.cols[1].values)[i], next % 50);
        }
        scan_batch_free(&b);
    }
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_I64(next, hi);
    st = data_stats(f, s);
    scan_free(s);
    return st;
}

/* A large row group is cut at page boundaries into splits of about split_rows rows; on one
 * core the group is one fetch unit (scan/unit.c), which reads a column once for all its
 * splits: one request per column (its pages and the dictionary page), not one per page and
 * split. */
static void test_split_ranges(void)
{
    pqf_t *f = open_one_group();
    CHECK(f != NULL);
    if (!f) return;
    for (int pol = 0; pol < 3; pol++) {
        int n = 0, units = 0;
        scan_stats st = scan_range_check(f, "v >= 0", (scan_policy)pol, 0, RR_ROWS, &n, &units);
        CHECK_EQ_I64(n, RR_ROWS / RR_SPLIT);
        CHECK_EQ_I64(units, 1);
        CHECK_EQ_I64(st.rows_scanned, RR_ROWS);
        CHECK_EQ_I64(st.requests_registered, 2 * units); /* both columns per unit */
        CHECK(st.reads - st.plan_reads <= 2 * (uint64_t)units + 2 &&
              st.bytes_used <= st.bytes_read + st.bytes_kept); /* + footer */
        if (chk_case_failed) fprintf(stderr, "  policy %d: %llu requests registered\n", pol,
                                     (unsigned long long)st.requests_registered);
        /* page-index pruning inside the group: only the splits holding 1000..1499 are read */
        st = scan_range_check(f, "key >= 1000 AND key < 1500", (scan_policy)pol, 1000, 1500, &n, &units);
        CHECK_EQ_I64(st.rows_scanned, 2 * RR_SPLIT); /* splits [800, 1200) and [1200, 1600) */
        CHECK_EQ_I64(st.row_groups_pruned, 0);
        CHECK_EQ_I64(st.rows_out, 500);
    }
    /* a conjunct on a column nothing else needs runs on the dictionary indices of every page */
    scan_opts o;
    scan_opts_default(&o);
    o.split_rows = RR_SPLIT;
    pq_err e = {.offset = -1};
    flt_expr *ex = NULL;
    CHECK(flt_parse("v IN (7, 8)", f->meta.columns, 2, &ex, &e) == 0);
    const int proj[] = {0};
    scan_t *s = NULL;
    CHECK(scan_start(f, proj, 1, ex, &o, &s, &e) == 0);
    if (s) {
        CHECK_EQ_I64(drain(s), RR_ROWS / 25);
        scan_stats st;
        scan_get_stats(s, &st);
        CHECK_EQ_I64(st.dict_eval_pages, RR_ROWS / RR_PAGE);
        CHECK_EQ_I64(st.splits, RR_ROWS / RR_SPLIT);
        scan_free(s);
    }
    pqf_close(f);
}

/* Scans f on two cores (where: with vary, NULL or where and eager or adaptive by turns, else
 * where under eager) until a steal was lent: every scan makes exactly one read of bytes, all
 * of them used, and returns rows (sum when >= 0). */
static void run_steal_scans(pqf_t *f, const char *where, bool vary, int64_t rows, int64_t sum,
                            uint64_t bytes, const char *label)
{
    int64_t steals = 0, lent = 0;
    for (int run = 0; run < STEAL_TRIES && lent == 0; run++) {
        scan_policy pol = vary && run % 2 ? SCAN_ADAPTIVE : SCAN_EAGER;
        const char *w = vary && run % 4 < 2 ? NULL : where;
        scan_stats st = ra_scan(f, w, pol, 2, -1, rows, sum);
        CHECK_EQ_I64(st.reads, 1);
        CHECK_EQ_I64(st.bytes_read, bytes);
        CHECK_EQ_I64(st.bytes_used, bytes);
        CHECK(st.reads_lent <= 2 * st.steals); /* two columns a unit */
        steals += st.steals;
        lent += st.reads_lent;
    }
    CHECK(steals > 0);
    CHECK(lent > 0);
    if (chk_case_failed)
        fprintf(stderr, "  %s: %lld steals, %lld lent\n", label, (long long)steals,
                (long long)lent);
}

/* Two cores share one run: the whole file is one run, which the first core to claim
 * reserves; the other, left without a unit, steals the later half of the units that core has
 * not started, and their columns are lent from the run's read (scan/lend.c), so two cores
 * make the one read one core makes and use its bytes exactly. */
static void test_run_steal(void)
{
    int64_t sum;
    uint64_t data;
    pqf_t *f = ahead_file(false, RA_RG_ROWS, &sum, &data);
    if (!f) return;
    run_steal_scans(f, "k >= 0", true, RA_RGS * RA_RG_ROWS, sum, data, "whole file");
    pqf_close(f);
    /* groups pruned by statistics ride along at the run's ends; a thief still finds the
     * run's live units behind them */
    f = ahead_file(true, RA_SORTED_RG_ROWS, &sum, &data);
    if (!f) return;
    uint64_t kept = 0;
    for (int rg = 4; rg < 16; rg++)
        for (int c = 0; c < 2; c++)
            kept += (uint64_t)f->meta.row_groups[rg].chunks[c].total_compressed_size;
    run_steal_scans(f, "k >= 4 AND k < 16", false, 12 * RA_SORTED_RG_ROWS, -1, kept, "sorted");
    pqf_close(f);
}

/* Scans f (open_one_group) unordered under eager on threads cores, in splits of a page:
 * every row once; the data's stats. */
static scan_stats steal_scan(pqf_t *f, int threads)
{
    scan_opts o;
    scan_opts_default(&o);
    o.split_rows = RR_PAGE;
    o.threads = threads;
    o.policy = SCAN_EAGER;
    o.io = EXEC_IO_PREAD;
    o.io_opts.gap_bytes = 0; /* no hole read over: bytes_read is the requests' bytes */
    o.io_opts.dense_gap_bytes = 0;
    scan_stats st;
    memset(&st, 0, sizeof st);
    pq_err e = {.offset = -1};
    const int proj[] = {0, 1};
    scan_t *s = NULL;
    CHECK(scan_start(f, proj, 2, NULL, &o, &s, &e) == 0);
    if (!s) return st;
    scan_batch b;
    int64_t rows = 0, sum = 0;
    while (scan_next(s, &b, &e) == 1) {
        for (int64_t i = 0; i < b.rows; i++) sum += ((const int64_t *)(const void *)b.cols[0].values)[i];
        rows += b.rows;
        scan_batch_free(&b);
    }
    CHECK_EQ_I64(rows, RR_ROWS);
    CHECK_EQ_I64(sum, (int64_t)RR_ROWS * (RR_ROWS - 1) / 2);
    st = data_stats(f, s);
    scan_free(s);
    return st;
}

/* A core left without work steals the later half of another core's unit. The owner's read of
 * the unit's columns holds the stolen splits' bytes when made before the steal, or is made to
 * hold them when the thief asks first: they are lent (scan/lend.c), not read again, so two
 * cores read exactly the bytes one core reads (a steal after the owner's read of its own half
 * only splits the unit's bytes between them). */
static void test_steal_lends(void)
{
    pqf_t *f = open_one_group();
    CHECK(f != NULL);
    if (!f) return;
    scan_stats one = steal_scan(f, 1);
    CHECK_EQ_I64(one.steals, 0);
    CHECK_EQ_I64(one.reads_lent, 0);
    int64_t steals = 0, lent = 0;
    for (int run = 0; run < STEAL_TRIES && lent == 0; run++) {
        scan_stats st = steal_scan(f, 2);
        CHECK_EQ_I64(st.bytes_read, one.bytes_read);
        CHECK_EQ_I64(st.bytes_used, one.bytes_used);
        CHECK(st.reads_lent <= 2 * st.steals); /* two columns a steal */
        steals += st.steals;
        lent += st.reads_lent;
    }
    CHECK(steals > 0);
    CHECK(lent > 0);
    if (chk_case_failed) fprintf(stderr, "  %lld steals, %lld lent\n", (long long)steals, (long long)lent);
    pqf_close(f);
}

int main(void)
{
    ts_dir_init();
    RUN(test_split_ranges);
    RUN(test_steal_lends);
    RUN(test_pruning);
    RUN(test_index_outside_tail);
    RUN(test_kept_chunks);
    RUN(test_bloom_pruning);
    RUN(test_limit);
    RUN(test_limit_ordered_exact);
    RUN(test_free_midway);
    RUN(test_cancel_lazy_adaptive);
    RUN(test_cancel_eager);
    RUN(test_cancel_later_conjunct);
    RUN(test_ordering);
    RUN(test_read_ahead);
    RUN(test_run_steal);
    RUN(test_tail_bytes);
    RUN(test_string_after_selective);
    RUN(test_plain_sel_after_nulls);
    RUN(test_cut_unindexed);
    RUN(test_batch_fn);
    RUN(test_property);
    ts_dir_remove();
    return CHECK_DONE("test_scan");
}
