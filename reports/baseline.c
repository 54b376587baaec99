/*
 * baseline.c - expected verdicts: parse, compare with a run, write (baseline.h).
 */
#include "baseline.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report_text.h"

#define FIELD(s) (s), strnlen((s), sizeof(s))
#define BASELINE_MAX_FILE (16u << 20)

static int verdict_parse(const char *s, size_t n, enum iw_verdict *v)
{
	for (int i = 0; i < IW_VERDICT_COUNT; i++) {
		const char *name = iw_verdict_name((enum iw_verdict)i);
		if (strlen(name) == n && !memcmp(name, s, n)) {
			*v = (enum iw_verdict)i;
			return 0;
		}
	}
	return -1;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *word_end(const char *p, const char *end)
{
	while (p < end && *p != ' ' && *p != '\t' && *p != ':')
		p++;
	return p;
}

void iw_baseline_free(iw_baseline *b)
{
	if (!b)
		return;
	free(b->e);
	b->e = NULL;
	b->n = b->cap = 0;
}

static int parse_line(iw_baseline *b, const char *p, const char *end, int line, iw_err *e)
{
	p = skip_ws(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (p == end || *p == '#')
		return 0;
	iw_baseline_entry x;
	memset(&x, 0, sizeof x);
	x.line = line;
	const char *we = word_end(p, end);
	const char *at = memchr(p, '@', (size_t)(we - p));
	const char *id_end = at ? at : we;
	if (id_end == p)
		return iw_errf(e, IW_EINVAL, "%s:%d: a line starts with a case id", b->name, line);
	if ((size_t)(id_end - p) >= sizeof x.id)
		return iw_errf(e, IW_EINVAL, "%s:%d: case id longer than %zu characters", b->name, line, sizeof x.id - 1);
	memcpy(x.id, p, (size_t)(id_end - p));
	if (at) {
		if (we - at - 1 <= 0 || (size_t)(we - at - 1) >= sizeof x.profile)
			return iw_errf(e, IW_EINVAL, "%s:%d: bad profile after '@' in '%.*s'", b->name, line, (int)(we - p), p);
		memcpy(x.profile, at + 1, (size_t)(we - at - 1));
	}
	p = skip_ws(we, end);
	const char *ve = word_end(p, end);
	if (ve == p)
		return iw_errf(e, IW_EINVAL, "%s:%d: '%s' has no verdict; write CASE-ID VERDICT [: reason]", b->name, line,
			       x.id);
	/* VERDICT or VERDICT|VERDICT...: a DUT whose bug shows on some runs only (a race) is
	 * pinned to the verdicts it gives, the first being the one to report. */
	for (const char *v = p; v < ve;) {
		const char *bar = memchr(v, '|', (size_t)(ve - v));
		const char *vend = bar ? bar : ve;
		enum iw_verdict one;
		if (verdict_parse(v, (size_t)(vend - v), &one))
			return iw_errf(e, IW_EINVAL, "%s:%d: unknown verdict '%.*s'; use PASS, FAIL, WARN, INFO, SKIP or "
				       "ERROR, or several joined by '|'", b->name, line, (int)(vend - v), v);
		if (!x.accept)
			x.verdict = one;
		x.accept |= 1u << one;
		v = bar ? bar + 1 : ve;
	}
	if ((size_t)(ve - p) >= sizeof x.verdicts)
		return iw_errf(e, IW_EINVAL, "%s:%d: too many verdicts in '%.*s'", b->name, line, (int)(ve - p), p);
	memcpy(x.verdicts, p, (size_t)(ve - p));
	p = skip_ws(ve, end);
	if (p < end) {
		if (*p != ':')
			return iw_errf(e, IW_EINVAL, "%s:%d: expected ': reason' after the verdict, found '%.*s'", b->name,
				       line, (int)(end - p), p);
		p = skip_ws(p + 1, end);
		snprintf(x.note, sizeof x.note, "%.*s", (int)(end - p), p);
		/* "VERDICT:" with nothing after it leaves p at end: no reason, nothing to read. */
		if (p < end && *p == '[') {
			const char *close = memchr(p, ']', (size_t)(end - p));
			if (!close || close - p - 1 <= 0 || (size_t)(close - p - 1) >= sizeof x.req)
				return iw_errf(e, IW_EINVAL, "%s:%d: a pinned requirement is written [REQ-ID]", b->name, line);
			memcpy(x.req, p + 1, (size_t)(close - p - 1));
			p = skip_ws(close + 1, end);
		}
		if (p < end && *p == '{') {
			const char *close = memchr(p, '}', (size_t)(end - p));
			if (!close || close - p - 1 <= 0 || (size_t)(close - p - 1) >= sizeof x.outcomes)
				return iw_errf(e, IW_EINVAL, "%s:%d: a pinned outcome is written {OUTCOME} or "
					       "{OUTCOME|OUTCOME}, at most %zu characters", b->name, line,
					       sizeof x.outcomes - 1);
			memcpy(x.outcomes, p + 1, (size_t)(close - p - 1));
		}
	}
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->e[i].id, x.id) && !strcmp(b->e[i].profile, x.profile))
			return iw_errf(e, IW_EINVAL, "%s:%d: %s%s%s is already listed on line %d", b->name, line, x.id,
				       x.profile[0] ? "@" : "", x.profile, b->e[i].line);
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		iw_baseline_entry *ne = realloc(b->e, cap * sizeof *ne);
		if (!ne)
			return iw_errf(e, IW_ENOSPC, "%s: out of memory", b->name);
		b->e = ne;
		b->cap = cap;
	}
	b->e[b->n++] = x;
	return 0;
}

