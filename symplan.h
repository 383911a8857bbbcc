/* symplan: the whole public interface in one include, as a program that links the
 * library writes it:
 *
 *     #include <symplan/symplan.h>
 *
 * `make install` puts this file at include/symplan/symplan.h and the headers below under
 * include/symplan/ in the layout of the source tree, with their includes rewritten to that
 * prefix, so `pkg-config --cflags symplan` adds one folder to the search path. No public
 * header needs another library's header. The library's other headers are
 * internal and not installed. Each header may also be included alone. */
#ifndef SYMPLAN_H
#define SYMPLAN_H

/* the version, and the status codes every function returns */
#include "lie/sp_version.h"
#include "lie/sp_status.h"

/* problems built by setters or read from files, solved into results read by getters */
#include "planner/api/sp_api.h"

/* the same as JSON text in and out, for foreign callers (Python's ctypes), and a plan's
 * curve read at any time */
#include "planner/api/sp_text_api.h"

/* a model of one's own stepped by the holonomic methods (RATTLE and its compositions,
 * Lobatto IIIA–IIIB), through callbacks */
#include "integrators/sp_holonomic.h"

#endif
