/*
 * report_junit.c - junit.xml for CI dashboards (format in docs/reports.md).
 *
 * JUnit knows pass, failure, error and skipped. FAIL maps to <failure>, ERROR to <error>,
 * SKIP to <skipped>; WARN and INFO count as passed (a SHOULD or a measurement must not turn
 * a CI job red) but carry their reason in <system-out>, so a dashboard still shows them.
 * Hand-written XML: every string passes through iw_text_xml, since reasons and wire
 * summaries quote what the DUT sent.
 */
#include "report.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report_text.h"
#include "req_catalog.h"

#define FIELD(s) (s), strnlen((s), sizeof(s))

static void x_esc(iw_atomic_file *af, const char *s, size_t n, bool attr)
{
	char *x = iw_text_xml(s, n, attr);
	if (!x) {
		iw_atomic_fail(af, "out of memory while escaping XML");
		return;
	}
	iw_atomic_puts(af, x);
	free(x);
}

static void x_text(iw_atomic_file *af, const char *s)
{
	x_esc(af, s, strlen(s), false);
}

/* ` name="value"` */
static void x_attr(iw_atomic_file *af, const char *name, const char *s, size_t n)
{
	iw_atomic_printf(af, " %s=\"", name);
	x_esc(af, s, n, true);
	iw_atomic_puts(af, "\"");
}

static void x_prop(iw_atomic_file *af, const char *name, const char *s, size_t n)
{
	iw_atomic_puts(af, "      <property");
	x_attr(af, "name", name, strlen(name));
	x_attr(af, "value", s, n);
	iw_atomic_puts(af, "/>\n");
}

static enum iw_verdict verdict_of(const iw_case_result *r)
{
	return (unsigned)r->verdict < IW_VERDICT_COUNT ? r->verdict : IW_ERROR;
}

/* "iwspec.<first two components of the id>", so dashboards group cases by spec and section. */
static void x_classname(iw_atomic_file *af, const iw_case_result *r)
{
	size_t n = strnlen(r->id, sizeof r->id);
	const char *dot = memchr(r->id, '.', n);
	if (dot) {
		const char *dot2 = memchr(dot + 1, '.', n - (size_t)(dot + 1 - r->id));
		if (dot2)
			n = (size_t)(dot2 - r->id);
	}
	iw_atomic_puts(af, " classname=\"iwspec");
	if (n) {
		iw_atomic_puts(af, ".");
		x_esc(af, r->id, n, true);
	}
	iw_atomic_puts(af, "\"");
}

static const char *dir_arrow(enum iw_wire_dir d)
{
	return d == IW_TO_DUT ? "->" : d == IW_FROM_DUT ? "<-" : "--";
}

/* The plain-text story of a case: what it rests on, why, and what went over the wire. The
 * caller escapes nothing: everything goes through x_text. */
static void x_details(iw_atomic_file *af, const iw_case_result *r, bool with_wire)
{
	char line[512];
	snprintf(line, sizeof line, "verdict: %s\n", iw_verdict_name(verdict_of(r)));
	x_text(af, line);
	if (r->title[0]) {
		x_text(af, "title: ");
		x_esc(af, FIELD(r->title), false);
		x_text(af, "\n");
	}
	if (r->failed_req[0]) {
		x_text(af, "requirement: ");
		x_esc(af, FIELD(r->failed_req), false);
		x_text(af, "\n");
	}
	size_t nreqs = r->nreqs < IW_CASE_MAX_REQS ? r->nreqs : IW_CASE_MAX_REQS;
	if (nreqs) {
		x_text(af, "requirements:");
		for (size_t i = 0; i < nreqs; i++) {
			x_text(af, i ? ", " : " ");
			x_esc(af, FIELD(r->reqs[i].id), false);
			snprintf(line, sizeof line, " (%s)", iw_text_level(r->reqs[i].level));
			x_text(af, line);
		}
		x_text(af, "\n");
	}
	if (r->reason[0]) {
		x_text(af, "reason: ");
		x_esc(af, FIELD(r->reason), false);
		x_text(af, "\n");
	}
	size_t nm = r->nmeasures < 8 ? r->nmeasures : 8;
	for (size_t i = 0; i < nm; i++) {
		char mv[64];
		iw_measure_text(&r->measures[i], -1, mv, sizeof mv);
		x_text(af, "measure: ");
		x_esc(af, FIELD(r->measures[i].name), false);
		x_text(af, " = ");
		x_esc(af, FIELD(mv), false);
		x_text(af, "\n");
	}
	size_t nmap = r->nmappings < 4 ? r->nmappings : 4;
	for (size_t i = 0; i < nmap; i++) {
		x_text(af, "mapping: ");
		x_esc(af, FIELD(r->mappings[i]), false);
		x_text(af, "\n");
	}
	if (!with_wire || !r->nwire)
		return;
	snprintf(line, sizeof line, "wire (%zu events", r->nwire);
	x_text(af, line);
	if (r->wire_dropped) {
		snprintf(line, sizeof line, ", %zu more not kept", r->wire_dropped);
		x_text(af, line);
	}
	x_text(af, "; octets in results.json):\n");
	for (size_t k = 0; k < r->nwire && iw_atomic_ok(af); k++) {
		const iw_wire_entry *w = &r->wire[k];
		snprintf(line, sizeof line, "  %10.3f ms  c%d %s ", (double)w->t_us / 1000.0, w->conn,
			 dir_arrow(w->dir));
		x_text(af, line);
		x_esc(af, FIELD(w->what), false);
		size_t wl = strnlen(w->what, sizeof w->what);
		x_text(af, wl < 8 ? &"        "[wl] : " ");
		x_text(af, " ");
		x_esc(af, FIELD(w->summary), false);
		if (w->nbytes) {
			snprintf(line, sizeof line, " [%zu octets]", w->nbytes);
			x_text(af, line);
		}
		x_text(af, "\n");
	}
}

