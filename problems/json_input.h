/* Typed, validating look-ups in a parsed JSON document. Each reader builds the JSON
 * path of what it reads ("targets[2].t") so that the first problem found is reported
 * with its exact location; they return 1 when the value was read, 0 when an optional
 * member is absent, and -1 after filling the error. Internal to problems/. */
#ifndef SP_JSON_INPUT_H
#define SP_JSON_INPUT_H

#include <cjson/cJSON.h>

#include "problems/sp_problem.h"

typedef struct json_input {
    const cJSON *node;
    char path[160]; /* "" at the root */
    sp_input_error *err;
} json_input;

/* Sets the error at `path` (or at in->path with key appended) and returns -1. */
int json_fail(const json_input *in, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The member `key` of an object node, as a new reader (node NULL when absent). */
json_input json_member(const json_input *in, const char *key);
/* Element i of an array node (found from the array's head: O(i)). */
json_input json_element(const json_input *in, int i);
/* Element i given its node: a loop over a long array walks it with ->next and stays
 * linear, where json_element in a loop is quadratic in the array's length. */
json_input json_element_node(const json_input *in, const cJSON *node, int i);

/* Fails unless the node is an object. */
int json_require_object(const json_input *in);
/* Fails if the object has a member not listed in the NULL-terminated `allowed`. */
int json_only_keys(const json_input *in, const char *const *allowed);
/* The same with a second NULL-terminated list (NULL: none), for readers that extend another's. */
int json_only_keys_of(const json_input *in, const char *const *allowed, const char *const *more);

/* Scalars, strings, booleans, vectors of n numbers and n x n matrices (row-major) at `key`
 * (required or optional, as above); json_positive wants > 0, json_integer [min, max]. A
 * string read points into the document, which owns it. */
int json_number(const json_input *in, const char *key, int required, double *out);
int json_positive(const json_input *in, const char *key, int required, double *out);
int json_integer(const json_input *in, const char *key, int required, long min, long max, int *out);
int json_string(const json_input *in, const char *key, int required, const char **out);
int json_boolean(const json_input *in, const char *key, int required, int *out);
int json_vector(const json_input *in, const char *key, int required, int n, double *out);
int json_matrix(const json_input *in, const char *key, int required, int n, double *out);

/* Reads a string member naming an entry of a registry enumerated by name_at (NULL past
 * the end); an unknown name fails with the list of known ones. */
typedef const char *(*json_name_at_fn)(size_t i);
int json_name(const json_input *in, const char *key, int required, json_name_at_fn name_at, const char *what,
              const char **out);

#endif
