/*
 * cmd_mutants_judge.c - the verdicts of `iwspec mutants`' runs, and each mutant judged by them.
 *
 * A mutant is caught by a FAIL (or a WARN, for a SHOULD) that the clean DUT does not have in
 * the same configuration, case and profile: a verdict the clean DUT already has is never the
 * mutant's doing. It is detected when one of those cases cites its requirement (a process
 * mutant only through a FAIL that carries the DUT finding), and a robustness mutant only when
 * the fuzzer finds it too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_mutants_int.h"

const char *const mu_outcome_name[] = {"detected", "SURVIVED", "WRONG-REQ", "not run", "BROKEN"};

static void vlist_add(vlist *l, const verdict *v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		verdict *nv = realloc(l->v, cap * sizeof *nv);
		if (!nv)
			return;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = *v;
}

static const char *str_or(json_t *j, const char *key)
{
	const char *v = json_string_value(json_object_get(j, key));
	return v ? v : "";
}

/* Reads a run's results.json into l (the requirement cited is req: sets cites). */
static int read_results(const char *dir, const char *req, vlist *l, char *err, size_t errcap)
{
	char path[PATH_CAP];
	snprintf(path, sizeof path, "%.1000s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		snprintf(err, errcap, "%.300s: %.150s", path, je.text);
		return -1;
	}
	json_t *cases = json_object_get(root, "cases");
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c) {
		verdict v;
		memset(&v, 0, sizeof v);
		snprintf(v.id, sizeof v.id, "%s", str_or(c, "id"));
		snprintf(v.profile, sizeof v.profile, "%s", str_or(c, "profile"));
		snprintf(v.verdict, sizeof v.verdict, "%s", str_or(c, "verdict"));
		snprintf(v.failed_req, sizeof v.failed_req, "%s", str_or(c, "failed_requirement"));
		snprintf(v.outcome, sizeof v.outcome, "%s", str_or(c, "outcome"));
		v.held_weaker = strstr(str_or(c, "reason"), ", held as ") != NULL;
		json_t *f = json_object_get(c, "dut_finding");
		v.finding = f && json_is_string(f);
		json_t *reqs = json_object_get(c, "requirements"), *r;
		size_t k;
		json_array_foreach(reqs, k, r) {
			const char *id = json_string_value(json_object_get(r, "id"));
			if (req && id && !strcmp(id, req))
				v.cites = true;
		}
		vlist_add(l, &v);
	}
	json_decref(root);
	return 0;
}

static bool bad_verdict(const char *v) { return !strcmp(v, "FAIL") || !strcmp(v, "WARN"); }

static int cmp_verdict(const void *a, const void *b)
{
	const verdict *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : strcmp(x->profile, y->profile);
}

/* qsort wants a non-NULL array even for no elements. */
static void sort_verdicts(vlist *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_verdict);
}

/* A clean verdict of the same case, profile and configuration. */
static const verdict *clean_of(const vlist *clean, const verdict *v)
{
	for (size_t i = 0; i < clean->n; i++)
		if (!strcmp(clean->v[i].id, v->id) && !strcmp(clean->v[i].profile, v->profile))
			return &clean->v[i];
	return NULL;
}


/* Why a mutant's outcome is what it is, in the matrix and the JSON: cut at its size (a long log
 * path with it). */
static void note(mresult *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(mresult *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof r->why, fmt, ap);
	va_end(ap);
}

/* The clean DUT's verdicts of repetition rep, one list per configuration. */
static void read_clean(const job *jobs, size_t nj, int rep, const bool *cfg_used, vlist *clean, int *clean_status)
{
	memset(clean, 0, CFG_COUNT * sizeof *clean);
	for (int cf = 0; cf < CFG_COUNT; cf++)
		clean_status[cf] = cfg_used[cf] ? 0 : -1;
	char err[512];
	for (size_t k = 0; k < nj; k++) {
		const job *j = &jobs[k];
		if (j->rep != rep)
			continue;
		if (j->mutant == 0) {
			if (read_results(j->dir, NULL, &clean[j->cfg], err, sizeof err) != 0) {
				fprintf(stderr, "iwspec mutants: clean run: %s (exit %d; see %s)\n", err, j->status, j->log);
				clean_status[j->cfg] = 1;
			}
		}
	}
	for (int cf = 0; cf < CFG_COUNT; cf++)
		sort_verdicts(&clean[cf]);
}

