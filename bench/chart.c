/* bench/chart.c: the `ringscan bench --chart FILE` picture, drawn with cairo: FILE.png as a
 * PNG image, FILE.svg as SVG, one drawing for both. Two panels of grouped bars, read calls and
 * median wall time, one group per shape and one bar per entry (policy, the A/A repeat, and in
 * the time panel the decompression floor).
 *
 * Invariants:
 *  1. One scale per panel: a bar's height is its value over the panel's axis maximum (a "nice"
 *     1/2/5 x 10^k above every value), so bars compare across shapes; every bar also carries
 *     its value, so the small ones stay readable.
 *  2. Everything is measured before it is placed: a group is as wide as its bars or its shape
 *     name, whichever is wider; the picture is as wide as its groups and as tall as its two
 *     panels (no empty area); the title shrinks its font until it fits.
 *  3. Bounded: at most BENCH_ENTRIES_MAX + 1 bars per group and c->nshapes groups.
 *  4. Once per process: it frees cairo's and fontconfig's static caches before returning.
 *  5. Returns 0, -EINVAL (no shapes, or a name that ends in neither .png nor .svg) or -EIO
 *     (cairo could not be loaded, or could not create or write the file). */
#include <assert.h>
#include <cairo/cairo-svg.h>
#include <cairo/cairo.h>
#include <dlfcn.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cairo and fontconfig are loaded when a chart is drawn, not linked: linked, they and the ~15
 * libraries they need (X11, xcb, freetype, png...) were mapped and relocated at the start of
 * every `ringscan` process. Each function keeps its header's type (the table's fields). */
#define CHART_CAIRO_FNS(X)                                                                     \
    X(cairo_create) X(cairo_destroy) X(cairo_fill) X(cairo_image_surface_create)                \
    X(cairo_line_to) X(cairo_move_to) X(cairo_rectangle) X(cairo_restore) X(cairo_rotate)       \
    X(cairo_save) X(cairo_select_font_face) X(cairo_set_font_size) X(cairo_set_line_width)      \
    X(cairo_set_source_rgb) X(cairo_show_text) X(cairo_status) X(cairo_status_to_string)        \
    X(cairo_stroke) X(cairo_surface_destroy) X(cairo_surface_finish) X(cairo_surface_status)    \
    X(cairo_surface_write_to_png) X(cairo_svg_surface_create) X(cairo_text_extents)             \
    X(cairo_debug_reset_static_data)
#define CHART_FIELD(f) __typeof__(f) *f;
static struct {
    CHART_CAIRO_FNS(CHART_FIELD)
    __typeof__(FcFini) *FcFini;
} cx;
#undef CHART_FIELD
static pthread_once_t cx_once = PTHREAD_ONCE_INIT;
static char cx_err[512]; /* why loading failed; "" once every function is loaded */

/* Opens lib (keeping the loader's reason on failure). */
static void *cx_open(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h && cx_err[0] == 0) {
        const char *e = dlerror();
        snprintf(cx_err, sizeof cx_err, "%s (the chart needs Debian's libcairo2 and libfontconfig1)",
                 e ? e : lib);
    }
    return h;
}

/* Looks up name in lib into *slot; false (the reason kept) when lib or name is missing. */
static bool cx_sym(void *lib, const char *name, void *slot)
{
    void *f = lib ? dlsym(lib, name) : NULL;
    if (!f) {
        if (cx_err[0] == 0) snprintf(cx_err, sizeof cx_err, "cairo has no %s", name);
        return false;
    }
    *(void **)slot = f; /* POSIX: a function pointer round-trips through void * */
    return true;
}

static void cx_load(void)
{
    void *cairo = cx_open("libcairo.so.2"), *fc = cx_open("libfontconfig.so.1");
    bool ok = cx_sym(fc, "FcFini", &cx.FcFini);
#define CHART_SYM(f) ok = ok && cx_sym(cairo, #f, &cx.f);
    CHART_CAIRO_FNS(CHART_SYM)
#undef CHART_SYM
    assert(ok == (cx_err[0] == 0));
}