int iw_baseline_parse(iw_baseline *b, const char *text, size_t len, const char *name, iw_err *e)
{
	memset(b, 0, sizeof *b);
	snprintf(b->name, sizeof b->name, "%s", name ? name : "baseline");
	const char *p = text, *end = text + len;
	int line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		if (memchr(p, '\0', (size_t)(le - p))) {
			iw_baseline_free(b);
			return iw_errf(e, IW_EINVAL, "%s:%d: a NUL octet: not a text file", b->name, line);
		}
		if (parse_line(b, p, le, line, e)) {
			iw_baseline_free(b);
			return IW_EINVAL;
		}
		p = nl ? nl + 1 : end;
	}
	return IW_OK;
}

int iw_baseline_load(iw_baseline *b, const char *path, iw_err *e)
{
	memset(b, 0, sizeof *b);
	FILE *f = fopen(path, "rb");
	if (!f)
		return iw_errf(e, IW_EINVAL, "cannot open the baseline '%s': %s", path, strerror(errno));
	char *buf = malloc(BASELINE_MAX_FILE + 1);
	size_t n = buf ? fread(buf, 1, BASELINE_MAX_FILE + 1, f) : 0;
	bool err = ferror(f);
	fclose(f);
	if (!buf)
		return iw_errf(e, IW_ENOSPC, "cannot read the baseline '%s': out of memory", path);
	if (err || n > BASELINE_MAX_FILE) {
		free(buf);
		return iw_errf(e, IW_EINVAL, "cannot read the baseline '%s': %s", path,
			       err ? "read error" : "larger than 16 MiB");
	}
	int rc = iw_baseline_parse(b, buf, n, path, e);
	free(buf);
	return rc;
}

typedef struct dlist {
	char **d;
	unsigned char *kind;
	size_t n, cap;
	bool oom;
} dlist;

/* A difference line: room for the whole reason (1024) and what is said around it. */
#define DIFF_LINE_MAX 1600

static void add(dlist *l, enum iw_baseline_diff_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(dlist *l, enum iw_baseline_diff_kind kind, const char *fmt, ...)
{
	if (l->oom)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **nd = realloc(l->d, cap * sizeof *nd);
		unsigned char *nk = nd ? realloc(l->kind, cap) : NULL;
		if (!nd || !nk) {
			if (nd)
				l->d = nd;
			l->oom = true;
			return;
		}
		l->d = nd;
		l->kind = nk;
		l->cap = cap;
	}
	char *s = malloc(DIFF_LINE_MAX);
	if (!s) {
		l->oom = true;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, DIFF_LINE_MAX, fmt, ap);
	va_end(ap);
	l->kind[l->n] = (unsigned char)kind;
	l->d[l->n++] = s;
}

void iw_baseline_diffs_free(char **d, size_t n)
{
	if (!d)
		return;
	for (size_t i = 0; i < n; i++)
		free(d[i]);
	free(d);
}

static enum iw_verdict verdict_of(const iw_case_result *r)
{
	return (unsigned)r->verdict < IW_VERDICT_COUNT ? r->verdict : IW_ERROR;
}

/* The result's reason on one line, whole if it fits cap; cut at a word, with "...", if not (a
 * baseline file's note: a reason cut mid-word reads as another, "[requirement MPA-"). */
