/*
 * report_html.c - report.html, the certification report a lab hands to a vendor (report.h,
 * docs/reports.md).
 *
 * One self-contained file: inline CSS, no script, no image, no font, no URL at all, and a
 * Content-Security-Policy of default-src 'none', so the file opens offline and can fetch
 * nothing even if a DUT's text tried to make it. The only links are to the report's own
 * anchors and to the per-case pcaps beside it. Every string that a DUT or a case file may have
 * shaped goes through esc() (invalid UTF-8 repaired, & < > " ' escaped, control characters
 * shown as \xNN), in attributes as in text.
 *
 * Sections, each with a fixed id a test (or a reader's bookmark) can find: #summary (by spec
 * and by requirement family), #baseline (when --expect compared), #provenance, #coverage (the
 * wire-observable MUSTs of requirements.md and the cases that cite them, or why none does),
 * #cases (one <details> per case, id "case-<slug>"), and #incomplete, a banner, when the run
 * was interrupted.
 */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "atomic_file.h"
#include "iw_field_span.h"
#include "report_text.h"
#include "req_catalog.h"

#define FIELD(s) (s), strnlen((s), sizeof(s))

/* Octets of one wire entry shown as hex; the rest is in results.json and the pcap. */
#define HTML_HEX_MAX 2048

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

typedef struct hctx {
	iw_atomic_file *af;
	const iw_run *run;
	const iw_html_opts *o;
	bool multi;
} hctx;

/* Any text, escaped for HTML text and attribute values alike. */
static void esc(hctx *h, const char *s, size_t n)
{
	char *x = iw_text_xml(s ? s : "", s ? n : 0, true);
	if (!x) {
		iw_atomic_fail(h->af, "out of memory while escaping HTML");
		return;
	}
	iw_atomic_puts(h->af, x);
	free(x);
}

static void esc_s(hctx *h, const char *s) { esc(h, s, s ? strlen(s) : 0); }

static void out(hctx *h, const char *s) { iw_atomic_puts(h->af, s); }

static enum iw_verdict verdict_of(const iw_case_result *r)
{
	return (unsigned)r->verdict < IW_VERDICT_COUNT ? r->verdict : IW_ERROR;
}

static void badge(hctx *h, enum iw_verdict v)
{
	const char *n = iw_verdict_name(v);
	iw_atomic_printf(h->af, "<span class=\"v %s\">%s</span>", n, n);
}

static void case_link(hctx *h, const iw_case_result *r, bool with_badge)
{
	char slug[160];
	iw_report_case_slug(h->run, r, slug, sizeof slug);
	out(h, "<a href=\"#case-");
	esc_s(h, slug);
	out(h, "\">");
	if (with_badge) {
		badge(h, verdict_of(r));
		out(h, " ");
	}
	esc_s(h, slug);
	out(h, "</a>");
}

static void time_text(int64_t ms, char *buf, size_t cap)
{
	if (ms > 0)
		iw_text_time(ms, true, buf, cap);
	else
		snprintf(buf, cap, "-");
}

/* ---- summary ------------------------------------------------------------------------ */

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
		out(h, "<th>wire MUSTs in requirements.md</th><th>cited by a case</th><th>exercised</th>");
	out(h, "<th>cases</th>");
	for (int v = 0; v < IW_VERDICT_COUNT; v++)
		iw_atomic_printf(h->af, "<th>%s</th>", iw_verdict_name((enum iw_verdict)v));
	out(h, "</tr>\n");
}

static void tally_row(hctx *h, const tally *t, bool fam)
{
	out(h, "<tr><td>");
	esc_s(h, t->name);
	out(h, "</td>");
	if (fam)
		iw_atomic_printf(h->af, "<td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>", t->musts,
				 t->covered, t->exercised);
	iw_atomic_printf(h->af, "<td class=\"n\">%zu</td>", t->total);
	for (int v = 0; v < IW_VERDICT_COUNT; v++)
		iw_atomic_printf(h->af, "<td class=\"n\">%s%zu%s</td>", t->n[v] && (v == IW_FAIL || v == IW_ERROR) ? "<b>" : "",
				 t->n[v], t->n[v] && (v == IW_FAIL || v == IW_ERROR) ? "</b>" : "");
	out(h, "</tr>\n");
}

