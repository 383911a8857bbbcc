/* The TPCAP cases as car problems (see tpcap_case.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tpcap_case.h"
#include "planner/sp_solve.h"
#include "problems/car/sp_car_tpcap.h"

struct bench_tpcap_case {
    sp_problem pb;
};

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = malloc(1 << 20);
    *n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    return text;
}

int bench_tpcap_read(int k, sp_problem *pb)
{
    char path[64], name[16];
    snprintf(path, sizeof path, "data/tpcap/Case%d.csv", k);
    snprintf(name, sizeof name, "Case%d", k);
    size_t len = 0;
    char *text = slurp(path, &len);
    cJSON *doc = NULL;
    sp_input_error err;
    if (!text || sp_car_tpcap_problem(text, len, name, &doc, &err) != SP_OK) {
        printf("%-6d cannot read %s\n", k, path);
        free(text);
        return -1;
    }
    free(text);
    char *json = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    const int ok = json && sp_problem_parse(json, strlen(json), pb, &err) == SP_OK;
    if (!ok) printf("%-6d %s: %s\n", k, err.path, err.message);
    free(json);
    return ok ? 0 : -1;
}

bench_tpcap_case *bench_tpcap_open(int k, const sp_car_problem **car)
{
    bench_tpcap_case *c = malloc(sizeof *c);
    if (!c || bench_tpcap_read(k, &c->pb) != 0) {
        free(c);
        return NULL;
    }
    *car = &c->pb.car;
    return c;
}

void bench_tpcap_close(bench_tpcap_case *c)
{
    if (!c) return;
    sp_problem_free(&c->pb);
    free(c);
}
