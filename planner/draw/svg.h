/* A small SVG writer for the pictures of `symplan plot`: a growing text buffer with
 * escaped text, and charts (a plot area with linear or logarithmic axes, ticks, labels,
 * a legend and polylines). Everything is built in memory; nothing is printed. The
 * document is self-contained: no external references, no scripts, no url(). Internal
 * to planner/.
 *
 * Elements carry a class naming what they show ("title", "axis-label", "tick-label",
 * "legend-entry", "series", …) so that a reader or a test can find them. */
#ifndef SP_SVG_H
#define SP_SVG_H

#include <stddef.h>

typedef struct sp_svg {
    char *text;
    size_t length, capacity;
    int failed; /* an allocation failed: everything after it is dropped */
} sp_svg;

/* Starts a document of width x height pixels with a <title> and a visible title line. */
void sp_svg_begin(sp_svg *s, double width, double height, const char *title);
/* Appends printf-formatted raw markup (the caller escapes any text in it). */
void sp_svg_add(sp_svg *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends text with &, <, >, " and ' escaped and control characters dropped. */
void sp_svg_escaped(sp_svg *s, const char *text);
/* <text x y attrs>escaped text</text>; attrs is raw markup (may be ""). */
void sp_svg_text(sp_svg *s, double x, double y, const char *attrs, const char *text);
/* Closes the document and hands its text over (the caller frees it); NULL when memory ran out. */
char *sp_svg_end(sp_svg *s);
/* Frees an unfinished document. */
void sp_svg_release(sp_svg *s);

/* The i-th colour of the palette (cycles). */
const char *sp_svg_color(int i);

/* One axis: the data range it shows and how. */
typedef struct sp_axis {
    double min, max; /* after sp_axis_finish: the shown range */
    int log;         /* logarithmic (min, max > 0) */
    int have;        /* some data was included */
    const char *label;
    const double *ticks; /* when n_ticks > 0: ticks (labelled %g) at these values only */
    int n_ticks;
} sp_axis;

/* Widens the range to hold v (non-finite values, and values ≤ 0 on a log axis, are ignored). */
void sp_axis_include(sp_axis *a, double v);
/* Settles the shown range: nice bounds on a linear axis, decades (or a padded range
 * under two decades, ticked 1-2-5 or, under half a decade, at even steps) on a log
 * axis; an empty or one-point range gets a sensible width. */
void sp_axis_finish(sp_axis *a);

/* A plot area in pixels with its two axes. */
typedef struct sp_chart {
    double left, top, width, height;
    sp_axis x, y;
    const char *title;       /* above the plot area; may be NULL */
    const char **y_category; /* when set, y ticks at 0, 1, … labelled with these names */
    int n_categories;
    const char *const *x_category; /* when set, x ticks at 0, 1, … labelled with these names */
    int n_x_categories;
} sp_chart;

/* Pixel position of a data value (clamped well outside the area for far-away values). */
double sp_chart_px(const sp_chart *c, double x);
double sp_chart_py(const sp_chart *c, double y);

/* The frame, grid lines, ticks with labels, axis labels and the chart's title. */
void sp_chart_axes(sp_svg *s, const sp_chart *c);

/* One named data series as a polyline (or several where values are non-finite),
 * wrapped in <g class="series"> with a <title> giving its name. Points are read at
 * x[i*xstride], y[i*ystride]; long series are thinned to at most about 2000 points,
 * keeping each bucket's extremes. `style` is raw attribute markup
 * (stroke, dash, width). */
void sp_chart_series(sp_svg *s, const sp_chart *c, const char *name, size_t n, const double *x, size_t xstride,
                     const double *y, size_t ystride, const char *style);

/* A path in the plane (x and y both coordinates of the state), drawn at the chart's
 * resolution: a point is kept where the path enters a cell of SP_PATH_CELL pixels it has
 * not entered before, and where it runs over cells already drawn the line breaks and
 * resumes from the point before the next new cell; the first and last points and those of
 * least and greatest x and y are always kept. A path that goes round the same loop for a
 * long horizon adds nothing after its first round: at most about two points per cell of
 * the chart, whatever its length. Drawn as <path> elements of at most 1000 points each
 * (a break starts a subpath), wrapped like sp_chart_series. */
#define SP_PATH_CELL 2.0
void sp_chart_path(sp_svg *s, const sp_chart *c, const char *name, size_t n, const double *x, size_t xstride,
                   const double *y, size_t ystride, const char *style);

/* A legend: entries stacked downwards from (x, y). */
typedef struct sp_legend {
    double x, y;
    int count;
} sp_legend;

/* An entry with a line swatch drawn in `style` (raw attributes for a <line>), or with a
 * marker when `marker` is not NULL (raw markup of one element drawn around (0, 0)). */
void sp_legend_entry(sp_svg *s, sp_legend *l, const char *style, const char *marker, const char *label);

#endif
