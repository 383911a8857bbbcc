/* A result's trajectory as CSV (sp_plot.h): a header row, then one row per time; every
 * number as %.17g so that it reads back bitwise equal to the JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_quaternion.h"
#include "planner/result_view.h"
#include "planner/plot/sp_plot.h"

/* A CSV field: quoted (with doubled quotes) when it holds a comma, a quote or a line break. */
static void put_name(FILE *f, const char *name)
{
    if (!strpbrk(name, ",\"\r\n")) {
        fputs(name, f);
        return;
    }
    fputc('"', f);
    for (const char *c = name; *c; ++c) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

/* Whether a result's "xi" is a body angular velocity ω (then the linear velocity v, for
 * poses): a cubic spline whose configuration is an orientation (rows "q" of a 3 x 3
 * matrix, or "quaternion"). */
static int xi_is_angular(const cJSON *result, const sp_traj *tr)
{
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItem(result, "model"));
    const sp_traj_field *q = sp_traj_get(tr, "q"), *quat = sp_traj_get(tr, "quaternion");
    return model && strcmp(model, "cubic_spline") == 0 && ((q && q->width == 9) || (quat && quat->width == 4));
}

/* Column j of field f: "t"; q_x, p_theta (the model's coordinates); q_11…q_33 (a matrix
 * configuration); q_w, q_x, q_y, q_z (quaternions, in the result's order); omega_x,
 * omega_y, omega_z (then v_x, v_y, v_z for poses) when xi is angular; else xi_1,
 * lambda_2. */
static void put_column(FILE *f, const sp_traj *tr, const sp_traj_field *field, int j, int angular)
{
    char name[160];
    int k = 1;
    while ((k + 1) * (k + 1) <= field->width) ++k;
    int by_coordinates = tr->n_coordinates == field->width && strcmp(field->name, "lambda") != 0;
    if (field->width == 0)
        snprintf(name, sizeof name, "%s", field->name);
    else if (by_coordinates)
        snprintf(name, sizeof name, "%s_%s", field->name, tr->coordinates[j]);
    else if (strcmp(field->name, "q") == 0 && k >= 2 && k * k == field->width)
        snprintf(name, sizeof name, "%s_%d%d", field->name, j / k + 1, j % k + 1);
    else if (strcmp(field->name, "quaternion") == 0 && field->width == 4)
        snprintf(name, sizeof name, "q_%c", sp_quaternion_order_at((size_t)tr->quaternion_xyzw)[j]);
    else if (angular && strcmp(field->name, "xi") == 0 && (field->width == 3 || field->width == 6))
        snprintf(name, sizeof name, "%s_%c", j < 3 ? "omega" : "v", "xyz"[j % 3]);
    else
        snprintf(name, sizeof name, "%s_%d", field->name, j + 1);
    put_name(f, name);
}

sp_status sp_export_csv(const cJSON *result, char **csv, size_t *length, sp_input_error *err)
{
    *csv = NULL;
    *length = 0;
    sp_status st = sp_result_check(result, err);
    if (st != SP_OK) return st;
    sp_traj tr;
    if ((st = sp_traj_read(result, &tr, err)) != SP_OK) return st;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        sp_traj_release(&tr);
        sp_input_fail(err, "", "out of memory");
        return SP_ERR_NOMEM;
    }
    const int angular = xi_is_angular(result, &tr);
    for (int i = 0; i < tr.n_fields; ++i) {
        const sp_traj_field *field = &tr.field[i];
        for (int j = 0; j < (field->width ? field->width : 1); ++j) {
            if (i || j) fputc(',', f);
            put_column(f, &tr, field, j, angular);
        }
    }
    fputc('\n', f);
    for (int k = 0; k < tr.rows; ++k) {
        for (int i = 0; i < tr.n_fields; ++i) {
            const sp_traj_field *field = &tr.field[i];
            const int w = field->width ? field->width : 1;
            for (int j = 0; j < w; ++j) fprintf(f, "%s%.17g", i || j ? "," : "", field->data[(size_t)k * w + j]);
        }
        fputc('\n', f);
    }
    int failed = ferror(f);
    failed = fclose(f) != 0 || failed;
    sp_traj_release(&tr);
    if (failed) {
        free(text);
        sp_input_fail(err, "", "out of memory");
        return SP_ERR_NOMEM;
    }
    *csv = text;
    *length = size;
    return SP_OK;
}
