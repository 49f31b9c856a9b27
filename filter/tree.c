/* filter/tree.c: the filter's boolean tree, typed atoms and its conjunctive normal form
 * (contracts and invariants in tree.h). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/tree.h"
#include "filter/vexpr.h"

flt_node *flt_node_new(flt_build *bd, flt_nkind k, int32_t n)
{
    flt_node *x = flt_arena_alloc(bd->arena, sizeof *x);
    if (x && n) x->kids = flt_arena_alloc(bd->arena, (size_t)n * sizeof *x->kids);
    if (!x || (n && !x->kids)) return NULL;
    x->kind = k, x->n = n;
    return x;
}

flt_op flt_complement(flt_op op)
{
    switch (op) {
    case FLT_OP_EQ: return FLT_OP_NE;
    case FLT_OP_NE: return FLT_OP_EQ;
    case FLT_OP_LT: return FLT_OP_GE;
    case FLT_OP_LE: return FLT_OP_GT;
    case FLT_OP_GT: return FLT_OP_LE;
    case FLT_OP_GE: return FLT_OP_LT;
    case FLT_OP_IN: return FLT_OP_NOT_IN;
    case FLT_OP_NOT_IN: return FLT_OP_IN;
    case FLT_OP_IS_NULL: return FLT_OP_IS_NOT_NULL;
    case FLT_OP_IS_NOT_NULL: return FLT_OP_IS_NULL;
    case FLT_OP_LIKE: return FLT_OP_NOT_LIKE;
    default: assert(op == FLT_OP_NOT_LIKE); return FLT_OP_LIKE;
    }
}

/* `5 < x` is `x > 5`. */
flt_op flt_mirrored(flt_op op)
{
    switch (op) {
    case FLT_OP_LT: return FLT_OP_GT;
    case FLT_OP_LE: return FLT_OP_GE;
    case FLT_OP_GT: return FLT_OP_LT;
    case FLT_OP_GE: return FLT_OP_LE;
    default: return op;
    }
}

