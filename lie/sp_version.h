/* The version of the symplan library and command, as numbers at compile time and as the
 * string of the library that is linked at run time (which may differ when a program is
 * built against one version and run with another shared library). */
#ifndef SP_VERSION_H
#define SP_VERSION_H

#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 2
#define SP_VERSION_PATCH 0
#define SP_VERSION_STRING "0.2.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define SP_VERSION_NUMBER (SP_VERSION_MAJOR * 10000 + SP_VERSION_MINOR * 100 + SP_VERSION_PATCH)

/* "0.2.0": the version of the library linked in. */
const char *sp_version(void);

#endif
