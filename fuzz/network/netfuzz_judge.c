/*
 * netfuzz_judge.c - what the network fuzzer accepts from a DUT.
 *
 * The DUT's octets are decoded with the engine (frame decoder and check here, the FPDUs in
 * netfuzz_decode.c) into a startup frame and a list of messages, checked against the rules of
 * a conforming sender; the model's own output is decoded the same way. The two are
 * then compared with the latitude the specification leaves (requirements.md §6):
 *  - a close may be FIN or RST (A12); after the harness's FIN an RST is only a warning (A38);
 *  - after an error the Terminate is optional (MPA-7-02 SHOULD, A18), and its code may be the
 *    other one of the overlapping pairs of A28, or name another stream's STag (0x1/0x02 for
 *    0x1/0x00: the suite cannot know which STags the DUT's other streams hold);
 *  - echoes and Read Responses are compared per kind (the reflector answers after delivery,
 *    so their interleaving depends on how TCP cut the stream), and after an error each kind
 *    may stop early (the ULP's pending work completes in error, DDP-8.2.2-02);
 *  - the reflector may greet (one 16-octet Send first, docs/reflector.md) once it may speak.
 */
#include "netfuzz_judge.h"
#include "reflector_greeting.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "iw_proto.h"
#include "mpa_frame.h"
#include "req_level.h"
#include "verify.h"

void nf_find(nf_finding *f, enum nf_fkind k, const char *req, bool timing, const char *fmt, ...)
{
	if (f->kind != NF_F_NONE)
		return; /* the first one decides */
	f->kind = k;
	snprintf(f->req, sizeof f->req, "%s", req ? req : "");
	f->timing = timing;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
}

/* ---- comparison ---- */

/* A28 and the other-stream STag: codes a DUT may send for the one the model names. */
static bool code_ok(int l, int t, int c, const iw_terminate *g)
{
	if (g->layer != l || g->etype != t)
		return false;
	if (g->ecode == c)
		return true;
	int a = c, b = g->ecode;
	if (l == IW_LAYER_DDP && t == IW_DDP_ET_TAGGED) {
		if ((a == 0x00 && b == 0x02) || (a == 0x02 && b == 0x00))
			return true;
		if ((a == 0x01 && b == 0x03) || (a == 0x03 && b == 0x01))
			return true;
	}
	if (l == IW_LAYER_DDP && t == IW_DDP_ET_UNTAGGED) {
		if ((a == 0x02 && b == 0x03) || (a == 0x03 && b == 0x02))
			return true;
		if ((a == 0x04 && b == 0x05) || (a == 0x05 && b == 0x04))
			return true;
	}
	if (l == IW_LAYER_RDMAP && t == IW_RDMAP_ET_PROTECTION) {
		if ((a == 0x00 && b == 0x03) || (a == 0x03 && b == 0x00))
			return true;
		if ((a == 0x01 && b == 0x04) || (a == 0x04 && b == 0x01))
			return true;
	}
	return false;
}

static bool is_send(unsigned op)
{
	return op == IW_OP_SEND || op == IW_OP_SEND_SE || op == IW_OP_SEND_INV || op == IW_OP_SEND_SE_INV;
}

/* Requirement for a DUT message a conforming DUT does not send. */
static const char *extra_req(const nf_obs *o)
{
	if (o->frame_rejected)
		return o->reject_viol.req ? o->reject_viol.req : "MPA-6.1-R2b";
	if (!o->released && o->dut->role == IW_ROLE_RESPONDER)
		return "MPA-6.1-R4";
	if (o->failed)
		return o->err.layer == IW_LAYER_LLP ? "MPA-7-08" : "DDP-9.1-03";
	return "DDP-7.4-01";
}

bool nf_judge_frame_head(const iw_profile *p, enum iw_mpa_kind kind, const uint8_t *g, size_t glen, nf_finding *f)
{
	if (glen < IW_MPA_FRAME_HDR_LEN)
		return true;
	iw_mpa_frame gf;
	int rc = iw_mpa_frame_decode(p, g, glen, &gf, NULL, NULL);
	if (rc != IW_OK && rc != IW_ETRUNC)
		return true; /* a profile without startup frames */
	iw_violation vs[8];
	iw_viol_list l = {.v = vs, .cap = 8};
	/* The DUT sent the frame: its sender's rule, as the runner and decode name it. */
	iw_verify_startup_frame(p, &gf, kind, &l);
	if (!l.n)
		return true;
	nf_find(f, NF_F_FRAME, vs[0].req, false, "the DUT's %s is not one a conforming DUT sends: %s",
		kind == IW_MPA_REPLY ? "Reply" : "Request", vs[0].detail);
	return false;
}

