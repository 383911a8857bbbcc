/* The SVG writer and charts behind `symplan plot` (svg.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/draw/svg.h"

/* ---- the text buffer */

static int reserve(sp_svg *s, size_t more)
{
    if (s->failed) return 0;
    if (s->length + more + 1 <= s->capacity) return 1;
    size_t capacity = s->capacity ? s->capacity : 1 << 14;
    while (capacity < s->length + more + 1) capacity *= 2;
    char *grown = realloc(s->text, capacity);
    if (!grown) {
        s->failed = 1;
        return 0;
    }
    s->text = grown;
    s->capacity = capacity;
    return 1;
}

void sp_svg_add(sp_svg *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(s, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(s->text + s->length, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->length += (size_t)n;
}

static void add_bytes(sp_svg *s, const char *bytes, size_t n)
{
    if (!reserve(s, n)) return;
    memcpy(s->text + s->length, bytes, n);
    s->length += n;
    s->text[s->length] = '\0';
}

/* Length of the valid UTF-8 sequence starting at p (0 if invalid). */
static size_t utf8_length(const unsigned char *p)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    for (size_t i = 1; i < n; ++i)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return n;
}

void sp_svg_escaped(sp_svg *s, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p;) {
        switch (*p) {
        case '&':
            add_bytes(s, "&amp;", 5);
            break;
        case '<':
            add_bytes(s, "&lt;", 4);
            break;
        case '>':
            add_bytes(s, "&gt;", 4);
            break;
        case '"':
            add_bytes(s, "&quot;", 6);
            break;
        case '\'':
            add_bytes(s, "&apos;", 6);
            break;
        default:
            if (*p >= 0x80) { /* keep valid UTF-8, replace anything else */
                size_t n = utf8_length(p);
                if (n) {
                    add_bytes(s, (const char *)p, n);
                    p += n;
                    continue;
                }
                add_bytes(s, "?", 1);
            } else if (*p >= 0x20 && *p != 0x7f) {
                add_bytes(s, (const char *)p, 1);
            }
        }
        ++p;
    }
}

void sp_svg_text(sp_svg *s, double x, double y, const char *attrs, const char *text)
{
    sp_svg_add(s, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs ? attrs : "");
    sp_svg_escaped(s, text);
    sp_svg_add(s, "</text>\n");
}

void sp_svg_begin(sp_svg *s, double width, double height, const char *title)
{
    memset(s, 0, sizeof *s);
    sp_svg_add(s,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
               width, height, width, height);
    sp_svg_escaped(s, title);
    sp_svg_add(s,
               "</title>\n<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
               width, height);
    sp_svg_text(s, width / 2, 28, "class=\"title\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\"",
                title);
}

char *sp_svg_end(sp_svg *s)
{
    sp_svg_add(s, "</svg>\n");
    if (s->failed) {
        sp_svg_release(s);
        return NULL;
    }
    char *text = s->text;
    s->text = NULL;
    s->length = s->capacity = 0;
    return text;
}

void sp_svg_release(sp_svg *s)
{
    free(s->text);
    memset(s, 0, sizeof *s);
}

const char *sp_svg_color(int i)
{
    static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const int n = (int)(sizeof palette / sizeof palette[0]);
    return palette[((i % n) + n) % n];
}

/* ---- axes */

void sp_axis_include(sp_axis *a, double v)
{
    if (!isfinite(v) || (a->log && !(v > 0.0))) return;
    if (!a->have) {
        a->min = a->max = v;
        a->have = 1;
    } else {
        a->min = fmin(a->min, v);
        a->max = fmax(a->max, v);
    }
}

/* 1, 2 or 5 times a power of ten, near x > 0. */
static double nice_step(double x)
{
    double e = floor(log10(x)), f = x / pow(10.0, e);
    return (f < 1.5 ? 1.0 : f < 3.0 ? 2.0 : f < 7.0 ? 5.0 : 10.0) * pow(10.0, e);
}

