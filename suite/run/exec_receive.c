/*
 * exec_receive.c - the DUT's FPDUs and messages: each FPDU decoded by the engine and judged as a
 * data source's (framing, CRC, markers, MULPDU, MSN and MO/TO sequences), messages reassembled
 * and matched against `expect <msg>` and `expect terminate`, and `expect close` / `silence`.
 */
#include "exec_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "reflector_greeting.h"
#include "req_level.h"
#include "ulp_profile.h"

/* When the DUT's stream fails to decode, tells whether it decodes with the opposite marker
 * setting: then the fault is the DUT's marker negotiation, not its CRC (MPA-6.1.1-M1/M2). */
static bool decodes_with_markers(ctx *x, bool markers)
{
	if (!x->h->fullop_in_valid || x->h->fullop_in_off > x->h->in_len)
		return false;
	iw_mpa_rx *alt = malloc(sizeof *alt);
	iw_fpdu *fp = malloc(sizeof *fp);
	bool ok = false;
	if (alt && fp) {
		iw_mpa_rx_init(alt, x->p, markers, x->h->rx->crc);
		const uint8_t *b = x->h->in + x->h->fullop_in_off;
		size_t n = x->h->in_len - x->h->fullop_in_off, nf = 0;
		while (n) {
			size_t used = 0;
			iw_violation v;
			enum iw_rx_status st = iw_mpa_rx_push(alt, b, n, &used, fp, &v);
			b += used;
			n -= used;
			if (st == IW_RX_ERROR)
				break;
			if (st == IW_RX_FPDU)
				nf++;
			if (st == IW_RX_NEED_MORE)
				break;
		}
		ok = nf > 0 && !alt->failed;
	}
	free(alt);
	free(fp);
	return ok;
}

/* The octets of the FPDU the decoder holds a part of (consumed from `in`, not complete): shown in
 * the wire log, so what the DUT sent before it stopped is on record, not judged. */
void ex_log_partial_fpdu(ctx *x, const char *why)
{
	hconn *h = x->h;
	if (!h->rx_ready || !iw_mpa_rx_partial(h->rx))
		return;
	uint64_t part = h->rx->pos - h->rx->fpdu_start;
	size_t shown = part < h->in_cur ? (size_t)part : h->in_cur;
	ex_wire_in(x, "raw", NULL, h->in_cur - shown, shown,
		   "%llu octets of an FPDU the DUT did not complete (stream offset %llu), not judged: %s",
		   (unsigned long long)part, (unsigned long long)h->rx->fpdu_start, why);
}

/* The startup rules an FPDU of the DUT answers to, whatever step reads it: a responder sends
 * none before it has received a valid FPDU (MPA-6.1-R4) nor after refusing the connection (R2e);
 * an initiator none before a valid Reply (R3a) nor after a refusing one (R3c). The model, fed
 * everything the harness sent, says where the harness's side stands; it only moves forward, so
 * what it says when the FPDU is read also held when the FPDU was sent. */
static const char *fpdu_out_of_turn(ctx *x, const char **why)
{
	hconn *h = x->h;
	if (!x->p->startup_frames)
		return NULL;
	enum iw_conn_state st = h->model ? iw_conn_state(h->model) : IW_CS_FULL;
	if (x->dut_role == IW_ROLE_RESPONDER) {
		if (h->got_frame_valid && h->got_frame.r) {
			*why = "after its Reply refused the connection (R=1)";
			return "MPA-6.1-R2e";
		}
		if (st == IW_CS_STARTUP || st == IW_CS_AWAIT_FIRST_FPDU) {
			*why = st == IW_CS_STARTUP ? "before the Request was complete" : "before it had received a valid FPDU";
			return "MPA-6.1-R4";
		}
		return NULL;
	}
	if (h->sent_frame_valid && h->sent_frame.r) {
		*why = "after the harness's Reply refused the connection (R=1)";
		return "MPA-6.1-R3c";
	}
	if (st == IW_CS_STARTUP) {
		*why = "before it had received a valid Reply";
		return "MPA-6.1-R3a";
	}
	return NULL;
}