static void fill_expect(nf_dec *d, const nf_obs *o, const iw_mpa_frame *mf, bool frame_due, nf_expect *ex)
{
	ex->frame_due = frame_due;
	ex->frame_r = frame_due ? mf->r : 0;
	ex->frame_rev = frame_due ? mf->rev : 0;
	ex->frame_c = frame_due && mf->c && !o->p->crc_always;
	ex->model_closed = o->closed_before_fin;
	ex->nmsg = 0;
	ex->data_len = 0;
	ex->terminate = false;
	ex->may_greet = o->dut->greeting && o->released;
	for (size_t i = 0; i < d->exp.n; i++) {
		const nf_msgrec *m = &d->exp.m[i];
		if (m->opcode == IW_OP_TERMINATE) {
			ex->terminate = true;
			ex->t_layer = o->err.layer;
			ex->t_etype = o->err.etype;
			ex->t_ecode = o->err.ecode;
			continue;
		}
		if (ex->nmsg == sizeof ex->msg / sizeof ex->msg[0])
			break;
		ex->msg[ex->nmsg].opcode = m->opcode;
		ex->msg[ex->nmsg].len = m->len;
		ex->msg[ex->nmsg].off = (uint32_t)ex->data_len;
		ex->msg[ex->nmsg].stag = m->stag;
		ex->msg[ex->nmsg].to = m->to;
		if (!m->tagged) {
			if (ex->data_len + m->len > ex->data_cap) {
				size_t cap = (ex->data_len + m->len) * 2 + 256;
				uint8_t *nd = realloc(ex->data, cap);
				if (!nd)
					break;
				ex->data = nd;
				ex->data_cap = cap;
			}
			memcpy(ex->data + ex->data_len, d->exp.data + m->off, m->len);
			ex->data_len += m->len;
		}
		ex->nmsg++;
	}
}

/* Compares the DUT's messages of one kind with the model's, in order (message `skip` of the
 * DUT's is its greeting, not compared). */
static void compare_kind(nf_dec *d, const nf_obs *o, bool sends, size_t skip, nf_finding *f)
{
	const nf_msgs *D = &d->dut, *E = &d->exp;
	size_t i = 0, j = 0;
	for (;;) {
		while (i < D->n && (i == skip || D->m[i].opcode == IW_OP_TERMINATE || is_send(D->m[i].opcode) != sends))
			i++;
		while (j < E->n && (E->m[j].opcode == IW_OP_TERMINATE || is_send(E->m[j].opcode) != sends))
			j++;
		if (i >= D->n && j >= E->n)
			return;
		if (i >= D->n) {
			/* After an error, or the peer's Terminate, the ULP's pending work may complete in
			 * error (DDP-8.2.2-02). */
			if (o->failed || o->got_terminate)
				return;
			const nf_msgrec *e = &E->m[j];
			nf_find(f, NF_F_MISSING, sends ? "DDP-7.4-01" : "RFC5040-5.2-03", false,
				"a conforming DUT sends %s (%u octets) here; the DUT did not%s",
				sends ? "the echo of a delivered Send" : "a Read Response", e->len,
				o->dut_rst ? " (it reset the connection)" : "");
			return;
		}
		const nf_msgrec *g = &D->m[i];
		if (j >= E->n) {
			nf_find(f, NF_F_EXTRA, extra_req(o), false,
				"the DUT sent %s (%u octets) that a conforming DUT does not send%s",
				iw_rdmap_op(g->opcode)->name, g->len,
				o->failed ? " after the error" : !o->released ? " before receiving a valid FPDU" : "");
			return;
		}
		const nf_msgrec *e = &E->m[j];
		if (sends) {
			if (g->len != e->len || memcmp(D->data + g->off, E->data + e->off, g->len))
				nf_find(f, NF_F_CONTENT, "DDP-7.4-02", false,
					"the DUT's Send %zu carries %u octets where a conforming reflector echoes %u "
					"different octets", i + 1, g->len, e->len);
		} else if (g->opcode != e->opcode || g->stag != e->stag || g->to != e->to || g->len != e->len) {
			nf_find(f, NF_F_CONTENT, "RFC5040-5.2-03", false,
				"the DUT sent %s STag 0x%x TO 0x%llx with %u octets; a conforming DUT sends %s STag 0x%x "
				"TO 0x%llx with %u", iw_rdmap_op(g->opcode)->name, g->stag, (unsigned long long)g->to,
				g->len, iw_rdmap_op(e->opcode)->name, e->stag, (unsigned long long)e->to, e->len);
		}
		if (f->kind)
			return;
		i++;
		j++;
	}
}

