/* Model parameters as data (problems/sp_params.h), for every model of every family:
 *
 *   - each list fits sp_param_values and its defaults pass its own bounds and rule;
 *   - what a result's settings.params records reads back to the same values (potential
 *     included), and a bad value is refused at settings.params.<name>;
 *   - the bounds say what they ask in words, and a refusal names the entry of a vector;
 *   - the declared first integrals are named for the parameter instance. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "problems/sp_params.h"
#include "problems/sp_problem.h"

/* The list fits the values, its defaults are accepted, and they survive a result. */
static void check_list(sp_param_spec s)
{
    size_t total = 0;
    cr_expect_leq(s.n_params, SP_PARAM_MAX, "%s: too many parameters", s.model);
    for (size_t i = 0; i < s.n_params; ++i) {
        cr_expect(s.params[i].size >= 1 && s.params[i].size <= SP_PARAM_MAX_SIZE, "%s.%s", s.model, s.params[i].name);
        cr_expect_eq(sp_param_offset(s, i), total);
        total += (size_t)s.params[i].size;
    }
    cr_expect_leq(total, SP_PARAM_MAX_VALUES, "%s: too many numbers", s.model);
    sp_param_values v, back;
    char why[256];
    sp_params_default(s, &v);
    cr_expect_eq(sp_params_check(s, &v, why, sizeof why), -1, "%s: defaults refused: %s", s.model, why);
    int potentials = 1; /* the default one, named or not */
    while (s.potential_names && s.potential_names[potentials]) ++potentials;
    for (int k = 0; k < potentials; ++k) {
        v.potential = k;
        cJSON *settings = cJSON_CreateObject();
        sp_params_add_json(settings, s, &v);
        sp_input_error err;
        cr_expect_eq(sp_params_from_json(settings, s, &back, &err), SP_OK, "%s: %s: %s", s.model, err.path,
                     err.message);
        cr_expect_eq(memcmp(back.value, v.value, sizeof v.value), 0, "%s: the numbers changed", s.model);
        cr_expect_eq(back.potential, k, "%s: potential %d", s.model, k);
        cJSON_Delete(settings);
    }
}

Test(params, every_model_list_is_consistent)
{
    for (size_t i = 0; sp_vak_model_at(i); ++i) check_list(SP_PARAM_SPEC(sp_vak_model_at(i)));
    for (size_t i = 0; sp_hol_model_at(i); ++i) check_list(SP_PARAM_SPEC(sp_hol_model_at(i)));
    for (size_t i = 0; sp_nh_model_at(i); ++i) check_list(SP_PARAM_SPEC(sp_nh_model_at(i)));
    for (size_t i = 0; sp_nh_lie_type_at(i); ++i) check_list(SP_PARAM_SPEC(sp_nh_lie_type_at(i)));
}

Test(params, bounds_in_words)
{
    static const struct {
        sp_param p;
        const char *must;
    } cases[] = {
        {{.name = "m", .size = 1, .lower = {SP_BOUND_OPEN, 0.0}}, "positive"},
        {{.name = "eps", .size = 1, .lower = {SP_BOUND_CLOSED, 0.0}}, "non-negative"},
        {{.name = "r", .size = 1, .lower = {SP_BOUND_CLOSED, 0.0}, .upper = {SP_BOUND_OPEN, 1.0}}, "in [0, 1)"},
        {{.name = "k", .size = 1, .lower = {SP_BOUND_CLOSED, 2.0}}, "at least 2"},
        {{.name = "c", .size = 1, .upper = {SP_BOUND_OPEN, 3.0}}, "less than 3"},
        {{.name = "g", .size = 1}, "a finite number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char must[64];
        sp_param_must(&cases[i].p, must, sizeof must);
        cr_expect_str_eq(must, cases[i].must);
    }
}

Test(params, refusals_name_the_parameter_and_the_entry)
{
    const sp_param_spec s = SP_PARAM_SPEC(&sp_nh_lie_suslov); /* J (3, positive), e (3, not zero) */
    sp_param_values v;
    char why[256];
    sp_params_default(s, &v);
    v.value[1] = -2.0;
    cr_expect_eq(sp_params_check(s, &v, why, sizeof why), 0);
    cr_expect_str_eq(why, "must be positive (J[1] = -2)");
    v.value[1] = 2.0, v.value[4] = NAN;
    cr_expect_eq(sp_params_check(s, &v, why, sizeof why), 1);
    cr_expect_str_eq(why, "must be a finite number (e[1] = nan)");
    v.value[3] = v.value[4] = v.value[5] = 0.0;
    cr_expect_eq(sp_params_check(s, &v, why, sizeof why), 1, "the model's own rule");
    cr_expect_str_eq(why, "must not be the zero vector");
}

Test(params, result_reader_refuses_at_settings_params)
{
    static const struct {
        const char *settings, *path, *message;
    } cases[] = {
        {"{\"params\": {\"L\": 0}}", "settings.params.L", "must be positive (got 0)"},
        {"{\"params\": {\"L\": \"0.3\"}}", "settings.params.L", "must be a number"},
        {"{\"params\": {\"potential\": \"volcano\"}}", "settings.params.potential",
         "unknown potential 'volcano' for parking (known: none, cos_bowl)"},
        {"{\"params\": [1]}", "settings.params", "must be an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cJSON *settings = cJSON_Parse(cases[i].settings);
        sp_param_values v;
        sp_input_error err;
        cr_expect_eq(sp_params_from_json(settings, SP_PARAM_SPEC(&sp_vak_parking), &v, &err), SP_ERR_INVALID);
        cr_expect_str_eq(err.path, cases[i].path);
        cr_expect_str_eq(err.message, cases[i].message);
        cJSON_Delete(settings);
    }
    /* absent parameters take their defaults, as in a problem file */
    cJSON *settings = cJSON_Parse("{\"params\": {\"alpha\": 2}}");
    sp_param_values v;
    sp_input_error err;
    cr_assert_eq(sp_params_from_json(settings, SP_PARAM_SPEC(&sp_vak_parking), &v, &err), SP_OK);
    cr_expect(v.value[0] == 0.3 && v.value[1] == 2.0 && v.value[2] == 1.0 && v.potential == 0);
    cJSON_Delete(settings);
}

/* The names follow the instance: the free body (mgl = 0) and the S³ model without its q₄
 * term have more; the parking model with a potential has fewer. */
Test(params, integral_names_follow_the_instance)
{
    const char *names[8];
    sp_param_values v;
    sp_params_default(SP_PARAM_SPEC(&sp_hol_heavy_top), &v);
    cr_expect_eq(sp_hol_heavy_top.integral_names(&v, names), 1);
    cr_expect_str_eq(names[0], "vertical_momentum");
    v.value[3] = 0.0; /* mgl */
    cr_expect_eq(sp_hol_heavy_top.integral_names(&v, names), 3);
    sp_params_default(SP_PARAM_SPEC(&sp_hol_s3_contact), &v);
    cr_expect_eq(sp_hol_s3_contact.integral_names(&v, names), 0);
    v.potential = 1; /* hopf_invariant */
    cr_expect_eq(sp_hol_s3_contact.integral_names(&v, names), 1);
    cr_expect_str_eq(names[0], "lambda");
    sp_params_default(SP_PARAM_SPEC(&sp_vak_parking), &v);
    cr_expect_eq(sp_vak_parking.integral_names(&v, names), 3);
    v.potential = 1; /* cos_bowl */
    cr_expect_eq(sp_vak_parking.integral_names(&v, names), 1);
    cr_expect_str_eq(names[0], "rotation_momentum");
}