/* Who cites a requirement: counts over the run's results (each case id once per profile). */
typedef struct cite {
	size_t cases, exercised;
} cite;

static cite cites_of(const iw_run *run, const char *req)
{
	cite c = {0, 0};
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
		for (size_t k = 0; k < nreqs; k++)
			if (!strncmp(r->reqs[k].id, req, sizeof r->reqs[k].id)) {
				c.cases++;
				if (verdict_of(r) != IW_SKIP)
					c.exercised++;
				break;
			}
	}
	return c;
}

static void section_summary(hctx *h)
{
	const iw_run *run = h->run;
	size_t n[IW_VERDICT_COUNT];
	iw_run_tally(run, n);
	out(h, "<section id=\"summary\"><h2>Summary</h2>\n<p>");
	for (int v = 0; v < IW_VERDICT_COUNT; v++) {
		badge(h, (enum iw_verdict)v);
		iw_atomic_printf(h->af, " %zu &nbsp; ", n[v]);
	}
	iw_atomic_printf(h->af, "&nbsp; <b>%zu</b> cases%s</p>\n", run->ncases, run->complete ? "" : " (incomplete run)");
	if (n[IW_FAIL] || n[IW_ERROR])
		iw_atomic_printf(h->af, "<p class=\"bad\">Not conformant on this evidence: %zu case%s broke a MUST%s.</p>\n",
				 n[IW_FAIL], n[IW_FAIL] == 1 ? "" : "s",
				 n[IW_ERROR] ? ", and harness or environment errors left cases without a verdict" : "");
	else if (run->complete)
		out(h, "<p class=\"ok\">No case broke a MUST.</p>\n");

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
		t->n[verdict_of(&run->cases[i])]++;
		t->total++;
	}
	out(h, "<h3>By spec</h3>\n");
	tally_head(h, "spec", false);
	for (size_t i = 0; i < specs.n; i++)
		tally_row(h, &specs.t[i], false);
	out(h, "</table>\n");
	free(specs.t);

	/* By requirement family: the catalog's families in its order, then families only cases cite. */
	tallies fams = {0};
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		char f[40];
		tally *t = tally_get(&fams, iw_req_family(iw_req_catalog[i].id, f, sizeof f));
		if (!t)
			break;
		if (iw_req_catalog[i].must && iw_req_catalog[i].wire) {
			cite c = cites_of(run, iw_req_catalog[i].id);
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
			t->n[verdict_of(r)]++;
			t->total++;
		}
	}
	out(h, "<h3>By requirement family</h3>\n<p class=\"dim\">A family is a requirement id without its last part "
	       "(MPA-6.1-R5 is in MPA-6.1). A case counts once in each family it cites. <i>Wire MUSTs</i>: the "
	       "family's MUST and MUST NOT rows observable on the wire (T = W or W*); <i>cited</i>: cited by a case of "
	       "this run; <i>exercised</i>: by a case that ran (not skipped).</p>\n");
	tally_head(h, "family", true);
	for (size_t i = 0; i < fams.n; i++)
		if (fams.t[i].total || fams.t[i].musts)
			tally_row(h, &fams.t[i], true);
	out(h, "</table>\n</section>\n");
	free(fams.t);
}

/* ---- baseline ----------------------------------------------------------------------- */