/* ---- the judge ---- */

static const char *kind_name(enum iw_mpa_kind kind)
{
	return kind == IW_MPA_REPLY ? "Reply" : "Request";
}

/* The model's frame into *mf and its stream into d->exp (its output is conforming by
 * construction); returns whether it sent a whole startup frame. Marks o released when the model
 * sent an FPDU. */
static bool decode_model(nf_dec *d, nf_obs *o, iw_mpa_frame *mf, iw_conn_params *prm)
{
	const iw_profile *p = o->p;
	memset(mf, 0, sizeof *mf);
	size_t mflen = 0;
	bool frame_due = false;
	if (p->startup_frames) {
		iw_err e;
		frame_due = iw_mpa_frame_decode(p, o->exp, o->exp_len, mf, &mflen, &e) == IW_OK;
	}
	iw_conn_params_get(o->model, prm);
	nf_finding scratch;
	memset(&scratch, 0, sizeof scratch);
	d->exp.n = 0;
	d->exp.data_len = 0;
	if (o->exp_len > mflen)
		nf_decode_msgs(d, p, o->exp + mflen, o->exp_len - mflen, prm->markers_tx, prm->crc, &d->exp, &scratch);
	/* The model sent an FPDU: its first valid FPDU came in, even when it failed on a later one
	 * of the same input before any event showed it (rule 4 satisfied). */
	if (o->exp_len > mflen)
		o->released = true;
	return frame_due;
}

/* What is wrong whatever the octets say: a frame header the engine rejects (checked when
 * check_head), a DUT that stopped reading, sent too much, or did not close. Returns whether it
 * found one. */
static bool judge_stalls(const nf_obs *o, bool check_head, enum iw_mpa_kind dut_kind, nf_finding *f)
{
	if (check_head && !nf_judge_frame_head(o->p, dut_kind, o->got, o->got_len, f))
		return true;
	if (o->stuck_writing)
		nf_find(f, NF_F_HANG, "MPA-5.4-04", true, "the DUT stopped reading: the harness could not send its octets "
			"within the timeout");
	if (o->got_overflow)
		nf_find(f, NF_F_EXTRA, extra_req(o), false, "the DUT sent more than a conforming DUT's whole answer could be "
			"(over 1 MiB)");
	if (o->timed_out)
		nf_find(f, NF_F_HANG, "DDP-8.2.1-05", true, "after the harness's FIN the DUT did not close the connection "
			"(state of a conforming DUT: %s)", o->closed_before_fin ? "closed" : "closes on the FIN");
	return f->kind;
}

/* What comes after judging the DUT's startup frame. */
enum frame_next {
	FRAME_FPDUS,       /* a frame like the model's: its FPDUs follow */
	FRAME_STOP,        /* judged (or the model no longer fits): nothing more */
	FRAME_CLOSE_RULES, /* no frame was due: only how the DUT closed remains */
};

/* The requirement a wrong R breaks, by the rule `iwspec run` holds the frame to (ex_reply_r_req,
 * suite/run/exec_frames.c), so that a finding's case fails on the requirement the finding names:
 * in a Request R is a reserved zero (MPA-6.1.1-R1); a Reply with R=1 where R=0 is due refuses
 * (R2f), or takes the Request's own R=1 for its answer (R1); one with R=0 where R=1 is due
 * accepts what it should refuse (R2c). */
static const char *r_req(const nf_obs *o, const iw_mpa_frame *gf, enum iw_mpa_kind dut_kind)
{
	if (dut_kind == IW_MPA_REQUEST)
		return "MPA-6.1.1-R1";
	if (!gf->r)
		return "MPA-6.1-R2c";
	return o->sent_r ? "MPA-6.1.1-R1" : "MPA-6.1-R2f";
}

