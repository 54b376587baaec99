/*
 * netfuzz_run.c - one run: a program executed over one TCP connection next to a model of a
 * conforming DUT. nf_run_start connects, sends the program and the FIN; nf_run_finish awaits
 * the DUT's close and judges its whole reaction (netfuzz_judge.c), then probes liveness when
 * something looks wrong. Between the two halves a run is parked in a slot, so the next runs
 * are sent while the DUT answers this one.
 */
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "netfuzz_int.h"

static void hex(const char *what, const uint8_t *b, size_t n)
{
	fprintf(stderr, "  %s (%zu):", what, n);
	for (size_t i = 0; i < n && i < 400; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n    ", b[i]);
	fprintf(stderr, "\n");
}

static void dump(nf_session *s, const nf_prog *p, const nf_finding *f)
{
	fprintf(stderr, "netfuzz debug: run %llu: %s [%s] %s\n", (unsigned long long)p->run, nf_fkind_name(f->kind), f->req,
		f->detail);
	for (size_t i = 0; i < p->n; i++) {
		char line[400];
		nf_action_describe(p, &p->a[i], line, sizeof line);
		fprintf(stderr, "  %zu. %s\n", i + 1, line);
	}
	fprintf(stderr, "  released=%d failed=%d rejected=%d terminate=%d closed_before_fin=%d early=%d dut_fin=%d dut_rst=%d\n",
		s->c.obs.released, s->c.obs.failed, s->c.obs.frame_rejected, s->c.obs.got_terminate, s->c.obs.closed_before_fin,
		s->c.obs.early_close, s->c.tr.dut_fin, s->c.tr.dut_rst);
	hex("to DUT", s->c.tr.to_dut, s->c.tr.to_len);
	hex("from DUT", s->c.tr.from_dut, s->c.tr.from_len);
	hex("model", s->c.exp, s->c.exp_len);
}

static const char *crash_req(const nf_session *s)
{
	if (s->c.obs.failed && s->c.obs.err.req)
		return s->c.obs.err.req;
	if (s->c.obs.frame_rejected && s->c.obs.reject_viol.req)
		return s->c.obs.reject_viol.req;
	return "DDP-8.2.2-01";
}

/* A6: the harness sent octets behind its Request before it could read the DUT's Reply, that is
 * before it first waited for the DUT (for the greeting), as the case does (`send raw` before
 * `expect reply`). */
static bool sent_early(const nf_session *s)
{
	const nf_trace *t = &s->c.tr;
	if (s->d.role != IW_ROLE_RESPONDER || !t->frame_sent)
		return false;
	for (size_t i = 1; i < t->sent_actions; i++) {
		if (t->act_waited[i])
			return false;
		if (t->act_end[i] > t->act_start[i])
			return true;
	}
	return false;
}

static void park(nf_session *s, int k)
{
	s->slots[k] = s->c;
	memset(&s->c, 0, sizeof s->c);
	s->c.fd = -1;
}

static void unpark(nf_session *s, int k)
{
	s->c = s->slots[k];
	memset(&s->slots[k], 0, sizeof s->slots[k]);
	s->slots[k].fd = -1;
}

int nf_run_start(nf_session *s, const nf_prog *p, int slot, iw_err *e)
{
	unpark(s, slot);
	nf_trace *t = &s->c.tr;
	t->record = s->record;
	t->to_len = t->from_len = t->nchunks = 0;
	t->we_fin = t->we_rst = t->dut_fin = t->dut_rst = false;
	t->frame_sent = false;
	t->sent_actions = 0;
	memset(t->act_start, 0, sizeof t->act_start);
	memset(t->act_end, 0, sizeof t->act_end);
	memset(t->act_exp_end, 0, sizeof t->act_exp_end);
	memset(t->act_released, 0, sizeof t->act_released);
	memset(t->act_adv, 0, sizeof t->act_adv);
	memset(t->act_waited, 0, sizeof t->act_waited);
	memset(&s->c.obs, 0, sizeof s->c.obs);
	memset(&s->c.f, 0, sizeof s->c.f);
	s->c.obs.early_state = -1;
	s->c.p = p;
	s->c.exp_len = 0;
	s->c.sent = 0;
	s->c.split_every = 0;
	s->c.have_adv = false;
	s->c.reset = s->c.gone = false;
	/* Past the deadline a run is not made at all (nor counted). */
	s->c.abandoned = nf_session_expired(s);
	if (!s->c.abandoned && nf_drv_connect(s, &s->c.fd, e) != IW_OK) {
		s->c.fd = -1;
		s->c.abandoned = nf_session_expired(s);
		if (!s->c.abandoned) {
			s->st.runs++;
			s->c.gone = true;
		}
	}
	if (s->c.abandoned) {
		s->c.fd = -1;
		park(s, slot);
		return IW_OK;
	}
	if (s->c.gone) {
		/* The DUT died with an earlier run (or cannot be reached at all). */
		char why[sizeof e->msg + 40];
		snprintf(why, sizeof why, "a fresh connection failed: %s", e->msg);
		nf_crash_check(s, &s->c.f, "DDP-8.2.2-01", why);
		bool fatal = !s->is_exec && s->c.f.kind == NF_F_DEAD;
		s->c.f.previous = true; /* an earlier program's: the caller confirms it */
		park(s, slot);
		if (fatal)
			return iw_errf(e, IW_ESTATE, "the DUT stopped answering (%.160s) and its driver cannot restart it",
				       why);
		return IW_OK;
	}
	s->st.runs++;
	s->c.model = nf_model_take(s);
	if (!s->c.model) {
		nf_sock_close(s->c.fd, true);
		s->c.fd = -1;
		park(s, slot);
		return iw_errf(e, IW_ENOSPC, "no memory for the model");
	}
	nf_model_drain(s); /* an initiator model's Request */
	bool tx_ready = false;
	if (!s->d.profile->startup_frames) {
		iw_mpa_tx_init(&s->c.tx, s->d.profile, true, true);
		tx_ready = true;
		s->c.obs.released = true;
	} else {
		iw_mpa_tx_init(&s->c.tx, s->d.profile, false, true);
	}
	bool alive = true, reset = false;
	size_t i;
	for (i = 0; i < p->n && alive; i++) {
		const nf_action *a = &p->a[i];
		if (iw_conn_wants_close(s->c.model))
			break; /* a conforming DUT has closed: what follows is not its business */
		t->act_start[i] = t->act_end[i] = (uint32_t)t->to_len;
		size_t n = 0;
		switch (a->kind) {
		case NF_A_FRAME:
			n = nf_render_frame(s, p, a);
			if (t->to_len == 0) {
				t->frame_sent = true; /* the stream's first octets: a `send request` step */
				s->c.obs.sent_r = s->c.tr.frame.r;
			}
			alive = nf_emit(s, s->rbuf, n);
			nf_tx_sync(s, &tx_ready);
			break;
		case NF_A_FPDU:
			if (!tx_ready)
				nf_tx_sync(s, &tx_ready);
			if ((a->fp.stag_adv || a->fp.rr_src_adv) && !s->c.have_adv)
				t->act_waited[i] = nf_want_greeting(s);
			t->act_adv[i] = (a->fp.stag_adv || a->fp.rr_src_adv) && s->c.have_adv;
			n = nf_render_fpdu(s, p, a);
			alive = nf_emit(s, s->rbuf, n);
			break;
		case NF_A_RAW:
			if (!nf_rreserve(s, a->len + 1)) {
				alive = false;
				break;
			}
			for (size_t k = 0; k < a->len; k++)
				s->rbuf[k] = nf_act_octet(p, a, k);
			alive = nf_emit(s, s->rbuf, a->len);
			if (tx_ready)
				iw_mpa_tx_skip(&s->c.tx, a->len);
			nf_tx_sync(s, &tx_ready);
			break;
		case NF_A_SPLIT:
			if (a->split_every && !s->c.split_every)
				nf_nodelay(s);
			s->c.split_every = a->split_every;
			break;
		case NF_A_SLEEP: {
			nf_nodelay(s);
			alive = nf_flush(s);
			struct timespec ts = {0, (long)a->sleep_us * 1000};
			nanosleep(&ts, NULL);
			/* The DUT may have closed meanwhile (then a conforming DUT had a reason). */
			if (alive && !nf_pull(s, 0))
				alive = false;
			break;
		}
		case NF_A_RESET:
			nf_flush(s);
			reset = true;
			alive = false;
			break;
		default: break;
		}
		t->act_end[i] = (uint32_t)t->to_len;
		t->act_exp_end[i] = (uint32_t)s->c.exp_len;
		t->act_released[i] = s->c.obs.released;
		if (t->dut_fin || t->dut_rst)
			nf_note_dut_close(s);
	}
	if (alive)
		alive = nf_flush(s);
	t->sent_actions = i;
	if (t->dut_fin || t->dut_rst)
		nf_note_dut_close(s);
	s->c.obs.closed_before_fin = iw_conn_wants_close(s->c.model);
	s->c.reset = reset;
	if (s->c.abandoned) {
		nf_sock_close(s->c.fd, true);
		s->c.fd = -1;
	} else if (reset) {
		t->we_rst = true;
		nf_sock_close(s->c.fd, true);
		s->c.fd = -1;
	} else if (!s->c.obs.stuck_writing && !t->dut_rst) {
		shutdown(s->c.fd, SHUT_WR);
		t->we_fin = true;
	}
	iw_conn_peer_closed(s->c.model);
	nf_model_drain(s);
	park(s, slot);
	return IW_OK;
}

int nf_run_finish(nf_session *s, int slot, nf_finding *f, iw_err *e)
{
	(void)e;
	unpark(s, slot);
	nf_trace *t = &s->c.tr;
	const nf_prog *p = s->c.p;
	*f = s->c.f;
	if (s->c.abandoned) {
		/* Cut by the deadline or a signal: whatever the DUT did is not judged. A run that
		 * never connected was not made at all. */
		nf_sock_close(s->c.fd, true);
		s->c.fd = -1;
		if (s->c.model)
			s->st.inconclusive++;
		nf_model_done(s, s->c.model);
		s->c.model = NULL;
		memset(f, 0, sizeof *f);
		park(s, slot);
		return IW_OK;
	}
	if (s->c.gone) {
		if (f->kind != NF_F_NONE)
			s->st.findings++;
		park(s, slot);
		return IW_OK;
	}
	if (!s->c.reset) {
		/* The next run's model (a few hundred KiB to reserve and zero) is made while the DUT
		 * works on this one. */
		if (!s->spare)
			s->spare = nf_model_make(s);
		nf_await_close(s);
		if (s->c.abandoned) {
			park(s, slot);
			return nf_run_finish(s, slot, f, e);
		}
		/* A DUT that did not close gets an RST: nothing of it lingers. */
		nf_sock_close(s->c.fd, s->c.obs.timed_out || s->c.obs.stuck_writing);
		s->c.fd = -1;
		s->c.obs.dut = &s->d;
		s->c.obs.p = s->d.profile;
		s->c.obs.model = s->c.model;
		s->c.obs.exp = s->c.exp;
		s->c.obs.exp_len = s->c.exp_len;
		s->c.obs.got = t->from_dut;
		s->c.obs.got_len = t->from_len;
		s->c.obs.dut_fin = t->dut_fin;
		s->c.obs.sent_early = sent_early(s);
		s->c.obs.dut_rst = t->dut_rst;
		nf_judge(&s->dec, &s->c.obs, f, &s->ex);
	}
	/* Suspected trouble, or asked to: is the DUT still there? */
	if ((f->kind != NF_F_NONE || s->probe_after || s->c.reset) &&
	    (f->kind != NF_F_NONE || s->probe_after || s->is_exec)) {
		char why[200];
		if (nf_probe(s, why, sizeof why) == NF_DEAD)
			nf_crash_check(s, f, crash_req(s), why);
	}
	if (s->debug && f->kind != NF_F_NONE)
		dump(s, p, f);
	iw_conn_params prm;
	iw_conn_params_get(s->c.model, &prm);
	t->markers_tx = prm.markers_tx;
	t->crc = prm.crc;
	t->exp = s->c.exp;
	t->exp_len = s->c.exp_len;
	nf_model_done(s, s->c.model);
	s->c.model = NULL;
	if (f->kind != NF_F_NONE)
		s->st.findings++;
	park(s, slot);
	return IW_OK;
}

int nf_run(nf_session *s, const nf_prog *p, nf_finding *f, iw_err *e)
{
	memset(f, 0, sizeof *f);
	int rc = nf_run_start(s, p, 0, e);
	if (rc)
		return rc;
	return nf_run_finish(s, 0, f, e);
}
