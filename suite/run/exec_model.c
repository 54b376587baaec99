/*
 * exec_model.c - expectations that consult the model of a conforming DUT (`expect as-model`),
 * alternatives (`expect one-of`) and measurements (`expect measure`).
 */
#include "exec_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In full operation: the model, fed everything the harness sent since the last explicit
 * expectation, says what a conforming DUT running the reflector sends back: an echo per
 * delivered Send and a Read Response per served Read Request, in that order, then, on the first
 * error, its Terminate (layer, type and code; optional for MPA errors, MPA-7-02) and a close. */
static bool as_model_judge(ctx *x, const iw_step *s);

static bool as_model_full(ctx *x, const iw_step *s)
{
	x->in_as_model = true;
	bool ok = as_model_judge(x, s);
	x->in_as_model = false;
	ex_model_discard(x);
	return ok;
}

static bool as_model_judge(ctx *x, const iw_step *s)
{
	iw_conn_event ev;
	bool err = false;
	iw_violation v;
	memset(&v, 0, sizeof v);
	int64_t within = ex_arg_i(s, "within", x->o->dut.close_timeout_ms > 0 ? x->o->dut.close_timeout_ms : DEFAULT_WITHIN_MS);
	/* What the model found before it was fed FPDU by FPDU comes first, then the copied events. */
	while (iw_conn_next_event(x->h->model, &ev))
		if (ev.kind == IW_EV_ERROR && !err) {
			err = true;
			v = ev.viol;
		}
	const model_ev *me = x->h->mev;
	size_t n = 0, necho = 0, nread = 0;
	for (; n < x->h->nmev && !err; n++) {
		if (me[n].kind == IW_EV_ERROR) {
			err = true;
			v = me[n].viol;
		}
		necho += me[n].kind == IW_EV_SEND;
		nread += me[n].kind == IW_EV_READ_SERVICED;
	}
	if (err)
		ex_note(x, "model: %zu echo%s and %zu Read Response%s, then %s (%s: %s), reported and closed", necho,
		     necho == 1 ? "" : "es", nread, nread == 1 ? "" : "s", iw_error_name(v.layer, v.etype, v.ecode),
		     v.req ? v.req : "", v.detail);
	else
		ex_note(x, "model: %zu echo%s and %zu Read Response%s due, then nothing", necho, necho == 1 ? "" : "es", nread,
		     nread == 1 ? "" : "s");
	/* Echoes and Read Responses are independent operations: each kind keeps its order, the two
	 * may interleave. Once an error is due, echoes of Sends delivered just before it are optional:
	 * the reflector may not have run before the Terminate went out (DDP-9.1-04). */
	size_t ie = 0, ir = 0;
	iw_step term, cl;
	ex_st_init(&term, IW_EXPECT_TERMINATE, "terminate", s->line);
	ex_st_int(&term, "layer", v.layer, IW_ARG_INT);
	ex_st_int(&term, "etype", v.etype, IW_ARG_INT);
	ex_st_int(&term, "ecode", v.ecode, IW_ARG_INT);
	ex_st_init(&cl, IW_EXPECT_CLOSE, "any", s->line);
	ex_st_int(&cl, "within", within, IW_ARG_DURATION);
	for (;;) {
		size_t ne = ie, nr = ir;
		for (size_t i = 0, ke = 0, kr = 0; i < n; i++) {
			if (me[i].kind == IW_EV_SEND && ke++ == ie)
				ne = i;
			if (me[i].kind == IW_EV_READ_SERVICED && kr++ == ir)
				nr = i;
		}
		bool more = ie < necho || ir < nread;
		if (!err && !more) {
			iw_step st;
			ex_st_init(&st, IW_EXPECT_SILENCE, "silence", s->line);
			ex_st_int(&st, "for", within < 300 ? within : 300, IW_ARG_DURATION);
			return ex_exp_silence(x, &st);
		}
		int64_t deadline = ex_within_deadline(x, s);
		ex_pump(x, 1, deadline);
		if (!ex_avail(x)) {
			if (err && (x->h->fin || x->h->rst) && v.layer == IW_LAYER_LLP)
				return true;        /* MPA-7-02: the code SHOULD reach the peer; a close alone passes */
			/* The echoes are optional once an error is due (above), also when the DUT closed
			 * before any came: the application had not posted them when the error ended the
			 * stream (issue 39: siw's QP went to error before the reflector's echo, on a slow
			 * run). What is left to judge is the Terminate. */
			bool closed = x->h->fin || x->h->rst;
			if (err && (!more || (closed && ir >= nread)))
				return ex_exp_message(x, &term, true) && ex_exp_close(x, &cl);
			return ex_fail(x, err ? v.req : NULL, "model: %s was due; %s", ie < necho ? "an echo" : "a Read Response",
				    x->h->fin || x->h->rst ? "the DUT closed the connection" : "nothing arrived in time");
		}
		size_t save = x->h->in_cur;
		iw_mpa_rx *rxs = malloc(sizeof *rxs);
		iw_fpdu *fp = malloc(sizeof *fp);
		if (!rxs || !fp) {
			free(rxs);
			free(fp);
			return ex_herror(x, "out of memory");
		}
		*rxs = *x->h->rx;
		iw_source src_save = x->h->src;
		dut_msg dm;
		bool ok = ex_read_message(x, deadline, "as-model", &dm, fp);
		free(fp);
		if (ok && dm.opcode == IW_OP_TERMINATE && err) {
			/* Read it again as the Terminate expectation, with its code check and mappings. */
			x->h->in_cur = save;
			*x->h->rx = *rxs;
			x->h->src = src_save;
			free(rxs);
			free(dm.data);
			return ex_exp_message(x, &term, true) && ex_exp_close(x, &cl);
		}
		free(rxs);
		if (ok && (dm.opcode == IW_OP_SEND || dm.opcode == IW_OP_SEND_SE) && ie < necho) {
			if (dm.len != me[ne].len || (dm.len && memcmp(dm.data, me[ne].data, dm.len)))
				ok = ex_fail(x, "DDP-7.3-07", "model: the echo of the Send delivered %zu%s (%zu octets) was due; the "
					  "DUT echoed %zu other octets", ie + 1, ie == 0 ? "st" : ie == 1 ? "nd" : "th", me[ne].len,
					  dm.len);
			ie++;
		} else if (ok && dm.opcode == IW_OP_READ_RESP && ir < nread) {
			/* The rule decode holds a capture's Responses to (suite/verify/verify_read.c). */
			iw_check chk;
			if (!iw_verify_read_resp(&me[nr].rreq, &dm.first, dm.len, true, &chk))
				ok = ex_fail(x, chk.req, "model: %s", chk.detail);
			ir++;
		} else if (ok) {
			ok = ex_fail(x, err ? v.req : NULL, "model: the DUT sent %s, which a conforming DUT does not send here%s",
				  iw_rdmap_op(dm.opcode)->name, err ? " (a Terminate was due)" : "");
		}
		free(dm.data);
		if (!ok)
			return false;
	}
}

