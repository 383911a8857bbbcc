/* The two look-ups of a registry of named constant tables (groups, schemes, models),
 * written once: the i-th entry (NULL past the end) and the entry of a name (NULL for an
 * unknown name or NULL). Every registry of the library is a file-scope array of such
 * tables, or of pointers to them, each with a `name` member:
 *
 *     static const sp_vak_model_type *const registry[] = {&sp_vak_heisenberg, &sp_vak_parking};
 *     SP_REGISTRY_OF_POINTERS(sp_vak_model_type, registry, sp_vak_model_at, sp_vak_model_by_name)
 */
#ifndef SP_REGISTRY_H
#define SP_REGISTRY_H

#include <stddef.h>
#include <string.h>

#define SP_REGISTRY_LOOKUPS(type, count, entry, at, by_name)                                                           \
    const type *at(size_t i) { return i < (count) ? (entry) : NULL; }                                                  \
    const type *by_name(const char *name)                                                                              \
    {                                                                                                                  \
        for (size_t i = 0; name && i < (count); ++i)                                                                   \
            if (strcmp((entry)->name, name) == 0) return (entry);                                                      \
        return NULL;                                                                                                   \
    }

/* An array of pointers to the tables, and an array of the tables themselves. */
#define SP_REGISTRY_OF_POINTERS(type, list, at, by_name)                                                               \
    SP_REGISTRY_LOOKUPS(type, sizeof list / sizeof list[0], list[i], at, by_name)
#define SP_REGISTRY_OF_TABLES(type, list, at, by_name)                                                                 \
    SP_REGISTRY_LOOKUPS(type, sizeof list / sizeof list[0], &list[i], at, by_name)

#endif
