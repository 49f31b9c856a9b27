/* scan/ds_files.c: a dataset's file list and hive partitions (dataset.h). Listing uses
 * opendir/readdir and fnmatch(3) per path component (glob(3) has no `**`); every walk is
 * bounded in depth (DS_DEPTH_MAX) and in files (max_files). `**` (and so a directory's
 * listing) descends into real directories only, never through a symbolic link to one, as
 * DuckDB's glob: a link to the directory itself or one above it (`latest -> .`) would list
 * the same files over and over until max_files (the scan failed), and a link to a sibling
 * would list its files twice. A link a literal or a `*` component names is followed
 * (`dir/link/x.parquet`), and a link to a file is a file. A walk also reads at most
 * 2 * max_files + DS_DIRS_MIN directories (a tree whose every directory holds a file or a
 * directory, as a dataset's, reads fewer): a link loop a `*` component names
 * (`d/ * / * / ... / *.parquet`, d/self -> .) and `**`s that reach a directory many ways
 * (`d/ ** / * / ** / * / **`) read 2^k directories (a 44-level pattern ran for hours before).
 * Consecutive `**`s are one (the same paths; 6 of them over a 30-level tree walked one file
 * 1.9 million ways and failed at max_files). A pattern is what it matches, the file named as
 * it is only when it matches nothing (DuckDB 2.0.1's rule); one ending in '/' matches no file. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/fail.h"
#include "scan/dataset.h"
#include "scan/ds_list_s3.h"

typedef struct lister {
    char **paths;
    int n, cap, max;
    int dirs, dirs_max; /* directories read, and the most a walk may read */
    pq_err *e;
    const char *pat; /* the pattern being listed (messages) */
    const io_open_opts *io; /* S3 listing's credentials and endpoint */
} lister;

static bool has_magic(const char *s) { return strpbrk(s, "*?[") != NULL; }
static bool is_url(const char *s) { return strstr(s, "://") != NULL; }

static int add_path(lister *l, const char *p)
{
    if (l->n >= l->max)
        return pq_errf(l->e, RINGSCAN_ELIMIT, -1, "%.200s: more than %d files (max_files)", l->pat,
                       l->max);
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **np = fail_realloc(l->paths, sizeof *np * (size_t)cap);
        if (!np) return -ENOMEM;
        l->paths = np, l->cap = cap;
    }
    return (l->paths[l->n] = fail_strdup(p)) ? (l->n++, 0) : -ENOMEM;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* dir/name into buf; false when it does not fit. */