void sp_axis_finish(sp_axis *a)
{
    if (a->log) {
        if (!a->have) a->min = 1.0, a->max = 10.0;
        double lo = log10(a->min), hi = log10(a->max);
        if (hi - lo < 2.0) { /* a padded range */
            double w = fmax(hi - lo, 0.01), mid = 0.5 * (lo + hi);
            lo = mid - 0.55 * w, hi = mid + 0.55 * w;
        } else {
            lo = floor(lo + 1e-9), hi = ceil(hi - 1e-9);
        }
        a->min = pow(10.0, lo), a->max = pow(10.0, hi);
        return;
    }
    if (!a->have) a->min = 0.0, a->max = 1.0;
    double span = a->max - a->min, scale = fmax(fabs(a->min), fabs(a->max));
    if (!(span > 1e-12 * scale) || span < 1e-300) {
        double d = scale > 0.0 ? 0.1 * scale : 1.0;
        a->min -= d, a->max += d;
    }
    double step = nice_step((a->max - a->min) / 5.0);
    a->min = floor(a->min / step + 1e-9) * step;
    a->max = ceil(a->max / step - 1e-9) * step;
}

static double axis_fraction(const sp_axis *a, double v)
{
    double f = a->log ? (log10(v) - log10(a->min)) / (log10(a->max) - log10(a->min)) : (v - a->min) / (a->max - a->min);
    if (!isfinite(f)) return -50.0;
    return fmax(-50.0, fmin(50.0, f));
}

double sp_chart_px(const sp_chart *c, double x) { return c->left + axis_fraction(&c->x, x) * c->width; }
double sp_chart_py(const sp_chart *c, double y) { return c->top + (1.0 - axis_fraction(&c->y, y)) * c->height; }

/* Tick label of a linear axis with steps of `step`. */
static void linear_label(char *out, size_t size, double v, double step)
{
    if (fabs(v) < 1e-9 * step) v = 0.0;
    int decimals = (int)fmax(0.0, -floor(log10(step) + 1e-9));
    if (fabs(v) < 1e6 && decimals <= 6) {
        snprintf(out, size, "%.*f", decimals, v);
    } else { /* enough significant digits to tell neighbouring ticks apart */
        int digits = (int)ceil(log10(fmax(fabs(v), step) / step) - 1e-9) + 1;
        snprintf(out, size, "%.*g", digits < 1 ? 1 : digits > 17 ? 17 : digits, v);
    }
}

/* Tick label of a log axis: 0.01 … 1000 plainly, else 1e-15, 2e-7. */
static void log_label(char *out, size_t size, double v)
{
    int k = (int)floor(log10(v) + 1e-9);
    double m = v / pow(10.0, k);
    if (k >= -3 && k <= 4)
        snprintf(out, size, "%g", v);
    else if (fabs(m - 1.0) < 1e-9)
        snprintf(out, size, "1e%d", k);
    else
        snprintf(out, size, "%.3ge%d", m, k);
}

/* Where the last tick label of an axis went: a label that would run into it is left out
 * (its tick stays), so that close ticks (a study's values 1, 1.02, 1.04) never print over
 * each other. Labels are 12 px sans-serif: at most 7.2 px a character, 12 px high. */
typedef struct label_room {
    int any;
    double end; /* horizontal: the right edge of the last label; vertical: its top */
} label_room;

#define LABEL_CHAR_PX 7.2
#define LABEL_HEIGHT_PX 12.0
#define LABEL_GAP_PX 4.0

static int label_fits(label_room *room, int horizontal, double at, const char *label)
{
    if (horizontal) {
        const double half = 0.5 * LABEL_CHAR_PX * (double)strlen(label);
        if (room->any && at - half < room->end + LABEL_GAP_PX) return 0;
        room->end = at + half;
    } else { /* labels go up the axis: y decreases */
        const double bottom = at + 4.0, top = bottom - LABEL_HEIGHT_PX;
        if (room->any && bottom > room->end - LABEL_GAP_PX) return 0;
        room->end = top;
    }
    room->any = 1;
    return 1;
}

/* One tick on the x (horizontal) or y axis, with its label when `label` is not NULL and
 * there is room for it. */