static void section_baseline(hctx *h)
{
	if (!h->o || !h->o->baseline)
		return;
	out(h, "<section id=\"baseline\"><h2>Baseline</h2>\n<p>Compared with <code>");
	esc_s(h, h->o->baseline);
	out(h, "</code>: ");
	if (!h->o->ndiffs) {
		out(h, "<span class=\"ok\">every result is as the baseline expects.</span></p>\n");
	} else {
		iw_atomic_printf(h->af, "<span class=\"bad\">%zu difference%s</span> (the run fails):</p>\n<ul>\n",
				 h->o->ndiffs, h->o->ndiffs == 1 ? "" : "s");
		for (size_t i = 0; i < h->o->ndiffs; i++) {
			out(h, "<li class=\"mono\">");
			esc_s(h, h->o->diffs[i]);
			out(h, "</li>\n");
		}
		out(h, "</ul>\n");
	}
	out(h, "</section>\n");
}

/* ---- provenance --------------------------------------------------------------------- */

static void kv(hctx *h, const char *k, const char *v, size_t n, bool pre)
{
	iw_atomic_printf(h->af, "<tr><th>%s</th><td>", k);
	out(h, pre ? "<pre>" : "");
	esc(h, v, n);
	out(h, pre ? "</pre>" : "");
	out(h, "</td></tr>\n");
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig ? "a signal" : "";
}

static void section_provenance(hctx *h)
{
	const iw_run *run = h->run;
	char buf[256];
	out(h, "<section id=\"provenance\"><h2>Provenance</h2>\n<table class=\"kv\">\n");
	const char *version = run->tool_version[0] ? run->tool_version : "?";
	snprintf(buf, sizeof buf, "iwspec %.31s, commit %.47s", version, run->git_rev[0] ? run->git_rev : "unknown");
	kv(h, "tool", buf, strlen(buf), false);
	if (run->command[0])
		kv(h, "command", FIELD(run->command), false);
	kv(h, "host", FIELD(run->host), false);
	char t0[40], t1[40];
	time_text(run->start_unix_ms, t0, sizeof t0);
	time_text(run->end_unix_ms, t1, sizeof t1);
	kv(h, "start", t0, strlen(t0), false);
	kv(h, "end", t1, strlen(t1), false);
	if (run->end_unix_ms >= run->start_unix_ms && run->start_unix_ms > 0) {
		snprintf(buf, sizeof buf, "%.3f s", (double)(run->end_unix_ms - run->start_unix_ms) / 1000.0);
		kv(h, "duration", buf, strlen(buf), false);
	}
	if (run->complete)
		snprintf(buf, sizeof buf, "yes");
	else
		snprintf(buf, sizeof buf, "NO: interrupted%s%s after %zu cases", run->stop_signal ? " by " : "",
			 signal_name(run->stop_signal), run->ncases);
	kv(h, "complete", buf, strlen(buf), false);
	kv(h, "DUT", FIELD(run->dut), false);
	if (run->dut_config_source[0])
		kv(h, "DUT configuration file", FIELD(run->dut_config_source), false);
	else
		kv(h, "DUT configuration file", "(none: defaults and flags)", strlen("(none: defaults and flags)"), false);
	if (run->dut_settings[0])
		kv(h, "DUT configuration in effect", FIELD(run->dut_settings), true);
	kv(h, "profile", FIELD(run->profile), false);
	kv(h, "DUT role", FIELD(run->role), false);
	kv(h, "resegmentation", FIELD(run->seg_mode), false);
	snprintf(buf, sizeof buf, "%llu (each case's random choices derive from it and the case id)",
		 (unsigned long long)run->seed);
	kv(h, "seed", buf, strlen(buf), false);
	snprintf(buf, sizeof buf, "%d", run->jobs > 0 ? run->jobs : 1);
	kv(h, "cases at a time", buf, strlen(buf), false);
	if (run->selection[0])
		kv(h, "case selection", FIELD(run->selection), false);
	if (run->vectors_sha256[0]) {
		snprintf(buf, sizeof buf, "%.71s", run->vectors_sha256);
		if (run->nvectors)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " (sha256 over %zu vector files)", run->nvectors);
		kv(h, "vector set", buf, strlen(buf), false);
		if (run->vectors_dir[0])
			kv(h, "vector directory", FIELD(run->vectors_dir), false);
	}
	kv(h, "requirements catalog", iw_req_catalog_source, strlen(iw_req_catalog_source), false);

	/* Disabled cases of the configuration, and the cases they disabled. */
	out(h, "<tr><th>disabled cases</th><td>");
	if (!run->ndisabled)
		out(h, "none");
	for (size_t i = 0; i < run->ndisabled && i < IW_RUN_MAX_DISABLED; i++) {
		out(h, i ? "<br>" : "");
		out(h, "<code>disable = ");
		esc(h, FIELD(run->disabled[i]));
		out(h, "</code>");
	}
	bool any = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		if (verdict_of(r) != IW_SKIP || strncmp(r->reason, "disabled by the DUT configuration", 33))
			continue;
		out(h, any ? ", " : "<br>applied to: ");
		any = true;
		case_link(h, r, false);
	}
	out(h, "</td></tr>\n<tr><th>error-code mappings</th><td>");
	if (!run->nmaps)
		out(h, "none configured");
	for (size_t i = 0; i < run->nmaps && i < IW_RUN_MAX_MAPS; i++) {
		out(h, i ? "<br>" : "");
		out(h, "<code>map = ");
		esc(h, FIELD(run->maps[i]));
		out(h, "</code>");
	}
	any = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nmap = r->nmappings < 4 ? r->nmappings : 4;
		for (size_t k = 0; k < nmap; k++) {
			out(h, any ? "<br>" : "<br>applied:<br>");
			any = true;
			case_link(h, r, false);
			out(h, ": ");
			esc(h, FIELD(r->mappings[k]));
		}
	}
	out(h, "</td></tr>\n</table>\n</section>\n");
}

