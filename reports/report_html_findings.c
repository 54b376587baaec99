/*
 * report_html_findings.c - #findings: the FAILs and WARNs grouped by what the DUT did
 * (findings.h), so a lab reads a DUT's seventy FAILs as the ten behaviours behind them.
 */
#include <stdio.h>

#include "findings.h"
#include "report_html_int.h"
#include "req_catalog.h"

/* Cases listed in full per group; the rest are counted (each has its row under #cases). */
#define SHOWN_CASES 12

void html_section_findings(hctx *h)
{
	iw_findings fs;
	iw_err e = { "" };
	if (iw_findings_group(h->run, &fs, &e) != 0) {
		iw_atomic_fail(h->af, e.msg);
		return;
	}
	html_out(h, "<section id=\"findings\"><h2>Findings</h2>\n");
	if (!fs.n) {
		html_out(h, "<p class=\"ok\">No case failed or warned.</p>\n</section>\n");
		return;
	}
	size_t ncases = 0;
	for (size_t i = 0; i < fs.n; i++)
		ncases += fs.g[i].ncases;
	iw_atomic_printf(h->af, "<p class=\"dim\">%zu case%s FAIL or WARN, in %zu group%s: the cases of a group "
			 "failed the same way (the reason with its numbers, octets and quoted text taken out), "
			 "whichever requirement each case's error rests on. The most serious and largest first.</p>\n",
			 ncases, ncases == 1 ? "" : "s", fs.n, fs.n == 1 ? "" : "s");
	html_out(h, "<table class=\"findings\"><tr><th>cases</th><th>verdict</th><th>what the DUT did</th>"
		"<th>requirements</th><th>cases</th><th>capture</th></tr>\n");
	for (size_t i = 0; i < fs.n; i++) {
		const iw_finding *f = &fs.g[i];
		iw_atomic_printf(h->af, "<tr><td>%zu</td><td>", f->ncases);
		html_badge(h, f->verdict);
		html_out(h, "</td><td>");
		html_esc_s(h, f->signature);
		html_out(h, "</td><td>");
		for (size_t k = 0; k < f->nreqs; k++) {
			const iw_req_info *ri = iw_req_find(f->reqs[k]);
			html_out(h, k ? "<br>" : "");
			html_out(h, "<code>");
			html_esc_s(h, f->reqs[k]);
			html_out(h, "</code> ");
			html_esc_s(h, ri ? ri->kw : "(not a catalog row)");
		}
		if (f->reqs_cut)
			html_out(h, "<br>...");
		html_out(h, "</td><td>");
		for (size_t k = 0; k < f->ncases && k < SHOWN_CASES; k++) {
			html_out(h, k ? ", " : "");
			html_case_link(h, &h->run->cases[f->cases[k]], false);
		}
		if (f->ncases > SHOWN_CASES)
			iw_atomic_printf(h->af, " and %zu more", f->ncases - SHOWN_CASES);
		html_out(h, "</td><td>");
		if (f->pcap_case && h->o && h->o->pcap_links) {
			char slug[160];
			iw_report_case_slug(h->run, &h->run->cases[f->pcap_case - 1], slug, sizeof slug);
			html_out(h, "<a href=\"" IW_REPORT_PCAP_DIR "/");
			html_esc_s(h, slug);
			html_out(h, ".pcap\">");
			html_esc_s(h, slug);
			html_out(h, ".pcap</a>");
		} else {
			html_out(h, "<span class=\"dim\">-</span>");
		}
		html_out(h, "</td></tr>\n");
	}
	html_out(h, "</table>\n</section>\n");
	iw_findings_free(&fs);
}