static void tick(sp_svg *s, const sp_chart *c, label_room *room, int horizontal, double v, const char *label,
                 int major)
{
    const double len = major ? 5.0 : 3.0;
    if (horizontal) {
        double x = sp_chart_px(c, v), bottom = c->top + c->height;
        if (major)
            sp_svg_add(s, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e6e6e6\"/>\n",
                       x, c->top, x, bottom);
        sp_svg_add(s, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n", x,
                   bottom, x, bottom + len);
        if (label && label_fits(room, 1, x, label))
            sp_svg_text(s, x, bottom + 18, "class=\"tick-label\" text-anchor=\"middle\"", label);
    } else {
        double y = sp_chart_py(c, v), right = c->left + c->width;
        if (major)
            sp_svg_add(s, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e6e6e6\"/>\n",
                       c->left, y, right, y);
        sp_svg_add(s, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n",
                   c->left - len, y, c->left, y);
        if (label && label_fits(room, 0, y, label))
            sp_svg_text(s, c->left - 8, y + 4, "class=\"tick-label\" text-anchor=\"end\"", label);
    }
}

static void axis_ticks(sp_svg *s, const sp_chart *c, int horizontal)
{
    const sp_axis *a = horizontal ? &c->x : &c->y;
    label_room room = {0};
    char label[48];
    if (!horizontal && c->y_category) {
        for (int i = 0; i < c->n_categories; ++i) tick(s, c, &room, 0, i, c->y_category[i], 1);
        return;
    }
    if (horizontal && c->x_category) {
        for (int i = 0; i < c->n_x_categories; ++i) tick(s, c, &room, 1, i, c->x_category[i], 1);
        return;
    }
    if (a->n_ticks > 0) {
        for (int i = 0; i < a->n_ticks; ++i) {
            snprintf(label, sizeof label, "%g", a->ticks[i]);
            tick(s, c, &room, horizontal, a->ticks[i], label, 1);
        }
        return;
    }
    double lo = a->log ? log10(a->min) : 0, hi = a->log ? log10(a->max) : 0, span = hi - lo;
    if (!a->log || span < 0.5) { /* even steps (also on a log axis under half a decade) */
        double step = nice_step((a->max - a->min) / 5.0);
        for (double k = ceil(a->min / step - 1e-9); k * step <= a->max + 1e-9 * step; k += 1.0) {
            linear_label(label, sizeof label, k * step, step);
            tick(s, c, &room, horizontal, k * step, label, 1);
        }
        return;
    }
    if (span >= 2.0 - 1e-9) {
        int every = (int)ceil(span / 8.0 - 1e-9);
        for (int k = (int)ceil(lo - 1e-9); k <= (int)floor(hi + 1e-9); ++k) {
            double v = pow(10.0, k);
            int labelled = (k - (int)ceil(lo - 1e-9)) % every == 0;
            log_label(label, sizeof label, v);
            tick(s, c, &room, horizontal, v, labelled ? label : NULL, 1);
            if (span <= 5.0 && k < (int)floor(hi + 1e-9))
                for (int m = 2; m <= 9; ++m) tick(s, c, &room, horizontal, m * v, NULL, 0);
        }
        return;
    }
    /* under two decades: 1-2-5 (or 1-2-3-5) labelled, the rest of 1…9 as minor ticks */
    const int labelled[10] = {0, 1, 1, span < 1.0, 0, 1, 0, 0, 0, 0};
    for (int k = (int)floor(lo) - 1; k <= (int)ceil(hi); ++k)
        for (int m = 1; m <= 9; ++m) {
            double v = m * pow(10.0, k);
            if (v < a->min * (1 - 1e-9) || v > a->max * (1 + 1e-9)) continue;
            log_label(label, sizeof label, v);
            tick(s, c, &room, horizontal, v, labelled[m] ? label : NULL, labelled[m]);
        }
}

