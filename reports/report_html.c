/*
 * report_html.c - report.html, the certification report a lab hands to a vendor (report.h,
 * docs/reports.md): the document, its style, and the helpers every section writes with.
 *
 * One self-contained file: inline CSS, no script, no image, no font, no URL at all, and a
 * Content-Security-Policy of default-src 'none', so the file opens offline and can fetch
 * nothing even if a DUT's text tried to make it. The only links are to the report's own
 * anchors and to the per-case pcaps beside it. Every string that a DUT or a case file may have
 * shaped goes through html_esc() (invalid UTF-8 repaired, & < > " ' escaped, control characters
 * shown as \xNN), in attributes as in text.
 *
 * Sections, each with a fixed id a test (or a reader's bookmark) can find: #summary (by spec
 * and by requirement family), #baseline (when --expect compared), #provenance, #coverage (the
 * wire-observable MUSTs of requirements.md and the cases that cite them, or why none does),
 * #cases (one <details> per case, id "case-<slug>"), and #incomplete, a banner, when the run
 * was interrupted. report_html_int.h lists the file of each.
 */
#include "report.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_html_int.h"
#include "report_text.h"

static const char CSS[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1200px;"
	"padding:0 16px 48px;color:#1d2330;background:#fff}\n"
	"h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;border-bottom:2px solid #d8dde6;padding-bottom:3px;"
	"margin-top:32px}h3{font-size:15px;margin:18px 0 6px}h4{font-size:13px;margin:14px 0 4px;"
	"text-transform:uppercase;letter-spacing:.04em;color:#4a5468}\n"
	"table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}th,td{border:1px solid #d8dde6;"
	"padding:3px 7px;text-align:left;vertical-align:top}th{background:#f2f4f8}td.n{text-align:right;"
	"font-variant-numeric:tabular-nums}\n"
	"table.kv th{width:210px}code,pre,.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;"
	"font-size:12px}pre{white-space:pre-wrap;word-break:break-all;margin:4px 0;background:#f7f8fa;"
	"padding:6px 8px;border:1px solid #e3e7ee}\n"
	".v{display:inline-block;min-width:44px;text-align:center;font-weight:700;font-size:11px;padding:1px 5px;"
	"border-radius:3px;color:#fff}.PASS{background:#1f8a3b}.FAIL{background:#c62828}.WARN{background:#c77700}"
	".INFO{background:#1b6fa8}.SKIP{background:#7b8394}.ERROR{background:#7b1fa2}\n"
	".banner{background:#c62828;color:#fff;font-weight:700;font-size:16px;padding:10px 14px;margin:12px 0;"
	"border-radius:4px}.ok{color:#1f8a3b;font-weight:700}.bad{color:#c62828;font-weight:700}"
	".dim{color:#6b7486}\n"
	"details.case{border:1px solid #d8dde6;border-radius:4px;margin:6px 0;padding:0 10px}"
	"details.case>summary{cursor:pointer;padding:6px 0;list-style-position:outside}"
	"details.case[open]>summary{border-bottom:1px solid #e3e7ee}\n"
	"details.case.v-FAIL{border-left:5px solid #c62828}details.case.v-WARN{border-left:5px solid #c77700}"
	"details.case.v-ERROR{border-left:5px solid #7b1fa2}\n"
	"table.wire td.oct{min-width:430px}table.wire pre{white-space:pre;word-break:normal}\n"
	"tr.blame td{background:#fff3cd}tr.blame td:first-child{border-left:4px solid #c62828}"
	"mark{background:#ffd54f;color:#000;font-weight:700;padding:0 1px}tr.req-failed td{background:#fde7e7}\n"
	"td.covered{color:#1f8a3b}td.gap{color:#6b7486}nav a{margin-right:12px}"
	"nav{margin:8px 0 4px;font-size:13px}\n"
	"@media print{details.case{break-inside:avoid}details>summary{list-style:none}}\n";

/* Any text, escaped for HTML text and attribute values alike. */
void html_esc(hctx *h, const char *s, size_t n)
{
	char *x = iw_text_xml(s ? s : "", s ? n : 0, true);
	if (!x) {
		iw_atomic_fail(h->af, "out of memory while escaping HTML");
		return;
	}
	iw_atomic_puts(h->af, x);
	free(x);
}

void html_esc_s(hctx *h, const char *s) { html_esc(h, s, s ? strlen(s) : 0); }

void html_out(hctx *h, const char *s) { iw_atomic_puts(h->af, s); }

enum iw_verdict html_verdict_of(const iw_case_result *r)
{
	return (unsigned)r->verdict < IW_VERDICT_COUNT ? r->verdict : IW_ERROR;
}

void html_badge(hctx *h, enum iw_verdict v)
{
	const char *n = iw_verdict_name(v);
	iw_atomic_printf(h->af, "<span class=\"v %s\">%s</span>", n, n);
}

void html_case_link(hctx *h, const iw_case_result *r, bool with_badge)
{
	char slug[160];
	iw_report_case_slug(h->run, r, slug, sizeof slug);
	html_out(h, "<a href=\"#case-");
	html_esc_s(h, slug);
	html_out(h, "\">");
	if (with_badge) {
		html_badge(h, html_verdict_of(r));
		html_out(h, " ");
	}
	html_esc_s(h, slug);
	html_out(h, "</a>");
}

void html_time_text(int64_t ms, char *buf, size_t cap)
{
	if (ms > 0)
		iw_text_time(ms, true, buf, cap);
	else
		snprintf(buf, cap, "-");
}

void html_kv(hctx *h, const char *k, const char *v, size_t n, bool pre)
{
	iw_atomic_printf(h->af, "<tr><th>%s</th><td>", k);
	html_out(h, pre ? "<pre>" : "");
	html_esc(h, v, n);
	html_out(h, pre ? "</pre>" : "");
	html_out(h, "</td></tr>\n");
}

int iw_report_html(const iw_run *run, const iw_html_opts *o, const char *path, iw_err *e)
{
	if (!run)
		return iw_errf(e, -1, "cannot write '%s': no run", path ? path : "");
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	hctx h = {.af = af, .run = run, .o = o, .multi = !strcmp(run->profile, "all")};
	html_out(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>iwspec report: ");
	html_esc(&h, FIELD(run->dut));
	html_out(&h, run->complete ? "" : " (INCOMPLETE)");
	html_out(&h, "</title>\n<style>\n");
	html_out(&h, CSS);
	html_out(&h, "</style>\n</head>\n<body>\n<header id=\"top\"><h1>iwspec conformance report</h1>\n<p>DUT <code>");
	html_esc(&h, FIELD(run->dut));
	html_out(&h, "</code>, profile <code>");
	html_esc(&h, FIELD(run->profile));
	char t0[40];
	html_time_text(run->start_unix_ms, t0, sizeof t0);
	html_out(&h, "</code>, started ");
	html_esc_s(&h, t0);
	html_out(&h, " on ");
	html_esc(&h, FIELD(run->host));
	html_out(&h, "</p></header>\n");
	if (!run->complete) {
		char why[600];
		iw_run_incomplete_text(run, why, sizeof why);
		html_out(&h, "<div id=\"incomplete\" class=\"banner\">INCOMPLETE: the run was ");
		html_esc_s(&h, why);
		html_out(&h, ". The results below are partial: the cases after that did not run.</div>\n");
	}
	html_out(&h, "<nav><a href=\"#summary\">Summary</a><a href=\"#findings\">Findings</a>");
	if (o && o->baseline)
		html_out(&h, "<a href=\"#baseline\">Baseline</a>");
	html_out(&h, "<a href=\"#provenance\">Provenance</a><a href=\"#coverage\">Coverage</a><a href=\"#cases\">Cases</a>"
		"</nav>\n");
	html_section_summary(&h);
	html_section_findings(&h);
	html_section_baseline(&h);
	html_section_provenance(&h);
	html_section_coverage(&h);
	html_section_cases(&h);
	html_out(&h, "<footer><p class=\"dim\">Written by iwspec. results.json holds the same run with every octet; "
		"junit.xml is for CI dashboards; docs/reports.md describes all three.</p></footer>\n</body>\n</html>\n");
	return iw_atomic_commit(af, e);
}