/* ---- coverage ----------------------------------------------------------------------- */

static void cite_cells(hctx *h, const char *req)
{
	bool any = false;
	for (size_t i = 0; i < h->run->ncases; i++) {
		const iw_case_result *r = &h->run->cases[i];
		size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
		for (size_t k = 0; k < nreqs; k++)
			if (!strncmp(r->reqs[k].id, req, sizeof r->reqs[k].id)) {
				out(h, any ? "<br>" : "");
				any = true;
				case_link(h, r, true);
				break;
			}
	}
}

static void section_coverage(hctx *h)
{
	const iw_run *run = h->run;
	size_t nwire = 0, ncited = 0, nexercised = 0;
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || !q->wire)
			continue;
		cite c = cites_of(run, q->id);
		nwire++;
		ncited += c.cases > 0;
		nexercised += c.exercised > 0;
	}
	out(h, "<section id=\"coverage\"><h2>Requirement coverage</h2>\n");
	iw_atomic_printf(h->af,
			 "<p>Every MUST and MUST NOT of requirements.md that is observable on the wire (testability W, or W* "
			 "with the reflector): <b>%zu</b>. Cited by a case of this run: <b>%zu</b>; exercised by a case that "
			 "ran: <b>%zu</b>. A requirement no case cites shows why: not observable, a reflector feature not "
			 "implemented, control of TCP the harness does not have, or a case not yet written.</p>\n",
			 nwire, ncited, nexercised);
	out(h, "<table id=\"coverage-table\"><tr><th>requirement</th><th>keyword</th><th>T</th><th>requirement "
	       "(paraphrase)</th><th>covered by, or why not</th></tr>\n");
	for (size_t i = 0; i < iw_req_catalog_n && iw_atomic_ok(h->af); i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		if (!q->must || !q->wire)
			continue;
		cite c = cites_of(run, q->id);
		out(h, "<tr id=\"req-");
		esc_s(h, q->id);
		out(h, "\"><td class=\"mono\">");
		esc_s(h, q->id);
		out(h, "</td><td>");
		esc_s(h, q->kw);
		out(h, "</td><td>");
		esc_s(h, q->t);
		out(h, "</td><td>");
		esc_s(h, q->text);
		if (c.cases) {
			out(h, "</td><td class=\"covered\">");
			cite_cells(h, q->id);
		} else {
			out(h, "</td><td class=\"gap\">");
			esc_s(h, q->gap_note);
		}
		out(h, "</td></tr>\n");
	}
	out(h, "</table>\n");

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
		out(h, "<tr><td class=\"mono\">");
		esc_s(h, q->id);
		out(h, "</td><td>");
		esc_s(h, q->kw);
		out(h, "</td><td>");
		esc_s(h, q->t);
		out(h, "</td><td>");
		esc_s(h, q->text);
		out(h, "</td><td class=\"gap\">");
		esc_s(h, q->gap_note);
		out(h, "</td></tr>\n");
	}
	out(h, "</table></details>\n");

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
			out(h, any ? ", " : "<p>Cited by cases but not rows of requirements.md §1 (RFC-era or positions): ");
			any = true;
			out(h, "<code>");
			esc_s(h, id);
			out(h, "</code>");
		}
	}
	if (any)
		out(h, "</p>\n");
	out(h, "</section>\n");
}

