/* scan/ds_filter.c: a dataset's filters on virtual columns (ds_impl.h invariant 3): the
 * conjuncts on partition columns decide whole files before any footer is read
 * (ds_prune_partitions), and each file's parsed filter is split into what its scan
 * evaluates and what its constants decide (ds_filter_split). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fail.h"
#include "filter/kernel.h"
#include "scan/ds_impl.h"

/* Column c of v is virtual (no leaf in the file). */
static bool is_virtual(const ds_view *v, int32_t c) { return c >= v->nfile; }

/* Whether predicate p keeps the single row of file f's constants (vectors of one row). */
static int eval_const(const ds_schema *s, const ds_view *v, const ds_file *f, const flt_pred *p,
                      bool *keep)
{
    int32_t n = p->multi ? p->multi->ncols : 1;
    pq_vec vecs[FLT_MAX_MULTI_COLS];
    const pq_vec *ptr[FLT_MAX_MULTI_COLS];
    int rc = 0, made = 0;
    for (int32_t j = 0; rc == 0 && j < n; j++, made++) {
        int32_t c = p->multi ? p->multi->cols[j] : p->column;
        assert(is_virtual(v, c));
        rc = ds_const_vec(s, v->virt[c - v->nfile], f, 1, &vecs[j]);
        ptr[j] = &vecs[j];
    }
    flt_mask out = {0};
    if (rc == 0) rc = p->multi ? flt_eval_multi(p, ptr, NULL, &out) : flt_eval(p, &vecs[0], NULL, &out);
    if (rc == 0) *keep = flt_mask_get(&out, 0);
    flt_mask_free(&out);
    for (int j = 0; j < made; j++) pq_vec_free(&vecs[j]);
    return rc;
}

static int fold_truth(void *ctx, const flt_pred *p, bool *keep)
{
    const ds_fold *x = ctx;
    return eval_const(x->s, x->v, x->f, p, keep);
}

void ds_fold_init(ds_fold *x, const ds_schema *s, const ds_view *v, const ds_file *f)
{
    *x = (ds_fold){.fold = {.first = v->nfile, .truth = fold_truth, .ctx = x},
                   .s = s, .v = v, .f = f};
}

int ds_filter_split(const ds_schema *s, const ds_view *v, const ds_file *f, flt_expr *expr,
                    bool *none, pq_err *e)
{
    *none = false;
    int32_t kept = 0;
    for (int32_t k = 0; k < expr->npreds; k++) {
        const flt_pred *p = &expr->preds[k];
        int32_t n = p->multi ? p->multi->ncols : 1, nv = 0;
        for (int32_t j = 0; j < n; j++) nv += is_virtual(v, p->multi ? p->multi->cols[j] : p->column);
        if (nv == 0) {
            expr->preds[kept++] = *p;
            continue;
        }
        if (nv < n)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: a comparison reads both "
                           "partition (or missing) columns and the file's own columns (%.80s): "
                           "not supported", f->path, flt_pred_label(p));
        bool keep = false;
        int rc = eval_const(s, v, f, p, &keep);
        if (rc) return rc;
        if (!keep) *none = true;
    }
    expr->npreds = kept;
    return 0;
}

/* The end of the top-level conjunct of text starting at p: the next AND outside
 * parentheses, quotes and BETWEEN's own AND (or the end). */
static const char *conj_end(const char *p, const char **next)
{
    int depth = 0;
    bool between = false;
    for (const char *q = p; *q;) {
        if (*q == '\'' || *q == '"') {
            char c = *q++;
            while (*q && !(*q == c && q[1] != c)) q += *q == c ? 2 : 1;
            if (*q) q++;
            continue;
        }
        if (*q == '(') depth++;
        if (*q == ')') depth--;
        bool word_start = q == p || !(q[-1] == '_' || (q[-1] >= '0' && q[-1] <= '9') ||
                                      ((q[-1] | 32) >= 'a' && (q[-1] | 32) <= 'z'));
        if (depth == 0 && word_start && strncasecmp(q, "BETWEEN", 7) == 0) between = true;
        if (depth == 0 && word_start && strncasecmp(q, "AND", 3) == 0 &&
            (q[3] == ' ' || q[3] == '\t' || q[3] == '\n' || q[3] == '(')) {
            if (!between) {
                *next = q + 3;
                return q;
            }
            between = false;
        }
        q++;
    }
    *next = NULL;
    return p + strlen(p);
}

/* The partition columns of s as a parser's schema (cols, n) and the view over them. */
typedef struct part_schema {
    pq_column_desc cols[DS_PART_MAX];
    int virt[DS_PART_MAX], n;
    ds_view v;
} part_schema;

static void part_schema_init(part_schema *p, const ds_schema *s)
{
    p->n = 0;
    for (int c = 0; c < s->n && p->n < DS_PART_MAX; c++)
        if (s->cols[c].part >= 0)
            p->virt[p->n] = c, p->cols[p->n] = s->cols[c].desc, p->cols[p->n].index = p->n, p->n++;
    p->v = (ds_view){.ncols = p->n, .nfile = 0, .cols = p->cols, .virt = p->virt};
}

/* Whether x (a conjunct typed on partition columns alone, NULL when it is not) rules file f
 * out; frees x. */
static bool rules_out(const ds_schema *s, const part_schema *p, const ds_file *f, flt_expr *x)
{
    bool none = false;
    pq_err e = {.offset = -1};
    if (x && ds_filter_split(s, &p->v, f, x, &none, &e) != 0) none = false;
    flt_expr_free(x);
    return none;
}

/* Whether a top-level AND term of tree n, typed on partition columns alone, rules f out. */
static bool tree_rules_out(const ds_schema *s, const part_schema *p, const ds_file *f,
                           const flt_tnode *n, int depth)
{
    if (depth > FLT_MAX_DEPTH) return false;
    if (n->op == FLT_T_AND) {
        for (int32_t i = 0; i < n->nargs; i++)
            if (tree_rules_out(s, p, f, n->args[i], depth + 1)) return true;
        return false;
    }
    flt_expr *x = NULL;
    pq_err e = {.offset = -1}; /* unused: a term naming a data column is no partition term */
    if (flt_from_tree(n, p->cols, p->n, &x, &e) != 0) return false;
    return rules_out(s, p, f, x);
}

bool ds_prune_partitions(const ds_schema *s, const ds_list *l, int fi, const char *text,
                         const flt_tnode *tree)
{
    if ((!text && !tree) || l->npart == 0) return false;
    part_schema p;
    part_schema_init(&p, s);
    if (tree) return tree_rules_out(s, &p, &l->files[fi], tree, 0);
    bool pruned = false;
    char *buf = fail_malloc(strlen(text) + 1);
    for (const char *q = text, *next; buf && q && !pruned; q = next) {
        const char *end = conj_end(q, &next);
        memcpy(buf, q, (size_t)(end - q));
        buf[end - q] = 0;
        flt_expr *x = NULL;
        pq_err e = {.offset = -1}; /* unused: a term naming a data column is no partition term */
        if (flt_parse(buf, p.cols, p.n, &x, &e) == 0) pruned = rules_out(s, &p, &l->files[fi], x);
        else flt_expr_free(x);
    }
    free(buf);
    return pruned;
}