#include "bench/bench_scan.h"

enum { CH_BAR = 18, CH_GAP = 26, CH_PLOT_H = 220, CH_AXIS_W = 70, CH_MARGIN = 16 };
#define CH_FONT "sans-serif"
/* The longer panel title: the picture is at least this wide (invariant 2). */
#define TITLE_TIME "Median wall time, open to last batch (floor: one-core decompression)"

static const double colors[][3] = {
    {0.306, 0.475, 0.655}, {0.949, 0.557, 0.169}, {0.349, 0.631, 0.310}, {0.553, 0.820, 0.490}, {0.612, 0.459, 0.373}};
static const double floor_color[3] = {0.729, 0.690, 0.675};

/* Bars of a group in panel p: the entries, plus the floor in the time panel when measured. */
static int nbars(const bench_ctx *c, int p)
{
    return c->shapes[0].nentries + (p == 1 && c->shapes[0].floor.on ? 1 : 0);
}

/* Bar j of shape r in panel p (0 read calls of the first round, 1 median ms); j == nentries
 * is the floor. Negative: no bar. */
static double value(const bench_shape_res *r, int j, int p)
{
    if (j >= r->nentries) return p == 1 && r->floor.on ? r->floor.median_ms : -1;
    return p == 0 ? (double)r->e[j].runs[0].st.reads : r->e[j].median_ms;
}

/* The smallest 1, 2 or 5 x 10^k step giving at most 5 ticks up to max; *top = ticks * step. */
static double nice_step(double max, double *top)
{
    if (!(max > 0)) max = 1;
    double raw = max / 5, mag = pow(10, floor(log10(raw))), step = 10 * mag;
    if (raw <= mag) step = mag;
    else if (raw <= 2 * mag) step = 2 * mag;
    else if (raw <= 5 * mag) step = 5 * mag;
    *top = ceil(max / step - 1e-9) * step;
    return step;
}

