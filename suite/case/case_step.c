/*
 * case_step.c - one step of a case: the words that name it (`send write`, `expect close`,
 * `measure close`, ...), its arguments, the schema's checks across them, and the
 * alternatives of an `expect one-of` block.
 */
#include "case_parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_schema.h"

static const char expect_words[] = "request reply terminate close silence alive as-model one-of";
static const char segment_ops[] = "send hold release drop wait-dupacks";

/* The kind of `expect <w>`; -1 when w names no expectation. */
static int expect_kind(const char *w, size_t n)
{
	if (cp_word_is(w, n, "request")) return IW_EXPECT_REQUEST;
	if (cp_word_is(w, n, "reply")) return IW_EXPECT_REPLY;
	if (cp_word_is(w, n, "terminate")) return IW_EXPECT_TERMINATE;
	if (cp_word_is(w, n, "close")) return IW_EXPECT_CLOSE;
	if (cp_word_is(w, n, "silence")) return IW_EXPECT_SILENCE;
	if (cp_word_is(w, n, "alive")) return IW_EXPECT_ALIVE;
	if (cp_word_is(w, n, "as-model")) return IW_EXPECT_AS_MODEL;
	if (cp_word_is(w, n, "one-of")) return IW_EXPECT_ONE_OF;
	if (iw_schema_word_in(iw_schema_expect_msgs, w, n)) return IW_EXPECT_FPDU;
	return -1;
}

/* Reads the words that name a step; in a one-of alternative the leading `expect` is implied. */
static int parse_step_name(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt)
{
	const char *w1, *w2 = NULL;
	size_t n1 = cp_take_word(pp, end, &w1), n2 = 0;
	char b[64], b2[64];
	int kind = -1;
	cp_show(w1, n1, b, sizeof b);
	if (in_alt) {
		if (n1 == 0)
			return cp_err(p, "empty alternative");
		if (cp_word_is(w1, n1, "expect"))
			return cp_err(p, "inside one-of, write expectations without 'expect' (e.g. `- close within=5s`)");
		kind = expect_kind(w1, n1);
		if (kind == IW_EXPECT_ONE_OF)
			return cp_err(p, "one-of blocks do not nest");
		if (kind < 0)
			return cp_err(p, "unknown expectation '%s' (expected one of: request reply terminate close "
				      "silence alive as-model %s)", b, iw_schema_expect_msgs);
		w2 = w1;
		n2 = n1;
	} else if (cp_word_is(w1, n1, "send") || cp_word_is(w1, n1, "expect") || cp_word_is(w1, n1, "measure")) {
		const char *save = *pp;
		n2 = cp_take_word(pp, end, &w2);
		if (n2 == 0 || memchr(w2, '=', n2) || *w2 == '"') {
			*pp = save;
			if (cp_word_is(w1, n1, "send"))
				return cp_err(p, "send: missing what to send (request, reply, raw, or a message: %s)",
					      iw_schema_send_msgs);
			if (cp_word_is(w1, n1, "expect"))
				return cp_err(p, "expect: missing what to expect (%s, or a message: %s)", expect_words,
					      iw_schema_expect_msgs);
			return cp_err(p, "measure: missing what to measure (close)");
		}
		cp_show(w2, n2, b2, sizeof b2);
		if (cp_word_is(w1, n1, "send")) {
			if (cp_word_is(w2, n2, "request"))
				kind = IW_STEP_SEND_REQUEST;
			else if (cp_word_is(w2, n2, "reply"))
				kind = IW_STEP_SEND_REPLY;
			else if (cp_word_is(w2, n2, "raw"))
				kind = IW_STEP_SEND_RAW;
			else if (iw_schema_word_in(iw_schema_send_msgs, w2, n2))
				kind = IW_STEP_SEND_FPDU;
			else
				return cp_err(p, "unknown step 'send %s' (send takes: request reply raw %s)", b2,
					      iw_schema_send_msgs);
		} else if (cp_word_is(w1, n1, "expect")) {
			kind = expect_kind(w2, n2);
			if (kind < 0)
				return cp_err(p, "unknown step 'expect %s' (expect takes: %s %s)", b2, expect_words,
					      iw_schema_expect_msgs);
		} else {
			if (!cp_word_is(w2, n2, "close"))
				return cp_err(p, "unknown step 'measure %s' (measure takes: close)", b2);
			kind = IW_EXPECT_MEASURE;
		}
	} else if (cp_word_is(w1, n1, "connect")) {
		kind = IW_STEP_CONNECT;
	} else if (cp_word_is(w1, n1, "accept")) {
		kind = IW_STEP_ACCEPT;
	} else if (cp_word_is(w1, n1, "segments")) {
		kind = IW_STEP_SEGMENTS;
	} else if (cp_word_is(w1, n1, "segment")) {
		const char *save = *pp;
		n2 = cp_take_word(pp, end, &w2);
		if (n2 == 0 || memchr(w2, '=', n2) || *w2 == '"') {
			*pp = save;
			return cp_err(p, "segment: missing what to do (%s), e.g. `segment send fpdu=1`", segment_ops);
		}
		if (!iw_schema_word_in(segment_ops, w2, n2)) {
			cp_show(w2, n2, b2, sizeof b2);
			return cp_err(p, "unknown step 'segment %s' (segment takes: %s)", b2, segment_ops);
		}
		kind = IW_STEP_SEGMENT;
	} else if (cp_word_is(w1, n1, "split")) {
		kind = IW_STEP_SPLIT;
	} else if (cp_word_is(w1, n1, "sleep")) {
		kind = IW_STEP_SLEEP;
	} else if (cp_word_is(w1, n1, "close")) {
		kind = IW_STEP_CLOSE;
	} else if (cp_word_is(w1, n1, "reset")) {
		kind = IW_STEP_RESET;
	} else if (cp_word_is(w1, n1, "use")) {
		kind = IW_STEP_USE;
	} else if (cp_word_is(w1, n1, "startup")) {
		kind = IW_STEP_STARTUP;
	} else {
		return cp_err(p, "unknown step '%s' (steps: connect, accept, startup, send ..., split, segments, segment ..., "
			      "sleep, close, reset, use, expect ..., measure close)", b);
	}
	st->kind = (enum iw_step_kind)kind;
	if (w2 && n2 < sizeof st->word) {
		memcpy(st->word, w2, n2);
		st->word[n2] = '\0';
	}
	if (in_alt)
		snprintf(p->ctx + strlen(p->ctx), sizeof p->ctx - strlen(p->ctx), ": %s", b);
	else
		iw_step_label(st, p->ctx, sizeof p->ctx);
	return 0;
}