static void x_case(iw_atomic_file *af, const iw_case_result *r)
{
	enum iw_verdict v = verdict_of(r);
	iw_atomic_puts(af, "    <testcase");
	x_classname(af, r);
	x_attr(af, "name", FIELD(r->id));
	iw_atomic_printf(af, " time=\"%.3f\"", (double)(r->duration_ms > 0 ? r->duration_ms : 0) / 1000.0);
	if (r->file[0])
		x_attr(af, "file", FIELD(r->file));
	bool out = v == IW_WARN || v == IW_INFO || (v == IW_PASS && (r->nmeasures || r->nmappings));
	if (v == IW_PASS && !out && !r->dut_finding) {
		iw_atomic_puts(af, "/>\n");
		return;
	}
	iw_atomic_puts(af, ">\n");
	switch (v) {
	case IW_FAIL:
	case IW_ERROR: {
		const char *el = v == IW_FAIL ? "failure" : "error";
		iw_atomic_printf(af, "      <%s", el);
		x_attr(af, "message", FIELD(r->reason));
		iw_atomic_printf(af, " type=\"%s\">", iw_verdict_name(v));
		x_details(af, r, true);
		iw_atomic_printf(af, "</%s>\n", el);
		break;
	}
	case IW_SKIP:
		iw_atomic_puts(af, "      <skipped");
		x_attr(af, "message", FIELD(r->reason));
		iw_atomic_puts(af, "/>\n");
		break;
	case IW_WARN:
	case IW_INFO:
	case IW_PASS:
	default:
		if (out) {
			iw_atomic_puts(af, "      <system-out>");
			x_details(af, r, false);
			iw_atomic_puts(af, "</system-out>\n");
		}
		break;
	}
	if (r->dut_finding) {
		iw_atomic_puts(af, "      <system-err>");
		x_text(af, "DUT finding: ");
		x_esc(af, FIELD(r->dut_finding_text), false);
		x_text(af, "\n");
		iw_atomic_puts(af, "</system-err>\n");
	}
	iw_atomic_puts(af, "    </testcase>\n");
}

