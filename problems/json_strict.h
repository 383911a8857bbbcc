/* A strict reading of JSON text (RFC 8259) before cJSON builds its tree. cJSON is
 * lenient where a file must not be: it stops a string at a NUL byte (so
 * "heisenberg\u0000garbage" names heisenberg), keeps invalid UTF-8 that we could not
 * write back as JSON, takes raw control characters in strings and numbers with leading
 * zeros, and says "malformed" both for text it cannot read and for memory it cannot get.
 * Checking the text first makes every refusal name its place and cause, leaves cJSON's
 * failures to mean out of memory, and counts what the tree will take so that a memory
 * limit refuses a file before the tree is built. Internal to problems/. */
#ifndef SP_JSON_STRICT_H
#define SP_JSON_STRICT_H

#include <stddef.h>

#include "lie/sp_status.h"
#include "problems/sp_problem.h"

/* What cJSON will allocate for a text that passed the check. */
typedef struct json_strict_size {
    size_t values;       /* values and members: one cJSON node each */
    size_t strings;      /* strings and member names: one allocation each */
    size_t string_bytes; /* their bytes as written (at least the decoded length) */
} json_strict_size;

/* Bytes the tree of a text of that size takes at most: a node (64 bytes on LP64) and
 * the allocator's overhead for each value, each string's bytes, its NUL and overhead. */
double json_strict_tree_bytes(const json_strict_size *size);

/* Checks that text[0, length) is one JSON document (an optional UTF-8 byte-order mark,
 * white space around one value) that cJSON reads as written: valid UTF-8, no NUL byte
 * anywhere (escaped as \u0000 neither), no raw control character in a string, no lone
 * surrogate escape, numbers in JSON's grammar, nesting at most CJSON_NESTING_LIMIT deep.
 * Other escapes (\u0001, \t, \u00e9) are JSON and accepted; cJSON decodes them and our
 * printer writes control characters back escaped. Returns SP_OK with *size filled, or
 * SP_ERR_INVALID with err->message "malformed JSON at line L, column C: <what>". */
sp_status json_strict_check(const char *text, size_t length, json_strict_size *size, sp_input_error *err);

#endif
