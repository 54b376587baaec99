/*
 * findings.c - grouping a run's FAILs and WARNs by requirement and signature (findings.h).
 */
#include "findings.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The first occurrence of the NUL-terminated needle in the n octets at s, or NULL (memmem is
 * not in C11 or POSIX). */
static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return s + i;
	return NULL;
}

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c) != 0;
}

/* A run of two-digit hex tokens ("63 20 73", "de ad be ef") starting at s: at least two tokens,
 * one with a decimal digit, so English words of two letters ("be", "ad") are left alone. Returns
 * its length, 0 when there is none. */
static size_t octet_run(const char *s, size_t n)
{
	size_t i = 0, tokens = 0;
	bool digit = false;
	while (i + 2 <= n && is_hex(s[i]) && is_hex(s[i + 1]) && (i + 2 == n || !isalnum((unsigned char)s[i + 2]))) {
		digit = digit || isdigit((unsigned char)s[i]) || isdigit((unsigned char)s[i + 1]);
		tokens++;
		i += 2;
		if (i < n && s[i] == ' ' && i + 1 < n && is_hex(s[i + 1]))
			i++;
		else
			break;
	}
	if (i > 0 && s[i - 1] == ' ')
		i--;
	return tokens >= 2 && digit ? i : 0;
}

/* Where the step context ends: "startup (line 12) did not reach full operation with the
 * reflector: the DUT's ..." keeps what follows the first ": " after "(line N)". */
static size_t context_end(const char *s, size_t n)
{
	const char *line = find(s, n, "(line ");
	if (!line)
		return 0;
	size_t from = (size_t)(line - s);
	const char *colon = find(line, n - from, ": ");
	return colon ? (size_t)(colon - s) + 2 : 0;
}

/* "none of the # allowed outcomes happened: (...) A; (...) A" is A: the DUT did one thing, which
 * each outcome named. Outcomes that differ are kept as they are. */
static void one_of_alike(char *sig)
{
	static const char head[] = "none of the # allowed outcomes happened: (...) ";
	static const char sep[] = "; (...) ";
	if (strncmp(sig, head, sizeof head - 1))
		return;
	const char *first = sig + sizeof head - 1, *end = strstr(first, sep);
	if (!end)
		return;
	size_t len = (size_t)(end - first);
	for (const char *p = end; *p; p += sizeof sep - 1 + len)
		if (strncmp(p, sep, sizeof sep - 1) || strncmp(p + sizeof sep - 1, first, len) ||
		    (p[sizeof sep - 1 + len] && strncmp(p + sizeof sep - 1 + len, sep, sizeof sep - 1)))
			return;
	memmove(sig, first, len);
	sig[len] = '\0';
}

void iw_finding_signature(const char *reason, size_t n, char *buf, size_t cap)
{
	if (!cap)
		return;
	const char *tail = find(reason, n, " [requirement");
	if (tail)
		n = (size_t)(tail - reason);
	size_t i = context_end(reason, n), o = 0;
	bool space = false;
#define PUT(c) do { if (o + 1 < cap) buf[o++] = (c); } while (0)
	while (i < n && o + 1 < cap) {
		char c = reason[i];
		size_t run;
		if (isspace((unsigned char)c)) {
			space = o > 0;
			i++;
			continue;
		}
		if (space)
			PUT(' ');
		space = false;
		bool word_start = i == 0 || !isalnum((unsigned char)reason[i - 1]);
		if (word_start && (run = octet_run(reason + i, n - i)) > 0) {
			PUT('#');
			i += run;
		} else if (word_start && c == '0' && i + 1 < n && (reason[i + 1] == 'x' || reason[i + 1] == 'X')) {
			PUT('#');
			for (i += 2; i < n && is_hex(reason[i]); i++)
				;
		} else if (isdigit((unsigned char)c)) {
			PUT('#');
			while (i < n && (isdigit((unsigned char)reason[i]) || reason[i] == '.'))
				i++;
		} else if (word_start && (c == '\'' || c == '"')) {
			/* Quoted text is the case's own (a payload, a name): one mark for all of it. */
			const char *end = memchr(reason + i + 1, c, n - i - 1);
			PUT('#');
			i = end ? (size_t)(end - reason) + 1 : n;
		} else if (c == '(') {
			int depth = 0;
			for (; i < n; i++) {
				depth += reason[i] == '(';
				depth -= reason[i] == ')';
				if (!depth)
					break;
			}
			PUT('(');
			PUT('.');
			PUT('.');
			PUT('.');
			PUT(')');
			i++;
		} else {
			PUT(c);
			i++;
		}
	}
#undef PUT
	buf[o] = '\0';
	one_of_alike(buf);
}

static int finding_order(const void *a, const void *b)
{
	const iw_finding *x = a, *y = b;
	if (x->verdict != y->verdict)
		return x->verdict == IW_FAIL ? -1 : 1;
	if (x->ncases != y->ncases)
		return x->ncases > y->ncases ? -1 : 1;
	return strcmp(x->signature, y->signature);
}

void iw_findings_free(iw_findings *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->g[i].cases);
	free(f->g);
	f->g = NULL;
	f->n = 0;
}

/* A case with a capture: the harness's TCP connections were recorded (report_pcap.c writes one
 * file per such case). */
static bool has_capture(const iw_case_result *r)
{
	return r->ntcp > 0;
}

static void add_req(iw_finding *f, const char *req, size_t n)
{
	if (!n || n >= sizeof f->reqs[0])
		return;
	for (size_t k = 0; k < f->nreqs; k++)
		if (strlen(f->reqs[k]) == n && !memcmp(f->reqs[k], req, n))
			return;
	if (f->nreqs == sizeof f->reqs / sizeof f->reqs[0]) {
		f->reqs_cut = true;
		return;
	}
	memcpy(f->reqs[f->nreqs], req, n);
	f->reqs[f->nreqs++][n] = '\0';
}

int iw_findings_group(const iw_run *run, iw_findings *out, iw_err *e)
{
	memset(out, 0, sizeof *out);
	size_t cap = 0;
	for (size_t i = 0; run && i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		if (r->verdict != IW_FAIL && r->verdict != IW_WARN)
			continue;
		char sig[sizeof out->g[0].signature];
		iw_finding_signature(r->reason, strnlen(r->reason, sizeof r->reason), sig, sizeof sig);
		iw_finding *f = NULL;
		for (size_t k = 0; k < out->n && !f; k++)
			if (out->g[k].verdict == r->verdict && !strcmp(out->g[k].signature, sig))
				f = &out->g[k];
		if (!f) {
			if (out->n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				iw_finding *g = realloc(out->g, ncap * sizeof *g);
				if (!g)
					goto oom;
				out->g = g;
				cap = ncap;
			}
			f = &out->g[out->n++];
			memset(f, 0, sizeof *f);
			f->verdict = r->verdict;
			memcpy(f->signature, sig, sizeof sig);
		}
		add_req(f, r->failed_req, strnlen(r->failed_req, sizeof r->failed_req));
		/* Each group's list grows one at a time; runs have hundreds of cases, not millions. */
		size_t *c = realloc(f->cases, (f->ncases + 1) * sizeof *c);
		if (!c)
			goto oom;
		f->cases = c;
		f->cases[f->ncases++] = i;
		if (!f->pcap_case && has_capture(r))
			f->pcap_case = i + 1;
	}
	if (out->n > 1)
		qsort(out->g, out->n, sizeof *out->g, finding_order);
	return 0;
oom:
	iw_findings_free(out);
	return iw_errf(e, -1, "grouping the findings: out of memory");
}