static void x_properties(iw_atomic_file *af, const iw_run *run, const size_t *n)
{
	char t[48];
	iw_atomic_puts(af, "    <properties>\n");
	const char *version = run->tool_version;
#ifdef IWSPEC_VERSION
	if (!version[0])
		version = IWSPEC_VERSION;
#endif
	x_prop(af, "iwspec.version", version, strnlen(version, sizeof run->tool_version));
	x_prop(af, "iwspec.git_rev", FIELD(run->git_rev));
	x_prop(af, "dut", FIELD(run->dut));
	x_prop(af, "dut_config_source", FIELD(run->dut_config_source));
	x_prop(af, "profile", FIELD(run->profile));
	x_prop(af, "role", FIELD(run->role));
	x_prop(af, "host", FIELD(run->host));
	x_prop(af, "seg_mode", FIELD(run->seg_mode));
	snprintf(t, sizeof t, "%llu", (unsigned long long)run->seed);
	x_prop(af, "seed", t, strlen(t));
	iw_text_time(run->start_unix_ms, true, t, sizeof t);
	x_prop(af, "start", t, strlen(t));
	iw_text_time(run->end_unix_ms, true, t, sizeof t);
	x_prop(af, "end", t, strlen(t));
	x_prop(af, "complete", run->complete ? "true" : "false", run->complete ? 4 : 5);
	if (run->stop_signal) {
		const char *sig = run->stop_signal == SIGINT ? "SIGINT" : run->stop_signal == SIGTERM ? "SIGTERM" : "signal";
		x_prop(af, "interrupted_by", sig, strlen(sig));
	}
	x_prop(af, "command", FIELD(run->command));
	x_prop(af, "selection", FIELD(run->selection));
	x_prop(af, "vectors.sha256", run->vectors_sha256[0] ? run->vectors_sha256 : "none",
	       run->vectors_sha256[0] ? strnlen(run->vectors_sha256, sizeof run->vectors_sha256) : 4);
	x_prop(af, "requirements_catalog", iw_req_catalog_source, strlen(iw_req_catalog_source));
	x_prop(af, "dut_settings", FIELD(run->dut_settings));
	for (size_t i = 0; i < run->ndisabled && i < IW_RUN_MAX_DISABLED; i++)
		x_prop(af, "dut.disable", FIELD(run->disabled[i]));
	for (size_t i = 0; i < run->nmaps && i < IW_RUN_MAX_MAPS; i++)
		x_prop(af, "dut.map", FIELD(run->maps[i]));
	/* JUnit has no WARN or INFO: keep their counts visible here. */
	static const char *const names[IW_VERDICT_COUNT] = {
		"count.pass", "count.fail", "count.warn", "count.info", "count.skip", "count.error",
	};
	for (int v = 0; v < IW_VERDICT_COUNT; v++) {
		snprintf(t, sizeof t, "%zu", n[v]);
		x_prop(af, names[v], t, strlen(t));
	}
	iw_atomic_puts(af, "    </properties>\n");
}

int iw_report_junit(const iw_run *run, const char *path, iw_err *e)
{
	if (!run)
		return iw_errf(e, -1, "cannot write '%s': no run", path ? path : "");
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	size_t n[IW_VERDICT_COUNT];
	iw_run_tally(run, n);
	int64_t ms = run->end_unix_ms - run->start_unix_ms;
	if (run->end_unix_ms <= 0 || ms < 0) {
		ms = 0;
		for (size_t i = 0; i < run->ncases; i++)
			ms += run->cases[i].duration_ms > 0 ? run->cases[i].duration_ms : 0;
	}
	char counts[160];
	snprintf(counts, sizeof counts, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"",
		 run->ncases + !run->complete, n[IW_FAIL], n[IW_ERROR] + !run->complete, n[IW_SKIP], (double)ms / 1000.0);
	char ts[40];
	iw_text_time(run->start_unix_ms, false, ts, sizeof ts);

	iw_atomic_puts(af, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	iw_atomic_printf(af, "<testsuites name=\"iwspec\"%s>\n", counts);
	iw_atomic_printf(af, "  <testsuite name=\"iwspec\"%s timestamp=\"%s\"", counts, ts);
	if (run->host[0])
		x_attr(af, "hostname", FIELD(run->host));
	iw_atomic_puts(af, ">\n");
	x_properties(af, run, n);
	for (size_t i = 0; i < run->ncases && iw_atomic_ok(af); i++)
		x_case(af, &run->cases[i]);
	/* An incomplete run says so where a dashboard looks: one error of its own. */
	if (!run->complete) {
		char why[600];
		iw_run_incomplete_text(run, why, sizeof why);
		iw_atomic_puts(af, "    <testcase classname=\"iwspec.run\" name=\"run-complete\" time=\"0\">\n"
				   "      <error message=\"INCOMPLETE: the run was ");
		x_esc(af, why, strlen(why), true);
		iw_atomic_puts(af, "\" type=\"INCOMPLETE\">the cases after that did not run</error>\n    </testcase>\n");
	}
	iw_atomic_puts(af, "  </testsuite>\n</testsuites>\n");
	return iw_atomic_commit(af, e);
}