static bool join(char *buf, const char *dir, const char *name)
{
    int n = snprintf(buf, DS_PATH_MAX, "%s%s%s", dir, dir[0] && !ends_with(dir, "/") ? "/" : "", name);
    return n > 0 && n < DS_PATH_MAX;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A directory that is no symbolic link (the only kind `**` descends into). */
static bool is_real_dir(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* What a directory's entry is. */
typedef struct entry_kind {
    bool dir;  /* a directory, or a symbolic link to one */
    bool real; /* a directory that is no symbolic link (the only kind `**` descends into) */
    bool file; /* a regular file, or a symbolic link to one */
} entry_kind;

/* Entry de (its path p) from its d_type, with no call where the file system gives one (a
 * stat per entry, three per file, made 788 calls over 84 files in 92 directories); stat(2)
 * for a symbolic link (followed) or an unknown type (then lstat(2) for real). */
static entry_kind entry_of(const struct dirent *de, const char *p)
{
    if (de->d_type == DT_DIR) return (entry_kind){.dir = true, .real = true};
    if (de->d_type == DT_REG) return (entry_kind){.file = true};
    if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN) return (entry_kind){0}; /* a fifo ... */
    struct stat st;
    if (stat(p, &st) != 0) return (entry_kind){0};
    entry_kind k = {.dir = S_ISDIR(st.st_mode), .file = S_ISREG(st.st_mode)};
    k.real = k.dir && de->d_type == DT_UNKNOWN && is_real_dir(p);
    return k;
}

static int walk(lister *l, const char *dir, char **comps, int k, int n, int depth);

/* A directory's entry (name, path p, kind ek) matched against component k of comps[0..n)
 * (a trailing "**" as '*'): added when it is the last, else walked into for the rest. */
static int match(lister *l, const char *name, const char *p, entry_kind ek, char **comps, int k,
                 int n, int depth)
{
    bool last = k == n - 1;
    const char *c = last && strcmp(comps[k], "**") == 0 ? "*" : comps[k];
    if (fnmatch(c, name, FNM_PERIOD) != 0) return 0;
    if (last && !ek.dir && ek.file) return add_path(l, p);
    return !last && ek.dir ? walk(l, p, comps, k + 1, n, depth + 1) : 0;
}

/* Walks comps[k..n) below dir (the pattern's components; "**" any number of directories). A
 * "**" before a component with a wildcard reads each directory once for both: the
 * directories below it and the entries the next component matches (its walk's depth + 1). */
static int walk(lister *l, const char *dir, char **comps, int k, int n, int depth)
{
    const char *c = comps[k];
    bool last = k == n - 1, dstar = strcmp(c, "**") == 0;
    bool both = dstar && !last && has_magic(comps[k + 1]) && strcmp(comps[k + 1], "**") != 0;
    if (depth + both > DS_DEPTH_MAX)
        return pq_errf(l->e, RINGSCAN_ELIMIT, -1, "%.200s: more than %d directory levels", l->pat,
                       DS_DEPTH_MAX);
    char *buf = fail_malloc(DS_PATH_MAX);
    if (!buf) return -ENOMEM;
    int rc = 0;
    if (dstar && !last && !both) rc = walk(l, dir, comps, k + 1, n, depth + 1);
    if (rc == 0 && !has_magic(c) && !dstar) {
        if (!join(buf, dir, c)) rc = pq_errf(l->e, -ENAMETOOLONG, -1, "%.200s: path too long", l->pat);
        else if (last ? is_file(buf) : is_dir(buf)) rc = last ? add_path(l, buf) : walk(l, buf, comps, k + 1, n, depth + 1);
        free(buf);
        return rc;
    }
    if (rc == 0 && ++l->dirs > l->dirs_max)
        rc = pq_errf(l->e, RINGSCAN_ELIMIT, -1,
                     "%.200s: more than %d directories read (a symbolic link loop, or `**`s that "
                     "reach the same directories many ways?)", l->pat, l->dirs_max);
    DIR *d = rc == 0 ? opendir(dir[0] ? dir : ".") : NULL;
    for (struct dirent *de; d && rc == 0 && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        if (!join(buf, dir, de->d_name)) continue;
        entry_kind ek = entry_of(de, buf);
        if (dstar && ek.real && de->d_name[0] != '.') rc = walk(l, buf, comps, k, n, depth + 1);
        if (rc == 0 && (!dstar || last)) rc = match(l, de->d_name, buf, ek, comps, k, n, depth);
        if (rc == 0 && both) rc = match(l, de->d_name, buf, ek, comps, k + 1, n, depth + 1);
    }
    if (d) closedir(d);
    free(buf);
    return rc;
}

/* One pattern: its components walked from "" (relative) or "/" (absolute). */
static int list_pattern(lister *l, const char *pat)
{
    char *copy = fail_strdup(pat);
    char **comps = fail_calloc(strlen(pat) / 2 + 2, sizeof *comps);
    int n = 0, rc = copy && comps ? 0 : -ENOMEM;
    for (char *t = copy ? strtok(copy, "/") : NULL; rc == 0 && t; t = strtok(NULL, "/"))
        if (n == 0 || strcmp(t, "**") != 0 || strcmp(comps[n - 1], "**") != 0) comps[n++] = t;
    if (rc == 0 && n == 0) rc = pq_errf(l->e, -EINVAL, -1, "%.200s: an empty pattern", pat);
    if (rc == 0) rc = walk(l, pat[0] == '/' ? "/" : "", comps, 0, n, 0);
    free(comps);
    free(copy);
    return rc;
}

/* Every regular *.parquet file below dir (the walk of "dir/ ** / *.parquet"). */
static int list_dir(lister *l, const char *dir)
{
    char *comps[2] = {"**", "*.parquet"};
    return walk(l, dir, comps, 0, 2, 0);
}

/* ds_list_s3's callback: a matching key's URL becomes a path. */
static int add_url(void *l, const char *url)
{
    return add_path(l, url);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One pattern names a file once however many ways its `**`s reach it ("a/ ** / ** /x"
 * walks to a/b/x twice), as an s3:// pattern's key matches once: the repeats among
 * l->paths[from..n) dropped (a file named by two patterns stays twice). */
static void drop_repeats(lister *l, int from)
{
    if (l->n - from < 2) return;
    qsort(l->paths + from, (size_t)(l->n - from), sizeof *l->paths, str_cmp);
    int w = from;
    for (int i = from; i < l->n; i++) {
        if (w > from && strcmp(l->paths[w - 1], l->paths[i]) == 0) free(l->paths[i]);
        else l->paths[w++] = l->paths[i];
    }
    l->n = w;
}

static int url_pattern_err(lister *l, const char *p)
{
    char shown[512]; /* a URL's password stays out of the message (io/store.h) */
    io_path_shown(shown, sizeof shown, p);
    return pq_errf(l->e, RINGSCAN_EUNSUPPORTED, -1, "%.200s: patterns over http(s) URLs are "
                   "not supported (no listing); name the objects", shown);
}

int ds_file_errf(pq_err *e, int rc, const char *path, const char *what)
{
    char shown[512], msg[sizeof e->msg];
    io_path_shown(shown, sizeof shown, path);
    if (!what[0]) what = rc == -ENOMEM ? "out of memory" : "failed"; /* (no message) */
    if (io_msg_named(what, path)) snprintf(msg, sizeof msg, "%s", what); /* io/ named it */
    else snprintf(msg, sizeof msg, "%.200s: %s", shown, what);
    memcpy(e->msg, msg, sizeof msg);
    e->status = rc;
    return rc;
}

/* A pattern ending in '/' names directories, and a dataset is files: none matches, as in
 * DuckDB 2.0.1 (`dir/ * /` matched the files of dir before, its slash dropped with the empty
 * component after it). A prefix without a wildcard ending in '/' (a directory, an s3://
 * prefix) still means every *.parquet below it. */
static int dir_pattern_err(lister *l, const char *p)
{
    char shown[512];
    io_path_shown(shown, sizeof shown, p);
    return pq_errf(l->e, -ENOENT, -1, "%.200s: no file matches (a pattern ending in '/' names "
                   "directories; name their files, e.g. '%.200s*.parquet')", shown, shown);
}

static int list_one(lister *l, const char *p)
{
    int before = l->n, rc;
    l->pat = p;
    if (has_magic(p) && ends_with(p, "/") && !(is_url(p) && !io_url_has_pattern(p)))
        return dir_pattern_err(l, p);
    if (strncmp(p, "s3://", 5) == 0 && (has_magic(p) || ends_with(p, "/"))) rc = ds_list_s3(p, l->io, l->max, add_url, l, l->e);
    else if (is_url(p) && io_url_has_pattern(p))
        return url_pattern_err(l, p);
    else if (is_url(p)) return add_path(l, p);
    else if (has_magic(p)) { /* as DuckDB: the pattern's files, else the file named as it is */
        if ((rc = list_pattern(l, p)) == 0) drop_repeats(l, before); /* ("[x].parquet" as a */
        if (rc == 0 && l->n == before && is_file(p)) return add_path(l, p); /* pattern: x.parquet) */
    }
    else if (is_dir(p)) rc = list_dir(l, p);
    else if (is_file(p)) return add_path(l, p);
    else return pq_errf(l->e, -ENOENT, -1, "%.200s: no such file or directory", p);
    if (rc == 0 && l->n == before)
        rc = pq_errf(l->e, -ENOENT, -1, "%.200s: no file matches", p);
    return rc;
}

/* ---- partitions (their values: scan/ds_parts.c) ---- */

/* The key=value directories of path (its last component is the file; a directory with a
 * second '=' is no partition, as DuckDB's parser reads it) into keys/vals
 * (pointers into copy, which the caller frees; as written, escapes and all); *n of them (a
 * later key replaces an earlier one of the same name). */
static int path_parts(const char *path, char **copy, char **keys, char **vals, int *n)
{
    *n = 0;
    if (!(*copy = fail_strdup(path))) return -ENOMEM;
    char *slash = strrchr(*copy, '/');
    if (!slash) return 0;
    *slash = 0;
    for (char *t = strtok(*copy, "/"); t; t = strtok(NULL, "/")) {
        char *eq = strchr(t, '=');
        if (!eq || eq == t || strchr(eq + 1, '=')) continue; /* ("a=b=c": none, as DuckDB) */
        *eq = 0;
        int at = 0;
        while (at < *n && strcmp(keys[at], t) != 0) at++;
        if (at == *n && *n == DS_PART_MAX) return -E2BIG;
        keys[at] = t, vals[at] = eq + 1;
        if (at == *n) (*n)++;
    }
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(((const ds_part_col *)a)->name, ((const ds_part_col *)b)->name);
}

/* The descriptor of a partition column (dataset.h invariant 2). */
static void part_desc(ds_part_col *c)
{
    pq_column_desc *d = &c->desc;
    *d = (pq_column_desc){.name = c->name, .index = -1, .repetition = PQ_OPTIONAL,
                          .max_def_level = 1, .field_id = -1, .column_order = 1,
                          .sort_order = PQ_ORDER_SIGNED, .node = -1};
    if (c->type == DS_BIGINT) d->physical = PQ_INT64;
    if (c->type == DS_DATE) d->physical = PQ_INT32, d->logical = PQ_LOGICAL_DATE;
    if (c->type == DS_TIMESTAMP) d->physical = PQ_INT64, d->logical = PQ_LOGICAL_TIMESTAMP_MICROS;
    if (c->type == DS_VARCHAR)
        d->physical = PQ_BYTE_ARRAY, d->logical = PQ_LOGICAL_STRING, d->sort_order = PQ_ORDER_UNSIGNED;
}

/* "k:TYPE,..." : the type given for key (true), or false when types names it not. -EINVAL
 * with e filled when the list names an unknown type, or key twice. */
static int given_type(const char *types, const char *key, ds_ptype *t, bool *given, pq_err *e)
{
    *given = false;
    size_t kl = strlen(key);
    for (const char *p = types; p && *p;) {
        const char *end = strchr(p, ','), *colon = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!colon || colon > p + len)
            return pq_errf(e, -EINVAL, -1, "hive_types: '%.*s' is not key:TYPE", (int)len, p);
        const char *ty = colon + 1;
        size_t tl = len - (size_t)(ty - p);
        if ((size_t)(colon - p) == kl && strncmp(p, key, kl) == 0) {
            if (*given) /* DuckDB refuses it too ("Duplicate named argument"); the last won */
                return pq_errf(e, -EINVAL, -1, "hive_types: '%s' is given twice", key);
            *given = true;
            if (tl == 6 && strncasecmp(ty, "BIGINT", 6) == 0) *t = DS_BIGINT;
            else if (tl == 7 && strncasecmp(ty, "VARCHAR", 7) == 0) *t = DS_VARCHAR;
            else if (tl == 4 && strncasecmp(ty, "DATE", 4) == 0) *t = DS_DATE;
            else if (tl == 9 && strncasecmp(ty, "TIMESTAMP", 9) == 0) *t = DS_TIMESTAMP;
            else return pq_errf(e, -EINVAL, -1, "hive_types: type '%.*s' of '%s' is not BIGINT, "
                                "VARCHAR, DATE or TIMESTAMP", (int)tl, ty, key);
        }
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* Whether every key types ("k:TYPE,...") names is a partition key, exactly as spelled (DuckDB
 * refuses the others: a key --hive-types misspelled was ignored, its column's type inferred).
 * 0, or -EINVAL with e naming the first other key. */
static int types_named(const ds_list *l, const char *types, pq_err *e)
{
    for (const char *p = types; p && *p;) {
        size_t len = strcspn(p, ","), kl = strcspn(p, ":");
        int j = 0;
        while (j < l->npart && (strlen(l->part[j].name) != kl || strncmp(p, l->part[j].name, kl) != 0)) j++;
        if (j == l->npart) { /* the keys named, not only the first by name (it read as the
                                first in the paths: "the first key: d" for y=../d=..) */
            char keys[160] = "";
            for (int k = 0, at = 0; k < l->npart && at < (int)sizeof keys - 1; k++)
                at += snprintf(keys + at, sizeof keys - (size_t)at, "%s%s", k ? ", " : "",
                               l->part[k].name);
            return pq_errf(e, -EINVAL, -1, "hive_types: '%.*s' does not appear to be a partition key "
                           "(%s%s)", (int)(kl < len ? kl : len), p,
                           l->npart == 0 ? "none in the paths" : l->npart == 1 ? "the key: "
                                                                 : "the keys: ", keys);
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Each file's value of each partition column (sorted by name), typed; __HIVE_DEFAULT_PARTITION__
 * is a null (text NULL), left out of the type's inference, and so is an empty value under a
 * type --hive-types gives other than VARCHAR (DuckDB reads "k=" as NULL there; it was
 * refused, "partition k= is not a BIGINT"). */
static int fill_parts(ds_list *l, const char *types, pq_err *e)
{
    char *keys[DS_PART_MAX], *vals[DS_PART_MAX], *copy = NULL;
    bool typed[DS_PART_MAX] = {0}; /* a value other than NULL seen (the first one's type taken) */
    int rc = 0;
    for (int j = 0; j < l->npart; j++) l->part[j].type = DS_VARCHAR; /* only NULLs: VARCHAR */
    for (int i = 0; rc == 0 && i < l->nfiles; i++) {
        ds_file *f = &l->files[i];
        int n = 0;
        rc = path_parts(f->path, &copy, keys, vals, &n);
        f->text = rc ? NULL : fail_calloc((size_t)l->npart + 1, sizeof *f->text);
        f->ival = rc ? NULL : fail_calloc((size_t)l->npart + 1, sizeof *f->ival);
        if (rc == 0 && (!f->text || !f->ival)) rc = -ENOMEM;
        for (int j = 0; rc == 0 && j < l->npart; j++) {
            int k = 0;
            while (k < n && strcmp(keys[k], l->part[j].name) != 0) k++;
            if (k == n) rc = pq_errf(e, -EINVAL, -1, "%.200s: no partition '%s' in its path (the "
                                     "first file has it)", f->path, l->part[j].name);
            else if (ds_part_is_null(vals[k])) continue; /* text NULL: a null value, no type */
            else if (!(f->text[j] = fail_strdup(vals[k]))) rc = -ENOMEM;
            if (rc == 0) ds_part_decode(f->text[j]); /* the value; its type inferred as written */
            if (rc) break;
            if (!typed[j]) l->part[j].type = ds_part_infer(vals[k]), typed[j] = true;
            else if (ds_part_infer(vals[k]) != l->part[j].type)
                l->part[j].type = DS_VARCHAR; /* values of two kinds: text, as DuckDB */
        }
        free(copy), copy = NULL;
    }
    for (int j = 0; rc == 0 && j < l->npart; j++) {
        bool given = false;
        ds_part_col *c = &l->part[j];
        rc = given_type(types, c->name, &c->type, &given, e);
        for (int i = 0; rc == 0 && given && c->type != DS_VARCHAR && i < l->nfiles; i++)
            if (l->files[i].text[j] && l->files[i].text[j][0] == 0) /* ("k=": DuckDB's NULL) */
                free(l->files[i].text[j]), l->files[i].text[j] = NULL;
        for (int i = 0; rc == 0 && i < l->nfiles; i++)
            if (l->files[i].text[j] && /* (a null is no value to parse) */
                !ds_part_parse(c->type, l->files[i].text[j], &l->files[i].ival[j]))
                rc = pq_errf(e, -EINVAL, -1, "%.200s: partition %s=%.64s is not a %s", l->files[i].path,
                             c->name, l->files[i].text[j], c->type == DS_DATE ? "DATE"
                             : c->type == DS_TIMESTAMP ? "TIMESTAMP" : "BIGINT");
        part_desc(c);
    }
    return rc ? rc : types_named(l, types, e);
}

/* The partition keys: the first file's (sorted by name), when hive allows and (auto) every
 * file has the same set. */
static int detect_parts(ds_list *l, int hive, const char *types, pq_err *e)
{
    char *keys[DS_PART_MAX], *vals[DS_PART_MAX], *copy = NULL, *other = NULL;
    int n = 0, rc = hive < 0 || l->nfiles == 0 ? 0 : path_parts(l->files[0].path, &copy, keys, vals, &n);
    for (int i = 1; rc == 0 && n > 0 && i < l->nfiles; i++) {
        char *k2[DS_PART_MAX], *v2[DS_PART_MAX];
        int n2 = 0;
        rc = path_parts(l->files[i].path, &other, k2, v2, &n2);
        for (int a = 0; rc == 0 && a < n2 && n2 == n; a++) {
            int b = 0;
            while (b < n && strcmp(keys[b], k2[a]) != 0) b++;
            if (b == n) n2 = -1;
        }
        if (rc == 0 && n2 != n && hive == 1)
            rc = pq_errf(e, -EINVAL, -1, "%.200s: its partition keys differ from the first file's",
                         l->files[i].path);
        if (n2 != n) n = 0; /* auto: not a hive layout */
        free(other), other = NULL;
    }
    if (rc == -E2BIG) rc = pq_errf(e, RINGSCAN_ELIMIT, -1, "more than %d partition keys", DS_PART_MAX);
    l->part = rc == 0 ? fail_calloc((size_t)n + 1, sizeof *l->part) : NULL;
    if (rc == 0 && !l->part) rc = -ENOMEM;
    for (int j = 0; rc == 0 && j < n; j++)
        if (!(l->part[j].name = fail_strdup(keys[j]))) rc = -ENOMEM;
    if (rc == 0) l->npart = n;
    free(copy);
    if (rc == 0) qsort(l->part, (size_t)n, sizeof *l->part, name_cmp);
    return rc ? rc : fill_parts(l, types, e);
}

int ds_list_build(const char *const *pats, int n, int hive, const char *types, int max_files,
                  const io_open_opts *io, ds_list *out, pq_err *e)
{
    *out = (ds_list){0};
    lister l = {.max = max_files > 0 ? max_files : DS_FILES_DEFAULT, .e = e, .io = io};
    if (l.max > DS_FILES_MAX) l.max = DS_FILES_MAX;
    l.dirs_max = 2 * l.max + DS_DIRS_MIN; /* (at most 2^21 + 1024: no overflow) */
    int rc = n > 0 ? 0 : pq_errf(e, -EINVAL, -1, "no paths given");
    for (int i = 0; rc == 0 && i < n; i++)
        rc = pats[i] ? list_one(&l, pats[i]) : pq_errf(e, -EINVAL, -1, "paths[%d] is NULL", i);
    if (rc == 0) qsort(l.paths, (size_t)l.n, sizeof *l.paths, str_cmp);
    int m = l.n; /* a path given twice is read twice, as DuckDB, pyarrow and Polars read it */
    out->files = fail_calloc((size_t)m + 1, sizeof *out->files);
    if (rc == 0 && !out->files) rc = -ENOMEM;
    for (int i = 0; i < m; i++) {
        if (out->files) out->files[i].path = l.paths[i];
        else free(l.paths[i]);
    }
    out->nfiles = out->files ? m : 0;
    free(l.paths);
    if (rc == 0) rc = detect_parts(out, hive, types, e);
    if (rc) ds_list_free(out);
    return rc;
}

void ds_list_free(ds_list *l)
{
    for (int i = 0; i < l->nfiles; i++) {
        for (int j = 0; l->files[i].text && j < l->npart; j++) free(l->files[i].text[j]);
        free(l->files[i].text);
        free(l->files[i].ival);
        free(l->files[i].path);
    }
    for (int j = 0; l->part && j < l->npart; j++) free(l->part[j].name);
    free(l->part);
    free(l->files);
    *l = (ds_list){0};
}
