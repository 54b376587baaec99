/*
 * report_console.c - the progress line while a run goes, and the summary at its end.
 *
 * Every string a DUT may have influenced goes through iw_text_console first: a reason that
 * quotes a DUT's private data must not be able to move the cursor or retitle the terminal.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "findings.h"
#include "report_text.h"
#include "req_catalog.h"

#define FIELD(s) (s), strnlen((s), sizeof(s))

static enum iw_verdict verdict_of(const iw_case_result *r)
{
	return (unsigned)r->verdict < IW_VERDICT_COUNT ? r->verdict : IW_ERROR;
}

static bool use_color(bool tty)
{
	const char *nc = getenv("NO_COLOR");
	return tty && !(nc && *nc);
}

static const char *color_of(enum iw_verdict v)
{
	switch (v) {
	case IW_PASS: return "\033[32m";
	case IW_FAIL: return "\033[1;31m";
	case IW_WARN: return "\033[33m";
	case IW_INFO: return "\033[36m";
	case IW_SKIP: return "\033[2m";
	case IW_ERROR: return "\033[1;35m";
	default: return "";
	}
}

/* Prints s made inert; on memory exhaustion prints a placeholder rather than the raw text. */
static void put_safe(FILE *f, const char *s, size_t n)
{
	char *t = iw_text_console(s, n);
	fputs(t ? t : "(text not shown: out of memory)", f);
	free(t);
}

/* As put_safe, with every line after the first indented by `indent` spaces. */
static void put_safe_indented(FILE *f, const char *s, size_t n, int indent)
{
	char *t = iw_text_console(s, n);
	if (!t) {
		fputs("(text not shown: out of memory)", f);
		return;
	}
	for (const char *p = t; *p; p++) {
		fputc(*p, f);
		if (*p == '\n' && p[1])
			fprintf(f, "%*s", indent, "");
	}
	free(t);
}

