/*
 * fuzz_case_parse.c - the case-language parser (suite/case/case.h, docs/case-language.md).
 *
 * Input: the text of a case file, as is (NUL octets included).
 *
 * Invariants:
 *  - IW_OK gives a case, anything else IW_EINVAL or IW_ENOSPC with *out NULL and a message
 *    that starts with the file name (file:line: problem);
 *  - a parsed case stays inside its limits: counts within IW_CASE_MAX_*, every string
 *    terminated inside its array, every step kind known, every argument of a known type with
 *    its value where the type says (bytes with a length, a list within 16), durations within
 *    0..24 h;
 *  - iw_step_label, iw_step_name, iw_level_name and iw_step_arg answer for every step;
 *  - parsing the same text twice gives the same case (no hidden state).
 */
#include <string.h>

#include "case.h"
#include "fuzz.h"

#define FILE_NAME "fuzz.iwt"

static void check_str(const char *s, size_t cap, const char *what)
{
	FZ_CHECK(memchr(s, '\0', cap) != NULL, "%s is not terminated inside its %zu octets", what, cap);
}

static void check_step(const iw_step *s, int depth)
{
	FZ_CHECK((unsigned)s->kind < IW_STEP_KIND_COUNT, "step kind %d", (int)s->kind);
	FZ_CHECK(s->line > 0, "step line %d", s->line);
	check_str(s->word, sizeof s->word, "step word");
	FZ_CHECK(s->nargs <= IW_CASE_MAX_ARGS, "%zu arguments", s->nargs);
	for (size_t i = 0; i < s->nargs; i++) {
		const iw_arg *a = &s->args[i];
		check_str(a->name, sizeof a->name, "argument name");
		FZ_CHECK(a->name[0], "argument without a name");
		FZ_CHECK(iw_step_arg(s, a->name) != NULL, "iw_step_arg does not find '%s'", a->name);
		FZ_CHECK(a->nlist <= 16, "list of %zu", a->nlist);
		if (a->is_pattern_any)
			continue;
		switch (a->type) {
		case IW_ARG_STR:
		case IW_ARG_WORD:
			FZ_CHECK(a->s != NULL, "string argument '%s' without a value", a->name);
			(void)strlen(a->s);
			break;
		case IW_ARG_BYTES:
			FZ_CHECK(a->nbytes == 0 || a->bytes, "bytes argument '%s' without memory", a->name);
			if (a->nbytes) {
				volatile uint8_t x = a->bytes[a->nbytes - 1];
				(void)x;
			}
			break;
		case IW_ARG_DURATION:
			FZ_CHECK(a->i >= 0 && a->i <= IW_CASE_MAX_DURATION_MS, "duration %lld ms", (long long)a->i);
			break;
		case IW_ARG_INT:
		case IW_ARG_LIST:
			break;
		default:
			FZ_CHECK(0, "argument type %d", (int)a->type);
		}
	}
	char lbl[96];
	const char *l = iw_step_label(s, lbl, sizeof lbl);
	FZ_CHECK(l && memchr(l, '\0', sizeof lbl), "step label");
	FZ_CHECK(iw_step_name(s->kind) != NULL, "step name");
	if (s->kind == IW_EXPECT_ONE_OF) {
		FZ_CHECK(s->nalts <= IW_CASE_MAX_ALTS && depth < 4, "%zu alternatives at depth %d", s->nalts, depth);
		for (size_t i = 0; i < s->nalts; i++) {
			FZ_CHECK(s->alts[i].nseq <= IW_CASE_MAX_SEQ, "%zu expectations in an alternative", s->alts[i].nseq);
			for (size_t k = 0; k < s->alts[i].nseq; k++) {
				FZ_CHECK(s->alts[i].seq[k] != NULL, "empty alternative slot");
				check_step(s->alts[i].seq[k], depth + 1);
			}
		}
	} else {
		FZ_CHECK(s->nalts == 0, "alternatives on a %s step", iw_step_name(s->kind));
	}
}

/* A digest of what the parser produced, to compare two parses. */
static uint64_t digest(const iw_case *c)
{
	uint64_t h = 0xCBF29CE484222325ull;
#define MIX(p, n)                                          \
	do {                                               \
		const uint8_t *b_ = (const uint8_t *)(p);  \
		for (size_t i_ = 0; i_ < (n); i_++)        \
			h = (h ^ b_[i_]) * 0x100000001B3ull; \
	} while (0)
	MIX(c->id, strlen(c->id));
	MIX(c->title, strlen(c->title));
	MIX(&c->nreqs, sizeof c->nreqs);
	for (size_t i = 0; i < c->nreqs; i++)
		MIX(c->reqs[i].id, strlen(c->reqs[i].id));
	MIX(&c->nsteps, sizeof c->nsteps);
	for (size_t i = 0; i < c->nsteps; i++) {
		const iw_step *s = &c->steps[i];
		MIX(&s->kind, sizeof s->kind);
		MIX(s->word, strlen(s->word));
		for (size_t k = 0; k < s->nargs; k++) {
			MIX(s->args[k].name, strlen(s->args[k].name));
			MIX(&s->args[k].i, sizeof s->args[k].i);
			if (s->args[k].nbytes)
				MIX(s->args[k].bytes, s->args[k].nbytes);
		}
	}
#undef MIX
	return h;
}

int iw_fuzz_case_parse(const uint8_t *data, size_t size)
{
	iw_case *c = NULL;
	iw_err e;
	memset(&e, 0, sizeof e);
	int rc = iw_case_parse((const char *)data, size, FILE_NAME, &c, &e);
	if (rc != IW_OK) {
		FZ_CHECK(rc == IW_EINVAL || rc == IW_ENOSPC, "rc %d", rc);
		FZ_CHECK(c == NULL, "failed parse left a case");
		check_str(e.msg, sizeof e.msg, "error message");
		FZ_CHECK(strncmp(e.msg, FILE_NAME, strlen(FILE_NAME)) == 0, "message does not name the file: %s", e.msg);
		return 0;
	}
	FZ_CHECK(c != NULL, "IW_OK without a case");
	check_str(c->id, sizeof c->id, "case id");
	check_str(c->title, sizeof c->title, "title");
	check_str(c->file, sizeof c->file, "file");
	FZ_CHECK(c->nreqs <= IW_CASE_MAX_REQS && c->nsteps <= IW_CASE_MAX_STEPS &&
			 c->nprofiles <= IW_CASE_MAX_PROFILES, "counts %zu/%zu/%zu", c->nreqs, c->nsteps, c->nprofiles);
	for (size_t i = 0; i < c->nreqs; i++) {
		check_str(c->reqs[i].id, sizeof c->reqs[i].id, "requirement id");
		FZ_CHECK(iw_level_name(c->reqs[i].level) != NULL, "level name");
	}
	for (size_t i = 0; i < c->nprofiles; i++)
		check_str(c->profiles[i], sizeof c->profiles[i], "profile");
	FZ_CHECK(c->timeout_ms >= 0, "timeout %lld", (long long)c->timeout_ms);
	for (size_t i = 0; i < c->nsteps; i++)
		check_step(&c->steps[i], 0);
	uint64_t d1 = digest(c);
	iw_case_free(c);

	iw_case *c2 = NULL;
	FZ_CHECK(iw_case_parse((const char *)data, size, FILE_NAME, &c2, &e) == IW_OK && c2, "second parse failed");
	FZ_CHECK(digest(c2) == d1, "the same text parsed twice gives two cases");
	iw_case_free(c2);
	return 0;
}
