/* bench/chart.c: the `ringscan bench --chart FILE.svg` picture, written by hand: two panels of
 * grouped bars, read calls and median time, one group per shape and one bar per entry (policy,
 * the A/A repeat, and in the time panel the decompression floor). Each group is scaled to its
 * own largest bar (shapes differ by orders of magnitude), and every bar carries its value, so
 * the picture compares policies within a shape; the numbers compare shapes. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_scan.h"

enum { CH_BAR = 16, CH_GAP = 22, CH_H = 200, CH_TOP = 50, CH_LEFT = 20, CH_LABEL = 70 };

static const char *const colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#8cd17d", "#9c755f"};

/* One bar value of entry j of shape r in panel p (0 reads, 1 ms); j == nentries: floor. */
static double value(const bench_shape_res *r, int j, int p)
{
    if (j == r->nentries) return p == 1 && r->floor.on ? r->floor.median_ms : -1;
    return p == 0 ? (double)r->e[j].runs[0].st.reads : r->e[j].median_ms;
}

static void panel(FILE *f, const bench_ctx *c, int p, int y0, int nbars)
{
    const char *title = p == 0 ? "read calls (incl. footer)" : "median time, ms (floor: one-core decompression)";
    fprintf(f, "<text x='%d' y='%d' font-size='14' font-weight='bold'>%s</text>\n", CH_LEFT,
            y0 - 28, title);
    int x = CH_LEFT;
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        double max = 0;
        for (int j = 0; j <= r->nentries; j++)
            if (value(r, j, p) > max) max = value(r, j, p);
        for (int j = 0; j <= r->nentries; j++) {
            double v = value(r, j, p);
            if (v < 0) continue;
            int h = max > 0 ? (int)(v / max * CH_H) : 0, bx = x + j * CH_BAR;
            fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='%s'><title>%s %s: %.6g</title></rect>\n",
                    bx, y0 + CH_H - h, CH_BAR - 2, h, j == r->nentries ? "#bab0ac" : colors[j % 5],
                    r->shape->name, j == r->nentries ? "floor" : r->e[j].label, v);
            fprintf(f, "<text x='%d' y='%d' font-size='9' transform='rotate(-90 %d %d)'>%.*f</text>\n",
                    bx + 11, y0 + CH_H - h - 3, bx + 11, y0 + CH_H - h - 3, p == 0 ? 0 : 1, v);
        }
        fprintf(f, "<text x='%d' y='%d' font-size='10' transform='rotate(30 %d %d)'>%s</text>\n", x,
                y0 + CH_H + 14, x, y0 + CH_H + 14, r->shape->name);
        x += nbars * CH_BAR + CH_GAP;
    }
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>\n", CH_LEFT, y0 + CH_H, x,
            y0 + CH_H);
}

int bench_chart_svg(const bench_ctx *c, const char *path)
{
    if (c->nshapes == 0) return -EINVAL;
    FILE *f = fopen(path, "w");
    if (!f) return -errno;
    int nbars = c->shapes[0].nentries + 1;
    int w = CH_LEFT * 2 + c->nshapes * (nbars * CH_BAR + CH_GAP) + 60;
    int ph = CH_H + CH_LABEL + 60, h = CH_TOP + 2 * ph + 30;
    if (w < 640) w = 640;
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif'>\n", w, h);
    fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(f, "<text x='%d' y='22' font-size='15'>ringscan bench, sf=%g, %d threads, io %s, median of %d rounds, %s (bars scaled per shape)</text>\n",
            CH_LEFT, c->o.sf, c->o.threads, c->io_backend, c->o.rounds, c->date);
    int lx = CH_LEFT;
    for (int j = 0; j <= c->shapes[0].nentries; j++) {
        const char *name = j == c->shapes[0].nentries ? "floor" : c->shapes[0].e[j].label;
        fprintf(f, "<rect x='%d' y='32' width='10' height='10' fill='%s'/><text x='%d' y='41' font-size='11'>%s</text>\n",
                lx, j == c->shapes[0].nentries ? "#bab0ac" : colors[j % 5], lx + 14, name);
        lx += 14 + 8 * (int)strlen(name) + 10;
    }
    panel(f, c, 0, CH_TOP + 40, nbars);
    panel(f, c, 1, CH_TOP + 40 + ph, nbars);
    fprintf(f, "</svg>\n");
    bool failed = fflush(f) != 0 || ferror(f); /* an earlier failed flush: fclose may not say */
    return fclose(f) == 0 && !failed ? 0 : -EIO;
}
