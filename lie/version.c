#include "lie/sp_version.h"

const char *sp_version(void) { return SP_VERSION_STRING; }
