/*
 * report_html_summary.c - the #summary section of report.html: the verdicts counted over the
 * run, by spec and by requirement family (with each family's wire-observable MUSTs, and how
 * many a case cites and exercises), and the #baseline section, the run compared with --expect.
 */
#include <stdlib.h>
#include <string.h>

#include "report_html_int.h"
#include "req_catalog.h"

/* The spec of a case: the first component of its id, upper case ("mpa.startup..." -> "MPA"). */
static void spec_of(const iw_case_result *r, char *buf, size_t cap)
{
	size_t n = strnlen(r->id, sizeof r->id);
	const char *dot = memchr(r->id, '.', n);
	size_t l = dot ? (size_t)(dot - r->id) : n;
	if (l >= cap)
		l = cap - 1;
	for (size_t i = 0; i < l; i++)
		buf[i] = (char)((r->id[i] >= 'a' && r->id[i] <= 'z') ? r->id[i] - 32 : r->id[i]);
	buf[l] = '\0';
}

typedef struct tally {
	char name[40];
	size_t n[IW_VERDICT_COUNT];
	size_t total;
	size_t musts, covered, exercised;   /* families only: catalog MUSTs on the wire */
} tally;

typedef struct tallies {
	tally *t;
	size_t n, cap;
} tallies;

static tally *tally_get(tallies *ts, const char *name)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->t[i].name, name))
			return &ts->t[i];
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 32;
		tally *nt = realloc(ts->t, cap * sizeof *nt);
		if (!nt)
			return NULL;
		ts->t = nt;
		ts->cap = cap;
	}
	tally *t = &ts->t[ts->n++];
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	return t;
}

static void tally_head(hctx *h, const char *first, bool fam)
{
	iw_atomic_printf(h->af, "<table><tr><th>%s</th>", first);
	if (fam)
		html_out(h, "<th>wire MUSTs in the catalog</th><th>cited by a case</th><th>exercised</th>");
	html_out(h, "<th>cases</th>");
	for (int v = 0; v < IW_VERDICT_COUNT; v++)
		iw_atomic_printf(h->af, "<th>%s</th>", iw_verdict_name((enum iw_verdict)v));
	html_out(h, "</tr>\n");
}

static void tally_row(hctx *h, const tally *t, bool fam)
{
	html_out(h, "<tr><td>");
	html_esc_s(h, t->name);
	html_out(h, "</td>");
	if (fam)
		iw_atomic_printf(h->af, "<td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>", t->musts,
				 t->covered, t->exercised);
	iw_atomic_printf(h->af, "<td class=\"n\">%zu</td>", t->total);
	for (int v = 0; v < IW_VERDICT_COUNT; v++)
		iw_atomic_printf(h->af, "<td class=\"n\">%s%zu%s</td>", t->n[v] && (v == IW_FAIL || v == IW_ERROR) ? "<b>" : "",
				 t->n[v], t->n[v] && (v == IW_FAIL || v == IW_ERROR) ? "</b>" : "");
	html_out(h, "</tr>\n");
}

