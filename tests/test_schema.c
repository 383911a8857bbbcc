/* The file formats as JSON Schema (schema/{problem,study,result}.schema.json, docs/results.md,
 * "File formats as JSON Schema"): tests/schema_check.py, run with Debian's python3 and its jsonschema (the
 * Makefile's PY_STAMP installs python3-jsonschema), checks that
 *
 *   - every file in data/, data/custom/, data/car/ and data/studies/ validates against the
 *     problem and study schema,
 *     and the schemas and docs/reference.md (the problem-file reference) are what
 *     schema/generate.py writes;
 *   - the results the command writes validate against the result schema: every data/
 *     problem solved (long simulations cut to 2000 steps, the parking plan to one start),
 *     a study's case files, and newton_failed, maxeval_reached, target_not_reached,
 *     non_finite and interrupted results;
 *   - the reader (`symplan check`) and the problem schema agree on 340 documents: the
 *     malformed ones of tests/test_problem_file.c, the derived problems of
 *     tests/test_failures.c, tests/fuzz/corpus/, tests/fuzz/regress/, data/ and data/car/. The schema
 *     accepts whatever the reader accepts, and refuses whatever the reader refuses for a
 *     reason a schema can say: an unknown member, a wrong type or size, a missing member,
 *     a name outside its list, a number outside a declared bound, a member of another
 *     task, scheme or method. It cannot say (and those refusals are only counted): text
 *     that is not one JSON document, duplicate members, numbers that overflow (1e999), the
 *     resource limits (command-line options), consistency between values (T = h * steps,
 *     target times within (0, T] and increasing, a step per keyframe segment), geometry
 *     (non-zero directions and quaternions, rotation and SE(2) matrices, the heavy top's
 *     triangle inequality) and the physics of the initial state (on the constraint,
 *     tangent to it, velocities that satisfy the constraints).
 *
 * The script prints its figures (cr_log_info shows them with --verbose); about 5 s on 2
 * cores. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/support.h"

#define SCHEMA_CHECK SP_TEST_FUZZ "/../schema_check.py"

Test(schema, files_results_and_reader_refusals_agree_with_the_schemas, .timeout = 120)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s %s 2>&1", SCHEMA_CHECK, SP_TEST_BIN, SP_TEST_TMP);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "cannot run %s", cmd);
    char line[4096], failed[4096] = "";
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        ++lines;
        cr_log_info("%s", line);
        if (strncmp(line, "FAIL: ", 6) == 0 && !failed[0]) snprintf(failed, sizeof failed, "%s", line + 6);
        if (strstr(line, "No module named 'jsonschema'"))
            snprintf(failed, sizeof failed, "python3-jsonschema is needed (make test installs it)");
    }
    int rc = pclose(p);
    cr_assert_gt(lines, 0, "%s printed nothing", cmd);
    cr_assert_eq(rc, 0, "schema check failed (rc %d): %s", rc, failed[0] ? failed : "see the log");
}
