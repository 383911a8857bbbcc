/* The seed extractor of `make fuzz` (tests/fuzz/seeds.c). */
#ifndef SP_FUZZ_SEEDS_H
#define SP_FUZZ_SEEDS_H

/* Writes text to DIR/<suite>-<name>.json. */
void sp_seed_write(const char *dir, const char *suite, const char *name, const char *text);

void sp_seeds_problem_file(const char *dir);
void sp_seeds_cli(const char *dir);

#endif