static double text_w(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cx.cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

static void text_at(cairo_t *cr, double x, double y, const char *s)
{
    cx.cairo_move_to(cr, x, y);
    cx.cairo_show_text(cr, s);
}

/* The width of shape i's group: its bars or its name, whichever is wider, plus the gap. */
static double group_w(cairo_t *cr, const bench_ctx *c, int i)
{
    cx.cairo_set_font_size(cr, 12);
    double bars = (double)nbars(c, 1) * CH_BAR, name = text_w(cr, c->shapes[i].shape->name);
    return (bars > name ? bars : name) + CH_GAP;
}

static void axis(cairo_t *cr, double x0, double y0, double w, double top, double step, const char *unit)
{
    cx.cairo_set_font_size(cr, 11);
    cx.cairo_set_line_width(cr, 1);
    for (double v = 0; v <= top + step / 2; v += step) {
        double y = round(y0 + CH_PLOT_H - v / top * CH_PLOT_H) + 0.5;
        char s[32];
        snprintf(s, sizeof s, "%g", v);
        cx.cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cx.cairo_move_to(cr, x0, y);
        cx.cairo_line_to(cr, x0 + w, y);
        cx.cairo_stroke(cr);
        cx.cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(cr, x0 - 6 - text_w(cr, s), y + 4, s);
    }
    cx.cairo_save(cr);
    cx.cairo_move_to(cr, CH_MARGIN + 12, y0 + CH_PLOT_H / 2 + text_w(cr, unit) / 2);
    cx.cairo_rotate(cr, -M_PI / 2);
    cx.cairo_show_text(cr, unit);
    cx.cairo_restore(cr);
    cx.cairo_move_to(cr, x0 + 0.5, y0);
    cx.cairo_line_to(cr, x0 + 0.5, y0 + CH_PLOT_H + 0.5);
    cx.cairo_line_to(cr, x0 + w, y0 + CH_PLOT_H + 0.5);
    cx.cairo_stroke(cr);
}

/* A bar's value above it: level when it fits the bar's width, else turned upright. */
static void bar_label(cairo_t *cr, double bx, double by, double v, int p)
{
    char s[32];
    snprintf(s, sizeof s, "%.*f", p == 0 ? 0 : 1, v);
    cx.cairo_set_font_size(cr, 9);
    cx.cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    double tw = text_w(cr, s);
    if (tw <= CH_BAR) {
        text_at(cr, bx + (CH_BAR - 2 - tw) / 2, by - 3, s);
        return;
    }
    cx.cairo_save(cr);
    cx.cairo_move_to(cr, bx + CH_BAR / 2 + 2, by - 3);
    cx.cairo_rotate(cr, -M_PI / 2);
    cx.cairo_show_text(cr, s);
    cx.cairo_restore(cr);
}

/* Panel p with its plot area's top at y0: title, axis, then the bars on one scale. */
static void panel(cairo_t *cr, const bench_ctx *c, int p, double y0, double plot_w)
{
    static const char *titles[] = {"Read calls per scan (first round, footer included)",
                                   TITLE_TIME};
    static const char *units[] = {"read calls", "time (ms)"};
    double max = 0;
    for (int i = 0; i < c->nshapes; i++)
        for (int j = 0; j < nbars(c, p); j++)
            if (value(&c->shapes[i], j, p) > max) max = value(&c->shapes[i], j, p);
    double top, step = nice_step(max, &top);
    cx.cairo_set_source_rgb(cr, 0, 0, 0);
    cx.cairo_select_font_face(cr, CH_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cx.cairo_set_font_size(cr, 13);
    text_at(cr, CH_MARGIN, y0 - 38, titles[p]);
    cx.cairo_select_font_face(cr, CH_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    axis(cr, CH_MARGIN + CH_AXIS_W, y0, plot_w, top, step, units[p]);
    double x = CH_MARGIN + CH_AXIS_W + CH_GAP / 2, natural = CH_GAP / 2;
    for (int i = 0; i < c->nshapes; i++) natural += group_w(cr, c, i);
    double extra = (plot_w - natural) / c->nshapes; /* > 0 when the titles set the width */
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        double gw = group_w(cr, c, i) + extra, bars_x = x + (gw - CH_GAP - (double)nbars(c, p) * CH_BAR) / 2;
        for (int j = 0; j < nbars(c, p); j++) {
            double v = value(r, j, p), h = v > 0 ? v / top * CH_PLOT_H : 0, bx = bars_x + j * CH_BAR;
            if (v < 0) continue;
            const double *rgb = j >= r->nentries ? floor_color : colors[j % 5];
            cx.cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cx.cairo_rectangle(cr, bx, y0 + CH_PLOT_H - h, CH_BAR - 2, h);
            cx.cairo_fill(cr);
            bar_label(cr, bx, y0 + CH_PLOT_H - h, v, p);
        }
        cx.cairo_set_font_size(cr, 12);
        cx.cairo_set_source_rgb(cr, 0, 0, 0);
        const char *name = r->shape->name;
        text_at(cr, x + (gw - CH_GAP - text_w(cr, name)) / 2, y0 + CH_PLOT_H + 18, name);
        x += gw;
    }
}

/* Title (font shrunk until it fits w) and legend along the top. */
static void title_of(const bench_ctx *c, char t[256])
{
    snprintf(t, 256, "ringscan bench: sf=%g, %d threads, io %s, median of %d round%s, %s", c->o.sf,
             c->o.threads, c->io_backend, c->o.rounds, c->o.rounds == 1 ? "" : "s", c->date);
}

static void header(cairo_t *cr, const bench_ctx *c, double w)
{
    char t[256];
    title_of(c, t);
    cx.cairo_select_font_face(cr, CH_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    double size = 16;
    cx.cairo_set_font_size(cr, size);
    while (size > 8 && text_w(cr, t) > w - 2 * CH_MARGIN) cx.cairo_set_font_size(cr, --size);
    cx.cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, CH_MARGIN, 26, t);
    cx.cairo_select_font_face(cr, CH_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cx.cairo_set_font_size(cr, 12);
    double lx = CH_MARGIN;
    for (int j = 0; j < nbars(c, 1); j++) {
        const char *name = j >= c->shapes[0].nentries ? "floor" : c->shapes[0].e[j].label;
        const double *rgb = j >= c->shapes[0].nentries ? floor_color : colors[j % 5];
        cx.cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cx.cairo_rectangle(cr, lx, 38, 12, 12);
        cx.cairo_fill(cr);
        cx.cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cr, lx + 16, 49, name);
        lx += 16 + text_w(cr, name) + 18;
    }
}

enum { CH_HEAD_H = 60, CH_PANEL_H = CH_PLOT_H + 90 };

/* The picture's size (invariant 2), measured on a scratch surface. */
static void measure(const bench_ctx *c, double *w, double *plot_w)
{
    cairo_surface_t *s = cx.cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cx.cairo_create(s);
    cx.cairo_select_font_face(cr, CH_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    *plot_w = CH_GAP / 2;
    for (int i = 0; i < c->nshapes; i++) *plot_w += group_w(cr, c, i);
    cx.cairo_select_font_face(cr, CH_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cx.cairo_set_font_size(cr, 13);
    char t[256];
    title_of(c, t);
    double title = text_w(cr, TITLE_TIME);
    cx.cairo_set_font_size(cr, 14); /* the title's size when the panels set no wider picture */
    if (text_w(cr, t) > title) title = text_w(cr, t);
    *w = CH_MARGIN * 2 + CH_AXIS_W + *plot_w;
    if (*w < title + 2 * CH_MARGIN) {
        *plot_w += title + 2 * CH_MARGIN - *w;
        *w = title + 2 * CH_MARGIN;
    }
    cx.cairo_destroy(cr);
    cx.cairo_surface_destroy(s);
}

static void draw(cairo_t *cr, const bench_ctx *c, double w, double h, double plot_w)
{
    cx.cairo_set_source_rgb(cr, 1, 1, 1);
    cx.cairo_rectangle(cr, 0, 0, w, h);
    cx.cairo_fill(cr);
    header(cr, c, w);
    panel(cr, c, 0, CH_HEAD_H + 50, plot_w);
    panel(cr, c, 1, CH_HEAD_H + 50 + CH_PANEL_H, plot_w);
}

int bench_chart(const bench_ctx *c, const char *path, const char **why)
{
    *why = "no shapes, or a name ending in neither .png nor .svg";
    size_t n = strlen(path);
    bool png = n >= 4 && strcmp(path + n - 4, ".png") == 0, svg = n >= 4 && strcmp(path + n - 4, ".svg") == 0;
    if (c->nshapes == 0 || (!png && !svg)) return -EINVAL;
    pthread_once(&cx_once, cx_load);
    *why = cx_err;
    if (cx_err[0]) return -EIO;
    double w, plot_w, h = CH_HEAD_H + 50 + 2 * CH_PANEL_H - 40;
    measure(c, &w, &plot_w);
    w = ceil(w);
    cairo_surface_t *s = png ? cx.cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h)
                             : cx.cairo_svg_surface_create(path, w, h);
    cairo_t *cr = cx.cairo_create(s);
    draw(cr, c, w, h, plot_w);
    cairo_status_t st = cx.cairo_status(cr);
    cx.cairo_destroy(cr);
    if (png && st == CAIRO_STATUS_SUCCESS) st = cx.cairo_surface_write_to_png(s, path);
    cx.cairo_surface_finish(s); /* an SVG is written out here */
    if (st == CAIRO_STATUS_SUCCESS) st = cx.cairo_surface_status(s);
    cx.cairo_surface_destroy(s);
    bool failed = st != CAIRO_STATUS_SUCCESS;
    struct stat fst; /* a partial chart was left in place (onto a full disk) */
    if (failed && stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) unlink(path);
    if (failed) *why = cx.cairo_status_to_string(st);
    /* cairo's and fontconfig's caches live until exit otherwise; freeing them here keeps the
     * sanitizer build's leak check meaningful. The bench draws one chart per process. */
    cx.cairo_debug_reset_static_data();
    cx.FcFini();
    return failed ? -EIO : 0;
}