static void line_reason(const iw_case_result *r, char *buf, size_t cap)
{
	char *u = iw_text_utf8(FIELD(r->reason));
	const char *t = u ? u : "";
	size_t len = strlen(t);
	if (len < cap) {
		memcpy(buf, t, len + 1);
	} else {
		size_t cut = cap > 4 ? cap - 4 : 0;
		while (cut > 0 && t[cut] != ' ')
			cut--;
		memcpy(buf, t, cut);
		snprintf(buf + cut, cap - cut, "...");
	}
	free(u);
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

/* Whether s (at most cap octets) is one of the pins A|B|... */
static bool one_of_pins(const char *pins, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	for (const char *o = pins; *o;) {
		const char *bar = strchr(o, '|');
		size_t len = bar ? (size_t)(bar - o) : strlen(o);
		if (len == n && !memcmp(o, s, n))
			return true;
		o += bar ? len + 1 : len;
	}
	return false;
}

size_t iw_baseline_compare(iw_baseline *b, const iw_run *run, char ***out)
{
	dlist l = {0};
	*out = NULL;
	memset(b->ndiff, 0, sizeof b->ndiff);
	for (size_t i = 0; i < b->n; i++)
		b->e[i].used = false;
	bool multi = !strcmp(run->profile, "all");
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		iw_baseline_entry *exact = NULL, *any = NULL;
		for (size_t k = 0; k < b->n; k++) {
			if (strncmp(b->e[k].id, r->id, sizeof r->id))
				continue;
			if (!b->e[k].profile[0])
				any = &b->e[k];
			else if (!strncmp(b->e[k].profile, r->profile, sizeof r->profile))
				exact = &b->e[k];
		}
		iw_baseline_entry *x = exact ? exact : any;
		char name[96], why[sizeof r->reason];
		snprintf(name, sizeof name, "%.63s%s%.15s", r->id, multi ? "@" : "", multi ? r->profile : "");
		enum iw_verdict v = verdict_of(r);
		line_reason(r, why, sizeof why);
		if (!x) {
			/* A new case that fails is a failure the baseline does not know: worse. */
			bool worse = v == IW_FAIL || v == IW_WARN || v == IW_ERROR;
			add(&l, worse ? IW_DIFF_REGRESSION : IW_DIFF_UNLISTED, "%s: got %s, which the baseline does not list%s%s%s",
			    name, iw_verdict_name(v), worse ? " (a regression)" : "", why[0] ? ": " : "", why);
			continue;
		}
		x->used = true;
		if (!(x->accept & (1u << v))) {
			const char *hint = "";
			enum iw_baseline_diff_kind k = IW_DIFF_REGRESSION;
			if ((x->verdict == IW_FAIL || x->verdict == IW_WARN) && (v == IW_PASS || v == IW_INFO)) {
				hint = " (a known failure no longer fails: update the baseline)";
				k = IW_DIFF_IMPROVED;
			} else if (x->verdict == IW_FAIL && v == IW_WARN) {
				/* Milder, not better: the DUT does something else now (it delivers the
				 * corrupt data where it sent the wrong code), which a SHOULD case holds. */
				hint = " (the DUT's behaviour changed)";
				k = IW_DIFF_CHANGED;
			} else if (v == IW_FAIL || v == IW_WARN || v == IW_ERROR) {
				hint = " (a regression)";
			}
			add(&l, k, "%s: expected %s (%s line %d), got %s%s%s%s", name, x->verdicts, b->name, x->line,
			    iw_verdict_name(v), hint, why[0] ? ": " : "", why);
		} else if (x->req[0] && (v == IW_FAIL || v == IW_WARN) && !one_of_pins(x->req, r->failed_req, sizeof r->failed_req)) {
			/* The pin is the rule a FAIL or WARN rests on; a line that allows a PASS too
			 * ("WARN|PASS : [REQ]") has nothing to pin when the case passes. */
			add(&l, IW_DIFF_CHANGED, "%s: expected %s on [%s] (%s line %d), got %s on [%.31s]%s%.63s%s: %s", name,
			    iw_verdict_name(v), x->req, b->name, x->line, iw_verdict_name(v),
			    r->failed_req[0] ? r->failed_req : "no requirement", r->outcome[0] ? " after {" : "",
			    r->outcome, r->outcome[0] ? "}" : "", why);
		} else if (x->outcomes[0] && (v == IW_FAIL || v == IW_WARN) && r->outcome[0] &&
			   !one_of_pins(x->outcomes, r->outcome, sizeof r->outcome)) {
			/* The verdict and rule hold, the DUT did something else to earn them. */
			add(&l, IW_DIFF_CHANGED, "%s: expected %s after the DUT's {%s} (%s line %d), got %s after {%.63s} "
			    "(the DUT's behaviour changed): %s", name, iw_verdict_name(v), x->outcomes, b->name, x->line,
			    iw_verdict_name(v), r->outcome, why);
		}
	}
	/* Entries no result matched: a case the baseline expects that did not run. An interrupted
	 * run did not reach them; that is said by the exit status, not here. */
	if (run->complete)
		for (size_t k = 0; k < b->n; k++) {
			if (b->e[k].used)
				continue;
			bool any_id = false;
			for (size_t i = 0; i < run->ncases && !any_id; i++)
				any_id = !strncmp(b->e[k].id, run->cases[i].id, sizeof run->cases[i].id);
			/* The case ran: this entry was for a profile the run did not cover, or an
			 * @PROFILE entry shadowed it. */
			if (any_id)
				continue;
			add(&l, IW_DIFF_UNLISTED, "%s%s%s: expected %s (%s line %d), but the case did not run", b->e[k].id,
			    b->e[k].profile[0] ? "@" : "", b->e[k].profile, iw_verdict_name(b->e[k].verdict), b->name,
			    b->e[k].line);
		}
	if (l.oom) {
		iw_baseline_diffs_free(l.d, l.n);
		free(l.kind);
		return (size_t)-1;
	}
	/* In the order of the kinds, each kind in the run's order (a stable sort by kind). */
	char **sorted = l.n ? malloc(l.n * sizeof *sorted) : NULL;
	if (l.n && !sorted) {
		iw_baseline_diffs_free(l.d, l.n);
		free(l.kind);
		return (size_t)-1;
	}
	size_t o = 0;
	for (int k = 0; k < IW_DIFF_KINDS; k++)
		for (size_t i = 0; i < l.n; i++)
			if (l.kind[i] == k) {
				sorted[o++] = l.d[i];
				b->ndiff[k]++;
			}
	free(l.d);
	free(l.kind);
	*out = sorted;
	return l.n;
}

