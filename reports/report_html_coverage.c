/*
 * report_html_coverage.c - the #coverage section of report.html: every MUST and MUST NOT of
 * requirements.md observable on the wire with the cases of the run that cite it, or why none
 * does; the MUSTs no wire test can see, with the reason; and requirement ids cases cite that
 * the catalog does not have.
 */
#include <stdio.h>
#include <string.h>

#include "report_html_int.h"
#include "req_catalog.h"

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

void html_section_coverage(hctx *h)
{
	const iw_run *run = h->run;
	size_t nwire = 0, ncited = 0, nexercised = 0;
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || !q->wire)
			continue;
		cite c = html_cites_of(run, q->id);
		nwire++;
		ncited += c.cases > 0;
		nexercised += c.exercised > 0;
	}
	html_out(h, "<section id=\"coverage\"><h2>Requirement coverage</h2>\n");
	iw_atomic_printf(h->af,
			 "<p>Every MUST and MUST NOT of requirements.md that is observable on the wire (testability W, or W* "
			 "with the reflector): <b>%zu</b>. Cited by a case of this run: <b>%zu</b>; exercised by a case that "
			 "ran: <b>%zu</b>. A requirement no case cites shows why: not observable, a reflector feature not "
			 "implemented, control of TCP the harness does not have, or a case not yet written.</p>\n",
			 nwire, ncited, nexercised);
	html_out(h, "<table id=\"coverage-table\"><tr><th>requirement</th><th>keyword</th><th>T</th><th>requirement "
	       "(paraphrase)</th><th>covered by, or why not</th></tr>\n");
	for (size_t i = 0; i < iw_req_catalog_n && iw_atomic_ok(h->af); i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || !q->wire)
			continue;
		cite c = html_cites_of(run, q->id);
		html_out(h, "<tr id=\"req-");
		html_esc_s(h, q->id);
		html_out(h, "\"><td class=\"mono\">");
		html_esc_s(h, q->id);
		html_out(h, "</td><td>");
		html_esc_s(h, q->kw);
		html_out(h, "</td><td>");
		html_esc_s(h, q->t);
		html_out(h, "</td><td>");
		html_esc_s(h, q->text);
		if (c.cases) {
			html_out(h, "</td><td class=\"covered\">");
			cite_cells(h, q->id);
		} else {
			html_out(h, "</td><td class=\"gap\">");
			html_esc_s(h, q->gap_note);
		}
		html_out(h, "</td></tr>\n");
	}
	html_out(h, "</table>\n");

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
		html_out(h, "<tr><td class=\"mono\">");
		html_esc_s(h, q->id);
		html_out(h, "</td><td>");
		html_esc_s(h, q->kw);
		html_out(h, "</td><td>");
		html_esc_s(h, q->t);
		html_out(h, "</td><td>");
		html_esc_s(h, q->text);
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
			html_out(h, any ? ", " : "<p>Cited by cases but not rows of requirements.md §1 (RFC-era or positions): ");
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
