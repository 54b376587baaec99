/*
 * report_html_coverage.c - the #coverage section of report.html: every MUST and MUST NOT of the
 * catalog (requirements.md §1, the drafts' rows, and spec/rfc-rows.md §1, the RFC-era rows)
 * observable on the wire with the cases of the run whose header cites it, the
 * cases whose per-frame checks judged it on the DUT's octets, and the reason it cannot be judged
 * from the wire (the committed list cases/untestable.md), or why none of these; the MUSTs no
 * wire test can see, with the reason; and requirement ids cases cite that the catalog does not
 * have. The counts are shared with results.json's summary (iw_coverage_count).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_html_int.h"
#include "req_catalog.h"

/* The case tree's root holds untestable.md: cases/SPEC/SECTION/NAME.iwt, so it is looked for in
 * the case file's folder and up to two above. */
void iw_untestable_load(const iw_run *run, iw_untestable *u)
{
	memset(u, 0, sizeof *u);
	FILE *f = NULL;
	for (size_t i = 0; i < run->ncases && !f; i++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%.*s", (int)strnlen(run->cases[i].file, sizeof run->cases[i].file),
			 run->cases[i].file);
		for (int up = 0; up < 3 && !f; up++) {
			char *slash = strrchr(dir, '/');
			if (!slash)
				break;
			*slash = '\0';
			snprintf(u->path, sizeof u->path, "%.*s/untestable.md", (int)(sizeof u->path - 16), dir);
			f = fopen(u->path, "r");
		}
	}
	if (!f) {
		u->path[0] = '\0';
		return;
	}
	u->found = true;
	char line[512];
	while (fgets(line, sizeof line, f) && u->n < IW_UNTESTABLE_MAX) {
		line[strcspn(line, "\r\n")] = '\0';
		char *colon = strstr(line, ": ");
		if (!colon || (size_t)(colon - line) >= sizeof u->id[0])
			continue;
		*colon = '\0';
		if (!iw_req_find(line)) /* a heading or prose, not an `ID: reason` line */
			continue;
		snprintf(u->id[u->n], sizeof u->id[0], "%.31s", line);
		snprintf(u->reason[u->n], sizeof u->reason[0], "%.319s", colon + 2);
		u->n++;
	}
	fclose(f);
}

const char *iw_untestable_reason(const iw_untestable *u, const char *req)
{
	for (size_t i = 0; u && i < u->n; i++)
		if (!strcmp(u->id[i], req))
			return u->reason[i];
	return NULL;
}

void iw_judged_of(const iw_run *run, const char *req, size_t *cases, size_t *frames)
{
	*cases = *frames = 0;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nj = r->njudged < IW_RESULT_MAX_JUDGED ? r->njudged : IW_RESULT_MAX_JUDGED;
		for (size_t k = 0; k < nj; k++)
			if (!strncmp(r->judged[k].req, req, sizeof r->judged[k].req)) {
				(*cases)++;
				*frames += r->judged[k].frames;
				break;
			}
	}
}

void iw_coverage_count(const iw_run *run, const iw_untestable *u, iw_coverage *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || !q->wire)
			continue;
		cite c = html_cites_of(run, q->id);
		size_t jc, jf;
		iw_judged_of(run, q->id, &jc, &jf);
		bool listed = iw_untestable_reason(u, q->id) != NULL;
		out->wire++;
		out->cited += c.cases > 0;
		out->exercised += c.exercised > 0;
		out->judged += jc > 0;
		out->untestable += listed;
		out->uncovered += !c.cases && !jc && !listed;
	}
}

cite html_cites_of(const iw_run *run, const char *req)
{
	cite c = {0, 0};
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
		for (size_t k = 0; k < nreqs; k++)
			if (!strncmp(r->reqs[k].id, req, sizeof r->reqs[k].id)) {
				c.cases++;
				if (html_verdict_of(r) != IW_SKIP)
					c.exercised++;
				break;
			}
	}
	return c;
}

/* The cases citing req, each a link with its verdict. */
static void cite_cells(hctx *h, const char *req)
{
	bool any = false;
	for (size_t i = 0; i < h->run->ncases; i++) {
		const iw_case_result *r = &h->run->cases[i];
		size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
		for (size_t k = 0; k < nreqs; k++)
			if (!strncmp(r->reqs[k].id, req, sizeof r->reqs[k].id)) {
				html_out(h, any ? "<br>" : "");
				any = true;
				html_case_link(h, r, true);
				break;
			}
	}
}

/* The catalog's own cells of a row: ID, keyword, testability, paraphrase (the last cell left open). */
static void req_cells(hctx *h, const iw_req_info *q)
{
	html_out(h, "<td class=\"mono\">");
	html_esc_s(h, q->id);
	html_out(h, "</td><td>");
	html_esc_s(h, q->kw);
	html_out(h, "</td><td>");
	html_esc_s(h, q->t);
	html_out(h, "</td><td>");
	html_esc_s(h, q->text);
}