void html_section_summary(hctx *h)
{
	const iw_run *run = h->run;
	size_t n[IW_VERDICT_COUNT];
	iw_run_tally(run, n);
	html_out(h, "<section id=\"summary\"><h2>Summary</h2>\n<p>");
	for (int v = 0; v < IW_VERDICT_COUNT; v++) {
		html_badge(h, (enum iw_verdict)v);
		iw_atomic_printf(h->af, " %zu &nbsp; ", n[v]);
	}
	iw_atomic_printf(h->af, "&nbsp; <b>%zu</b> cases%s</p>\n", run->ncases, run->complete ? "" : " (incomplete run)");
	if (n[IW_FAIL] || n[IW_ERROR])
		iw_atomic_printf(h->af, "<p class=\"bad\">Not conformant on this evidence: %zu case%s broke a MUST%s.</p>\n",
				 n[IW_FAIL], n[IW_FAIL] == 1 ? "" : "s",
				 n[IW_ERROR] ? ", and harness or environment errors left cases without a verdict" : "");
	else if (run->complete)
		html_out(h, "<p class=\"ok\">No case broke a MUST.</p>\n");

	/* By spec. */
	tallies specs = {0};
	for (size_t i = 0; i < run->ncases; i++) {
		char sp[24];
		spec_of(&run->cases[i], sp, sizeof sp);
		tally *t = tally_get(&specs, sp);
		if (!t) {
			iw_atomic_fail(h->af, "out of memory");
			break;
		}
		t->n[html_verdict_of(&run->cases[i])]++;
		t->total++;
	}
	html_out(h, "<h3>By spec</h3>\n");
	tally_head(h, "spec", false);
	for (size_t i = 0; i < specs.n; i++)
		tally_row(h, &specs.t[i], false);
	html_out(h, "</table>\n");
	free(specs.t);

	/* By requirement family: the catalog's families in its order, then families only cases cite. */
	tallies fams = {0};
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		char f[40];
		tally *t = tally_get(&fams, iw_req_family(iw_req_catalog[i].id, f, sizeof f));
		if (!t)
			break;
		if (iw_req_catalog[i].must && iw_req_catalog[i].wire) {
			cite c = html_cites_of(run, iw_req_catalog[i].id);
			t->musts++;
			t->covered += c.cases > 0;
			t->exercised += c.exercised > 0;
		}
	}
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
		/* A case counts once per family, however many of its requirements it cites. */
		char seen[IW_CASE_MAX_REQS][40];
		size_t nseen = 0;
		for (size_t k = 0; k < nreqs; k++) {
			char id[40], f[40];
			snprintf(id, sizeof id, "%.*s", (int)strnlen(r->reqs[k].id, sizeof r->reqs[k].id), r->reqs[k].id);
			iw_req_family(id, f, sizeof f);
			bool dup = false;
			for (size_t s = 0; s < nseen && !dup; s++)
				dup = !strcmp(seen[s], f);
			if (dup)
				continue;
			snprintf(seen[nseen++], sizeof seen[0], "%s", f);
			tally *t = tally_get(&fams, f);
			if (!t)
				break;
			t->n[html_verdict_of(r)]++;
			t->total++;
		}
	}
	html_out(h, "<h3>By requirement family</h3>\n<p class=\"dim\">A family is a requirement id without its last part "
	       "(MPA-6.1-R5 is in MPA-6.1). A case counts once in each family it cites. <i>Wire MUSTs</i>: the "
	       "family's MUST and MUST NOT rows observable on the wire (T = W or W*); <i>cited</i>: cited by a case of "
	       "this run; <i>exercised</i>: by a case that ran (not skipped).</p>\n");
	tally_head(h, "family", true);
	for (size_t i = 0; i < fams.n; i++)
		if (fams.t[i].total || fams.t[i].musts)
			tally_row(h, &fams.t[i], true);
	html_out(h, "</table>\n</section>\n");
	free(fams.t);
}

/* ---- baseline ----------------------------------------------------------------------- */

void html_section_baseline(hctx *h)
{
	if (!h->o || !h->o->baseline)
		return;
	html_out(h, "<section id=\"baseline\"><h2>Baseline</h2>\n<p>Compared with <code>");
	html_esc_s(h, h->o->baseline);
	html_out(h, "</code>: ");
	if (!h->o->ndiffs) {
		html_out(h, "<span class=\"ok\">every result is as the baseline expects.</span></p>\n");
	} else {
		iw_atomic_printf(h->af, "<span class=\"bad\">%zu difference%s</span> (the run fails):</p>\n<ul>\n",
				 h->o->ndiffs, h->o->ndiffs == 1 ? "" : "s");
		for (size_t i = 0; i < h->o->ndiffs; i++) {
			html_out(h, "<li class=\"mono\">");
			html_esc_s(h, h->o->diffs[i]);
			html_out(h, "</li>\n");
		}
		html_out(h, "</ul>\n");
	}
	html_out(h, "</section>\n");
}