/* The fields of the DUT's decoded frame gf against the model's mf; returns whether they agree. */
static bool frame_fields_agree(const nf_obs *o, const iw_mpa_frame *gf, const iw_mpa_frame *mf,
			       enum iw_mpa_kind dut_kind, nf_finding *f)
{
	const iw_profile *p = o->p;
	const char *kname = kind_name(dut_kind);
	if (gf->r != mf->r) {
		nf_find(f, NF_F_FRAME, r_req(o, gf, dut_kind), false, "the DUT's %s has R=%d, a conforming DUT's R=%d%s",
			kname, gf->r, mf->r, gf->r && o->sent_r ? " (the Request's R=1 taken for an answer)" : "");
		return false;
	}
	if (gf->rev != mf->rev) {
		nf_find(f, NF_F_FRAME, iw_verify_startup_rev_req(p, mf->rev), false,
			"the DUT's %s has Rev %u, a conforming DUT's %u", kname,
			gf->rev, mf->rev);
		return false;
	}
	if (mf->c && !gf->c && !p->crc_always) {
		nf_find(f, NF_F_FRAME, "MPA-5.2-03", false, "the DUT's %s has C=0 in its default configuration",
			kname);
		return false;
	}
	if (gf->m != mf->m) {
		/* It changed its marker wish since calibration: the model no longer fits. */
		return false;
	}
	return true;
}

/* The requirement a missing Reply breaks, by the rule `iwspec run` holds it to (ex_exp_frame):
 * MPA-6.1-R2a, but only R2f's SHOULD where the harness sent octets behind its Request before
 * the Reply, as an initiator must not (A6). */
static const char *reply_req(const nf_obs *o)
{
	return o->sent_early ? "MPA-6.1-R2f" : "MPA-6.1-R2a";
}

/* The DUT's startup frame against the model's mf (frame_due: the model sent one); on
 * FRAME_FPDUS *gflen is the frame's length. */
static enum frame_next judge_frame(const nf_obs *o, const iw_mpa_frame *mf, bool frame_due,
				   enum iw_mpa_kind dut_kind, size_t *gflen, nf_finding *f)
{
	const iw_profile *p = o->p;
	const uint8_t *g = o->got;
	size_t glen = o->got_len;
	const char *kname = kind_name(dut_kind);
	if (!frame_due) {
		if (glen) {
			const char *req = o->frame_rejected ? (o->reject_viol.req ? o->reject_viol.req : "MPA-6.1-R2b")
					  : dut_kind == IW_MPA_REPLY ? "MPA-6.1-R2a" : "MPA-6.1-R3a";
			nf_find(f, NF_F_FRAME, req, false,
				"the DUT sent %zu octets where a conforming DUT sends nothing and closes%s%s", glen,
				o->frame_rejected ? ": " : " (the harness's frame is incomplete)",
				o->frame_rejected ? o->reject_viol.detail : "");
		}
		return FRAME_CLOSE_RULES;
	}
	iw_mpa_frame gf;
	iw_err e;
	int rc = iw_mpa_frame_decode(p, g, glen, &gf, gflen, &e);
	if (rc == IW_ETRUNC) {
		if (glen >= IW_MPA_FRAME_HDR_LEN)
			nf_find(f, NF_F_FRAME, "MPA-6.1.1-08", false, "the DUT's %s announces PD_Length %u but %zu "
				"octets of private data came before it closed", kname, gf.pd_length,
				glen - IW_MPA_FRAME_HDR_LEN);
		else
			nf_find(f, NF_F_FRAME, dut_kind == IW_MPA_REPLY ? reply_req(o) : "MPA-6.1-R1a", false,
				"a conforming DUT sends its %s here; the DUT sent %zu octets and %s", kname, glen,
				o->dut_rst ? "reset the connection" : "closed");
		return FRAME_STOP;
	}
	if (rc != IW_OK) {
		nf_find(f, NF_F_FRAME, "MPA-6.1.1-08", false, "the DUT's %s cannot be decoded: %s", kname, e.msg);
		return FRAME_STOP;
	}
	return frame_fields_agree(o, &gf, mf, dut_kind, f) ? FRAME_FPDUS : FRAME_STOP;
}

/* FPDUs that fail to decode with markers but decode without them: the DUT ignored the
 * harness's M=1 (f, a CRC finding, is renamed). */
static void blame_missing_markers(nf_dec *d, const iw_profile *p, const uint8_t *g, size_t glen,
				  const iw_conn_params *prm, nf_finding *f)
{
	nf_finding alt;
	memset(&alt, 0, sizeof alt);
	nf_msgs tmp;
	memset(&tmp, 0, sizeof tmp);
	if (nf_decode_msgs(d, p, g, glen, false, prm->crc, &tmp, &alt) && tmp.n) {
		snprintf(f->req, sizeof f->req, "MPA-6.1.1-M2");
		snprintf(f->detail, sizeof f->detail, "the harness asked for markers (M=1); the DUT's FPDUs "
			 "decode only without them");
	}
	free(tmp.data);
}