int ex_fpdu_take(ctx *x, iw_fpdu *fp, const char *req_ctx)
{
	while (ex_avail(x)) {
		size_t used = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(x->h->rx, x->h->in + x->h->in_cur, ex_avail(x), &used, fp, &err);
		x->h->in_cur += used;
		if (st == IW_RX_FPDU) {
			/* The whole FPDU, also when it came in several reads: its octets end at in_cur. */
			size_t shown = fp->wire_len < x->h->in_cur ? fp->wire_len : x->h->in_cur;
			char ddp[160] = "";
			iw_rdmap_msg m;
			iw_violation v;
			bool parsed = iw_rdmap_parse(x->p, fp->ulpdu, fp->ulpdu_length, &m, &v);
			if (!parsed)
				snprintf(ddp, sizeof ddp, ": %.150s", v.detail);
			else if (m.ddp.tagged)
				snprintf(ddp, sizeof ddp, ": %s, DDP tagged L=%d STag=0x%x TO=0x%llx, %zu payload octets",
					 iw_rdmap_op(m.opcode)->name, m.ddp.last, m.ddp.stag,
					 (unsigned long long)m.ddp.to, m.payload_len);
			else
				snprintf(ddp, sizeof ddp, ": %s, DDP untagged L=%d QN=%u MSN=%u MO=%u, %zu payload octets",
					 iw_rdmap_op(m.opcode)->name, m.ddp.last, m.ddp.qn, m.ddp.msn, m.ddp.mo,
					 m.payload_len);
			/* What the DUT did: the message's name; a Terminate's is its error, and its code is
			 * the field a wrong code blames (report.html). */
			char act[sizeof x->r->wire[0].act];
			snprintf(act, sizeof act, "%s", parsed ? iw_rdmap_op(m.opcode)->name : "FPDU that does not parse");
			iw_terminate term;
			if (parsed && m.opcode == IW_OP_TERMINATE && !m.ddp.tagged &&
			    iw_terminate_decode(m.payload, m.payload_len, &term, NULL) == IW_OK) {
				size_t dl = strlen(ddp);
				snprintf(ddp + dl, sizeof ddp - dl, ", Code=%d/0x%x/0x%02x", term.layer, term.etype,
					 term.ecode);
				snprintf(act, sizeof act, "Terminate %s", iw_error_name(term.layer, term.etype, term.ecode));
			}
			ex_wire_in(x, "fpdu", act, x->h->in_cur - shown, shown,
				   "FPDU at %llu: ULPDU_Length=%u markers=%zu CRC %s%s", (unsigned long long)fp->start, fp->ulpdu_length, fp->nmarkers,
				   fp->crc_checked ? "valid" : "not checked", ddp);
			iw_check chk;
			bool held = iw_verify_fpdu(fp, &chk);
			x->r->frames_judged++;
			iw_result_judged(x->r, chk.rules, chk.nrules);
			/* perftest's comm connection is the means of a case, not its subject: what its
			 * frames break is noted, as the probe before a case notes it (exec_perftest.c). */
			if (!held && x->h->pt_is_comm) {
				ex_note(x, "perftest's comm connection (%d): %s [%s; noted, not judged: the case judges its own "
					"connections]", x->h->no, chk.detail, chk.req ? chk.req : "");
				held = true;
			}
			if (!held) {
				ex_fail_frame(x, chk.req, "%s", chk.detail);
				return EX_TAKE_FAILED;
			}
			x->h->dut_markers += fp->nmarkers;
			static const char *const turn_rule[2] = {"MPA-6.1-R4", "MPA-6.1-R3a"};
			if (x->p->startup_frames)
				iw_result_judged(x->r, &turn_rule[x->dut_role == IW_ROLE_RESPONDER ? 0 : 1], 1);
			const char *why = NULL, *turn = fpdu_out_of_turn(x, &why);
			if (turn) {
				ex_fail_frame(x, turn, "%s: the DUT sent an FPDU (at stream offset %llu) %s", req_ctx,
					      (unsigned long long)fp->start, why);
				return EX_TAKE_FAILED;
			}
			return EX_TAKE_OK;
		}
		if (st == IW_RX_ERROR) {
			/* The octets that do not decode, so the report can show (and point at) them. */
			size_t from = x->h->in_cur - used, shown = used + ex_avail(x) < 512 ? used + ex_avail(x) : 512;
			ex_wire_in(x, "raw", NULL, from, shown, "%zu octets that do not decode as an FPDU (stream offset %llu)",
				   shown, (unsigned long long)err.offset);
			if (decodes_with_markers(x, !x->h->rx->markers)) {
				ex_fail_frame(x, x->h->rx->markers ? "MPA-6.1.1-M2" : "MPA-6.1.1-M1",
					      "%s: the DUT's FPDUs %s markers: they decode only %s them (%s)", req_ctx,
					      x->h->rx->markers ? "lack the requested" : "carry unrequested",
					      x->h->rx->markers ? "without" : "with", err.detail);
				return EX_TAKE_FAILED;
			}
			const char *req = iw_verify_stream_req(&err, fp);
			uint32_t c = fp->crc_computed;
			uint32_t swapped = c >> 24 | (c >> 8 & 0xff00u) | (c << 8 & 0xff0000u) | c << 24;
			bool be = err.ecode == IW_MPA_E_CRC && fp->crc_received == swapped;
			ex_fail_frame(x, req, "%s: the DUT's stream is invalid at offset %llu: %s [%s]%s", req_ctx,
				      (unsigned long long)err.offset, err.detail, iw_error_name(err.layer, err.etype, err.ecode),
				      be ? " (the DUT sent its CRC most-significant octet first; A1: least-significant first)" : "");
			return EX_TAKE_FAILED;
		}
	}
	return EX_TAKE_PARTIAL;
}