/* What one run of a mutant adds to its result: the fuzzer's finding, or the verdicts the clean
 * DUT does not share. Returns false when the run could not be read. */
static bool judge_run(const job *j, const vlist *clean, mresult *r)
{
	r->secs += j->secs;
	const iw_fault_info *m = iw_mutant_info((enum iw_mutant)j->mutant);
	if (j->fuzz) {
		r->fuzz_run = true;
		r->fuzz_found = j->status == 1;
		if (j->status != 0 && j->status != 1)
			note(r, "the fuzz run ended with exit status %d (see %s)", j->status, j->log);
		return true;
	}
	char err[512];
	vlist l = {0};
	if (read_results(j->dir, m->req, &l, err, sizeof err) != 0) {
		note(r, "a run could not be read: %.150s", err);
		r->out = OUT_BROKEN;
		return false;
	}
	for (size_t q = 0; q < l.n; q++) {
		verdict *v = &l.v[q];
		if (!strcmp(v->verdict, "ERROR")) {
			vlist_add(&r->errors, v);
			continue;
		}
		if (!bad_verdict(v->verdict))
			continue;
		const verdict *cv = clean_of(&clean[j->cfg], v);
		if (cv && bad_verdict(cv->verdict))
			continue; /* the clean DUT has it too: not the mutant's doing */
		vlist_add(&r->caught, v);
	}
	free(l.v);
	return true;
}

/* A mutant's outcome once all its runs are in. */
static void judge_mutant(const iw_fault_info *m, const applies *a, mresult *r)
{
	sort_verdicts(&r->caught);
	sort_verdicts(&r->errors);
	bool exec = a->cfg == CFG_EXEC;
	for (size_t q = 0; q < r->caught.n; q++) {
		r->citing += r->caught.v[q].cites && (!exec || r->caught.v[q].finding);
		r->blamed += !strcmp(r->caught.v[q].failed_req, m->req);
	}
	if (r->out == OUT_BROKEN)
		return;
	if (r->caught.n == 0 && r->errors.n == 0)
		r->out = OUT_SURVIVED;
	else if (r->citing == 0)
		r->out = r->caught.n ? OUT_WRONG_REQ : OUT_SURVIVED;
	else
		r->out = OUT_DETECTED;
	if (r->out == OUT_DETECTED && r->fuzz_run && !r->fuzz_found) {
		r->out = OUT_SURVIVED;
		if (!r->why[0])
			note(r, "the cases catch it, but iwspec fuzz (seed 1, %s runs) did not", FUZZ_RUNS);
	}
	if (exec && r->out != OUT_DETECTED && !r->why[0])
		note(r, "a process mutant counts only through a FAIL with the DUT finding");
}

bool mu_judge(const job *jobs, size_t nj, int rep, const bool *cfg_used, const bool *in_run, const applies *ap,
	      vlist *clean, int *clean_status, mresult *res)
{
	read_clean(jobs, nj, rep, cfg_used, clean, clean_status);
	bool all_read = true;
	for (size_t k = 0; k < nj; k++) {
		const job *j = &jobs[k];
		if (j->rep != rep || j->mutant == 0)
			continue;
		all_read &= judge_run(j, clean, &res[j->mutant]);
	}
	for (int i = 1; i < IW_MUTANT_COUNT; i++)
		if (in_run[i])
			judge_mutant(iw_mutant_info((enum iw_mutant)i), &ap[i], &res[i]);
	return all_read;
}

void mu_results_free(vlist *clean, mresult *res)
{
	for (int cf = 0; cf < CFG_COUNT; cf++)
		free(clean[cf].v);
	for (int i = 0; i < IW_MUTANT_COUNT; i++) {
		free(res[i].caught.v);
		free(res[i].errors.v);
	}
}