/* An flt_atom `col op raw[0..nraw)`, typed now (the column's domain decides the literals). */
int flt_atom(flt_build *bd, int32_t col, int32_t pos, flt_op op, bool icase,
                const flt_raw_lit *raw, int32_t nraw, flt_node **out)
{
    const pq_column_desc *d = &bd->cols[col];
    flt_domain dom = FLT_DOM_BYTES; /* IS [NOT] NULL works on every column */
    if (nraw > 0) {
        pq_err de;
        if (flt_domain_of(d, &dom, &de)) return pq_errf(bd->e, RINGSCAN_EPARSE, pos, "%s", de.msg);
    }
    flt_node *x = flt_node_new(bd, FLT_N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = col, x->pos = pos;
    *out = x;
    return flt_type_term(bd->arena, d, dom, op, icase, raw, nraw, &x->term, bd->e);
}

/* Two atoms joined by AND or OR (k). */
int flt_pair(flt_build *bd, flt_nkind k, flt_node *a, flt_node *b, flt_node **out)
{
    flt_node *x = flt_node_new(bd, k, 2);
    if (!x) return -ENOMEM;
    x->kids[0] = a, x->kids[1] = b;
    *out = x;
    return 0;
}

/* A column's type as an error names it: the logical type when it has one. */
static const char *type_name(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_NONE ? flt_physical_name(d->physical)
                                         : pq_logical_name(d->logical);
}

/* An integer without a meaning beyond its width (INT8..UINT32, or none). */
static bool plain_int(pq_logical l)
{
    return l == PQ_LOGICAL_NONE || (l >= PQ_LOGICAL_INT8 && l <= PQ_LOGICAL_UINT32);
}

/* How two columns compare: the same class of values (integers of any width and sign but
 * UINT64 with UINT64 only, decimals of one scale, dates, timestamps or times of one unit,
 * floats, strings, booleans), compared value against value by the kernels. */
bool flt_cols_comparable(const flt_build *bd, int32_t a, int32_t b)
{
    const pq_column_desc *x = &bd->cols[a], *y = &bd->cols[b];
    flt_domain dx = FLT_DOM_INT96, dy = FLT_DOM_INT96; /* no domain: refused below */
    bool ok = flt_domain_of(x, &dx, NULL) == 0 && flt_domain_of(y, &dy, NULL) == 0;
    bool intx = dx == FLT_DOM_I32 || dx == FLT_DOM_U32 || dx == FLT_DOM_I64;
    bool inty = dy == FLT_DOM_I32 || dy == FLT_DOM_U32 || dy == FLT_DOM_I64;
    bool fx = dx == FLT_DOM_F32 || dx == FLT_DOM_F64, fy = dy == FLT_DOM_F32 || dy == FLT_DOM_F64;
    ok = ok && (dx == dy || (intx && inty) || (fx && fy)) && dx != FLT_DOM_INT96;
    bool plain = intx && inty && plain_int(x->logical) && plain_int(y->logical);
    ok = ok && (x->logical == y->logical || plain);
    if (ok && x->logical == PQ_LOGICAL_DECIMAL) ok = x->decimal_scale == y->decimal_scale;
    return ok;
}

/* col op col2: an flt_atom of two columns (term.op only). */
int flt_atom_two(flt_build *bd, int32_t col, int32_t col2, int32_t pos, flt_op op, flt_node **out)
{
    if (!flt_cols_comparable(bd, col, col2)) { /* other kinds: as value expressions (vexpr.h) */
        flt_vnode *a, *b;
        int rc = flt_v_column(bd, col, pos, &a);
        if (rc == 0) rc = flt_v_column(bd, col2, pos, &b);
        if (rc == -ENOMEM) return rc;
        if (rc || !flt_v_comparable(&a->t, &b->t)) {
            const pq_column_desc *x = &bd->cols[col], *y = &bd->cols[col2];
            return pq_errf(bd->e, RINGSCAN_EPARSE, pos, "cannot compare %s column '%s' with %s "
                           "column '%s' at character %d", type_name(x), x->name, type_name(y),
                           y->name, pos);
        }
        return flt_atom_values(bd, pos, op, a, b, out);
    }
    flt_node *x = flt_node_new(bd, FLT_N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = col, x->column2 = col2, x->two = true, x->pos = pos;
    x->term.op = op;
    *out = x;
    return 0;
}

/* ---- conjunctive normal form: an AND of clauses, each an OR of atoms ---------------------- */

typedef struct clause {
    int32_t n;
    flt_node **atoms;
} clause;

typedef struct cnf {
    int32_t n;
    clause *c;
} cnf;

static int too_complex(flt_build *bd)
{
    return pq_errf(bd->e, RINGSCAN_ELIMIT, -1,
                   "filter too large in conjunctive normal form (more than %d conjuncts or "
                   "%d terms in one)", FLT_MAX_PREDS, FLT_MAX_TERMS);
}

/* An OR of the n normal forms f[]: one clause per choice of a clause from each (their
 * product), built in one pass so a long OR costs its length, not its square. */
static int cross(flt_build *bd, const cnf *f, int32_t n, cnf *out)
{
    int64_t count = 1;
    for (int32_t k = 0; k < n; k++)
        if ((count *= f[k].n) > FLT_MAX_PREDS) return too_complex(bd);
    out->n = (int32_t)count;
    out->c = flt_arena_alloc(bd->arena, (size_t)(count ? count : 1) * sizeof *out->c);
    int32_t *pick = flt_arena_alloc(bd->arena, (size_t)n * sizeof *pick); /* zeroed */
    if (!out->c || !pick) return -ENOMEM;
    for (int32_t i = 0; i < out->n; i++) {
        clause *c = &out->c[i];
        int64_t atoms = 0;
        for (int32_t k = 0; k < n; k++) atoms += f[k].c[pick[k]].n;
        if (atoms > FLT_MAX_TERMS) return too_complex(bd);
        c->atoms = flt_arena_alloc(bd->arena, (size_t)atoms * sizeof *c->atoms);
        if (!c->atoms) return -ENOMEM;
        for (int32_t k = 0; k < n; k++) {
            const clause *ck = &f[k].c[pick[k]];
            memcpy(c->atoms + c->n, ck->atoms, (size_t)ck->n * sizeof *c->atoms);
            c->n += ck->n;
        }
        for (int32_t k = n - 1; k >= 0 && ++pick[k] == f[k].n; k--) pick[k] = 0; /* next */
    }
    return 0;
}

static int to_cnf(flt_build *bd, const flt_node *x, cnf *out)
{
    if (x->kind == FLT_N_ATOM) {
        out->n = 1;
        out->c = flt_arena_alloc(bd->arena, sizeof *out->c);
        if (!out->c) return -ENOMEM;
        out->c->n = 1;
        out->c->atoms = flt_arena_alloc(bd->arena, sizeof *out->c->atoms);
        if (!out->c->atoms) return -ENOMEM;
        out->c->atoms[0] = (flt_node *)x;
        return 0;
    }
    cnf *f = flt_arena_alloc(bd->arena, (size_t)x->n * sizeof *f);
    if (!f) return -ENOMEM;
    int64_t total = 0;
    for (int32_t k = 0; k < x->n; k++) {
        int rc = to_cnf(bd, x->kids[k], &f[k]);
        if (rc) return rc;
        total += f[k].n;
    }
    if (x->kind == FLT_N_OR) return cross(bd, f, x->n, out);
    if (total > FLT_MAX_PREDS) return too_complex(bd);
    out->n = 0; /* AND: every child's clauses */
    out->c = flt_arena_alloc(bd->arena, (size_t)total * sizeof *out->c);
    if (!out->c) return -ENOMEM;
    for (int32_t k = 0; k < x->n; k++)
        for (int32_t j = 0; j < f[k].n; j++) out->c[out->n++] = f[k].c[j];
    return 0;
}

/* pr = the terms of the clause's atoms on column col (one predicate of one column). */
static int column_pred(flt_build *bd, const clause *c, int32_t col, flt_pred *pr)
{
    int32_t n = 0;
    for (int32_t k = 0; k < c->n; k++) n += !c->atoms[k]->two && c->atoms[k]->column == col;
    pr->column = col;
    pr->desc = &bd->cols[col];
    pr->terms = flt_arena_alloc(bd->arena, (size_t)n * sizeof *pr->terms);
    if (!pr->terms) return -ENOMEM;
    for (int32_t k = 0; k < c->n; k++)
        if (!c->atoms[k]->two && c->atoms[k]->column == col)
            pr->terms[pr->nterms++] = c->atoms[k]->term;
    /* a column without a comparison domain (FLOAT16, INTERVAL) reached here only through
     * IS [NOT] NULL terms, which never look at values: BYTES is a safe placeholder */
    if (flt_domain_of(pr->desc, &pr->dom, NULL) != 0) pr->dom = FLT_DOM_BYTES;
    return 0;
}

/* The index of col in cols[0..*n), appended when new. */
static int32_t col_index(int32_t *cols, int32_t *n, int32_t col)
{
    for (int32_t i = 0; i < *n; i++)
        if (cols[i] == col) return i;
    cols[*n] = col;
    return (*n)++;
}

/* A clause over several columns (or comparing two): one item per column's atoms, one per
 * comparison (expr.h invariant 8). */
static int multi_pred(flt_build *bd, const clause *c, flt_pred *pr)
{
    size_t cap = (size_t)c->n * 2; /* columns: two an atom, or one a value expression's node */
    for (int32_t k = 0; k < c->n; k++)
        if (c->atoms[k]->vl) cap += 2 * FLT_V_MAX_NODES;
    flt_multi *m = flt_arena_alloc(bd->arena, sizeof *m);
    int32_t *cols = flt_arena_alloc(bd->arena, cap * sizeof *cols);
    flt_item *items = flt_arena_alloc(bd->arena, (size_t)c->n * sizeof *items);
    flt_domain *doms = flt_arena_alloc(bd->arena, cap * sizeof *doms);
    if (!m || !cols || !items || !doms) return -ENOMEM;
    for (int32_t k = 0; k < c->n; k++) {
        const flt_node *x = c->atoms[k];
        if (x->vl) { /* a copy per clause: slots depend on the clause's columns */
            flt_cmp v = {.op = x->term.op, .a = -1, .b = -1};
            v.vl = flt_v_slotted(bd, x->vl, cols, &m->ncols);
            v.vr = flt_v_slotted(bd, x->vr, cols, &m->ncols);
            if (!v.vl || !v.vr) return -ENOMEM;
            items[m->nitems++] = (flt_item){.is_cmp = true, .cmp = v};
            continue;
        }
        int32_t ia = col_index(cols, &m->ncols, x->column);
        if (x->two) {
            int32_t ib = x->part ? -1 : col_index(cols, &m->ncols, x->column2);
            items[m->nitems++] =
                (flt_item){.is_cmp = true, .cmp = {x->term.op, ia, ib, x->part, x->pval, NULL, NULL}};
            continue;
        }
        bool seen = false; /* one item per column: its atoms' terms OR-ed */
        for (int32_t i = 0; i < m->nitems; i++)
            seen = seen || (!items[i].is_cmp && items[i].col == ia);
        if (seen) continue;
        flt_item *it = &items[m->nitems++];
        it->col = ia;
        int rc = column_pred(bd, c, x->column, &it->pred);
        if (rc) return rc;
    }
    if (m->ncols > FLT_MAX_MULTI_COLS)
        return pq_errf(bd->e, RINGSCAN_ELIMIT, c->atoms[0]->pos, "an OR over more than %d columns "
                       "at character %d", FLT_MAX_MULTI_COLS, c->atoms[0]->pos);
    for (int32_t i = 0; i < m->ncols; i++)
        if (flt_domain_of(&bd->cols[cols[i]], &doms[i], NULL) != 0) doms[i] = FLT_DOM_BYTES;
    size_t len = 1;
    for (int32_t i = 0; i < m->ncols; i++) len += strlen(bd->cols[cols[i]].name) + 1;
    char *label = flt_arena_alloc(bd->arena, len);
    if (!label) return -ENOMEM;
    for (int32_t i = 0; i < m->ncols; i++) {
        if (i) strcat(label, "|");
        strcat(label, bd->cols[cols[i]].name);
    }
    m->cols = cols, m->doms = doms, m->items = items, m->label = label, m->schema = bd->cols;
    pr->column = cols[0];
    pr->desc = &bd->cols[cols[0]];
    pr->dom = doms[0];
    pr->multi = m;
    return 0;
}

/* One clause as a predicate: on one column, or over several (multi_pred). */
static int clause_pred(flt_build *bd, const clause *c, flt_pred *pr)
{
    bool one = true;
    for (int32_t k = 0; k < c->n; k++)
        one = one && !c->atoms[k]->two && c->atoms[k]->column == c->atoms[0]->column;
    return one ? column_pred(bd, c, c->atoms[0]->column, pr) : multi_pred(bd, c, pr);
}

int flt_atom_const(flt_build *bd, int32_t pos, int truth, flt_node **out)
{
    flt_node *x = flt_node_new(bd, FLT_N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = -1, x->pos = pos, x->konst = truth > 0 ? 1 : -1;
    *out = x;
    return 0;
}

/* Drops clauses an always-true atom holds and never-true atoms from the rest; *never when a
 * clause is left with nothing (the filter matches no row). */
static void drop_constants(cnf *f, bool *never)
{
    int32_t kept = 0;
    *never = false;
    for (int32_t k = 0; k < f->n; k++) {
        clause c = f->c[k];
        bool always = false;
        int32_t n = 0;
        for (int32_t i = 0; i < c.n; i++) {
            always = always || c.atoms[i]->konst > 0;
            if (c.atoms[i]->konst == 0) c.atoms[n++] = c.atoms[i]; /* arena copies: ours */
        }
        if (always) continue;
        *never = *never || n == 0;
        c.n = n;
        f->c[kept++] = c;
    }
    f->n = kept;
}

/* Whether value expression x reads columns >= first only (constants read none). */
static bool v_folds(const flt_vnode *x, int32_t first, int depth)
{
    if (!x || depth > FLT_V_MAX_NODES) return x == NULL;
    if (x->op == FLT_V_COL) return x->col >= first;
    return v_folds(x->a, first, depth + 1) && v_folds(x->b, first, depth + 1);
}

/* Whether atom x reads columns of bd->fold only (and reads one at least). */
static bool atom_folds(const flt_build *bd, const flt_node *x)
{
    int32_t first = bd->fold->first;
    if (x->konst) return false;
    if (x->vl) return v_folds(x->vl, first, 0) && v_folds(x->vr, first, 0);
    return x->column >= first && (!x->two || x->part || x->column2 >= first);
}

/* Each atom of f over bd->fold's columns alone decided by its truth (flt_fold), once: an atom
 * several clauses share is the same node. */
static int fold_atoms(flt_build *bd, cnf *f)
{
    for (int32_t k = 0; k < f->n; k++)
        for (int32_t i = 0; i < f->c[k].n; i++) {
            flt_node *x = f->c[k].atoms[i];
            if (!atom_folds(bd, x)) continue;
            clause one = {1, &x};
            flt_pred p = {0};
            bool keep = false;
            int rc = clause_pred(bd, &one, &p);
            if (rc == 0) rc = bd->fold->truth(bd->fold->ctx, &p, &keep);
            if (rc) return rc == -ENOMEM ? rc : pq_errf(bd->e, rc, -1, "a filter on a constant "
                                                        "column failed (status %d)", rc);
            x->konst = keep ? 1 : -1;
        }
    return 0;
}

int flt_tree_to_expr(flt_build *bd, const flt_node *root, flt_expr *ex)
{
    cnf f;
    bool never;
    int rc = to_cnf(bd, root, &f);
    if (rc == 0 && bd->fold) rc = fold_atoms(bd, &f);
    if (rc) return rc;
    drop_constants(&f, &never);
    if (never) { /* one FALSE predicate: statistics rule out every group */
        flt_node **one = flt_arena_alloc(bd->arena, sizeof *one);
        if (!one) return -ENOMEM;
        if (bd->ncols == 0) return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "no column to filter");
        if ((rc = flt_atom(bd, 0, 1, FLT_OP_FALSE, false, NULL, 0, &one[0]))) return rc;
        f.c[0] = (clause){1, one}, f.n = 1;
    }
    ex->preds = flt_arena_alloc(bd->arena, (size_t)f.n * sizeof *ex->preds);
    if (!ex->preds) return -ENOMEM;
    for (int32_t k = 0; k < f.n; k++) {
        if ((rc = clause_pred(bd, &f.c[k], &ex->preds[k]))) return rc;
        ex->npreds = k + 1;
    }
    return 0;
}

int flt_atom_between(flt_build *bd, int32_t col, int32_t pos, bool neg, const flt_raw_lit r[2],
                     flt_node **out)
{
    if (!neg) return flt_atom(bd, col, pos, FLT_OP_BETWEEN, false, r, 2, out);
    flt_node *a, *b; /* NOT BETWEEN lo AND hi: x < lo OR x > hi */
    int rc;
    if ((rc = flt_atom(bd, col, pos, FLT_OP_LT, false, &r[0], 1, &a)) ||
        (rc = flt_atom(bd, col, pos, FLT_OP_GT, false, &r[1], 1, &b)))
        return rc;
    return flt_pair(bd, FLT_N_OR, a, b, out);
}

int flt_atom_distinct(flt_build *bd, int32_t col, int32_t pos, bool distinct,
                      const flt_raw_lit *r, flt_node **out)
{
    if (r->kind == FLT_LIT_NULL) /* null is a value here: x IS [NOT] DISTINCT FROM NULL */
        return flt_atom(bd, col, pos, distinct ? FLT_OP_IS_NOT_NULL : FLT_OP_IS_NULL, false, NULL,
                        0, out);
    if (!distinct) return flt_atom(bd, col, pos, FLT_OP_EQ, false, r, 1, out);
    flt_node *a, *b; /* null is a value here: x != v OR x IS NULL */
    int rc;
    if ((rc = flt_atom(bd, col, pos, FLT_OP_NE, false, r, 1, &a)) ||
        (rc = flt_atom(bd, col, pos, FLT_OP_IS_NULL, false, NULL, 0, &b)))
        return rc;
    return flt_pair(bd, FLT_N_OR, a, b, out);
}

int flt_atom_starts_with(flt_build *bd, int32_t col, int32_t pos, bool neg,
                         const flt_raw_lit *text, flt_node **out)
{
    char *pat = flt_arena_alloc(bd->arena, (size_t)text->len * 2 + 2);
    if (!pat) return -ENOMEM;
    int32_t n = 0;
    for (int32_t i = 0; i < text->len; i++) {
        char c = text->text[i];
        if (c == '%' || c == '_' || c == '\\') pat[n++] = '\\';
        pat[n++] = c;
    }
    pat[n++] = '%';
    flt_raw_lit r[2] = {*text, {.kind = FLT_LIT_STRING, .text = "\\", .len = 1, .pos = pos}};
    r[0].text = pat, r[0].len = n;
    return flt_atom(bd, col, pos, neg ? FLT_OP_NOT_LIKE : FLT_OP_LIKE, false, r, 2, out);
}

/* fn(col) [NOT] IN / [NOT] BETWEEN as comparisons made by fn (datefn or part), joined. */
static int set_of(flt_build *bd, int32_t col, int32_t pos, flt_unit unit, bool year_fn,
                  int32_t part, bool neg, bool in, const flt_raw_lit *raw, int32_t nraw,
                  flt_node **out)
{
    assert(in ? nraw >= 1 : nraw == 2);
    /* IN: = each (NOT IN: != each, AND-ed); BETWEEN: >= lo AND <= hi (NOT: < lo OR > hi) */
    flt_node *x = flt_node_new(bd, in == neg ? FLT_N_AND : FLT_N_OR, nraw);
    if (!x) return -ENOMEM;
    flt_op ops[2] = {neg ? FLT_OP_LT : FLT_OP_GE, neg ? FLT_OP_GT : FLT_OP_LE};
    for (int32_t i = 0; i < nraw; i++) {
        flt_op op = in ? (neg ? FLT_OP_NE : FLT_OP_EQ) : ops[i];
        int rc = part ? flt_atom_part(bd, col, pos, part, op, &raw[i], &x->kids[i])
                      : flt_datefn(bd, col, pos, unit, year_fn, op, &raw[i], &x->kids[i]);
        if (rc) return rc;
    }
    *out = x;
    return 0;
}

int flt_datefn_set(flt_build *bd, int32_t col, int32_t pos, flt_unit unit, bool year_fn,
                   bool neg, bool in, const flt_raw_lit *raw, int32_t nraw, flt_node **out)
{
    return set_of(bd, col, pos, unit, year_fn, FLT_PART_NONE, neg, in, raw, nraw, out);
}

int flt_part_set(flt_build *bd, int32_t col, int32_t pos, int32_t part, bool neg, bool in,
                 const flt_raw_lit *raw, int32_t nraw, flt_node **out)
{
    assert(part != FLT_PART_NONE);
    return set_of(bd, col, pos, FLT_UNIT_YEAR, false, part, neg, in, raw, nraw, out);
}

int32_t flt_part_parse(const char *s, size_t n)
{
    for (int32_t i = FLT_PART_MONTH; i <= FLT_PART_QUARTER; i++)
        if (strlen(flt_part_name(i)) == n && strncasecmp(s, flt_part_name(i), n) == 0) return i;
    return FLT_PART_NONE;
}

int flt_atom_part(flt_build *bd, int32_t col, int32_t pos, int32_t part, flt_op op,
                  const flt_raw_lit *lit, flt_node **out)
{
    const pq_column_desc *d = &bd->cols[col];
    pq_logical l = d->logical;
    /* INT96: evaluated row by row on its nanoseconds (multi.c part_at) */
    if (d->physical != PQ_INT96 && l != PQ_LOGICAL_DATE && l != PQ_LOGICAL_TIMESTAMP_MILLIS &&
        l != PQ_LOGICAL_TIMESTAMP_MICROS && l != PQ_LOGICAL_TIMESTAMP_NANOS)
        return pq_errf(bd->e, RINGSCAN_EPARSE, pos,
                       "%s() needs a date or timestamp column; '%s' is not one, at character %d",
                       flt_part_name(part), d->name, pos);
    char *end = NULL;
    long long v = lit->kind == FLT_LIT_NUMBER ? strtoll(lit->text, &end, 10) : 0;
    if (!end || *end || end == lit->text)
        return pq_errf(bd->e, RINGSCAN_EPARSE, lit->pos,
                       "%s() compares with a whole number, not '%s', at character %d",
                       flt_part_name(part), lit->text, lit->pos);
    flt_node *x = flt_node_new(bd, FLT_N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = col, x->two = true, x->part = part, x->pval = v, x->pos = pos;
    x->term.op = op;
    *out = x;
    return 0;
}
