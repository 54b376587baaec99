/*
 * exec_segments.c - `segments fpdus=N` and `segment <op>`: the octets of the next N sends are
 * collected instead of written, and the `segment` steps after them say how they go on the wire
 * (rawtcp.h's plan: SEND, HOLD, RELEASE, DROP, WAIT_DUPACKS). The plan runs over the raw segment
 * path before the first step of another kind, so the DUT meets the segments in the order the
 * case wrote them; the model of a conforming DUT was fed the octets in stream order, as the
 * DUT's TCP will deliver them.
 */
#include "exec_int.h"

#include <stdlib.h>
#include <string.h>

bool ex_case_needs_raw(const iw_case *c)
{
	for (size_t i = 0; i < c->nsteps; i++)
		if (c->steps[i].kind == IW_STEP_SEGMENTS)
			return true;
	return false;
}

void ex_seg_free(ctx *x)
{
	free(x->seg.buf);
	memset(&x->seg, 0, sizeof x->seg);
}

bool ex_act_segments(ctx *x, const iw_step *s)
{
	if (!ex_conn_up(x->h) || x->h->io != &ex_conn_raw)
		return ex_herror(x, "line %d: segments: the current connection is not on the raw segment path (open it "
				 "with connect or startup first)", s->line);
	seg_plan *g = &x->seg;
	g->line = s->line;
	g->left = ex_arg_i(s, "fpdus", 1);
	g->len = 0;
	g->nfpdu = 0;
	g->nsteps = 0;
	return true;
}

bool ex_seg_collect(ctx *x, const uint8_t *b, size_t n, bool *taken)
{
	seg_plan *g = &x->seg;
	*taken = false;
	if (!g->line)
		return true;
	/* The plan is complete but its `segment` steps have not come: a send made more FPDUs than
	 * `fpdus=` says (a mulpdu= message), and this one would overtake the plan. */
	if (g->left <= 0 && !g->nsteps)
		return ex_herror(x, "`segments fpdus=%zu` (line %d): the sends after it make more FPDUs than that: "
				 "write fpdus= with the count of FPDUs (a message cut by mulpdu= makes several)",
				 g->nfpdu, g->line);
	if (g->left <= 0)
		return true;
	if (g->len + n > g->cap) {
		size_t cap = g->cap ? g->cap : 4096;
		while (cap < g->len + n)
			cap *= 2;
		uint8_t *nb = realloc(g->buf, cap);
		if (!nb)
			return ex_herror(x, "out of memory collecting %zu octets for `segments`", g->len + n);
		g->buf = nb;
		g->cap = cap;
	}
	memcpy(g->buf + g->len, b, n);
	g->fpdu_off[g->nfpdu] = g->len;
	g->fpdu_len[g->nfpdu] = n;
	g->nfpdu++;
	g->len += n;
	g->left--;
	iw_result_tcp(x->r, IW_TCP_DATA, IW_TO_DUT, x->h->no, ex_tcase(x), b, n);
	*taken = true;
	return true;
}

bool ex_act_segment(ctx *x, const iw_step *s)
{
	seg_plan *g = &x->seg;
	if (g->line && g->left > 0)
		return ex_herror(x, "line %d: `segments fpdus=%zu` (line %d) collected %zu FPDUs from the sends before "
				 "this step: write fpdus=%zu", s->line, g->nfpdu + (size_t)g->left, g->line, g->nfpdu, g->nfpdu);
	if (!g->line || g->nsteps >= IW_CASE_MAX_STEPS)
		return ex_herror(x, "line %d: segment %s without the sends of a `segments` step before it", s->line, s->word);
	iw_raw_step *st = &g->steps[g->nsteps];
	memset(st, 0, sizeof *st);
	if (!strcmp(s->word, "send"))
		st->op = IW_RAW_SEND;
	else if (!strcmp(s->word, "hold"))
		st->op = IW_RAW_HOLD;
	else if (!strcmp(s->word, "release"))
		st->op = IW_RAW_RELEASE;
	else if (!strcmp(s->word, "drop"))
		st->op = IW_RAW_DROP;
	else
		st->op = IW_RAW_WAIT_DUPACKS;
	st->dupacks = (unsigned)ex_arg_i(s, "dupacks", st->op == IW_RAW_DROP ? 3 : 1);
	if (st->op == IW_RAW_SEND || st->op == IW_RAW_HOLD || st->op == IW_RAW_DROP) {
		int64_t k = ex_arg_i(s, "fpdu", -1);
		int64_t off = ex_arg_i(s, "off", 0);
		size_t base = 0, room = g->len;
		if (k >= 0) {
			if ((size_t)k >= g->nfpdu)
				return ex_herror(x, "line %d: fpdu=%lld, but %zu sends were collected", s->line, (long long)k,
						 g->nfpdu);
			base = g->fpdu_off[k];
			room = g->fpdu_len[k];
		}
		if ((size_t)off >= room)
			return ex_herror(x, "line %d: off=%lld is past the %zu octets of %s", s->line, (long long)off, room,
					 k >= 0 ? "that FPDU" : "the collected stream");
		st->off = base + (size_t)off;
		st->len = (size_t)ex_arg_i(s, "len", (int64_t)(room - (size_t)off));
	}
	g->step_line[g->nsteps++] = s->line;
	return true;
}

bool ex_seg_flush(ctx *x)
{
	seg_plan *g = &x->seg;
	if (!g->line || g->left > 0 || !g->nsteps)
		return true;
	int line = g->line;
	g->line = 0;
	hconn *h = x->h;
	if (!ex_conn_up(h) || h->io != &ex_conn_raw)
		return ex_herror(x, "line %d: the plan's connection is no longer open on the raw segment path", line);
	int64_t left = (x->deadline_us - ex_now_us()) / 1000;
	iw_err e;
	int rc = iw_raw_send_plan(h->raw, g->buf, g->len, g->steps, g->nsteps, left > 0 ? (int)left : 0, &e);
	iw_raw_stats st;
	iw_raw_stats_get(h->raw, &st);
	ex_note(x, "segments (line %d): %zu octets in %zu plan steps; so far %llu data segments sent, %llu duplicate "
		"ACKs from the DUT, %llu drops fast-retransmitted", line, g->len, g->nsteps,
		(unsigned long long)st.segs_sent, (unsigned long long)st.dupacks, (unsigned long long)st.drops_resent);
	if (rc == IW_OK)
		return true;
	/* Ctrl-C: the runner gives the case no verdict. */
	if (rc == IW_RAW_ESTOPPED)
		return ex_herror(x, "line %d: the segment plan was interrupted", line);
	/* The DUT reset: its expectations judge that. */
	if (rc == IW_RAW_ERESET) {
		h->rst = true;
		ex_note(x, "the segment plan (line %d) ended early: %s", line, e.msg);
		return true;
	}
	/* A plan that cannot be sent, or a DUT whose TCP never gave the ACKs it waits for (the
	 * duplicate ACKs of RFC 5681 are a SHOULD of TCP, not of MPA): nothing MPA did is judged. */
	return ex_herror(x, "line %d: the segment plan %s: %s", line,
			 rc == IW_RAW_ETIMEDOUT ? "did not complete within the case timeout" : "cannot be sent", e.msg);
}