/* Reads the next complete FPDU of the DUT; false with a failure recorded when none comes. */
static bool next_fpdu(ctx *x, int64_t deadline, iw_fpdu *fp, const char *req_ctx)
{
	if (!x->h->rx_ready) {
		if (x->p->startup_frames && !(x->h->sent_frame_valid && x->h->got_frame_valid))
			return ex_herror(x, "expecting an FPDU before the startup frames were exchanged");
		ex_enter_full_operation(x);
	}
	for (;;) {
		int rc = ex_fpdu_take(x, fp, req_ctx);
		if (rc != EX_TAKE_PARTIAL)
			return rc == EX_TAKE_OK;
		if (x->h->fin || x->h->rst) {
			ex_log_partial_fpdu(x, x->h->rst ? "the DUT reset the connection" : "the DUT closed (FIN)");
			return ex_fail(x, NULL, "%s: expected an FPDU, the DUT %s", req_ctx,
				    x->h->rst ? "reset the connection" : "closed the connection (FIN)");
		}
		if (ex_now_us() >= deadline) {
			ex_log_partial_fpdu(x, "nothing more arrived in time");
			x->fail_timed_out |= !x->failed;
			return ex_fail(x, NULL, "%s: expected an FPDU, nothing arrived in time", req_ctx);
		}
		ex_pump(x, ex_avail(x) + 1, deadline);
	}
}

static bool code_matches(ctx *x, const iw_step *s, const iw_terminate *t, char *why, size_t cap)
{
	int layer = ex_layer_value(iw_step_arg(s, "layer"));
	int etype = (int)ex_arg_i(s, "etype", -1), ecode = (int)ex_arg_i(s, "ecode", -1);
	bool ok = (layer < 0 || layer == t->layer) && (etype < 0 || etype == t->etype) && (ecode < 0 || ecode == t->ecode);
	if (ok)
		return true;
	/* A DUT configuration may map the spec's code to the one this DUT sends. */
	for (size_t i = 0; i < x->o->dut.nmaps; i++) {
		const iw_code_map *m = &x->o->dut.maps[i];
		if ((layer < 0 || m->from.layer == layer) && (etype < 0 || m->from.etype == etype) &&
		    (ecode < 0 || m->from.ecode == ecode) && m->to.layer == t->layer && m->to.etype == t->etype &&
		    m->to.ecode == t->ecode) {
			if (x->r->nmappings < 4)
				snprintf(x->r->mappings[x->r->nmappings++], sizeof x->r->mappings[0],
					 "%d/%d/0x%02x accepted for %d/%d/0x%02x: %s", t->layer, t->etype, t->ecode,
					 m->from.layer, m->from.etype, m->from.ecode, m->reason);
			return true;
		}
	}
	char want[128];
	snprintf(want, sizeof want, "%s", layer >= 0 && etype >= 0 && ecode >= 0 ? iw_error_name(layer, etype, ecode)
										 : "(pattern)");
	snprintf(why, cap, "expected Terminate %s, seen %s", want, iw_error_name(t->layer, t->etype, t->ecode));
	return false;
}

bool ex_ulpdu_judged(ctx *x, const iw_fpdu *fp, iw_rdmap_msg *m, const char *what)
{
	iw_check chk;
	bool held = iw_verify_ulpdu(x->p, fp->ulpdu, fp->ulpdu_length, m, &chk);
	iw_result_judged(x->r, chk.rules, chk.nrules);
	if (!held)
		return ex_fail_frame(x, chk.req, "%s: the DUT sent an invalid RDMAP message: %s", what, chk.detail);
	held = iw_verify_ulpdu_size(fp, &chk);
	iw_result_judged(x->r, chk.rules, chk.nrules);
	if (!held)
		return ex_fail_frame(x, chk.req, "%s: %s", what, chk.detail);
	/* MULPDU for the connection's EMSS, clamped to [128, 64768] (MPA-3.2-03, A7). */
	const char *mulpdu_req = x->h->rx->markers ? "MPA-5.3.2-01" : "MPA-5.3.2-02";
	const char *mulpdu_rules[] = {mulpdu_req, "DDP-7.2-01"}; /* MPA's MULPDU, DDP's segment size */
	if (x->h->mss)
		iw_result_judged(x->r, mulpdu_rules, 2);
	if (x->h->mss && fp->ulpdu_length > iw_mulpdu(x->h->mss, x->h->rx->markers))
		return ex_fail_frame(x, mulpdu_req,
				     "%s: the DUT sent a ULPDU of %u octets; MULPDU for EMSS %u %s markers is %u", what,
				     fp->ulpdu_length, x->h->mss, x->h->rx->markers ? "with" : "without",
				     iw_mulpdu(x->h->mss, x->h->rx->markers));
	held = iw_verify_segment(&x->h->src, x->p, m, &chk);
	iw_result_judged(x->r, chk.rules, chk.nrules);
	if (!held)
		return ex_fail_frame(x, chk.req, "%s: %s", what, chk.detail);
	return true;
}

