/*
 * cmd_mutants_matrix.c - the detection matrix of `iwspec mutants`: mutants.txt (also printed),
 * one line per mutant and then the failed cases of each, and mutants.json, the same with every
 * verdict. The text holds no timing, so the matrices of --repeat compare octet for octet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_mutants_int.h"

/* The text of one matrix (no timings: repeats must give the same octets). */
char *mu_matrix_text(const opts *o, const vlist *clean, const int *clean_status, const mresult *res,
		     size_t nres_total, const bool *in_run, int *fail_count)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
#define OUT(...) do { \
		int k_ = snprintf(NULL, 0, __VA_ARGS__); \
		if (len + (size_t)k_ + 1 > cap) { \
			while (len + (size_t)k_ + 1 > cap) cap *= 2; \
			char *ns_ = realloc(s, cap); \
			if (!ns_) { free(s); return NULL; } \
			s = ns_; \
		} \
		len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__); \
	} while (0)
	int nm = 0, det = 0, surv = 0, wrong = 0, broken = 0;
	for (size_t i = 1; i < nres_total; i++)
		if (in_run[i]) {
			nm++;
			det += res[i].out == OUT_DETECTED;
			surv += res[i].out == OUT_SURVIVED;
			wrong += res[i].out == OUT_WRONG_REQ;
			broken += res[i].out == OUT_BROKEN;
		}
	OUT("iwspec mutants: %d mutant%s, profile %s\n\n", nm, nm == 1 ? "" : "s",
	    o->profile < 0 ? "all" : iw_profile_get((enum iw_profile_id)o->profile)->name);
	OUT("clean DUT (each configuration the mutants ran in):\n");
	int cfails = 0;
	for (int c = 0; c < CFG_COUNT; c++) {
		if (clean_status[c] < 0)
			continue;
		size_t pass = 0, fail = 0, warn = 0, err = 0, skip = 0, n = 0;
		for (size_t i = 0; i < clean[c].n; i++) {
			const char *v = clean[c].v[i].verdict;
			n++;
			pass += !strcmp(v, "PASS") || !strcmp(v, "INFO");
			fail += !strcmp(v, "FAIL");
			warn += !strcmp(v, "WARN");
			err += !strcmp(v, "ERROR");
			skip += !strcmp(v, "SKIP");
		}
		OUT("  %-8s %4zu cases: %zu PASS/INFO, %zu FAIL, %zu WARN, %zu ERROR, %zu SKIP%s\n", mu_cfg_name[c], n, pass,
		    fail, warn, err, skip, clean_status[c] > 0 ? "  (a run could not be read)" : "");
		cfails += (int)(fail + err) + (clean_status[c] > 0);
		for (size_t i = 0; i < clean[c].n; i++)
			if (strcmp(clean[c].v[i].verdict, "PASS") && strcmp(clean[c].v[i].verdict, "INFO") &&
			    strcmp(clean[c].v[i].verdict, "SKIP"))
				OUT("    %-5s %s@%s [%s]\n", clean[c].v[i].verdict, clean[c].v[i].id, clean[c].v[i].profile,
				    clean[c].v[i].failed_req);
	}
	OUT("\n%-10s %-26s %-13s %-9s %6s %6s %6s  %s\n", "family", "mutant", "requirement", "result", "failed", "citing",
	    "blamed", "runs");
	int order[IW_MUTANT_COUNT], norder = mu_family_order(order);
	(void)nres_total;
	for (int oi = 0; oi < norder; oi++) {
		size_t i = (size_t)order[oi];
		if (!in_run[i])
			continue;
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		OUT("%-10s %-26s %-13s %-9s %6zu %6zu %6zu  %s%s\n", m->family, m->name, m->req, mu_outcome_name[res[i].out],
		    res[i].caught.n, res[i].citing, res[i].blamed, m->applies && *m->applies ? m->applies : "all",
		    res[i].fuzz_run ? (res[i].fuzz_found ? ", fuzz: found" : ", fuzz: NOT FOUND") : "");
	}
	sev_pair *pairs = NULL;
	size_t nsplit = 0;
	long npairs = mu_severity_pairs(res, in_run, &pairs, &nsplit);
	if (npairs < 0) {
		free(s);
		return NULL;
	}
	OUT("\nsummary: %d mutants: %d detected, %d survived, %d caught only by cases citing other requirements%s; "
	    "clean DUT: %s\n",
	    nm, det, surv, wrong, broken ? " (and some could not be run)" : "", cfails ? "FAIL/ERROR" : "no FAIL, no ERROR");
	/* One behaviour, one severity (cmd_mutants_severity.c). */
	/* The number of pairs is not printed: what a racing mutant did varies from run to run. */
	(void)npairs;
	OUT("one behaviour, one severity: %zu rules judged at two levels after the same DUT behaviour%s\n", nsplit,
	    nsplit ? ":" : "");
	for (long k = 0; k < npairs; k++)
		if (pairs[k].levels == 3u)
			OUT("  [%s] {%s}: FAIL in %s, WARN in %s\n", pairs[k].req, pairs[k].outcome, pairs[k].fail_eg,
			    pairs[k].warn_eg);
	free(pairs);
	OUT("\nThe failed cases of each mutant ('+': the case cites the mutant's requirement; '!': the\n"
	    "verdict carries a DUT process finding; [the requirement the failure rests on, '=' when it is\n"
	    "the mutant's]; what the DUT did is in mutants.json, as some mutants race):\n");
	for (int oi = 0; oi < norder; oi++) {
		size_t i = (size_t)order[oi];
		if (!in_run[i])
			continue;
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		OUT("\n%s (%s, %s): %s\n  %s%s%s\n", m->name, m->req, m->family, mu_outcome_name[res[i].out], m->desc,
		    res[i].why[0] ? "\n  " : "", res[i].why);
		const mresult *r = &res[i];
		for (size_t k = 0; k < r->caught.n;) {
			/* One line per case, with the profiles that gave the same verdict and requirement. */
			const verdict *v = &r->caught.v[k];
			char profs[160] = "";
			size_t e = k;
			while (e < r->caught.n && !strcmp(r->caught.v[e].id, v->id)) {
				const verdict *w = &r->caught.v[e];
				if (!strcmp(w->verdict, v->verdict) && !strcmp(w->failed_req, v->failed_req) &&
				    w->finding == v->finding) {
					size_t pl = strlen(profs);
					snprintf(profs + pl, sizeof profs - pl, "%s%s", pl ? " " : "", w->profile);
				} else {
					break;
				}
				e++;
			}
			OUT("  %c%c %-5s %-50s [%s%s] %s\n", v->cites ? '+' : ' ', v->finding ? '!' : ' ', v->verdict, v->id,
			    !strcmp(v->failed_req, m->req) ? "=" : "", v->failed_req, profs);
			k = e;
		}
		for (size_t k = 0; k < r->errors.n; k++)
			OUT("     ERROR %-50s %s\n", r->errors.v[k].id, r->errors.v[k].profile);
	}