void html_section_coverage(hctx *h)
{
	const iw_run *run = h->run;
	iw_untestable *u = calloc(1, sizeof *u);
	if (!u) {
		html_out(h, "<section id=\"coverage\"><h2>Requirement coverage</h2><p>out of memory</p></section>\n");
		return;
	}
	iw_untestable_load(run, u);
	iw_coverage cv;
	iw_coverage_count(run, u, &cv);
	html_out(h, "<section id=\"coverage\"><h2>Requirement coverage</h2>\n");
	iw_atomic_printf(h->af,
			 "<p>Every MUST and MUST NOT of the catalog (requirements.md §1 and spec/rfc-rows.md §1) that is "
			 "observable on the wire (testability W, or W* "
			 "with the reflector): <b>%zu</b>. Cited by a case header: <b>%zu</b> (by a case that ran: %zu); "
			 "judged on the wire by a case's per-frame checks: <b>%zu</b>; listed as not testable on the wire: "
			 "<b>%zu</b>; none of these (uncovered): <b>%zu</b>. An uncovered requirement shows why: a reflector "
			 "feature not implemented, control of TCP the harness does not have, or a case not yet written.</p>\n",
			 cv.wire, cv.cited, cv.exercised, cv.judged, cv.untestable, cv.uncovered);
	/* The RFC-era rows apart, so a lab certifying against RFC 5040 reads its own count. */
	size_t rfc_wire = 0, rfc_covered = 0;
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->rfc || !q->must || !q->wire)
			continue;
		size_t jc, jf;
		iw_judged_of(run, q->id, &jc, &jf);
		rfc_wire++;
		rfc_covered += html_cites_of(run, q->id).cases > 0 || jc > 0 || iw_untestable_reason(u, q->id) != NULL;
	}
	iw_atomic_printf(h->af, "<p>Of them RFC-era rows (spec/rfc-rows.md: RFC 5040, and RFC 5041, 5044 and 6581 where "
			 "they differ from the drafts): <b>%zu</b>, %zu of them cited, judged or listed, %zu uncovered.</p>\n",
			 rfc_wire, rfc_covered, rfc_wire - rfc_covered);
	html_out(h, "<p>Not testable on the wire: ");
	if (u->found) {
		html_out(h, "the reasons are those of <code>");
		html_esc_s(h, u->path);
		html_out(h, "</code>.</p>\n");
	} else {
		html_out(h, "no list found (untestable.md at the root of the case tree).</p>\n");
	}
	html_out(h, "<table id=\"coverage-table\"><tr><th>requirement</th><th>keyword</th><th>T</th><th>requirement "
	       "(paraphrase)</th><th>cited by a case header</th><th>judged on the wire</th><th>not testable on the "
	       "wire, or why uncovered</th></tr>\n");
	for (size_t i = 0; i < iw_req_catalog_n && iw_atomic_ok(h->af); i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || !q->wire)
			continue;
		cite c = html_cites_of(run, q->id);
		size_t jc, jf;
		iw_judged_of(run, q->id, &jc, &jf);
		const char *why = iw_untestable_reason(u, q->id);
		html_out(h, "<tr id=\"req-");
		html_esc_s(h, q->id);
		html_out(h, "\">");
		req_cells(h, q);
		if (c.cases) {
			html_out(h, "</td><td class=\"covered\">");
			cite_cells(h, q->id);
		} else {
			html_out(h, "</td><td>");
		}
		if (jc)
			iw_atomic_printf(h->af, "</td><td class=\"covered\">%zu case%s, %zu frame%s", jc, jc == 1 ? "" : "s",
					 jf, jf == 1 ? "" : "s");
		else
			html_out(h, "</td><td>");
		if (why) {
			html_out(h, "</td><td>");
			html_esc_s(h, why);
		} else if (!c.cases && !jc) {
			html_out(h, "</td><td class=\"gap\">uncovered: ");
			html_esc_s(h, q->gap_note);
		} else {
			html_out(h, "</td><td>");
		}
		html_out(h, "</td></tr>\n");
	}
	html_out(h, "</table>\n");
	free(u);

	/* The MUSTs no wire test can see, with the reason, so the table above is not read as all. */
	size_t nhidden = 0;
	for (size_t i = 0; i < iw_req_catalog_n; i++)
		nhidden += iw_req_catalog[i].must && !iw_req_catalog[i].wire;
	iw_atomic_printf(h->af, "<details><summary>MUSTs not observable on the wire (%zu)</summary>\n<table>"
				"<tr><th>requirement</th><th>keyword</th><th>T</th><th>requirement (paraphrase)</th>"
				"<th>why not covered</th></tr>\n", nhidden);
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || q->wire)
			continue;
		html_out(h, "<tr>");
		req_cells(h, q);
		html_out(h, "</td><td class=\"gap\">");
		html_esc_s(h, q->gap_note);
		html_out(h, "</td></tr>\n");
	}
	html_out(h, "</table></details>\n");

	/* Requirement ids cases cite that the catalog does not have (RFC-era ids, typos). */
	bool any = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
		for (size_t k = 0; k < nreqs; k++) {
			char id[40];
			snprintf(id, sizeof id, "%.*s", (int)strnlen(r->reqs[k].id, sizeof r->reqs[k].id), r->reqs[k].id);
			if (iw_req_find(id))
				continue;
			bool earlier = false;
			for (size_t j = 0; j < i && !earlier; j++) {
				const iw_case_result *rj = &run->cases[j];
				for (size_t m = 0; m < rj->nreqs && m < IW_CASE_MAX_REQS && !earlier; m++)
					earlier = !strncmp(rj->reqs[m].id, id, sizeof rj->reqs[m].id);
			}
			for (size_t m = 0; m < k && !earlier; m++)
				earlier = !strncmp(r->reqs[m].id, id, sizeof r->reqs[m].id);
			if (earlier)
				continue;
			html_out(h, any ? ", " : "<p>Cited by cases but not rows of the catalog (requirements.md §1, spec/rfc-rows.md §1): ");
			any = true;
			html_out(h, "<code>");
			html_esc_s(h, id);
			html_out(h, "</code>");
		}
	}
	if (any)
		html_out(h, "</p>\n");
	html_out(h, "</section>\n");
}
