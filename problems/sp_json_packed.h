/* Reading large JSON arrays in about the memory of their text. cJSON spends a node of
 * 64 bytes and an allocation on every value and member name: a keyframe
 * {"t": 1, "q": [w, x, y, z]} of 70 bytes of text becomes about 650 bytes of tree. A
 * reader that names the members whose arrays may be long ("targets",
 * "output.sample_times", "trajectory.*") gets those arrays, when they hold at least
 * SP_JSON_PACK_MIN elements and no string but member names (numbers, rows of numbers,
 * objects of numbers such as keyframes), as packed arrays: one node holding the array's text without
 * its white space, read one element at a time by sp_json_items (each element a small
 * cJSON tree parsed by cJSON itself, so its numbers are exactly those of a whole tree).
 * Everything else of the document is an ordinary cJSON tree.
 *
 * A packed array is a cJSON_Raw node with the type bit SP_JSON_PACKED, its text in
 * valuestring and its element count in valueint: cJSON_Duplicate, cJSON_Delete and
 * cJSON_Compare treat it as the raw node it is, cJSON_PrintUnformatted writes its text
 * as it is, and sp_json_print writes it exactly as it writes the array's tree. Code
 * that reads a member named in its reader's list reads it through sp_json_array_size
 * and sp_json_items, which take ordinary arrays too. */
#ifndef SP_JSON_PACKED_H
#define SP_JSON_PACKED_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "lie/sp_status.h"
#include "problems/sp_problem.h"

/* The type bit of a packed array, beside cJSON's own flags (cJSON_IsReference = 256,
 * cJSON_StringIsConst = 512), which cJSON keeps when it duplicates a node. */
#define SP_JSON_PACKED (1 << 12)
/* Arrays shorter than this stay trees: they cost little, and every reader takes them. */
#define SP_JSON_PACK_MIN 64

/* What a problem file's readers take packed: the keyframes and the sample times. */
extern const char *const sp_json_pack_problem[];
/* What the readers of a result (pictures, CSV) take packed: its trajectory's members, its
 * samples, its targets and its problem's. */
extern const char *const sp_json_pack_result[];

/* sp_json_parse_within (sp_result_file.h) with the arrays at the dotted member paths of
 * the NULL-terminated list `pack` ("*" stands for any one name; NULL: none) packed. The
 * memory limit counts the tree as it will be built: packed arrays at the size of their
 * text. Malformed text fails as in sp_json_parse_within ("malformed JSON at line L,
 * column C: what"); running out of memory is SP_ERR_NOMEM. */
sp_status sp_json_parse_packed(const char *text, size_t length, const char *const *pack, double max_memory,
                               cJSON **doc, sp_input_error *err);

/* The outline of a document: the root and, when it is an object, its members, each of
 * them null: what tells a study from a problem, at the cost of the member names. */
sp_status sp_json_parse_outline(const char *text, size_t length, cJSON **doc, sp_input_error *err);

int sp_json_is_packed(const cJSON *node);
/* An array, packed or not. */
int sp_json_is_array(const cJSON *node);
/* The elements of an array, packed or not; 0 for anything else. */
int sp_json_array_size(const cJSON *node);

/* The elements of an array, packed or not, in order:
 *     sp_json_items it;
 *     sp_json_items_begin(&it, array);
 *     for (const cJSON *e; (e = sp_json_items_next(&it));) ...
 *     sp_json_items_end(&it);
 * An element of a packed array lives until the next call or the end; NULL at the end,
 * or with it.out_of_memory set when an element could not be built. */
typedef struct sp_json_items {
    const cJSON *next;  /* an ordinary array: the next element */
    const char *text;   /* a packed array: the text of the next element */
    cJSON *element;     /* a packed array: the element last read */
    int out_of_memory;
} sp_json_items;
void sp_json_items_begin(sp_json_items *it, const cJSON *array);
const cJSON *sp_json_items_next(sp_json_items *it);
void sp_json_items_end(sp_json_items *it);

#endif
