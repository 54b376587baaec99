/*
 * netfuzz_min.c - confirming and minimising network fuzzer findings.
 *
 * A finding is confirmed by running its program again (with liveness probes after each run
 * and four times the timeout, so a slow moment is not taken for a hang). Minimisation keeps
 * the kind of misbehaviour (a crash stays a crash, a hang a hang) and is delta debugging
 * (Zeller's ddmin) first over the actions, then over the octets of each raw chunk, FPDU
 * payload and private data; long generated payloads are first halved.
 *
 * Time: a finding, once seen, is never dropped because --time is up. The fuzzing loop stops
 * making runs at the deadline, but the finding it has seen may have been seen a moment before
 * it (on a loaded machine the whole of --time can go by before the run that shows a crash
 * is judged): confirmation and minimisation each get an allowance of their own, counted in
 * runs of the longest kind (nf_session_run_bound), and give the session its deadline back
 * when they are done. Only a signal, or a DUT that outlasts the allowance, cuts them: a cut
 * confirmation says so (NF_CONFIRM_CUT, written as unconfirmed by the caller), a cut
 * minimisation keeps what was minimised so far.
 */
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "netfuzz.h"

static bool same_kind(enum nf_fkind a, enum nf_fkind b)
{
	bool da = a == NF_F_CRASH || a == NF_F_DEAD, db = b == NF_F_CRASH || b == NF_F_DEAD;
	return a == b || (da && db);
}

static bool crashy(enum nf_fkind k) { return k == NF_F_CRASH || k == NF_F_DEAD; }

/* A run confirms a finding when it shows the same kind, or crashes the DUT's process: then the
 * crash is the finding (a run judged before the DUT was seen to die, its crash noticed by a
 * liveness probe cut short or by another run, is confirmed as what it was). Not a dead DUT:
 * that verdict rests on a timeout, and one slow moment must not report it. */
static bool confirms(enum nf_fkind got, enum nf_fkind want) { return same_kind(got, want) || got == NF_F_CRASH; }

int nf_confirm(nf_session *s, const nf_prog *p, const nf_finding *want, int tries, nf_finding *got, iw_err *e)
{
	int64_t was = nf_session_allow(s, (tries + 1) * nf_session_run_bound(s));
	nf_session_confirming(s, true);
	int r = NF_NOT_CONFIRMED, runs = 0, down = 0;
	memset(got, 0, sizeof *got);
	while (runs < tries && r == NF_NOT_CONFIRMED) {
		if (nf_session_expired(s)) {
			r = NF_CONFIRM_CUT;
			break;
		}
		memset(got, 0, sizeof *got);
		if (nf_run(s, p, got, e) != IW_OK) {
			r = NF_CONFIRM_CUT;
			break;
		}
		/* A run the deadline or a signal cut was not judged: it proves nothing either way. */
		if (nf_session_expired(s) && got->kind == NF_F_NONE) {
			r = NF_CONFIRM_CUT;
			break;
		}
		if (got->previous) {
			/* The DUT was down before this run (it has been restarted): the program did not
			 * reach it, so the run does not count, a few times over. */
			if (++down > tries)
				runs++;
			continue;
		}
		runs++;
		if (confirms(got->kind, want->kind))
			r = NF_CONFIRMED;
	}
	if (r == NF_CONFIRM_CUT && !iw_interrupted() && nf_session_expired(s))
		iw_errf(e, IW_ETRUNC, "its confirmation did not end within its allowance of %lld ms (%d of %d runs made)",
			(long long)((tries + 1) * nf_session_run_bound(s)), runs, tries);
	else if (r == NF_CONFIRM_CUT && iw_interrupted())
		iw_errf(e, IW_ETRUNC, "a signal came before it was confirmed (%d of %d runs made)", runs, tries);
	else if (r == NF_NOT_CONFIRMED)
		iw_errf(e, IW_OK, "%d runs of its program did not show it again", runs);
	nf_session_confirming(s, false);
	nf_session_set_deadline(s, was);
	return r;
}