bool ex_read_message(ctx *x, int64_t deadline, const char *what, dut_msg *dm, iw_fpdu *fp)
{
	memset(dm, 0, sizeof *dm);
	x->h->src.in_msg = false; /* a read always waits for a message's first segment */
	for (;;) {
		if (!next_fpdu(x, deadline, fp, what))
			return false;
		iw_rdmap_msg m;
		if (!ex_ulpdu_judged(x, fp, &m, what))
			return false;
		if (dm->nseg == 0) {
			dm->first = m.ddp;
			dm->rv = m.rv;
			dm->opcode = m.opcode;
			dm->first_marker = fp->nmarkers && fp->markers[0].pos == fp->start;
			dm->first_start = fp->start;
		}
		if (dm->len + m.payload_len > MSG_MAX)
			return ex_fail(x, NULL, "%s: the DUT's message grows past %u octets without L=1", what, MSG_MAX);
		uint8_t *nd = realloc(dm->data, dm->len + m.payload_len + 1);
		if (!nd)
			return ex_herror(x, "out of memory");
		dm->data = nd;
		memcpy(dm->data + dm->len, m.payload, m.payload_len);
		dm->len += m.payload_len;
		dm->nseg++;
		dm->markers += fp->nmarkers;
		if (fp->ulpdu_length > dm->max_ulpdu)
			dm->max_ulpdu = fp->ulpdu_length;
		if (m.ddp.last)
			return true;
	}
}

/* A message the DUT cut into segments on a connection whose MSS the case chose (TR-17): its
 * largest ULPDU shows the MULPDU it used, at most. ULPDUs below MULPDU, even below its floor of
 * 128 where the formula falls under it, are only smaller than they could be (MPA-5.3.2-04,
 * SHOULD): DDP may post any size (MPA-3.2-05), so the wire never proves that MPA offered a
 * MULPDU below 128 (MPA-5.3.2-05). */
static bool mulpdu_used(ctx *x, const dut_msg *dm)
{
	bool markers = x->h->rx->markers;
	uint32_t want = iw_mulpdu(x->h->mss, markers);
	ex_note(x, "the DUT's message in %zu segments, largest ULPDU %u; MULPDU for EMSS %u %s markers is %u", dm->nseg,
	     dm->max_ulpdu, x->h->mss, markers ? "with" : "without", want);
	if (dm->max_ulpdu < want)
		return ex_fail(x, "MPA-5.3.2-04", "the DUT cut a message into ULPDUs of at most %u octets; MULPDU for EMSS "
			    "%u is %u, and ULPDUs should be as large as it allows", dm->max_ulpdu, x->h->mss, want);
	return true;
}

/* The headers a Terminate attaches (RFC 5040 §4.8, HdrCt: M, D and R "SHOULD be set" as Figure
 * 10 says) are those of the harness's segment at fault: `d=` and `hdr=1` the DDP header of the
 * last FPDU the harness sent, `m=` its length, `r=` and `rdma_hdr=1` its Read Request body. rdma
 * says which of the two is checked. */
static bool terminate_headers_ok(ctx *x, const iw_step *s, const iw_terminate *t, bool rdma, char *why, size_t cap)
{
	if (!rdma) {
		if (!ex_pattern_ok(s, "m", t->m, why, cap) || !ex_pattern_ok(s, "d", t->d, why, cap))
			return false;
		if (!ex_arg_i(s, "hdr", 0))
			return true;
		if (!t->d) {
			snprintf(why, cap, "the Terminate has D=0: the DDP header of the segment at fault is not attached");
			return false;
		}
		if (t->ddp_hdr_len != x->h->last_hdr_len || memcmp(t->ddp_hdr, x->h->last_hdr, t->ddp_hdr_len)) {
			snprintf(why, cap, "the Terminate's attached DDP header (%zu octets) is not the header of the segment "
				 "at fault (%zu octets, the last one the harness sent)", t->ddp_hdr_len, x->h->last_hdr_len);
			return false;
		}
		if (t->m)
			ex_note(x, "Terminate: DDP segment length %u (the ULPDU at fault had %zu octets, %zu of them payload)",
			     t->ddp_seg_len, x->h->last_ulpdu_len, x->h->last_ulpdu_len - x->h->last_hdr_len);
		return true;
	}
	if (!ex_pattern_ok(s, "r", t->r, why, cap))
		return false;
	if (!ex_arg_i(s, "rdma_hdr", 0))
		return true;
	if (!t->r || !t->has_rdma_hdr) {
		snprintf(why, cap, "the Terminate has R=0: the RDMA Read Request header at fault is not attached");
		return false;
	}
	if (!x->h->have_last_rr || memcmp(t->rdma_hdr, x->h->last_rr, IW_RDMAP_READ_REQ_LEN)) {
		snprintf(why, cap, "the Terminate's attached RDMA header is not the Read Request the harness sent");
		return false;
	}
	return true;
}