static int term_width(FILE *f)
{
	struct winsize ws;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

static int digits(size_t n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

void iw_console_progress(FILE *f, bool tty, size_t i, size_t n, const iw_case_result *r)
{
	if (!f || !r)
		return;
	enum iw_verdict v = verdict_of(r);
	int w = digits(n > i ? n : i);
	char head[64];
	snprintf(head, sizeof head, "[%*zu/%zu] ", w, i, n);
	char *id = iw_text_console(FIELD(r->id));
	char tail[48];
	snprintf(tail, sizeof tail, "  (%lld ms)", (long long)r->duration_ms);
	const char *vn = iw_verdict_name(v);
	if (!tty) {
		fprintf(f, "%s%-5s %s%s\n", head, vn, id ? id : "?", tail);
		free(id);
		fflush(f);
		return;
	}
	bool color = use_color(tty);
	/* A live line that wraps cannot be rewritten with \r: cut the id to the width. */
	int room = term_width(f) - 1 - (int)strlen(head) - 6 - (int)strlen(tail);
	int idlen = id ? (int)strlen(id) : 1;
	fputs("\r\033[K", f);
	fputs(head, f);
	fprintf(f, "%s%-5s%s ", color ? color_of(v) : "", vn, color ? "\033[0m" : "");
	if (room < 4)
		room = 4;
	if (idlen > room) {
		/* Keep the end of the id: it is the part that tells cases of a family apart. */
		const char *s = id ? id : "?";
		size_t cut = (size_t)(idlen - (room - 3));
		while (cut < (size_t)idlen && ((unsigned char)s[cut] & 0xC0) == 0x80)
			cut++;
		fprintf(f, "...%s", s + cut);
	} else {
		fputs(id ? id : "?", f);
	}
	fputs(tail, f);
	free(id);
	/* Cases that need attention stay on screen; the others are overwritten by the next. */
	if (v == IW_FAIL || v == IW_WARN || v == IW_ERROR || i >= n)
		fputc('\n', f);
	fflush(f);
}

void iw_console_progress_end(FILE *f, bool tty)
{
	if (f && tty) {
		fputs("\r\033[K", f);
		fflush(f);
	}
}

static void summary_case(FILE *f, const iw_case_result *r)
{
	enum iw_verdict v = verdict_of(r);
	fprintf(f, "  %-5s ", iw_verdict_name(v));
	put_safe(f, FIELD(r->id));
	if (r->failed_req[0]) {
		char id[40], where[200];
		snprintf(id, sizeof id, "%.*s", (int)strnlen(r->failed_req, sizeof r->failed_req), r->failed_req);
		fputs("  [", f);
		put_safe(f, FIELD(r->failed_req));
		if (iw_req_where(id, where, sizeof where)[0]) {
			fputs(": ", f);
			fputs(where, f);
		}
		fputs("]", f);
	}
	fputc('\n', f);
	if (r->reason[0]) {
		fputs("        ", f);
		put_safe_indented(f, FIELD(r->reason), 8);
		fputc('\n', f);
	}
	if (r->wire_dropped)
		fprintf(f, "        (wire log cut: %zu events not kept)\n", r->wire_dropped);
}

/* The FAILs and WARNs grouped by what broke (findings.h): a line per group with its count,
 * requirement and signature, then its first cases. */
static void summary_findings(FILE *f, const iw_run *run)
{
	iw_findings fs;
	iw_err e = { "" };
	if (iw_findings_group(run, &fs, &e) != 0 || !fs.n) {
		iw_findings_free(&fs);
		return;
	}
	size_t ncases = 0;
	for (size_t i = 0; i < fs.n; i++)
		ncases += fs.g[i].ncases;
	fprintf(f, "\n  findings: %zu case%s FAIL or WARN in %zu group%s (the same DUT behaviour)\n",
		ncases, ncases == 1 ? "" : "s", fs.n, fs.n == 1 ? "" : "s");
	for (size_t i = 0; i < fs.n; i++) {
		const iw_finding *g = &fs.g[i];
		fprintf(f, "  %4zu %-4s ", g->ncases, iw_verdict_name(g->verdict));
		put_safe(f, g->signature, strlen(g->signature));
		fputs("\n        [", f);
		for (size_t k = 0; k < g->nreqs; k++)
			fprintf(f, "%s%s", k ? ", " : "", g->reqs[k]);
		fputs(g->reqs_cut ? ", ...] " : "] ", f);
		for (size_t k = 0; k < g->ncases && k < 3; k++) {
			if (k)
				fputs(", ", f);
			put_safe(f, FIELD(run->cases[g->cases[k]].id));
		}
		if (g->ncases > 3)
			fprintf(f, " (+%zu more)", g->ncases - 3);
		fputc('\n', f);
	}
	iw_findings_free(&fs);
}

void iw_console_summary(FILE *f, const iw_run *run, const char *report_dir)
{
	if (!f || !run)
		return;
	size_t n[IW_VERDICT_COUNT];
	iw_run_tally(run, n);

	fputs("\niwspec", f);
	if (run->tool_version[0]) {
		fputc(' ', f);
		put_safe(f, FIELD(run->tool_version));
	}
	if (run->git_rev[0]) {
		fputs(" (", f);
		put_safe(f, FIELD(run->git_rev));
		fputc(')', f);
	}
	if (run->dut[0]) {
		fputs(" against ", f);
		put_safe(f, FIELD(run->dut));
	}
	fputc('\n', f);
	fputs("  profile ", f);
	put_safe(f, run->profile[0] ? run->profile : "-", run->profile[0] ? strnlen(run->profile, sizeof run->profile) : 1);
	fputs(", DUT role ", f);
	put_safe(f, run->role[0] ? run->role : "-", run->role[0] ? strnlen(run->role, sizeof run->role) : 1);
	if (run->seg_mode[0]) {
		fputs(", segmentation ", f);
		put_safe(f, FIELD(run->seg_mode));
	}
	if (run->framing[0]) {
		fputs(", ", f);
		put_safe(f, FIELD(run->framing));
	}
	fprintf(f, ", seed %llu", (unsigned long long)run->seed);
	if (run->jobs > 1)
		fprintf(f, ", %d cases at a time", run->jobs);
	fputc('\n', f);
	if (run->end_unix_ms > run->start_unix_ms && run->start_unix_ms > 0)
		fprintf(f, "  %zu cases in %.3f s%s\n", run->ncases,
			(double)(run->end_unix_ms - run->start_unix_ms) / 1000.0,
			run->complete ? "" : run->stopped[0] ? " (stopped: the run is incomplete)" : " (interrupted: the run is incomplete)");
	else
		fprintf(f, "  %zu cases%s\n", run->ncases, run->complete ? "" : run->stopped[0] ? " (stopped: the run is incomplete)" : " (interrupted: the run is incomplete)");

	fputs("\n  verdict  cases\n", f);
	for (int v = 0; v < IW_VERDICT_COUNT; v++)
		fprintf(f, "  %-7s %6zu\n", iw_verdict_name((enum iw_verdict)v), n[v]);
	fprintf(f, "  %-7s %6zu\n", "total", run->ncases);
	summary_findings(f, run);

	/* Most serious first: what broke a MUST, what broke the harness, then the SHOULDs. */
	static const enum iw_verdict order[] = { IW_FAIL, IW_ERROR, IW_WARN };
	for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
		if (!n[order[o]])
			continue;
		fputc('\n', f);
		for (size_t i = 0; i < run->ncases; i++)
			if (verdict_of(&run->cases[i]) == order[o])
				summary_case(f, &run->cases[i]);
	}

	/* A mapped error code passed only because the DUT configuration tolerates it: a lab must
	 * see the difference between conformance and a tolerated deviation. */
	bool mapped = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		for (size_t k = 0; k < r->nmappings && k < 4; k++) {
			if (!mapped)
				fputs("\n  Error-code mappings applied (tolerated deviations, not conformance):\n", f);
			mapped = true;
			fputs("  ", f);
			put_safe(f, FIELD(r->id));
			fputs(" (", f);
			put_safe(f, FIELD(r->profile));
			fputs("): ", f);
			put_safe(f, FIELD(r->mappings[k]));
			fputc('\n', f);
		}
	}

	bool header = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		if (!r->dut_finding)
			continue;
		if (!header)
			fputs("\n  DUT findings (the DUT process crashed or exited non-zero):\n", f);
		header = true;
		fputs("  ", f);
		put_safe(f, FIELD(r->id));
		fputs(": ", f);
		put_safe_indented(f, FIELD(r->dut_finding_text), 4);
		fputc('\n', f);
	}

	fputc('\n', f);
	if (report_dir && *report_dir) {
		fputs("  reports: ", f);
		put_safe(f, report_dir, strlen(report_dir));
		fprintf(f, "/%s, ", IW_REPORT_JSON_NAME);
		put_safe(f, report_dir, strlen(report_dir));
		fprintf(f, "/%s\n", IW_REPORT_JUNIT_NAME);
	} else {
		fputs("  reports: none written\n", f);
	}
	fflush(f);
}