/* What a conforming DUT does with everything sent so far, per the engine's model. */
bool ex_exp_as_model(ctx *x, const iw_step *s)
{
	if (!x->h->model)
		return ex_herror(x, "line %d: no model of the DUT", s->line);
	if (x->h->full_op && x->h->model_full)
		return as_model_full(x, s);
	iw_conn_event ev;
	bool rejected = false, accepted = false;
	iw_violation why;
	memset(&why, 0, sizeof why);
	while (iw_conn_next_event(x->h->model, &ev)) {
		if (ev.kind == IW_EV_FRAME_REJECTED) {
			rejected = true;
			why = ev.viol;
		} else if (ev.kind == IW_EV_FRAME_ACCEPTED) {
			accepted = true;
		}
	}
	if (rejected) {
		ex_note(x, "model: a conforming DUT refuses this (%s: %s) and closes without a frame", why.req, why.detail);
		/* The close is the rule of the peer that had an improperly formatted frame: a responder
		 * closes with no Reply (MPA-6.1-R2b), an initiator with no FPDU (R3b); RFC 6581's short
		 * IRD/ORD block is its own rule. Judged here, so a reader of the capture who names that
		 * rule agrees with the verdict resting on why.req. */
		const char *close_rule = x->dut_role == IW_ROLE_INITIATOR ? "MPA-6.1-R3b" : "MPA-6.1-R2b";
		/* RFC 6581 binds the sender of an Enhanced frame too short for its IRD/ORD block
		 * (RFC6581-6-03), not its receiver: the model refuses it, a DUT may also answer. What
		 * it answers is judged as every frame is. */
		bool any_answer = why.req && !strcmp(why.req, "RFC6581-6-03");
		if (!any_answer)
			iw_result_judged(x->r, &close_rule, 1);
		if (!ex_exp_close(x, s)) {
			if (any_answer && !x->harness_error && x->fail_by != EX_EVERY_FRAME) {
				ex_unfail(x);
				ex_note(x, "the DUT answered a frame the model refuses (%s); RFC 6581 leaves its receiver free to",
					why.detail);
				return true;
			}
			size_t l = strlen(x->r->reason);
			snprintf(x->r->reason + l, sizeof x->r->reason - l, "; a conforming DUT closes here because %s (%s)",
				 why.detail, why.req);
			if (why.req && *why.req)
				snprintf(x->fail_req, sizeof x->fail_req, "%s", why.req);
			return false;
		}
		return true;
	}
	if (accepted && x->dut_role == IW_ROLE_INITIATOR) {
		/* A conforming initiator enters full operation: it must not close; it may send FPDUs. */
		ex_note(x, "model: a conforming initiator accepts this Reply and stays in full operation");
		int64_t deadline = ex_within_deadline(x, s);
		int64_t quiet = ex_now_us() + 1000000;
		ex_pump(x, RX_LIMIT, quiet < deadline ? quiet : deadline);
		/* What it sent meanwhile (its greeting) is judged as any FPDU is. */
		if (!ex_take_arrivals(x, "as-model", false))
			return false;
		if (x->h->fin || x->h->rst)
			return ex_fail(x, "MPA-6.1-R3d", "the DUT closed the connection (%s) after a Reply a conforming "
				    "initiator accepts", x->h->rst ? "RST" : "FIN");
		return true;
	}
	if (accepted) {
		size_t n;
		const uint8_t *out = iw_conn_output_peek(x->h->model, &n);
		iw_mpa_frame mf;
		size_t flen;
		iw_err e;
		enum iw_mpa_kind k = x->dut_role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST;
		if (iw_mpa_frame_decode(x->p, out, n, &mf, &flen, &e) != IW_OK)
			return ex_herror(x, "the model accepted but produced no frame: %s", e.msg);
		ex_note(x, "model: a conforming DUT accepts and answers with a %s", ex_kind_name(k));
		if (!ex_exp_frame(x, s, k))
			return false;
		/* The model accepts, so R is judged whatever the configuration's `reject` says: that
		 * only declares the DUT can be told to refuse (the private data REJECTME, which no
		 * model refuses), and an accepting answer has R=0. */
		bool told_to_refuse = k == IW_MPA_REPLY && x->o->dut.reject && x->h->sent_frame_valid && x->h->sent_reject_pd;
		if (x->h->got_frame.r != mf.r && !told_to_refuse)
			return ex_fail(x, k == IW_MPA_REQUEST ? "MPA-6.1.1-R1" : x->h->got_frame.r ? ex_reply_r_req(x) : "MPA-6.1-R2c",
				       "the DUT answered R=%d where a conforming DUT answers R=%d%s", x->h->got_frame.r, mf.r,
				       x->h->got_frame.r && x->h->sent_frame.r ? " (the Request's R=1 is not checked)" : "");
		if (x->h->got_frame.rev != mf.rev)
			return ex_fail(x, iw_verify_startup_rev_req(x->p, mf.rev), "the DUT's %s has Rev=%u, the profile requires %u",
				       ex_kind_name(k), x->h->got_frame.rev, mf.rev);
		if (mf.c && !x->h->got_frame.c && ex_c0_held(x))
			return ex_fail(x, "MPA-5.2-03", "the DUT answered C=0 in its default configuration; CRCs must be on");
		return true;
	}
	ex_note(x, "model: a conforming DUT waits for more octets");
	return ex_exp_silence(x, s);
}