unsigned nf_ddmin(bool *keep, size_t n, bool (*test)(const bool *keep, void *ctx), void *ctx, unsigned budget)
{
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	bool *cand = malloc(n ? n : 1);
	if (!idx || !cand) {
		free(idx);
		free(cand);
		return 0;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			idx[m++] = i;
	unsigned tests = 0;
	size_t gran = 2;
	while (m >= 2 && tests < budget) {
		if (gran > m)
			gran = m;
		bool reduced = false;
		/* Each chunk alone, then each complement. */
		for (int phase = 0; phase < 2 && !reduced; phase++) {
			for (size_t c = 0; c < gran && tests < budget; c++) {
				size_t lo = c * m / gran, hi = (c + 1) * m / gran;
				if (phase == 0 && gran == 2 && c == 1)
					continue; /* with two chunks the second alone is the first's complement */
				memset(cand, 0, n);
				for (size_t k = 0; k < m; k++) {
					bool in = k >= lo && k < hi;
					if (phase == 0 ? in : !in)
						cand[idx[k]] = true;
				}
				tests++;
				if (!test(cand, ctx))
					continue;
				size_t nm = 0;
				for (size_t k = 0; k < m; k++) {
					bool in = k >= lo && k < hi;
					if (phase == 0 ? in : !in)
						idx[nm++] = idx[k];
				}
				m = nm;
				gran = phase == 0 ? 2 : (gran > 2 ? gran - 1 : 2);
				reduced = true;
				break;
			}
		}
		if (!reduced) {
			if (gran >= m)
				break;
			gran = gran * 2 < m ? gran * 2 : m;
		}
	}
	memset(keep, 0, n);
	for (size_t k = 0; k < m; k++)
		keep[idx[k]] = true;
	free(idx);
	free(cand);
	return tests;
}

typedef struct mctx {
	nf_session *s;
	const nf_prog *base;
	nf_prog *cand;
	enum nf_fkind kind;
	size_t action;              /* octet stage: the action being shrunk */
	nf_finding last;
	unsigned runs;
} mctx;

static bool reproduces(mctx *c, const nf_prog *p)
{
	nf_finding f;
	iw_err e;
	/* A run that found the DUT down (it has been restarted) says nothing of p: once more. */
	for (int again = 0; again < 2; again++) {
		if (nf_session_expired(c->s))
			return false; /* the time is up: what is minimised so far stays */
		c->runs++;
		if (nf_run(c->s, p, &f, &e) != IW_OK)
			return false;
		if (!f.previous)
			break;
	}
	if (f.previous || !same_kind(f.kind, c->kind))
		return false;
	c->last = f;
	return true;
}

static bool test_actions(const bool *keep, void *ctx)
{
	mctx *c = ctx;
	nf_prog_keep(c->cand, c->base, keep);
	return c->cand->n && reproduces(c, c->cand);
}

static bool test_octets(const bool *keep, void *ctx)
{
	mctx *c = ctx;
	nf_prog_keep_octets(c->cand, c->base, c->action, keep);
	return reproduces(c, c->cand);
}

int nf_minimize(nf_session *s, const nf_prog *p, const nf_finding *want, unsigned budget, nf_prog *out,
		nf_finding *final, iw_err *e)
{
	(void)e;
	nf_prog *cur = malloc(sizeof *cur), *cand = malloc(sizeof *cand);
	bool *keep = malloc(NF_PAYLOAD_MAX);
	if (!cur || !cand || !keep) {
		free(cur);
		free(cand);
		free(keep);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	memcpy(cur, p, sizeof *cur);
	*final = *want;
	int64_t allow = NF_MIN_ALLOW_RUNS * nf_session_run_bound(s);
	int64_t was = nf_session_allow(s, allow > NF_MIN_ALLOW_MS ? allow : NF_MIN_ALLOW_MS);
	bool crash = crashy(want->kind);
	/* Crashes show up in the liveness probe after the run. */
	if (crash)
		nf_session_confirming(s, true);
	mctx c = {.s = s, .base = cur, .cand = cand, .kind = want->kind, .last = *want};

	/* Actions. */
	for (size_t i = 0; i < cur->n; i++)
		keep[i] = true;
	nf_ddmin(keep, cur->n, test_actions, &c, budget / 2);
	/* ddmin only keeps subsets that failed: once the time is up, that is proof enough. */
	nf_prog_keep(cand, cur, keep);
	if (cand->n && (nf_session_expired(s) || reproduces(&c, cand)))
		memcpy(cur, cand, sizeof *cur);
	if (nf_session_expired(s))
		c.runs = budget;

	/* Octets, action by action. */
	for (size_t k = 0; k < cur->n && c.runs < budget; k++) {
		nf_action *a = &cur->a[k];
		if (a->kind != NF_A_RAW && a->kind != NF_A_FPDU && a->kind != NF_A_FRAME)
			continue;
		/* Halve long payloads while the finding stays. */
		while (a->len > 256 && c.runs < budget) {
			memcpy(cand, cur, sizeof *cand);
			cand->a[k].len = a->len / 2;
			if (!cand->a[k].pattern)
				cand->a[k].len = a->len / 2;
			if (!reproduces(&c, cand))
				break;
			memcpy(cur, cand, sizeof *cur);
		}
		if (a->len < 2 || a->len > 2048)
			continue;
		memset(keep, 1, a->len);
		c.base = cur;
		c.action = k;
		unsigned left = budget > c.runs ? budget - c.runs : 0;
		nf_ddmin(keep, a->len, test_octets, &c, left);
		nf_prog_keep_octets(cand, cur, k, keep);
		if (nf_session_expired(s) || reproduces(&c, cand))
			memcpy(cur, cand, sizeof *cur);
		if (nf_session_expired(s))
			break;
	}
	if (crash)
		nf_session_confirming(s, false);
	nf_session_set_deadline(s, was);
	memcpy(out, cur, sizeof *out);
	*final = c.last;
	free(cur);
	free(cand);
	free(keep);
	return IW_OK;
}