#undef OUT
	*fail_count = surv + wrong + broken + cfails + (int)nsplit;
	return s;
}

/* The verdicts of a list, each an object of arr. */
static void json_matrix(json_t *arr, const vlist *l)
{
	for (size_t k = 0; k < l->n; k++) {
		const verdict *v = &l->v[k];
		json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s?,s:s?,s:b,s:b}", "id", v->id, "profile", v->profile,
						     "verdict", v->verdict, "failed_requirement",
						     v->failed_req[0] ? v->failed_req : NULL, "outcome",
						     v->outcome[0] ? v->outcome : NULL, "cites", v->cites, "dut_finding",
						     v->finding));
	}
}

json_t *mu_matrix_json(const vlist *clean, const int *clean_status, const mresult *res, const bool *in_run)
{
	json_t *jm = json_array();
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		if (!in_run[i])
			continue;
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		json_t *caught = json_array(), *errs = json_array();
		json_matrix(caught, &res[i].caught);
		json_matrix(errs, &res[i].errors);
		json_t *jo = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:o,s:o,s:f}", "name", m->name, "family", m->family,
				       "requirement", m->req, "description", m->desc, "applies",
				       m->applies && *m->applies ? m->applies : "all", "result", mu_outcome_name[res[i].out],
				       "failed", (json_int_t)res[i].caught.n, "citing", (json_int_t)res[i].citing, "caught",
				       caught, "errors", errs, "seconds", res[i].secs);
		json_object_set_new(jo, "blamed", json_integer((json_int_t)res[i].blamed));
		if (res[i].fuzz_run)
			json_object_set_new(jo, "fuzz_found", json_boolean(res[i].fuzz_found));
		if (res[i].why[0])
			json_object_set_new(jo, "note", json_string(res[i].why));
		json_array_append_new(jm, jo);
	}
	json_t *jc = json_array();
	for (int cf = 0; cf < CFG_COUNT; cf++) {
		if (clean_status[cf] < 0)
			continue;
		size_t fail = 0, err = 0, warn = 0;
		for (size_t q = 0; q < clean[cf].n; q++) {
			fail += !strcmp(clean[cf].v[q].verdict, "FAIL");
			err += !strcmp(clean[cf].v[q].verdict, "ERROR");
			warn += !strcmp(clean[cf].v[q].verdict, "WARN");
		}
		json_array_append_new(jc, json_pack("{s:s,s:I,s:I,s:I,s:I,s:b}", "configuration", mu_cfg_name[cf], "cases",
						    (json_int_t)clean[cf].n, "fail", (json_int_t)fail, "error", (json_int_t)err,
						    "warn", (json_int_t)warn, "readable", clean_status[cf] == 0));
	}
	return json_pack("{s:o,s:o}", "clean", jc, "mutants", jm);
}