/* The model's sink learns the buffer the DUT advertised, so it judges Writes and Reads as the
 * DUT must (its memory is the model's own: contents are not compared). Every buffer a connection
 * advertises (rping advertises two) shares one region, which lives as long as the connection: the
 * model keeps pointing into it. A later buffer larger than that region is not made known to the
 * model (only `expect as-model` would miss it). */
void ex_adv_to_model(hconn *h)
{
	if (!h->model)
		return;
	iw_tagged_buf b = {.stag = h->adv_stag, .base_to = h->adv_to, .length = h->adv_len, .stream = 0, .pd = 0,
			   .valid = true, .mem = NULL, .access = IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE};
	const iw_ddp_sink *sk = iw_conn_sink(h->model);
	b.stream = sk->stream;
	b.pd = sk->pd;
	size_t need = h->adv_len ? h->adv_len : 1;
	if (!h->adv_mem) {
		h->adv_mem_cap = need < 65536 ? 65536 : need;
		h->adv_mem = calloc(1, h->adv_mem_cap);
	}
	if (need > h->adv_mem_cap)
		return;
	b.mem = h->adv_mem;
	iw_err e;
	if (b.mem)
		(void)iw_conn_register_buf(h->model, &b, &e);
}

/* An `expect send` taken as the application's answer (ex_exp_message): its msn=, written against
 * the reflector's startup (greeting and echo: the DUT's next MSN 3), checked against u's
 * startup, and a note saying what was not judged. */
static bool answer_msn(ctx *x, const iw_step *s, const iw_ulp_profile *u, const dut_msg *dm)
{
	const iw_arg *m = iw_step_arg(s, "msn");
	bool content = iw_step_arg(s, "data") || iw_step_arg(s, "size") || iw_step_arg(s, "len") ||
		       iw_step_arg(s, "fill") || iw_step_arg(s, "last");
	if (content)
		ex_note(x, "line %d: `expect send` taken as the application's answer (ulp profile %s answers, it does not "
			"echo): a Send of %zu octets in %zu segment%s; its payload and length are not judged", s->line,
			u->name, dm->len, dm->nseg, dm->nseg == 1 ? "" : "s");
	if (!m || m->is_pattern_any)
		return true;
	int64_t want = m->i - (int64_t)IW_ULP_REFLECTOR_NEXT_MSN + (int64_t)u->dut_next_msn;
	if (dm->first.msn == want)
		return true;
	return ex_fail(x, NULL, "msn=%lld expected (the case's msn=%lld, written against the reflector's startup, which "
		       "leaves the DUT's next MSN at %d; %s's leaves it at %u), %u seen", (long long)want,
		       (long long)m->i, IW_ULP_REFLECTOR_NEXT_MSN, u->name, u->dut_next_msn, dm->first.msn);
}

/* The requirement a Terminate's wrong layer, type or code breaks: DDP's code table for a DDP
 * error, else the first Figure 9 row (RFC5040-4.8-*) the case cites, else the case's first. */
static const char *code_rule(const ctx *x, int layer)
{
	if (layer == IW_LAYER_DDP)
		return "DDP-9.2-01";
	for (size_t i = 0; i < x->c->nreqs; i++)
		if (!strncmp(x->c->reqs[i].id, "RFC5040-4.8-", 12))
			return x->c->reqs[i].id;
	return x->c->nreqs ? x->c->reqs[0].id : NULL;
}

/* `expect terminate rule=ID` with a row below MUST (RFC5040-6.2-03: a Terminate "SHOULD be
 * invoked" for an error DDP or the LLP detected): a DUT that closes without one is short of that
 * row, and the case goes on to judge the close (true). One that says nothing and keeps the
 * connection showed no sign of the error at all: that fails the case's first requirement, the
 * error it is about, not the SHOULD (false, failed). False with nothing recorded when octets
 * came: the Terminate is read as any message is. */
static bool closed_without_terminate(ctx *x, const iw_step *s, int64_t deadline, int64_t start)
{
	enum iw_level lvl;
	if (!s->rule[0] || !iw_req_level(s->rule, &lvl, NULL) || lvl == IW_LEVEL_MUST)
		return false;
	while (!ex_avail(x) && !x->h->fin && !x->h->rst && ex_now_us() < deadline)
		ex_pump(x, ex_avail(x) + 1, deadline);
	if (ex_avail(x))
		return false;
	if (!x->h->fin && !x->h->rst)
		return ex_fail(x, x->c->nreqs ? x->c->reqs[0].id : NULL, "terminate: no Terminate and no close within %lld "
			       "ms: the DUT showed no sign of the error", (long long)((deadline - start + x->quiet_credit_us) / 1000));
	ex_short_of(x, s->rule, "the DUT closed the connection (%s) without a Terminate", x->h->rst ? "RST" : "FIN");
	return true;
}

