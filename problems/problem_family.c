/* What every family's table shares (problem_family.h). */
#include <stdarg.h>
#include <stdio.h>

#include "problems/problem_family.h"

int problem_family_model(sp_model_info *out, const char *name, const char *description, const char *notes, ...)
{
    if (!name) return 0;
    out->name = name;
    out->description = description;
    va_list ap;
    va_start(ap, notes);
    vsnprintf(out->notes, sizeof out->notes, notes, ap);
    va_end(ap);
    return 1;
}