/* ---- one case ----------------------------------------------------------------------- */

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Where field appears in a summary as "FIELD=value" (or the bare word): [*b, *e). */
static bool find_field(const char *s, size_t n, const char *field, size_t *b, size_t *e)
{
	size_t fl = strlen(field);
	if (!fl)
		return false;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i + fl <= n; i++) {
			if (i && word_char(s[i - 1]))
				continue;
			if (strncasecmp(s + i, field, fl))
				continue;
			char after = i + fl < n ? s[i + fl] : '\0';
			if (pass == 0 && after != '=')
				continue;
			if (pass == 1 && word_char(after))
				continue;
			size_t j = i + fl;
			if (after == '=')
				while (j < n && s[j] != ' ' && s[j] != ',' && s[j] != ')' && s[j] != ';')
					j++;
			*b = i;
			*e = j;
			return true;
		}
	return false;
}

/* The octets of a field in a wire entry, when its layout is known (iw_field_span.h): startup
 * frames always, an FPDU when no marker sits inside it. */
static bool field_octets(const iw_wire_entry *w, const char *field, size_t *b, size_t *e)
{
	if (!field[0] || !w->bytes || !w->nbytes)
		return false;
	if (!strcmp(w->what, "request") || !strcmp(w->what, "reply"))
		return iw_field_span_frame(w->bytes, w->nbytes, field, b, e);
	if (!strcmp(w->what, "fpdu"))
		return iw_field_span_fpdu(w->bytes, w->nbytes, field, b, e);
	return false;
}

static void hex_dump(hctx *h, const iw_wire_entry *w, bool has_mark, size_t mb, size_t me)
{
	size_t n = w->nbytes > HTML_HEX_MAX ? HTML_HEX_MAX : w->nbytes;
	out(h, "<pre>");
	for (size_t i = 0; i < n; i++) {
		if (i % 16 == 0)
			iw_atomic_printf(h->af, "%s%04zx  ", i ? "\n" : "", i);
		bool in = has_mark && i >= mb && i < me;
		if (in && (i == mb || i % 16 == 0))
			out(h, "<mark>");
		iw_atomic_printf(h->af, "%02x", w->bytes[i]);
		bool last_in_mark = in && (i + 1 == me || i + 1 == n || (i + 1) % 16 == 0);
		if (last_in_mark)
			out(h, "</mark>");
		if (i + 1 < n && (i + 1) % 16)
			out(h, (i + 1) % 8 ? " " : "  ");
	}
	if (w->nbytes > n)
		iw_atomic_printf(h->af, "\n... %zu more octets (all in results.json and the pcap)", w->nbytes - n);
	out(h, "</pre>");
}

static const char *dir_text(enum iw_wire_dir d)
{
	return d == IW_TO_DUT ? "&rarr; DUT" : d == IW_FROM_DUT ? "&larr; DUT" : "note";
}