bool ex_exp_message(ctx *x, const iw_step *s, bool terminate)
{
	if (!x->in_as_model)
		ex_model_discard(x);
	int64_t deadline = ex_within_deadline(x, s);
	if (terminate && closed_without_terminate(x, s, deadline, ex_now_us()))
		return true;
	if (x->failed)
		return false;
	iw_fpdu *fp = malloc(sizeof *fp);
	if (!fp)
		return ex_herror(x, "out of memory");
	const char *what = terminate ? "terminate" : s->word;
	dut_msg dm;
	bool ok = ex_read_message(x, deadline, what, &dm, fp);
	char why[200] = "";
	if (!ok) {
		/* recorded */
	} else if (terminate) {
		iw_terminate t;
		iw_err e;
		if (dm.opcode != IW_OP_TERMINATE) {
			ok = ex_fail(x, s->instead[0] ? s->instead : NULL, "expected a Terminate, the DUT sent %s",
				     iw_rdmap_op(dm.opcode)->name);
		} else if (iw_terminate_decode(dm.data, dm.len, &t, &e)) {
			/* A Terminate no conforming sender writes breaks its rule wherever it comes: judged as
			 * every frame is, at the rule's own level, not as the case's expectation. */
			ok = ex_fail_frame(x, t.broken_row, "the DUT's Terminate cannot be decoded: %s", e.msg);
			x->fail_in_message = true;
		} else {
			ex_note(x, "Terminate %s M=%d D=%d R=%d", iw_error_name(t.layer, t.etype, t.ecode), t.m, t.d, t.r);
			int el = ex_layer_value(iw_step_arg(s, "layer"));
			if (!code_matches(x, s, &t, why, sizeof why)) {
				ok = ex_fail(x, code_rule(x, el), "%s", why);
				snprintf(x->r->fail_field, sizeof x->r->fail_field, "Code");
				/* The error's layer and type as expected, its code another: the DUT found the
				 * error the step is about and reported it wrongly (in a one-of, this is its
				 * answer). A Terminate of another layer or type reports another error. */
				int et = (int)ex_arg_i(s, "etype", -1);
				x->fail_in_message = (el < 0 || t.layer == el) && (et < 0 || t.etype == et);
			}
			else {
				/* Which headers come back is the rows' to weigh (a SHOULD: the case goes on). */
				if (!terminate_headers_ok(x, s, &t, false, why, sizeof why))
					ok = ex_short_of(x, "RFC5040-4.8-03", "%s", why);
				if (ok && !terminate_headers_ok(x, s, &t, true, why, sizeof why))
					ok = ex_short_of(x, "RFC5040-4.8-04", "%s", why);
				/* M set: the DDP Segment Length "MUST be valid" (RFC 5040 §4.8): the length DDP
				 * handed up for the segment at fault, read as the whole ULPDU or its payload. */
				size_t at_fault = x->h->last_ulpdu_len, payload = at_fault - x->h->last_hdr_len;
				if (ok && t.m && ex_arg_i(s, "hdr", 0) && t.ddp_seg_len != at_fault && t.ddp_seg_len != payload) {
					ok = ex_fail(x, "RFC5040-4.8-24", "the DUT's Terminate has M=1 and DDP Segment Length %u; the "
						     "segment at fault had %zu octets (%zu of payload)", t.ddp_seg_len, at_fault,
						     payload);
					x->fail_in_message = true;
				}
				/* The 13 bits after M, D, R are the per-frame checks' (suite/verify/): judged on
				 * every Terminate the DUT sends, by decode too. */
			}
		}
	} else if (!strcmp(s->word, "greeting")) {
		if (dm.opcode != IW_OP_SEND || !iw_greeting_len_ok(dm.len)) {
			ok = ex_fail(x, NULL, "expected the reflector's greeting (a Send of 16 octets: STag, TO, length), the "
				  "DUT sent %s with %zu payload octets", iw_rdmap_op(dm.opcode)->name, dm.len);
		} else {
			const uint8_t *g = dm.data;
			iw_greeting_parse(g, &x->h->adv_stag, &x->h->adv_to, &x->h->adv_len);
			x->h->have_adv = true;
			ex_note(x, "the reflector advertises STag 0x%x, TO 0x%llx, %u octets", x->h->adv_stag,
			     (unsigned long long)x->h->adv_to, x->h->adv_len);
			/* The reflector's profile promises 64 KiB, and cases write by number up to it
			 * (rdmap.write.round-trip-other-connection to 0xffa0): a smaller buffer would make
			 * the DUT's correct refusals look like findings. */
			if (x->h->adv_len < 65536)
				return ex_herror(x, "line %d: the reflector advertises %u octets; the cases need a buffer of "
					      "at least 65536 (docs/reflector.md, contract item 1)", s->line, x->h->adv_len);
			ex_adv_to_model(x->h);
		}
	} else if (!strcmp(s->word, "rping_info")) {
		ok = ex_rping_info(x, s, &dm);
	} else if (!strcmp(s->word, "rping_go")) {
		ok = ex_rping_go(x, s, &dm);
	} else if (!strcmp(s->word, "perftest")) {
		ok = ex_perftest_msg(x, s, &dm);
	} else if (!strcmp(s->word, "perftest_answer")) {
		ok = ex_perftest_answer(x, s, &dm);
	} else {
		if (strcmp(s->word, "any") && strcmp(s->word, "fpdu")) {
			size_t ti = 0;
			while (ti < ex_nmsg_types && strcmp(ex_msg_types[ti].word, s->word))
				ti++;
			if (ti < ex_nmsg_types && ex_msg_types[ti].opcode != dm.opcode)
				ok = ex_fail(x, NULL, "expected %s, the DUT sent %s", iw_rdmap_op(ex_msg_types[ti].opcode)->name,
					  iw_rdmap_op(dm.opcode)->name);
		}
		/* Under a profile that answers each Send and echoes none (ib_send_lat's server), an
		 * `expect send` of a case that needs only `answer` stands for the one Send the DUT's
		 * application answers with: it shows the Send was delivered, and its payload and
		 * length are perftest's, so data=, size=, fill=, len= and last= are not judged (the
		 * case keeps them for the reflector, whose echo they judge in full), and msn= is
		 * translated by the difference in the DUT's next MSN after startup. Every FPDU of it
		 * was judged as any is (ex_read_message). */
		const iw_ulp_profile *u = iw_ulp_profile_of(&x->o->dut, x->dut_role);
		bool answer = ok && !strcmp(s->word, "send") && (u->provides & IW_CAP_ANSWER) && !(u->provides & IW_CAP_ECHO);
		if (answer)
			ok = answer_msn(x, s, u, &dm);
		const iw_arg *d = answer ? NULL : iw_step_arg(s, "data");
		const iw_arg *sz = answer ? NULL : iw_step_arg(s, "size");
		if (ok && d && !d->is_pattern_any && (d->nbytes != dm.len || memcmp(d->bytes, dm.data, dm.len)))
			ok = ex_fail(x, "DDP-7.2-03", "payload differs: expected %zu octets, seen %zu in %zu segment%s", d->nbytes,
				  dm.len, dm.nseg, dm.nseg == 1 ? "" : "s");
		if (ok && sz && !sz->is_pattern_any) {
			size_t bad = dm.len;
			for (size_t i = 0; i < dm.len && bad == dm.len; i++)
				if (dm.data[i] != ex_payload_octet(s, i))
					bad = i;
			/* A Read Response of another length than the Read Request asked for breaks the Data
			 * Source's rule (RFC5040-5.2-03, as verify_read.c and decode name it); wrong octets
			 * of the right length are the placement's (DDP-7.2-03). */
			const char *req = (size_t)sz->i != dm.len && dm.opcode == IW_OP_READ_RESP ? "RFC5040-5.2-03"
												: "DDP-7.2-03";
			if ((size_t)sz->i != dm.len || bad != dm.len)
				ok = ex_fail(x, req, "expected %lld octets of the size pattern, seen %zu octets in %zu "
					  "segments%s", (long long)sz->i, dm.len, dm.nseg,
					  bad != dm.len ? " with different content" : "");
		}
		/* The length alone, the octets unknown (a Read Response of a buffer others share). */
		const iw_arg *ln = answer ? NULL : iw_step_arg(s, "len");
		if (ok && ln && !ln->is_pattern_any && (size_t)ln->i != dm.len)
			ok = ex_fail(x, dm.opcode == IW_OP_READ_RESP ? "RFC5040-5.2-03" : "DDP-7.2-03",
				     "expected %lld payload octets, seen %zu in %zu segment%s", (long long)ln->i, dm.len, dm.nseg,
				     dm.nseg == 1 ? "" : "s");
		if (ok && (!ex_pattern_ok(s, "qn", dm.first.qn, why, sizeof why) ||
			   (!answer && !ex_pattern_ok(s, "msn", dm.first.msn, why, sizeof why)) ||
			   !ex_pattern_ok(s, "mo", dm.first.mo, why, sizeof why) ||
			   !ex_pattern_ok(s, "opcode", dm.opcode, why, sizeof why) ||
			   !ex_pattern_ok(s, "rv", dm.rv, why, sizeof why) || !ex_pattern_ok(s, "dv", dm.first.dv, why, sizeof why) ||
			   !ex_pattern_ok(s, "stag", dm.first.stag, why, sizeof why)))
			ok = ex_fail(x, NULL, "%s", why);
		if (ok && dm.first.tagged && !ex_pattern_ok(s, "to", (int64_t)dm.first.to, why, sizeof why))
			ok = ex_fail(x, NULL, "%s", why);
		if (ok && dm.opcode == IW_OP_READ_REQ)
			ok = ex_dut_read_req(x, s, dm.data, dm.len);
		if (ok && !answer && iw_step_arg(s, "last") && ex_arg_i(s, "last", 1) == 1 && dm.nseg != 1)
			ok = ex_fail(x, NULL, "expected a single-segment message, the DUT used %zu segments", dm.nseg);
	}
	if (ok && dm.nseg && iw_step_arg(s, "marker_first") && ex_arg_i(s, "marker_first", -1) >= 0 &&
	    dm.first_marker != (ex_arg_i(s, "marker_first", 0) == 1))
		ok = ex_fail(x, dm.first_marker ? "MPA-5.1-03" : dm.first_start == 0 ? "MPA-6.1-R7" : "MPA-5.1-04",
			  dm.first_marker ? "the DUT's message begins with a marker where none was expected"
					  : "the DUT's message does not begin with a marker (FPDUPTR 0) where its FPDU "
					    "starts on a 512-octet boundary");
	if (ok && dm.nseg && !ex_pattern_ok(s, "markers", (int64_t)dm.markers, why, sizeof why))
		ok = ex_fail(x, "MPA-5.1-02", "%s (markers inside the message's FPDUs)", why);
	if (ok && dm.markers)
		ex_note(x, "%zu markers in the message's %zu FPDU%s, each FPDUPTR checked; largest ULPDU %u", dm.markers,
		     dm.nseg, dm.nseg == 1 ? "" : "s", dm.max_ulpdu);
	if (ok && dm.nseg > 1 && x->h->mss_advertised)
		ok = mulpdu_used(x, &dm);
	free(dm.data);
	free(fp);
	return ok;
}