int iw_baseline_write(const iw_run *run, const char *path, iw_err *e)
{
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	bool multi = !strcmp(run->profile, "all");
	iw_atomic_puts(af, "# iwspec baseline: the expected verdict of each case, for `iwspec run --expect FILE`.\n"
			   "# CASE-ID[@PROFILE] VERDICT [: [REQ-ID] {OUTCOME} note]   (docs/reports.md, Baselines)\n"
			   "# [REQ-ID]: the rule a FAIL or WARN rests on; {OUTCOME}: what the DUT did (A|B: either)\n");
	char t[40];
	iw_text_time(run->start_unix_ms, true, t, sizeof t);
	iw_atomic_printf(af, "# written from the run of %s: iwspec %.31s (%.47s), profile %.15s, seed %llu\n", t,
			 run->tool_version, run->git_rev, run->profile, (unsigned long long)run->seed);
	/* The DUT string and reasons come from outside: one line each, no control characters. */
	char *dut = iw_text_console(FIELD(run->dut));
	if (dut) {
		for (char *p = dut; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		iw_atomic_printf(af, "# DUT: %s\n", dut);
	}
	free(dut);
	if (!run->complete) {
		char why[600];
		iw_run_incomplete_text(run, why, sizeof why);
		for (char *p = why; *p; p++)
			if (*p == '\n')
				*p = ' ';
		iw_atomic_printf(af, "# WARNING: the run was %s; cases it did not reach are missing\n", why);
	}
	for (size_t i = 0; i < run->ncases && iw_atomic_ok(af); i++) {
		const iw_case_result *r = &run->cases[i];
		enum iw_verdict v = verdict_of(r);
		iw_atomic_printf(af, "%.63s", r->id);
		if (multi && r->profile[0])
			iw_atomic_printf(af, "@%.15s", r->profile);
		iw_atomic_printf(af, " %s", iw_verdict_name(v));
		if (v == IW_FAIL || v == IW_WARN || v == IW_ERROR || v == IW_SKIP) {
			char why[256];
			line_reason(r, why, sizeof why);
			char *safe = iw_text_console(why, strlen(why));
			iw_atomic_puts(af, " :");
			bool judged = v == IW_FAIL || v == IW_WARN;
			if (judged && r->failed_req[0])
				iw_atomic_printf(af, " [%.31s]", r->failed_req);
			/* The outcome comes from the DUT's octets: braces or a bar in it would not read back. */
			char *act = judged && r->outcome[0] ? iw_text_console(FIELD(r->outcome)) : NULL;
			bool pin_outcome = act && !strpbrk(act, "{}|");
			if (pin_outcome)
				iw_atomic_printf(af, " {%s}", act);
			free(act);
			/* A note may not start with what would read as a pin still to come. */
			bool misread = safe && !pin_outcome &&
				       (*safe == '{' || (*safe == '[' && !(judged && r->failed_req[0])));
			if (safe && *safe)
				iw_atomic_printf(af, " %s%s", misread ? "reason: " : "", safe);
			free(safe);
		}
		iw_atomic_puts(af, "\n");
	}
	return iw_atomic_commit(af, e);
}
