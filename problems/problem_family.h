/* The problem files of one model family: the models it names and the reader of its part
 * of a file. Each family defines its table in its own folder, and problems/problem_families.c
 * lists them once; problem_file.c reads what every file shares (task, model) and hands
 * the rest to the family. A family is known by the problem kinds it reads, the same the
 * planner's table of the family serves (planner/sp_family.h); what its files may ask is
 * a set of task flags. Internal to problems/. */
#ifndef SP_PROBLEM_FAMILY_H
#define SP_PROBLEM_FAMILY_H

#include "problems/json_input.h"

typedef struct problem_family {
    const char *name;
    unsigned kinds; /* of the problems it reads (SP_KIND_FLAG); 0: the file names the kind */
    unsigned tasks; /* SP_TASK_FLAG(SP_TASK_PLAN) | … */
    /* Sets the name, description and notes of the i-th model of the family (the rest of
     * *out is set); 0 past the end. */
    int (*model)(size_t i, sp_model_info *out);
    /* Reads the rest of a file whose task and model are read (a plan task only when
     * `tasks` has it); 1, or -1 with the error filled. */
    int (*read)(const json_input *root, sp_problem *p);
} problem_family;

/* The `model` of a family: fills *out with name, description and notes (printf-style) and
 * returns 1; 0, leaving *out, when name is NULL (past the family's last model). */
int problem_family_model(sp_model_info *out, const char *name, const char *description, const char *notes, ...)
    __attribute__((format(printf, 4, 5)));

extern const problem_family cubic_problem_family;
extern const problem_family vakonomic_problem_family;
extern const problem_family holonomic_problem_family;
extern const problem_family nonholonomic_problem_family;
extern const problem_family car_problem_family;

extern const problem_family custom_problem_family;

/* A family's reader for a model type the caller gives (an expression model's), with
 * more_keys (NULL-terminated, or NULL) allowed besides the family's own fields. When
 * p->custom is set the parameters are the model's, already read. */
int hol_read_problem(const json_input *root, sp_problem *p, const sp_hol_model_type *type,
                     const char *const *more_keys);
int nh_read_problem(const json_input *root, sp_problem *p, const sp_nh_model_type *type, const char *const *more_keys);
int vak_read_problem(const json_input *root, sp_problem *p, const sp_vak_model_type *type,
                     const char *const *more_keys);

/* The i-th family of the list (NULL past the end); the family naming a model (NULL if none). */
const problem_family *problem_family_at(size_t i);
const problem_family *problem_family_of_model(const char *model);

#endif
