/*
 * result_expected.c - a case's expectations in words, for the reports' "expected" column
 * (result.h, iw_result_set_expected).
 *
 * The result outlives the case (reports are written after the catalog may be gone), so the
 * expectations are rendered when the case runs: each expectation step as the case language
 * writes it, with its arguments, prefixed by its line in the case file.
 */
#include "result.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct sbuf {
	char *p;
	size_t cap, len;
	bool cut;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
	if (b->cut || b->cap == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->cut = true;
		b->len = b->cap - 1;
		/* Say it was cut, on the room the last line has. */
		if (b->cap > 5)
			memcpy(b->p + b->cap - 5, " ...", 5);
		return;
	}
	b->len += (size_t)n;
}

static bool printable(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"')
			return false;
	return true;
}

static void put_arg(sbuf *b, const iw_arg *a)
{
	put(b, " %s=", a->name);
	if (a->is_pattern_any) {
		put(b, "*");
		return;
	}
	switch (a->type) {
	case IW_ARG_INT:
		if (a->i >= 0 && a->i > 4095)
			put(b, "0x%" PRIx64, (uint64_t)a->i);
		else
			put(b, "%" PRId64, a->i);
		break;
	case IW_ARG_DURATION: put(b, "%" PRId64 "ms", a->i); break;
	case IW_ARG_WORD: put(b, "%s", a->s ? a->s : ""); break;
	case IW_ARG_LIST:
		for (size_t i = 0; i < a->nlist && i < 16; i++)
			put(b, "%s%" PRId64, i ? "," : "", a->list[i]);
		break;
	case IW_ARG_STR:
	case IW_ARG_BYTES:
		if (a->bytes && printable(a->bytes, a->nbytes) && a->nbytes <= 64) {
			put(b, "\"%.*s\"", (int)a->nbytes, (const char *)a->bytes);
		} else {
			size_t show = a->nbytes > 24 ? 24 : a->nbytes;
			put(b, "x\"");
			for (size_t i = 0; a->bytes && i < show; i++)
				put(b, "%02x", a->bytes[i]);
			put(b, a->nbytes > show ? "...\" (%zu octets)" : "\"", a->nbytes);
		}
		break;
	}
}

static void put_step(sbuf *b, const iw_step *s, bool in_alt)
{
	char label[48];
	const char *l = iw_step_label(s, label, sizeof label);
	/* Inside a one-of block the language writes expectations without the word. */
	if (in_alt && !strncmp(l, "expect ", 7))
		l += 7;
	put(b, "%s", l);
	for (size_t i = 0; i < s->nargs && i < IW_CASE_MAX_ARGS; i++)
		put_arg(b, &s->args[i]);
}

void iw_result_set_expected(iw_case_result *r, const iw_case *c)
{
	if (!r || !c)
		return;
	sbuf b = {.p = r->expected, .cap = sizeof r->expected};
	r->expected[0] = '\0';
	for (size_t i = 0; i < c->nsteps && i < IW_CASE_MAX_STEPS && !b.cut; i++) {
		const iw_step *s = &c->steps[i];
		if (s->kind < IW_EXPECT_REQUEST || s->kind >= IW_STEP_KIND_COUNT)
			continue;
		put(&b, "%s%d: ", b.len ? "\n" : "", s->line);
		if (s->kind != IW_EXPECT_ONE_OF) {
			put_step(&b, s, false);
			continue;
		}
		put(&b, "expect one-of");
		for (size_t a = 0; a < s->nalts && a < IW_CASE_MAX_ALTS; a++) {
			put(&b, "\n      - ");
			for (size_t k = 0; k < s->alts[a].nseq && k < IW_CASE_MAX_SEQ; k++) {
				if (k)
					put(&b, " ; ");
				if (s->alts[a].seq[k])
					put_step(&b, s->alts[a].seq[k], true);
			}
		}
		put(&b, "\n    end");
	}
}