static void wire_table(hctx *h, const iw_case_result *r, const char *slug, bool blame_on)
{
	iw_atomic_printf(h->af, "<h4>Wire log (%zu event%s", r->nwire, r->nwire == 1 ? "" : "s");
	if (r->wire_dropped)
		iw_atomic_printf(h->af, ", %zu more not kept", r->wire_dropped);
	out(h, ")</h4>\n<table class=\"wire\"><tr><th>#</th><th>ms</th><th>conn</th><th>dir</th><th>what</th>"
	       "<th>decoded</th><th>octets</th></tr>\n");
	char field[40];
	snprintf(field, sizeof field, "%.*s", (int)strnlen(r->fail_field, sizeof r->fail_field), r->fail_field);
	for (size_t k = 0; k < r->nwire && iw_atomic_ok(h->af); k++) {
		const iw_wire_entry *w = &r->wire[k];
		bool blamed = blame_on && r->fail_wire == k + 1;
		if (blamed) {
			out(h, "<tr class=\"blame\" id=\"case-");
			esc_s(h, slug);
			out(h, "-blame\">");
		} else {
			out(h, "<tr>");
		}
		iw_atomic_printf(h->af, "<td class=\"n\">%zu</td><td class=\"n\">%.3f</td><td class=\"n\">%d</td><td>%s</td><td>",
				 k + 1, (double)w->t_us / 1000.0, w->conn, dir_text(w->dir));
		esc(h, FIELD(w->what));
		out(h, "</td><td class=\"mono\">");
		size_t sl = strnlen(w->summary, sizeof w->summary), b = 0, e = 0;
		if (blamed && find_field(w->summary, sl, field, &b, &e)) {
			esc(h, w->summary, b);
			out(h, "<mark>");
			esc(h, w->summary + b, e - b);
			out(h, "</mark>");
			esc(h, w->summary + e, sl - e);
		} else {
			esc(h, w->summary, sl);
		}
		if (blamed)
			out(h, field[0] ? " <span class=\"bad\">&larr; the failure points here</span>"
					: " <span class=\"bad\">&larr; the failure points here (no single field)</span>");
		out(h, "</td><td class=\"oct\">");
		if (w->bytes && w->nbytes) {
			size_t mb = 0, me = 0;
			bool mark = blamed && field_octets(w, field, &mb, &me);
			iw_atomic_printf(h->af, "<details%s><summary>%zu octets</summary>", blamed ? " open" : "", w->nbytes);
			if (mark) {
				iw_atomic_printf(h->af, "<span class=\"dim\">");
				esc_s(h, field);
				iw_atomic_printf(h->af, ": octets %zu..%zu</span>", mb, me - 1);
			}
			hex_dump(h, w, mark, mb, me);
			out(h, "</details>");
		} else {
			out(h, "<span class=\"dim\">-</span>");
		}
		out(h, "</td></tr>\n");
	}
	out(h, "</table>\n");
}

