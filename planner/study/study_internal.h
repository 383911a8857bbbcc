/* What the study's files share inside planner/study/: the expanded study, the summary's
 * rows, where a file of the study's folder is, and the hash that names a case's input.
 * Not installed; the contract for callers is sp_study.h. */
#ifndef SP_STUDY_INTERNAL_H
#define SP_STUDY_INTERNAL_H

#include <stddef.h>

#include "planner/study/sp_study.h"

/* Largest study, base and summary file read. */
#define STUDY_FILE_MAX_BYTES (64L << 20)

struct sp_study {
    char name[128];
    int named;    /* the file gave "name" */
    cJSON *base;  /* the base problem */
    cJSON *vary;  /* {path: [values]}, or NULL */
    cJSON *cases; /* [{path: value}], or NULL */
    size_t n_cases;
    cJSON *parameters; /* [path], first appearance order */
    sp_limits limits;  /* on the cases, and on each case's problem */
    long read_cap;     /* the largest case file sp_study_load_case reads back */
    /* Every value of "cases", or of the lists of "vary" one key after the other (key j's
     * from first[j] to first[j + 1]), by position: a cJSON array is a linked list, and
     * walking it to case i would make each case cost its index. */
    const cJSON **item;
    const cJSON **keys; /* the keys of "vary" */
    size_t *first, n_keys;
};

struct sp_study_summary {
    const sp_study *study;
    cJSON *rows; /* array, one object per case */
    cJSON **row; /* row[i] is case i's object in rows: a cJSON array is a list, and
                  * finding row i by walking it would make every update O(i) */
    size_t done, failed;
};

/* DIR/name in out ("." when dir is NULL or empty). */
void sp_study_join(char *out, size_t size, const char *dir, const char *name);
/* 64-bit FNV-1a of n bytes, as 16 hex digits. */
void sp_study_fnv1a_hex(const char *text, size_t n, char *out, size_t size);
/* The FNV-1a of case i's problem as compact JSON: what tells a case changed since its
 * file or record was made. */
void sp_study_input_hash(const sp_study *s, size_t i, char *out, size_t size);

#endif