bool ex_exp_close(ctx *x, const iw_step *s)
{
	int64_t start = ex_now_us();
	int64_t deadline = ex_within_deadline(x, s);
	bool allow = ex_arg_i(s, "allow_data", 0);
	const iw_arg *how = iw_step_arg(s, "how");
	while (!x->h->fin && !x->h->rst && ex_now_us() < deadline) {
		ex_pump(x, ex_avail(x) + 1, deadline);
		if (ex_avail(x) && !allow)
			break;
		/* Octets a close tolerates are still the DUT's: judged as every frame is. */
		if (allow && !ex_take_arrivals(x, "close", false))
			return false;
	}
	if (ex_avail(x) && !allow) {
		size_t n = ex_avail(x);
		bool reply = n >= 16 && !memcmp(x->h->in + x->h->in_cur, iw_mpa_key(IW_MPA_REPLY), 16);
		/* Judged as any frame is first: a rule they break is the finding (a Reply before the
		 * Request was complete, an FPDU before the harness's first); then the close that did
		 * not come. */
		if (!ex_take_arrivals(x, "close", true))
			return false;
		return ex_fail(x, NULL, "expected the DUT to close with no octets sent; it sent %s (%zu octets) instead",
			       reply ? "a Reply" : "data", n);
	}
	if (allow && !ex_take_arrivals(x, "close", true))
		return false;
	if (!x->h->fin && !x->h->rst)
		return ex_fail(x, NULL, "expected the DUT to close (FIN or RST) within %lld ms; it kept the connection open",
			    (long long)((deadline - start + x->quiet_credit_us) / 1000));
	if (how && how->s && !strcmp(how->s, "fin") && !x->h->fin)
		return ex_fail(x, NULL, "expected a FIN, the DUT reset the connection");
	if (how && how->s && !strcmp(how->s, "rst") && !x->h->rst)
		return ex_fail(x, NULL, "expected an RST, the DUT closed with FIN");
	return true;
}

bool ex_exp_silence(ctx *x, const iw_step *s)
{
	int64_t ms = ex_arg_i(s, "for", 1000);
	int64_t deadline = ex_now_us() + ms * 1000 - ex_quiet_credit(x, ms * 1000);
	if (deadline > x->deadline_us)
		deadline = x->deadline_us;
	ex_pump(x, ex_avail(x) + 1, deadline);
	if (ex_avail(x)) {
		size_t n = ex_avail(x);
		/* As for a close: the octets are judged as any frame is, then the silence they broke. */
		if (!ex_take_arrivals(x, "silence", true))
			return false;
		return ex_fail(x, NULL, "expected silence for %lld ms; the DUT sent %zu octets", (long long)ms, n);
	}
	if (x->h->fin || x->h->rst)
		return ex_fail(x, NULL, "expected silence for %lld ms; the DUT closed the connection (%s)", (long long)ms,
			    x->h->rst ? "RST" : "FIN");
	return true;
}
