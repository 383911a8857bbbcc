/* Resource limits: how much work and memory a problem file may ask for. A scientist who
 * generates thousands of files must not take a machine down with one typo ("steps":
 * 1e10), so the problem reader refuses a problem beyond these limits, with the JSON path
 * at fault and the command-line option that raises the limit:
 *
 *     x.json: steps: 200000000 exceeds the limit 10000000 (raise it with --max-steps)
 *
 * The memory a run needs (its trajectory and tape arrays, and the result tree and text)
 * is estimated from the problem before anything is allocated and refused the same way.
 * Studies add a limit on their number of cases (planner/study/sp_study.h). */
#ifndef SP_LIMITS_H
#define SP_LIMITS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "problems/sp_problem.h"

typedef struct sp_limits {
    long steps;       /* integration steps of one run ("steps") */
    long evaluations; /* optimiser evaluations: optimizer.maxeval, and starts x maxeval */
    long targets;     /* targets of a plan */
    long cases;       /* cases of a study */
    double memory;    /* bytes one run may allocate, as sp_problem_memory_estimate counts them */
} sp_limits;

/* The defaults: 10^7 steps, 10^6 evaluations, 10^4 targets, 10^5 cases, 4 GiB. */
sp_limits sp_limits_default(void);

/* Bytes a run of the problem allocates at its largest: the arrays its task keeps per step,
 * the NLopt algorithm's own memory on the direct form, and the result tree with its
 * printed text. An estimate from above for the models known here, a generous one for
 * others. */
double sp_problem_memory_estimate(const sp_problem *pb);
/* Bytes the NLopt algorithm of that name keeps for n variables (maxeval bounds what the
 * DIRECT methods store). */
double sp_optimizer_memory_estimate(const char *algorithm, double n, int maxeval);

/* Checks a problem that has been read against the limits (NULL: the defaults). Returns
 * SP_OK, or SP_ERR_INVALID with *err naming the field and the option that raises it. */
sp_status sp_problem_check_limits(const sp_problem *pb, const sp_limits *limits, sp_input_error *err);

/* sp_problem_read_file and sp_problem_parse under given limits (NULL: the defaults, which
 * are what the plain functions apply). */
sp_status sp_problem_read_file_limited(const char *path, const sp_limits *limits, sp_problem *out, sp_input_error *err);
sp_status sp_problem_parse_limited(const char *text, size_t length, const sp_limits *limits, sp_problem *out,
                                   sp_input_error *err);
/* sp_problem_parse_limited that also hands back, with `input` non-NULL and on success,
 * the document it read (the caller deletes *input): the problem as its text gives it,
 * for a result to carry, from the very text the problem was read from. The text's tree
 * is counted against limits->memory before it is built (sp_json_parse_within). */
sp_status sp_problem_parse_input(const char *text, size_t length, const sp_limits *limits, sp_problem *out,
                                 cJSON **input, sp_input_error *err);
/* The two halves of sp_problem_parse_input, for a caller that frees the text between
 * them: the document of a problem's text, counted against limits->memory before it is
 * built (SP_ERR_NOMEM when it cannot be built); then the problem it holds, read and
 * checked against the limits (SP_ERR_NOMEM when a reader's allocation fails). In the
 * document, as in sp_problem_parse_input's, keyframes and sample times that number 64
 * or more are packed: one cJSON_Raw node holding the array's text, which
 * cJSON_PrintUnformatted and sp_json_print write as JSON (the library reads it through
 * problems/sp_json_packed.h, which is internal). */
sp_status sp_problem_parse_document(const char *text, size_t length, const sp_limits *limits, cJSON **doc,
                                    sp_input_error *err);
sp_status sp_problem_from_document(const cJSON *doc, const sp_limits *limits, sp_problem *out, sp_input_error *err);

/* "1.5 GiB", "640 MiB", "12 KiB", "100 bytes". */
void sp_format_bytes(double bytes, char *out, size_t size);

#endif