/* Whether the case cites the requirement (a failure resting on another is "not judged"). */
static bool cites(const ctx *x, const char *req)
{
	for (size_t i = 0; i < x->c->nreqs; i++)
		if (!strcmp(x->c->reqs[i].id, req))
			return true;
	return false;
}

static bool one_of(ctx *x, const iw_step *s)
{
	size_t cur = x->h->in_cur;
	iw_mpa_rx *saved = malloc(sizeof *saved);
	if (!saved)
		return ex_herror(x, "out of memory");
	*saved = *x->h->rx;
	bool saved_ready = x->h->rx_ready, saved_full = x->h->full_op;
	iw_source saved_src = x->h->src;
	size_t saved_markers = x->h->dut_markers;
	/* An alternative may take the DUT's startup frame (a silence judges what broke it). */
	bool saved_got = x->h->got_frame_valid;
	iw_mpa_frame saved_frame = x->h->got_frame;
	char reasons[IW_CASE_MAX_ALTS][256];
	/* The requirement each alternative failed on: when all failed on one rule of the DUT's
	 * frames (judged on every frame), the case rests on it (a Reply whose Rev is wrong fails
	 * `reply r=0` and `reply r=1` alike, on the Rev rule). */
	char reqs[IW_CASE_MAX_ALTS][sizeof x->fail_req] = {{0}};
	/* Whether each alternative got the message it expected with a field wrong (a Terminate with
	 * another code), and that field: such an alternative alone is the DUT's answer, and its rule
	 * and field are the blame (issue 38: not the case's first row, the CRC rule, pointing at a
	 * Terminate whose CRC is valid). */
	bool in_message[IW_CASE_MAX_ALTS] = {false};
	char fields[IW_CASE_MAX_ALTS][sizeof x->r->fail_field] = {{0}};
	/* How many expectations of each alternative held before one failed, and who judged that
	 * failure: an alternative whose first expectation held (the Terminate it wanted came, the
	 * close after it did not) is the DUT's answer, and its failure is the case's. */
	size_t held[IW_CASE_MAX_ALTS] = {0};
	enum ex_judge by[IW_CASE_MAX_ALTS] = {EX_BY_CASE};
	bool every_frame = true;
	size_t saved_maps = x->r->nmappings;
	bool saved_short = x->short_of;   /* a SHOULD missed counts only in the alternative that matched */
	for (size_t i = 0; i < s->nalts; i++) {
		x->r->nmappings = saved_maps;   /* a mapping counts only in the alternative that matched */
		x->short_of = saved_short;
		x->h->in_cur = cur;
		*x->h->rx = *saved;
		x->h->rx_ready = saved_ready;
		x->h->full_op = saved_full;
		x->h->src = saved_src;
		x->h->dut_markers = saved_markers;
		x->h->got_frame_valid = saved_got;
		x->h->got_frame = saved_frame;
		x->failed = false;
		x->fail_in_message = false;
		bool ok = true;
		for (size_t k = 0; ok && k < s->alts[i].nseq; k++) {
			ok = ex_run_expect(x, s->alts[i].seq[k]);
			held[i] += ok;
		}
		if (ok) {
			ex_note(x, "alternative %zu of %zu matched", i + 1, s->nalts);
			free(saved);
			return true;
		}
		if (x->harness_error) {
			free(saved);
			return false;
		}
		memcpy(reasons[i], x->r->reason, sizeof reasons[i] - 1);
		reasons[i][sizeof reasons[i] - 1] = '\0';
		memcpy(reqs[i], x->fail_req, sizeof reqs[i]);
		memcpy(fields[i], x->r->fail_field, sizeof fields[i]);
		in_message[i] = x->fail_in_message;
		by[i] = x->fail_by;
		every_frame = every_frame && x->fail_by == EX_EVERY_FRAME;
	}
	/* The DUT's answer. First a frame no conforming sender writes, which any alternative met: the
	 * octets are the DUT's whichever alternative read them, so the verdict does not depend on
	 * which one was waiting when they came (a Terminate a little late for the alternative that
	 * wanted it, then read by the next). Then the one alternative whose first expectations held;
	 * else the one that got the message it expected with a field wrong, by a rule the case cites
	 * or one every frame is held to. */
	size_t nanswers = 0, answer = 0;
	for (size_t i = 0; i < s->nalts && !nanswers; i++)
		if (by[i] == EX_EVERY_FRAME && reqs[i][0]) {
			nanswers = 1;
			answer = i;
		}
	bool frame = nanswers == 1;
	for (size_t i = 0; i < s->nalts && !frame; i++)
		if (held[i] && reqs[i][0]) {
			nanswers++;
			answer = i;
		}
	for (size_t i = 0; i < s->nalts && !nanswers; i++)
		if (in_message[i] && reqs[i][0] && cites(x, reqs[i])) {
			nanswers++;
			answer = i;
		}
	/* Every alternative failed on one rule (the same missing Terminate, RFC5040-7.1-02, in each
	 * of two accepted codes): the case rests on it. */
	bool one_req = reqs[0][0] != '\0';
	for (size_t i = 1; i < s->nalts && one_req; i++)
		one_req = !strcmp(reqs[i], reqs[0]);
	free(saved);
	x->r->nmappings = saved_maps;
	x->short_of = saved_short;
	x->failed = false;
	char all[1000];
	size_t o = 0;
	for (size_t i = 0; i < s->nalts && o < sizeof all; i++)
		o += (size_t)snprintf(all + o, sizeof all - o, "%s(%zu) %s", i ? "; " : "", i + 1, reasons[i]);
	if (nanswers == 1) {
		bool ok = by[answer] == EX_EVERY_FRAME
				  ? ex_fail_frame(x, reqs[answer], "none of the %zu allowed outcomes happened: %s", s->nalts, all)
				  : ex_fail(x, reqs[answer], "none of the %zu allowed outcomes happened: %s", s->nalts, all);
		snprintf(x->r->fail_field, sizeof x->r->fail_field, "%s", fields[answer]);
		return ok;
	}
	if (one_req && every_frame)
		return ex_fail_frame(x, reqs[0], "none of the %zu allowed outcomes happened: %s", s->nalts, all);
	if (one_req)
		return ex_fail(x, reqs[0], "none of the %zu allowed outcomes happened: %s", s->nalts, all);
	return ex_fail(x, NULL, "none of the %zu allowed outcomes happened: %s", s->nalts, all);
}