/* The DUT's octets after its startup frame (g, glen): any at all where none may come, then
 * decoded into d->dut with the rules of a conforming data source. Returns whether they pass. */
static bool judge_fpdus(nf_dec *d, const nf_obs *o, const iw_mpa_frame *mf, const iw_conn_params *prm,
			const uint8_t *g, size_t glen, enum iw_mpa_kind dut_kind, nf_finding *f)
{
	const iw_profile *p = o->p;
	bool frames = p->startup_frames;
	if (glen) {
		const char *req = NULL;
		if (o->frame_rejected)
			req = o->reject_viol.req ? o->reject_viol.req : "MPA-6.1-R2b";
		else if (frames && mf->r)
			req = "MPA-6.1-R2e";
		else if (frames && dut_kind == IW_MPA_REQUEST && o->sent_r)
			req = "MPA-6.1-R3c"; /* an initiator after the harness's Reply refused (exec_receive.c's rule) */
		else if (!o->released && o->dut->role == IW_ROLE_RESPONDER)
			req = "MPA-6.1-R4";
		if (req) {
			nf_find(f, NF_F_EXTRA, req, false, "the DUT sent %zu octets after its %s where a conforming DUT sends "
				"no FPDU", glen, frames ? kind_name(dut_kind) : "start");
			return false;
		}
	}
	if (!nf_decode_msgs(d, p, g, glen, prm->markers_tx, prm->crc, &d->dut, f)) {
		if (prm->markers_tx && !strcmp(f->req, "MPA-5.2-14"))
			blame_missing_markers(d, p, g, glen, prm, f);
		return false;
	}
	if (d->dut.partial && (o->dut_fin || o->dut_rst) && !o->dut_rst) {
		nf_find(f, NF_F_STREAM, "DDP-8.2.1-01", false, "the DUT closed in the middle of an FPDU or message");
		return false;
	}
	return true;
}

/* The requirement a Terminate with another error than the model's breaks: the row of the
 * model's error, which names the error and its code (MPA-5.2-14: a CRC mismatch makes the FPDU
 * invalid, error code 2), so the finding and its case cite the rule the DUT did not keep. The
 * Terminate rows (DDP-9.2-01, RFC5040-4.8-01) only when the model's error names no row of the
 * catalog. A CRC the DUT never checked was filed under RFC5040-4.8-01, the layout of the
 * Terminate Control field, with MPA-5.2-14 in its detail. */
static const char *wrong_code_req(const nf_obs *o, const nf_expect *ex)
{
	enum iw_level lvl;
	if (o->err.req && iw_req_level(o->err.req, &lvl, NULL))
		return o->err.req;
	return ex->t_layer == IW_LAYER_DDP ? "DDP-9.2-01" : "RFC5040-4.8-01";
}

/* Terminate: at most one, last, and only where the model has an error to report, with a code
 * the model's error allows. Returns whether the DUT's Terminates pass. */
static bool judge_terminate(nf_dec *d, const nf_obs *o, const nf_expect *ex, nf_finding *f)
{
	size_t nd = d->dut.n;
	for (size_t i = 0; i < nd; i++) {
		const nf_msgrec *m = &d->dut.m[i];
		if (m->opcode != IW_OP_TERMINATE)
			continue;
		if (i + 1 < nd) {
			nf_find(f, NF_F_EXTRA, "DDP-9.1-04", false, "the DUT sent %s after its Terminate",
				iw_rdmap_op(d->dut.m[i + 1].opcode)->name);
			return false;
		}
		/* A Terminate answering the harness's own is no finding: RFC 5040 §5.4 lets the receiver
		 * of a Terminate go on sending (RFC5040-5.4-03, a MAY), and no sentence forbids it. */
		if (!ex->terminate && o->got_terminate)
			continue;
		if (!ex->terminate) {
			nf_find(f, NF_F_TERMINATE, o->failed ? "MPA-6.1-R4" : "DDP-8.2-01", false,
				"the DUT sent a Terminate where a conforming DUT %s",
				o->failed ? "may not send an FPDU" : "has no error to report");
			return false;
		}
		iw_terminate t;
		iw_err e;
		if (iw_terminate_decode(d->dut.data + m->off, m->len, &t, &e) != IW_OK) {
			nf_find(f, NF_F_TERMINATE, t.broken_row, false, "the DUT's Terminate cannot be decoded: %s", e.msg);
			return false;
		}
		if (!code_ok(ex->t_layer, ex->t_etype, ex->t_ecode, &t)) {
			char got[96], want[96];
			snprintf(got, sizeof got, "%s", iw_error_name(t.layer, t.etype, t.ecode));
			snprintf(want, sizeof want, "%s", iw_error_name(ex->t_layer, ex->t_etype, ex->t_ecode));
			nf_find(f, NF_F_TERMINATE, wrong_code_req(o, ex), false,
				"the DUT's Terminate reports %s where a conforming DUT reports %s", got, want);
			return false;
		}
	}
	return true;
}