void sp_chart_axes(sp_svg *s, const sp_chart *c)
{
    sp_svg_add(s, "<g class=\"axes\">\n");
    axis_ticks(s, c, 1);
    axis_ticks(s, c, 0);
    sp_svg_add(
        s,
        "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#333\"/>\n",
        c->left, c->top, c->width, c->height);
    if (c->x.label)
        sp_svg_text(s, c->left + c->width / 2, c->top + c->height + 38, "class=\"axis-label\" text-anchor=\"middle\"",
                    c->x.label);
    if (c->y.label) {
        char attrs[160];
        double x = c->left - 58, y = c->top + c->height / 2;
        snprintf(attrs, sizeof attrs, "class=\"axis-label\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\"",
                 x, y);
        sp_svg_text(s, x, y, attrs, c->y.label);
    }
    if (c->title)
        sp_svg_text(s, c->left + c->width / 2, c->top - 10,
                    "class=\"chart-title\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\"", c->title);
    sp_svg_add(s, "</g>\n");
}

/* ---- series */

static int usable(const sp_axis *a, double v) { return isfinite(v) && (!a->log || v > 0.0); }

void sp_chart_series(sp_svg *s, const sp_chart *c, const char *name, size_t n, const double *x, size_t xstride,
                     const double *y, size_t ystride, const char *style)
{
    sp_svg_add(s, "<g class=\"series\"><title>");
    sp_svg_escaped(s, name);
    sp_svg_add(s, "</title>\n");
    /* Thinning: buckets of b points contribute their lowest and highest point, in order. */
    const size_t limit = 2000, b = n > limit ? (n + limit / 2 - 1) / (limit / 2) : 1;
    int open = 0;
    for (size_t start = 0; start < n; start += b) {
        size_t end = start + b < n ? start + b : n, pick[2] = {start, start};
        int npick = 1, broken = 0;
        if (b > 1) {
            size_t lo = start, hi = start;
            for (size_t i = start; i < end; ++i) {
                if (!usable(&c->x, x[i * xstride]) || !usable(&c->y, y[i * ystride])) broken = 1;
                if (y[i * ystride] < y[lo * ystride]) lo = i;
                if (y[i * ystride] > y[hi * ystride]) hi = i;
            }
            pick[0] = lo < hi ? lo : hi, pick[1] = lo < hi ? hi : lo;
            npick = lo == hi ? 1 : 2;
        }
        for (int j = 0; j < npick; ++j) {
            double xv = x[pick[j] * xstride], yv = y[pick[j] * ystride];
            if (broken || !usable(&c->x, xv) || !usable(&c->y, yv)) {
                if (open) sp_svg_add(s, "\"/>\n");
                open = 0;
                continue;
            }
            if (!open) sp_svg_add(s, "<polyline class=\"line\" fill=\"none\" %s points=\"", style ? style : "");
            sp_svg_add(s, "%s%.2f,%.2f", open ? " " : "", sp_chart_px(c, xv), sp_chart_py(c, yv));
            open = 1;
        }
    }
    if (open) sp_svg_add(s, "\"/>\n");
    sp_svg_add(s, "</g>\n");
}

/* The <path> element of a path being drawn: its points go to the open subpath, a break
 * ends the subpath ("M" starts the next), and an element that holds PATH_ELEMENT_POINTS
 * is closed and the line continued in a new one from its last point. */
typedef struct path_line {
    sp_svg *s;
    const char *style;
    int points;     /* in the open element; 0: none open */
    int subpath;    /* a subpath is open in it */
    double last_x, last_y;
} path_line;

#define PATH_ELEMENT_POINTS 1000

static void path_break(path_line *l) { l->subpath = 0; }

static void path_close(path_line *l)
{
    if (l->points) sp_svg_add(l->s, "\"/>\n");
    l->points = l->subpath = 0;
}

static void path_point(path_line *l, double px, double py)
{
    if (l->points >= PATH_ELEMENT_POINTS) {
        const int continued = l->subpath;
        path_close(l);
        if (continued) path_point(l, l->last_x, l->last_y);
    }
    if (!l->points) sp_svg_add(l->s, "<path class=\"line\" fill=\"none\" %s d=\"", l->style ? l->style : "");
    sp_svg_add(l->s, "%s%.2f,%.2f", l->subpath ? " " : "M", px, py);
    l->points++, l->subpath = 1, l->last_x = px, l->last_y = py;
}

