/* symplan: the whole public interface in one include, as a program that links the
 * library writes it:
 *
 *     #include <symplan/symplan.h>
 *
 * `make install` puts this file at include/symplan/symplan.h and every header below under
 * include/symplan/ in the layout of the source tree (<symplan/planner/sp_solve.h>), with
 * their includes rewritten to that prefix, so `pkg-config --cflags symplan` adds one
 * folder to the search path. The library's other headers are internal and not installed.
 * Each header may also be included alone. */
#ifndef SYMPLAN_H
#define SYMPLAN_H

/* version, status codes, Lie groups and retractions */
#include "lie/sp_version.h"
#include "lie/sp_status.h"
#include "lie/sp_lie.h"

/* steppers a program can drive itself, each with its options and their defaults */
#include "integrators/sp_newton.h"
#include "integrators/sp_hohp.h"
#include "integrators/sp_holonomic.h"
#include "integrators/sp_lie_rattle.h"
#include "integrators/sp_nonholonomic.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_vakonomic.h"
#include "integrators/sp_index1.h"
#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_feedback.h"
#include "integrators/sp_splitting.h"

/* problems: reading a file or building one in C (sp_problem_defaults), resource limits,
 * and result files */
#include "problems/sp_problem.h"
#include "problems/sp_limits.h"
#include "problems/sp_result_file.h"

/* solving: one entry point for every task of every model, its results and progress */
#include "planner/sp_progress.h"
#include "planner/sp_result.h"
#include "planner/sp_solve.h"

/* studies: a problem over a grid of settings */
#include "planner/study/sp_study.h"

/* the same as JSON text in and out, for foreign callers (Python's ctypes) */
#include "planner/sp_text_api.h"

#endif