/* The index of the reflector's greeting among the DUT's messages, when it may speak: its first
 * Send (it is queued when full operation begins, so a Read Response of the same input may
 * precede it), unless the model sent the same one. SIZE_MAX: no greeting. */
static size_t greeting_index(const nf_dec *d, const nf_obs *o)
{
	size_t nd = d->dut.n;
	size_t skip = SIZE_MAX, first = 0;
	while (first < nd && !is_send(d->dut.m[first].opcode))
		first++;
	if (o->dut->greeting && o->released && first < nd && d->dut.m[first].opcode == IW_OP_SEND &&
	    iw_greeting_len_ok(d->dut.m[first].len)) {
		bool expected_first = false;
		for (size_t j = 0; j < d->exp.n; j++)
			if (is_send(d->exp.m[j].opcode)) {
				expected_first = iw_greeting_len_ok(d->exp.m[j].len) &&
						 !memcmp(d->exp.data + d->exp.m[j].off, d->dut.data + d->dut.m[first].off, 16);
				break;
			}
		if (!expected_first)
			skip = first;
	}
	return skip;
}

/* A close by the DUT while the model kept the connection open. */
static void judge_close(const nf_obs *o, enum iw_mpa_kind dut_kind, nf_finding *f)
{
	if (o->early_close) {
		static const char *const sn[] = {"waiting for the startup frame", "waiting for the first FPDU",
						 "in full operation", "rejected", "failed", "closed"};
		nf_find(f, NF_F_EARLY_CLOSE,
			o->early_state == IW_CS_STARTUP ? (dut_kind == IW_MPA_REPLY ? reply_req(o) : "MPA-6.1-R3a")
			: o->early_state == IW_CS_REJECTED ? "MPA-6.1-R2e" : "DDP-8.2-01", false,
			"the DUT %s the connection where a conforming DUT keeps it open (%s)",
			o->dut_rst ? "reset" : "closed", o->early_state >= 0 && o->early_state < 6 ? sn[o->early_state] : "?");
	}
}

void nf_judge(nf_dec *d, const nf_obs *obs, nf_finding *f, nf_expect *ex)
{
	memset(f, 0, sizeof *f);
	nf_obs oc = *obs;
	const nf_obs *o = &oc;
	enum iw_mpa_kind dut_kind = o->dut->role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST;
	iw_mpa_frame mf;
	iw_conn_params prm;
	bool frame_due = decode_model(d, &oc, &mf, &prm);
	fill_expect(d, o, &mf, frame_due, ex);

	/* Its frame's header first: a header the engine rejects is the first thing wrong, whatever
	 * the DUT did after it (stall, hang). */
	if (judge_stalls(o, o->p->startup_frames && frame_due, dut_kind, f))
		return;
	const uint8_t *g = o->got;
	size_t glen = o->got_len;
	if (o->p->startup_frames) {
		size_t gflen = 0;
		enum frame_next next = judge_frame(o, &mf, frame_due, dut_kind, &gflen, f);
		if (next == FRAME_STOP)
			return;
		if (next == FRAME_CLOSE_RULES) {
			judge_close(o, dut_kind, f);
			return;
		}
		g += gflen;
		glen -= gflen;
	}
	if (!judge_fpdus(d, o, &mf, &prm, g, glen, dut_kind, f) || !judge_terminate(d, o, ex, f))
		return;
	size_t skip = greeting_index(d, o);
	compare_kind(d, o, true, skip, f);
	if (!f->kind)
		compare_kind(d, o, false, skip, f);
	if (f->kind)
		return;
	judge_close(o, dut_kind, f);
}
