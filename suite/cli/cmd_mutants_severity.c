/*
 * cmd_mutants_severity.c - one behaviour, one severity, over the whole catalog: across every
 * mutant's runs, the failures that rest on one rule after one outcome (what the DUT did) have
 * one level. A FAIL in five CRC cases and a WARN in a sixth for the same Terminate is one defect
 * with two severities in one certificate (issue 38). A case that holds its own steps weaker
 * than the catalog (a §6 position, said in its reason) is its own author's choice and not
 * counted.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd_mutants_int.h"

static int cmp_pair(const void *a, const void *b)
{
	const sev_pair *x = a, *y = b;
	int c = strcmp(x->req, y->req);
	return c ? c : strcmp(x->outcome, y->outcome);
}

static sev_pair *find(sev_pair *p, size_t n, const char *req, const char *outcome)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].req, req) && !strcmp(p[i].outcome, outcome))
			return &p[i];
	return NULL;
}

long mu_severity_pairs(const mresult *res, const bool *in_run, sev_pair **out, size_t *nsplit)
{
	size_t n = 0, cap = 0;
	sev_pair *p = NULL;
	*out = NULL;
	*nsplit = 0;
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		if (!in_run[i])
			continue;
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		for (size_t q = 0; q < res[i].caught.n; q++) {
			const verdict *v = &res[i].caught.v[q];
			bool fail = !strcmp(v->verdict, "FAIL");
			if (!v->failed_req[0] || !v->outcome[0] || v->held_weaker)
				continue;
			sev_pair *s = find(p, n, v->failed_req, v->outcome);
			if (!s) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 64;
					sev_pair *np = realloc(p, nc * sizeof *np);
					if (!np) {
						free(p);
						return -1;
					}
					p = np;
					cap = nc;
				}
				s = &p[n++];
				memset(s, 0, sizeof *s);
				snprintf(s->req, sizeof s->req, "%s", v->failed_req);
				snprintf(s->outcome, sizeof s->outcome, "%s", v->outcome);
			}
			/* The first case seen at each level, to name in the matrix. */
			char *eg = fail ? s->fail_eg : s->warn_eg;
			if (!eg[0])
				snprintf(eg, sizeof s->fail_eg, "%.95s@%.23s under %.40s", v->id, v->profile, m->name);
			s->levels |= fail ? 1u : 2u;
		}
	}
	if (n > 1)
		qsort(p, n, sizeof *p, cmp_pair);
	for (size_t i = 0; i < n; i++)
		*nsplit += p[i].levels == 3u;
	*out = p;
	return (long)n;
}