bool ex_exp_one_of(ctx *x, const iw_step *s)
{
	bool outer = x->in_one_of;
	int conn = x->quiet_conn;
	size_t at = x->quiet_at;
	int64_t us = x->quiet_us;
	if (!outer) {
		x->in_one_of = true;
		x->quiet_conn = -1;
		x->quiet_at = 0;
		x->quiet_us = 0;
	}
	bool ok = one_of(x, s);
	x->in_one_of = outer;
	x->quiet_conn = conn;
	x->quiet_at = at;
	x->quiet_us = us;
	return ok;
}

bool ex_exp_measure(ctx *x, const iw_step *s)
{
	int64_t start = ex_now_us();
	int64_t deadline = ex_within_deadline(x, s);
	/* What the DUT sends while the harness waits for its close is judged as any frame is (a Reply
	 * to a Request that never completed breaks MPA-6.1-R2a): a measurement is no licence. */
	while (!x->h->fin && !x->h->rst && ex_now_us() < deadline) {
		ex_pump(x, ex_avail(x) + 1, deadline);
		if (!ex_take_arrivals(x, "measure close", false))
			return false;
	}
	if (!ex_take_arrivals(x, "measure close", true))
		return false;
	bool closed = x->h->fin || x->h->rst;
	double ms = (double)(ex_now_us() - start) / 1000.0;
	iw_case_result *r = x->r;
	if (r->nmeasures < sizeof r->measures / sizeof r->measures[0]) {
		iw_measure *m = &r->measures[r->nmeasures++];
		snprintf(m->name, sizeof m->name, "%s_after_line_%d", s->word[0] ? s->word : "close", s->line);
		/* No close in time: the value is unknown, not a number of ms (null in results.json,
		 * "none" in the text reports: docs/reports.md). */
		m->value = closed ? ms : NAN;
		snprintf(m->unit, sizeof m->unit, "ms");
	}
	ex_note(x, closed ? "measured: the DUT closed after %.0f ms" : "measured: no close within %.0f ms", ms);
	return true;
}
