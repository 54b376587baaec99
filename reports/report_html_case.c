/*
 * report_html_case.c - the #cases section of report.html: one <details> per case (open when it
 * needs attention: FAIL, WARN, ERROR) with its requirements and the catalog's text of each,
 * what was expected and what was observed, measures, mappings, a DUT finding, the wire log
 * (report_html_wire.c) and the link to its pcap.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_html_int.h"
#include "report_text.h"
#include "req_catalog.h"

static void one_case(hctx *h, const iw_case_result *r)
{
	enum iw_verdict v = html_verdict_of(r);
	char slug[160];
	iw_report_case_slug(h->run, r, slug, sizeof slug);
	bool attention = v == IW_FAIL || v == IW_WARN || v == IW_ERROR;
	iw_atomic_printf(h->af, "<details class=\"case v-%s\" id=\"case-", iw_verdict_name(v));
	html_esc_s(h, slug);
	iw_atomic_printf(h->af, "\"%s><summary>", attention ? " open" : "");
	html_badge(h, v);
	html_out(h, " <code>");
	html_esc(h, FIELD(r->id));
	html_out(h, "</code> ");
	html_esc(h, FIELD(r->title));
	html_out(h, " <span class=\"dim\">(");
	html_esc(h, FIELD(r->profile));
	iw_atomic_printf(h->af, ", %" PRId64 " ms)</span></summary>\n", r->duration_ms);

	html_out(h, "<table class=\"kv\">");
	html_kv(h, "case file", FIELD(r->file), false);
	char buf[128];
	snprintf(buf, sizeof buf, "%.15s, the DUT as %s", r->profile, r->dut_role[0] ? r->dut_role : "-");
	html_kv(h, "profile, role", buf, strlen(buf), false);
	html_time_text(r->start_unix_ms, buf, sizeof buf);
	html_kv(h, "started", buf, strlen(buf), false);
	html_out(h, "</table>\n");

	/* Requirements, with the catalog's text. */
	html_out(h, "<h4>Requirements</h4>\n<table><tr><th>requirement</th><th>level (case)</th><th>keyword (catalog)</th>"
	       "<th>T</th><th>requirement (paraphrase)</th></tr>\n");
	size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
	for (size_t k = 0; k < nreqs; k++) {
		char id[40];
		snprintf(id, sizeof id, "%.*s", (int)strnlen(r->reqs[k].id, sizeof r->reqs[k].id), r->reqs[k].id);
		const iw_req_info *q = iw_req_find(id);
		bool failed = (v == IW_FAIL || v == IW_WARN) && !strncmp(id, r->failed_req, sizeof r->failed_req);
		html_out(h, failed ? "<tr class=\"req-failed\">" : "<tr>");
		html_out(h, "<td class=\"mono\">");
		html_esc_s(h, id);
		iw_atomic_printf(h->af, "</td><td>%s</td><td>", iw_text_level(r->reqs[k].level));
		html_esc_s(h, q ? q->kw : "-");
		html_out(h, "</td><td>");
		html_esc_s(h, q ? q->t : "-");
		html_out(h, "</td><td>");
		html_esc_s(h, q ? q->text : "(not a row of the catalog: requirements.md §1 or spec/rfc-rows.md §1)");
		html_out(h, "</td></tr>\n");
	}
	html_out(h, "</table>\n");

	html_out(h, "<h4>Expected</h4>\n");
	if (r->expected[0]) {
		html_out(h, "<pre>");
		html_esc(h, FIELD(r->expected));
		html_out(h, "</pre>\n");
	} else {
		html_out(h, "<p class=\"dim\">(the case states no expectation, or it did not run)</p>\n");
	}

	html_out(h, "<h4>Observed</h4>\n<p>");
	html_badge(h, v);
	html_out(h, " ");
	if (r->reason[0])
		html_esc(h, FIELD(r->reason));
	else
		html_out(h, v == IW_PASS ? "every expectation held" : "");
	html_out(h, "</p>\n");
	if ((v == IW_FAIL || v == IW_WARN) && r->failed_req[0]) {
		char id[40];
		snprintf(id, sizeof id, "%.*s", (int)strnlen(r->failed_req, sizeof r->failed_req), r->failed_req);
		const iw_req_info *q = iw_req_find(id);
		html_out(h, "<p>Rests on <b class=\"mono\">");
		html_esc(h, FIELD(r->failed_req));
		html_out(h, "</b>");
		if (q) {
			html_out(h, " (");
			html_esc_s(h, q->kw);
			if (q->source[0]) {
				html_out(h, ", ");
				html_esc_s(h, q->source);
			}
			html_out(h, ")");
			if (q->quote[0]) {
				html_out(h, ": <q class=\"rfc-text\">");
				html_esc_s(h, q->quote);
				html_out(h, "</q>");
			}
		}
		if (r->fail_wire && r->fail_wire <= r->nwire) {
			iw_atomic_printf(h->af, "; the failure points at <a href=\"#case-");
			html_esc_s(h, slug);
			iw_atomic_printf(h->af, "-blame\">wire event %zu</a>", r->fail_wire);
			if (r->fail_field[0]) {
				html_out(h, ", field <mark>");
				html_esc(h, FIELD(r->fail_field));
				html_out(h, "</mark>");
			}
		}
		html_out(h, ".</p>\n");
		if (r->outcome[0]) {
			html_out(h, "<p>What the DUT did: <span class=\"mono\">");
			html_esc(h, FIELD(r->outcome));
			html_out(h, "</span> (a baseline pins it)</p>\n");
		}
	}
	size_t nm = r->nmeasures < 8 ? r->nmeasures : 8;
	for (size_t i = 0; i < nm; i++) {
		char mv[64];
		iw_measure_text(&r->measures[i], -1, mv, sizeof mv);
		html_out(h, "<p>measured <code>");
		html_esc(h, FIELD(r->measures[i].name));
		html_out(h, "</code> = ");
		html_esc(h, FIELD(mv));
		html_out(h, "</p>\n");
	}
	size_t nmap = r->nmappings < 4 ? r->nmappings : 4;
	for (size_t i = 0; i < nmap; i++) {
		html_out(h, "<p>mapping applied: <code>");
		html_esc(h, FIELD(r->mappings[i]));
		html_out(h, "</code></p>\n");
	}
	if (r->dut_finding) {
		html_out(h, "<p class=\"bad\">DUT finding:</p><pre>");
		html_esc(h, FIELD(r->dut_finding_text));
		html_out(h, "</pre>\n");
	}

	if (r->nwire)
		html_wire_table(h, r, slug, r->failed_req[0] && (v == IW_FAIL || v == IW_WARN || v == IW_INFO));
	else
		html_out(h, "<h4>Wire log</h4>\n<p class=\"dim\">no event (the case did not open a connection)</p>\n");

	html_out(h, "<p>Capture: ");
	if (r->ntcp && h->o && h->o->pcap_links) {
		iw_atomic_printf(h->af, "<a href=\"%s/", IW_REPORT_PCAP_DIR);
		html_esc_s(h, slug);
		iw_atomic_printf(h->af, ".pcap\">%s/", IW_REPORT_PCAP_DIR);
		html_esc_s(h, slug);
		iw_atomic_printf(h->af, ".pcap</a> <span class=\"dim\">(%zu octets in %zu chunks%s)</span>", r->tcp_octets,
				 r->ntcp, r->tcp_cut ? "; cut at the capture limit" : "");
	} else if (r->ntcp) {
		html_out(h, "<span class=\"dim\">not written (run with --pcap)</span>");
	} else {
		html_out(h, "<span class=\"dim\">none (no connection)</span>");
	}
	html_out(h, "</p>\n</details>\n");
}

void html_section_cases(hctx *h)
{
	html_out(h, "<section id=\"cases\"><h2>Cases</h2>\n<p class=\"dim\">FAIL, WARN and ERROR cases are open; click a "
	       "case to open or close it. Octets sent to the DUT are marked &rarr;, octets it sent &larr;.</p>\n");
	for (size_t i = 0; i < h->run->ncases && iw_atomic_ok(h->af); i++)
		one_case(h, &h->run->cases[i]);
	html_out(h, "</section>\n");
}