static void one_case(hctx *h, const iw_case_result *r)
{
	enum iw_verdict v = verdict_of(r);
	char slug[160];
	iw_report_case_slug(h->run, r, slug, sizeof slug);
	bool attention = v == IW_FAIL || v == IW_WARN || v == IW_ERROR;
	iw_atomic_printf(h->af, "<details class=\"case v-%s\" id=\"case-", iw_verdict_name(v));
	esc_s(h, slug);
	iw_atomic_printf(h->af, "\"%s><summary>", attention ? " open" : "");
	badge(h, v);
	out(h, " <code>");
	esc(h, FIELD(r->id));
	out(h, "</code> ");
	esc(h, FIELD(r->title));
	out(h, " <span class=\"dim\">(");
	esc(h, FIELD(r->profile));
	iw_atomic_printf(h->af, ", %" PRId64 " ms)</span></summary>\n", r->duration_ms);

	out(h, "<table class=\"kv\">");
	kv(h, "case file", FIELD(r->file), false);
	char buf[128];
	snprintf(buf, sizeof buf, "%.15s, the DUT as %s", r->profile, r->dut_role[0] ? r->dut_role : "-");
	kv(h, "profile, role", buf, strlen(buf), false);
	time_text(r->start_unix_ms, buf, sizeof buf);
	kv(h, "started", buf, strlen(buf), false);
	out(h, "</table>\n");

	/* Requirements, with the catalog's text. */
	out(h, "<h4>Requirements</h4>\n<table><tr><th>requirement</th><th>level (case)</th><th>keyword (catalog)</th>"
	       "<th>T</th><th>requirement (paraphrase)</th></tr>\n");
	size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
	for (size_t k = 0; k < nreqs; k++) {
		char id[40];
		snprintf(id, sizeof id, "%.*s", (int)strnlen(r->reqs[k].id, sizeof r->reqs[k].id), r->reqs[k].id);
		const iw_req_info *q = iw_req_find(id);
		bool failed = (v == IW_FAIL || v == IW_WARN) && !strncmp(id, r->failed_req, sizeof r->failed_req);
		out(h, failed ? "<tr class=\"req-failed\">" : "<tr>");
		out(h, "<td class=\"mono\">");
		esc_s(h, id);
		iw_atomic_printf(h->af, "</td><td>%s</td><td>", iw_text_level(r->reqs[k].level));
		esc_s(h, q ? q->kw : "-");
		out(h, "</td><td>");
		esc_s(h, q ? q->t : "-");
		out(h, "</td><td>");
		esc_s(h, q ? q->text : "(not a row of requirements.md §1)");
		out(h, "</td></tr>\n");
	}
	out(h, "</table>\n");

	out(h, "<h4>Expected</h4>\n");
	if (r->expected[0]) {
		out(h, "<pre>");
		esc(h, FIELD(r->expected));
		out(h, "</pre>\n");
	} else {
		out(h, "<p class=\"dim\">(the case states no expectation, or it did not run)</p>\n");
	}

	out(h, "<h4>Observed</h4>\n<p>");
	badge(h, v);
	out(h, " ");
	if (r->reason[0])
		esc(h, FIELD(r->reason));
	else
		out(h, v == IW_PASS ? "every expectation held" : "");
	out(h, "</p>\n");
	if ((v == IW_FAIL || v == IW_WARN) && r->failed_req[0]) {
		out(h, "<p>Rests on <b class=\"mono\">");
		esc(h, FIELD(r->failed_req));
		out(h, "</b>");
		if (r->fail_wire && r->fail_wire <= r->nwire) {
			iw_atomic_printf(h->af, "; the failure points at <a href=\"#case-");
			esc_s(h, slug);
			iw_atomic_printf(h->af, "-blame\">wire event %zu</a>", r->fail_wire);
			if (r->fail_field[0]) {
				out(h, ", field <mark>");
				esc(h, FIELD(r->fail_field));
				out(h, "</mark>");
			}
		}
		out(h, ".</p>\n");
	}
	size_t nm = r->nmeasures < 8 ? r->nmeasures : 8;
	for (size_t i = 0; i < nm; i++) {
		out(h, "<p>measured <code>");
		esc(h, FIELD(r->measures[i].name));
		if (isfinite(r->measures[i].value))
			iw_atomic_printf(h->af, "</code> = %g ", r->measures[i].value);
		else
			out(h, "</code> = (none) ");
		esc(h, FIELD(r->measures[i].unit));
		out(h, "</p>\n");
	}
	size_t nmap = r->nmappings < 4 ? r->nmappings : 4;
	for (size_t i = 0; i < nmap; i++) {
		out(h, "<p>mapping applied: <code>");
		esc(h, FIELD(r->mappings[i]));
		out(h, "</code></p>\n");
	}
	if (r->dut_finding) {
		out(h, "<p class=\"bad\">DUT finding:</p><pre>");
		esc(h, FIELD(r->dut_finding_text));
		out(h, "</pre>\n");
	}

	if (r->nwire)
		wire_table(h, r, slug, r->failed_req[0] && (v == IW_FAIL || v == IW_WARN || v == IW_INFO));
	else
		out(h, "<h4>Wire log</h4>\n<p class=\"dim\">no event (the case did not open a connection)</p>\n");

	out(h, "<p>Capture: ");
	if (r->ntcp && h->o && h->o->pcap_links) {
		iw_atomic_printf(h->af, "<a href=\"%s/", IW_REPORT_PCAP_DIR);
		esc_s(h, slug);
		iw_atomic_printf(h->af, ".pcap\">%s/", IW_REPORT_PCAP_DIR);
		esc_s(h, slug);
		iw_atomic_printf(h->af, ".pcap</a> <span class=\"dim\">(%zu octets in %zu chunks%s)</span>", r->tcp_octets,
				 r->ntcp, r->tcp_cut ? "; cut at the capture limit" : "");
	} else if (r->ntcp) {
		out(h, "<span class=\"dim\">not written (run with --pcap)</span>");
	} else {
		out(h, "<span class=\"dim\">none (no connection)</span>");
	}
	out(h, "</p>\n</details>\n");
}

