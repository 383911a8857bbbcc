#include "lie/sp_status.h"

/* The name and message of every code, indexed by the code (the enum counts from 0). */
static const struct {
    const char *name, *message;
} entries[] = {
#define SP_STATUS_ENTRY(code, name, message) [code] = {name, message},
    SP_STATUS_LIST(SP_STATUS_ENTRY)
#undef SP_STATUS_ENTRY
};

static int known(sp_status status) { return (unsigned)status < sizeof entries / sizeof entries[0]; }

const char *sp_status_name(sp_status status) { return known(status) ? entries[status].name : "unknown"; }

const char *sp_status_message(sp_status status)
{
    return known(status) ? entries[status].message : "unknown status";
}
