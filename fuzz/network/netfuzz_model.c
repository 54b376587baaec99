/*
 * netfuzz_model.c - the model of a conforming DUT next to each run (iw_conn with a reflector on
 * top, as the DUT's reflector echoes every delivered Send), what it tells the judge, and the
 * coverage of its states, event kinds and error codes over all runs.
 */
#include <string.h>

#include "iw_proto.h"
#include "netfuzz_int.h"

/* ---- coverage ---- */

static const struct { int l, t, c; } cov_codes[] = {
	{2, 0, 1}, {2, 0, 2}, {2, 0, 3}, {2, 0, 4}, {2, 0, 5}, {2, 0, 6}, {2, 0, 7},
	{1, 0, 0},
	{1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {1, 1, 3}, {1, 1, 4},
	{1, 2, 1}, {1, 2, 2}, {1, 2, 3}, {1, 2, 4}, {1, 2, 5}, {1, 2, 6},
	{0, 0, 0},
	{0, 1, 0}, {0, 1, 1}, {0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 1, 9},
	{0, 2, 5}, {0, 2, 6}, {0, 2, 0xff},
};
#define NCODES (sizeof cov_codes / sizeof cov_codes[0])

void nf_cov_counts(const nf_cov *c, unsigned *have, unsigned *total)
{
	*have = (unsigned)__builtin_popcount(c->states) + (unsigned)__builtin_popcount(c->events) +
		(unsigned)__builtin_popcountll(c->codes);
	*total = (IW_CS_CLOSED + 1) + (IW_EV_PEER_CLOSED + 1) + (unsigned)NCODES;
}

void nf_cov_code(nf_session *s, int l, int t, int c)
{
	for (size_t i = 0; i < NCODES; i++)
		if (cov_codes[i].l == l && cov_codes[i].t == t && cov_codes[i].c == c)
			s->st.cov.codes |= 1ull << i;
}

/* ---- the model ---- */

iw_conn *nf_model_make(nf_session *s)
{
	/* A finished run's model, renewed: its half a megabyte of buffers serves again rather
	 * than being freed and allocated once a run. */
	iw_conn *m = s->used;
	s->used = NULL;
	iw_err e;
	if (iw_conn_renew(&m, &s->mcfg, &e) != IW_OK)
		return NULL;
	if (iw_conn_start(m, &e) != IW_OK) {
		iw_conn_free(m);
		return NULL;
	}
	return m;
}

void nf_model_done(nf_session *s, iw_conn *m)
{
	if (!s->used)
		s->used = m;
	else
		iw_conn_free(m);
}

/* A fresh model: the one made while the DUT answered the previous run, or a new one. */
iw_conn *nf_model_take(nf_session *s)
{
	iw_conn *m = s->spare;
	s->spare = NULL;
	return m ? m : nf_model_make(s);
}

/* Takes the model's events (the reflector answers delivered Sends, as the DUT's does) and
 * its output. */
void nf_model_drain(nf_session *s)
{
	iw_conn *m = s->c.model;
	iw_conn_event ev;
	while (iw_conn_next_event(m, &ev)) {
		s->st.cov.events |= 1u << ev.kind;
		switch (ev.kind) {
		case IW_EV_FRAME_REJECTED:
			s->c.obs.frame_rejected = true;
			s->c.obs.reject_viol = ev.viol;
			nf_cov_code(s, ev.viol.layer, ev.viol.etype, ev.viol.ecode);
			break;
		case IW_EV_SEND:
			s->c.obs.released = true;
			if (s->d.reflector) {
				iw_err e;
				(void)iw_conn_send(m, IW_OP_SEND, ev.data, ev.len, &e);
			}
			break;
		case IW_EV_TERMINATE:
			s->c.obs.got_terminate = true;
			s->c.obs.released = true;
			break;
		case IW_EV_WRITE:
		case IW_EV_READ_SERVICED:
		case IW_EV_READ_DONE:
			s->c.obs.released = true;
			break;
		case IW_EV_ERROR:
			if (!s->c.obs.failed) {
				s->c.obs.failed = true;
				s->c.obs.err = ev.viol;
			}
			/* An error above MPA means the FPDU itself was valid: rule 4 is satisfied. */
			if (ev.viol.layer != IW_LAYER_LLP)
				s->c.obs.released = true;
			nf_cov_code(s, ev.viol.layer, ev.viol.etype, ev.viol.ecode);
			break;
		default: break;
		}
	}
	enum iw_conn_state st = iw_conn_state(m);
	s->st.cov.states |= 1u << st;
	if (st == IW_CS_FULL)
		s->c.obs.released = true;
	size_t n;
	const uint8_t *out = iw_conn_output_peek(m, &n);
	if (n && nf_grow(&s->c.exp, &s->c.exp_cap, s->c.exp_len + n)) {
		memcpy(s->c.exp + s->c.exp_len, out, n);
		s->c.exp_len += n;
	}
	iw_conn_output_consume(m, n);
}

void nf_model_feed(nf_session *s, const uint8_t *b, size_t n)
{
	(void)iw_conn_input(s->c.model, b, n);
	nf_model_drain(s);
}