/* The cell of the chart's grid a pixel position falls in (clamped to the grid). */
static size_t path_cell(const sp_chart *c, int cols, int rows, double px, double py)
{
    const double col = floor((px - c->left) / SP_PATH_CELL) + 1, row = floor((py - c->top) / SP_PATH_CELL) + 1;
    return (size_t)fmin(fmax(row, 0), rows - 1) * (size_t)cols + (size_t)fmin(fmax(col, 0), cols - 1);
}

void sp_chart_path(sp_svg *s, const sp_chart *c, const char *name, size_t n, const double *x, size_t xstride,
                   const double *y, size_t ystride, const char *style)
{
    /* one cell around the area and beyond it on each side, for points drawn on its edge or out of it */
    const int cols = (int)ceil(c->width / SP_PATH_CELL) + 2, rows = (int)ceil(c->height / SP_PATH_CELL) + 2;
    unsigned char *drawn = calloc((size_t)cols * (size_t)rows, 1);
    if (!drawn) { /* out of memory: the thinning of a time series, which needs none */
        sp_chart_series(s, c, name, n, x, xstride, y, ystride, style);
        return;
    }
    size_t extreme[4] = {0, 0, 0, 0}; /* least and greatest x, least and greatest y */
    for (size_t i = 0; i < n; ++i) {
        const double xv = x[i * xstride], yv = y[i * ystride];
        if (xv < x[extreme[0] * xstride] || !isfinite(x[extreme[0] * xstride])) extreme[0] = i;
        if (xv > x[extreme[1] * xstride] || !isfinite(x[extreme[1] * xstride])) extreme[1] = i;
        if (yv < y[extreme[2] * ystride] || !isfinite(y[extreme[2] * ystride])) extreme[2] = i;
        if (yv > y[extreme[3] * ystride] || !isfinite(y[extreme[3] * ystride])) extreme[3] = i;
    }
    sp_svg_add(s, "<g class=\"series\"><title>");
    sp_svg_escaped(s, name);
    sp_svg_add(s, "</title>\n");
    path_line line = {.s = s, .style = style};
    size_t last_cell = 0;
    int have_previous = 0; /* the point before this one is usable (and where it was drawn) */
    double previous_x = 0.0, previous_y = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double xv = x[i * xstride], yv = y[i * ystride];
        if (!usable(&c->x, xv) || !usable(&c->y, yv)) {
            path_break(&line);
            have_previous = 0;
            continue;
        }
        const double px = sp_chart_px(c, xv), py = sp_chart_py(c, yv);
        const size_t cell = path_cell(c, cols, rows, px, py);
        const int keep = !drawn[cell] || i == 0 || i + 1 == n || i == extreme[0] || i == extreme[1] ||
                         i == extreme[2] || i == extreme[3];
        drawn[cell] = 1;
        if (keep) {
            if (!line.subpath && have_previous) path_point(&line, previous_x, previous_y); /* from where it was */
            path_point(&line, px, py);
            last_cell = cell;
        } else if (cell != last_cell) {
            path_break(&line); /* over ground already drawn */
        }
        have_previous = 1, previous_x = px, previous_y = py;
    }
    path_close(&line);
    sp_svg_add(s, "</g>\n");
    free(drawn);
}

void sp_legend_entry(sp_svg *s, sp_legend *l, const char *style, const char *marker, const char *label)
{
    sp_svg_add(s, "<g class=\"legend-entry\" transform=\"translate(%.1f %.1f)\">", l->x, l->y + 18.0 * l->count);
    if (marker)
        sp_svg_add(s, "<g transform=\"translate(12 0)\">%s</g>", marker);
    else
        sp_svg_add(s, "<line x1=\"0\" y1=\"0\" x2=\"24\" y2=\"0\" %s/>", style ? style : "stroke=\"#000\"");
    sp_svg_text(s, 30, 4, "class=\"legend-label\"", label);
    sp_svg_add(s, "</g>\n");
    ++l->count;
}