static void section_cases(hctx *h)
{
	out(h, "<section id=\"cases\"><h2>Cases</h2>\n<p class=\"dim\">FAIL, WARN and ERROR cases are open; click a "
	       "case to open or close it. Octets sent to the DUT are marked &rarr;, octets it sent &larr;.</p>\n");
	for (size_t i = 0; i < h->run->ncases && iw_atomic_ok(h->af); i++)
		one_case(h, &h->run->cases[i]);
	out(h, "</section>\n");
}

int iw_report_html(const iw_run *run, const iw_html_opts *o, const char *path, iw_err *e)
{
	if (!run)
		return iw_errf(e, -1, "cannot write '%s': no run", path ? path : "");
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	hctx h = {.af = af, .run = run, .o = o, .multi = !strcmp(run->profile, "all")};
	out(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>iwspec report: ");
	esc(&h, FIELD(run->dut));
	out(&h, run->complete ? "" : " (INCOMPLETE)");
	out(&h, "</title>\n<style>\n");
	out(&h, CSS);
	out(&h, "</style>\n</head>\n<body>\n<header id=\"top\"><h1>iwspec conformance report</h1>\n<p>DUT <code>");
	esc(&h, FIELD(run->dut));
	out(&h, "</code>, profile <code>");
	esc(&h, FIELD(run->profile));
	char t0[40];
	time_text(run->start_unix_ms, t0, sizeof t0);
	out(&h, "</code>, started ");
	esc_s(&h, t0);
	out(&h, " on ");
	esc(&h, FIELD(run->host));
	out(&h, "</p></header>\n");
	if (!run->complete) {
		iw_atomic_printf(af, "<div id=\"incomplete\" class=\"banner\">INCOMPLETE: the run was interrupted%s%s after "
				     "%zu case%s. The results below are partial: cases after the interruption did not run.</div>\n",
				 run->stop_signal ? " by " : "", signal_name(run->stop_signal), run->ncases,
				 run->ncases == 1 ? "" : "s");
	}
	out(&h, "<nav><a href=\"#summary\">Summary</a>");
	if (o && o->baseline)
		out(&h, "<a href=\"#baseline\">Baseline</a>");
	out(&h, "<a href=\"#provenance\">Provenance</a><a href=\"#coverage\">Coverage</a><a href=\"#cases\">Cases</a>"
		"</nav>\n");
	section_summary(&h);
	section_baseline(&h);
	section_provenance(&h);
	section_coverage(&h);
	section_cases(&h);
	out(&h, "<footer><p class=\"dim\">Written by iwspec. results.json holds the same run with every octet; "
		"junit.xml is for CI dashboards; docs/reports.md describes all three.</p></footer>\n</body>\n</html>\n");
	return iw_atomic_commit(af, e);
}