/* One step from *pp: its name, arguments, and the checks between them. */
int cp_parse_step(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt, bool *semi)
{
	char msg[200];
	st->line = p->line;
	int rc = parse_step_name(p, pp, end, st, in_alt);
	if (rc)
		return rc;
	if (st->kind == IW_EXPECT_ONE_OF) {
		tok t = cp_next_tok(pp, end);
		if (t.kind != TOK_END)
			return cp_err(p, "nothing may follow 'expect one-of' on its line (alternatives go on '-' lines)");
		return 0;
	}
	rc = cp_parse_args(p, pp, end, st, in_alt, semi);
	if (rc)
		return rc;
	if (st->kind == IW_EXPECT_CLOSE) {
		const iw_arg *how = iw_step_arg(st, "how");
		snprintf(st->word, sizeof st->word, "%s", how && !how->is_pattern_any ? how->s : "any");
	}
	if (!iw_schema_check_step(st, msg, sizeof msg))
		return cp_err(p, "%s", msg);
	return 0;
}

/* `- expectation ; expectation ...`, one alternative of the open one-of block. */
int cp_parse_alt(parser *p, iw_step *block, const char *s, const char *end)
{
	if (block->nalts >= IW_CASE_MAX_ALTS)
		return cp_limit(p, "too many alternatives in one-of (limit %d)", IW_CASE_MAX_ALTS);
	iw_alt *alt = &block->alts[block->nalts++];
	size_t k = block->nalts;
	for (;;) {
		const char *save = s;
		tok t = cp_next_tok(&save, end);
		snprintf(p->ctx, sizeof p->ctx, "expect one-of, alternative %zu", k);
		if (t.kind == TOK_END || t.kind == TOK_SEMI)
			return cp_err(p, alt->nseq ? "empty expectation after ';'" : "empty alternative");
		if (alt->nseq >= IW_CASE_MAX_SEQ)
			return cp_limit(p, "too many expectations in one alternative (limit %d)", IW_CASE_MAX_SEQ);
		iw_step *st = calloc(1, sizeof *st);
		if (!st)
			return cp_err(p, "out of memory");
		alt->seq[alt->nseq++] = st;
		bool semi = false;
		int rc = cp_parse_step(p, &s, end, st, true, &semi);
		if (rc)
			return rc;
		if (!semi)
			return 0;
	}
}
