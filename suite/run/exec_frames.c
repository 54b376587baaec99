/*
 * exec_frames.c - startup frames: building and sending the harness's Request or Reply, judging
 * the DUT's, and entering full operation once both are valid.
 */
#include "exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_server.h"

const char *ex_kind_name(enum iw_mpa_kind k) { return k == IW_MPA_REPLY ? "Reply" : "Request"; }

static void frame_summary(const iw_mpa_frame *f, char *buf, size_t cap)
{
	const char *key = !memcmp(f->key, iw_mpa_key(IW_MPA_REQUEST), 16) ? "Req"
			  : !memcmp(f->key, iw_mpa_key(IW_MPA_REPLY), 16) ? "Rep"
									  : "other";
	int n = snprintf(buf, cap, "key=%s M=%d C=%d R=%d Res=0x%02x Rev=%u PD_Length=%u", key, f->m, f->c, f->r,
			 f->res, f->rev, f->pd_length);
	if (f->has_irdord && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " IRD=%u ORD=%u A=%d B=%d C=%d D=%d", f->ird, f->ord, f->p2p,
			 f->rtr_send, f->rtr_write, f->rtr_read);
}

static bool build_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind, iw_mpa_frame *f, uint8_t **pd_owned)
{
	iw_mpa_frame_init(f, x->p, kind);
	*pd_owned = NULL;
	const iw_arg *a;
	if ((a = iw_step_arg(s, "key"))) {
		if (a->nbytes != IW_MPA_KEY_LEN)
			return ex_herror(x, "line %d: key must be 16 octets, got %zu", s->line, a->nbytes);
		memcpy(f->key, a->bytes, IW_MPA_KEY_LEN);
	}
	if ((a = iw_step_arg(s, "key_octet"))) {
		if (a->i < 0 || a->i >= IW_MPA_KEY_LEN)
			return ex_herror(x, "line %d: key_octet %lld is not 0..15", s->line, (long long)a->i);
		f->key[a->i] ^= (uint8_t)ex_arg_i(s, "key_xor", 0x01);
	}
	f->m = ex_arg_i(s, "m", f->m);
	f->c = ex_arg_i(s, "c", f->c);
	f->r = ex_arg_i(s, "r", f->r);
	f->res = (uint8_t)ex_arg_i(s, "res", f->res);
	f->rev = (uint8_t)ex_arg_i(s, "rev", f->rev);
	/* An RFC 6581 frame is Rev 2: a frame of another Rev is an RFC 5044 or draft frame, with no
	 * Enhanced bit or IRD/ORD block unless the step sets them (mpa_frame.h, iw_mpa_frame_enhanced). */
	if (f->enhanced && f->rev != 2)
		f->enhanced = f->has_irdord = false;
	f->enhanced = ex_arg_i(s, "enhanced", f->enhanced);
	f->has_irdord = ex_arg_i(s, "irdord", f->has_irdord);
	f->ird = (uint16_t)ex_arg_i(s, "ird", f->ird);
	f->ord = (uint16_t)ex_arg_i(s, "ord", f->ord);
	f->p2p = ex_arg_i(s, "p2p", f->p2p);
	const iw_arg *rtr = iw_step_arg(s, "rtr");
	if (rtr && rtr->s) {
		f->rtr_send = !strcmp(rtr->s, "send");
		f->rtr_write = !strcmp(rtr->s, "write");
		f->rtr_read = !strcmp(rtr->s, "read");
	}
	if ((a = iw_step_arg(s, "pd"))) {
		f->pd = a->bytes;
		f->pd_len = a->nbytes;
	} else if ((a = iw_step_arg(s, "pd_size"))) {
		if (a->i < 0 || a->i > 1 << 20)
			return ex_herror(x, "line %d: pd_size %lld out of range", s->line, (long long)a->i);
		uint8_t *pd = malloc((size_t)a->i + 1);
		if (!pd)
			return ex_herror(x, "out of memory");
		for (int64_t i = 0; i < a->i; i++)
			pd[i] = (uint8_t)('a' + i % 26);
		f->pd = pd;
		f->pd_len = (size_t)a->i;
		*pd_owned = pd;
	}
	if ((a = iw_step_arg(s, "pd_length"))) {
		f->pd_length_auto = false;
		f->pd_length = (uint16_t)a->i;
	}
	return true;
}

bool ex_act_send_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind)
{
	iw_mpa_frame f;
	uint8_t *pd_owned;
	if (!build_frame(x, s, kind, &f, &pd_owned))
		return false;
	size_t cap = iw_mpa_frame_size(&f), len = 0;
	uint8_t *buf = malloc(cap + 1);
	iw_err e;
	bool ok = buf && iw_mpa_frame_encode(&f, buf, cap, &len, &e) == IW_OK;
	if (!ok) {
		free(buf);
		free(pd_owned);
		return ex_herror(x, "line %d: cannot encode the %s: %s", s->line, ex_kind_name(kind), buf ? e.msg : "no memory");
	}
	/* The summary names what went out: an automatic PD_Length is only known once encoded. */
	if (f.pd_length_auto)
		f.pd_length = iw_mpa_frame_pd_length(buf);
	if (kind == IW_MPA_REQUEST && x->o->dut.pd_limit && f.pd_length > x->o->dut.pd_limit &&
	    f.pd_length > x->pd_over_limit)
		x->pd_over_limit = f.pd_length;
	char sum[200];
	frame_summary(&f, sum, sizeof sum);
	iw_result_wire(x->r, IW_TO_DUT, x->h->no, ex_tcase(x), kind == IW_MPA_REPLY ? "reply" : "request", buf, len,
		       "%s %s (%zu octets)", ex_kind_name(kind), sum, len);
	/* Remember what we declared; the decoded copy keeps pointers valid past this call. */
	x->h->sent_frame = f;
	x->h->sent_frame.pd = NULL;
	x->h->sent_frame_valid = true;
	/* The private data the configuration's `reject = yes` has the DUT refuse (docs/reflector.md). */
	x->h->sent_reject_pd = kind == IW_MPA_REQUEST && f.pd_len == strlen(IW_REF_REJECT_PD) && f.pd &&
			       !memcmp(f.pd, IW_REF_REJECT_PD, f.pd_len);
	ex_model_feed(x, buf, len);
	ok = ex_send_cut(x, buf, len);
	free(buf);
	free(pd_owned);
	return ok;
}

/* Sets up FPDU framing both ways from the frames exchanged (MPA-6.1.1-M1/M2, C1/C2). */
void ex_enter_full_operation(ctx *x)
{
	bool m_to_dut = false, m_from_dut = false, crc = true;
	if (x->p->startup_frames) {
		m_to_dut = x->h->got_frame_valid && x->h->got_frame.m;
		m_from_dut = x->h->sent_frame_valid && x->h->sent_frame.m;
		crc = (x->h->sent_frame_valid && x->h->sent_frame.c) || (x->h->got_frame_valid && x->h->got_frame.c);
	} else {
		m_to_dut = m_from_dut = true;
	}
	iw_mpa_tx_init(&x->h->tx, x->p, m_to_dut, crc);
	iw_mpa_rx_init(x->h->rx, x->p, m_from_dut, crc);
	x->h->rx_ready = true;
	x->h->fullop_in_off = x->h->in_cur;
	x->h->fullop_in_valid = true;
	x->h->full_op = true;
	ex_note(x, "full operation: markers to DUT %s, from DUT %s, CRC %s", m_to_dut ? "on" : "off",
	     m_from_dut ? "on" : "off", crc ? "on" : "off");
	/* The built-in DUT is told to ask for markers; any other DUT must be set up to. */
	if ((x->c->needs & IW_CAP_MARKERS) && x->p->startup_frames && x->h->got_frame_valid && !m_to_dut)
		ex_config_error(x, "markers", "the case needs a DUT that asks for markers, but its frame has M=0 although "
				"its configuration says markers = yes%s: set the DUT up to send M=1, or declare markers = no "
				"(such cases are then skipped)", x->o->dut.markers_set ? "" : " (the default)");
}

bool ex_pattern_ok(const iw_step *s, const char *name, int64_t seen, char *why, size_t cap)
{
	const iw_arg *a = iw_step_arg(s, name);
	if (!a || a->is_pattern_any)
		return true;
	if (a->i == seen)
		return true;
	snprintf(why, cap, "%s=%lld expected, %lld seen", name, (long long)a->i, (long long)seen);
	return false;
}

/* The requirement an accepting Reply with R=1 breaks: when the harness's Request had R=1, the
 * DUT took the R bit a Request carries as its own answer, and a Request's R is not checked
 * (MPA-6.1.1-R1, TR-04); otherwise it refused a Request it should accept (MPA-6.1-R2f). One rule
 * for `expect reply r=0` and `expect as-model`. */
const char *ex_reply_r_req(const ctx *x)
{
	return x->h->sent_frame_valid && x->h->sent_frame.r ? "MPA-6.1.1-R1" : "MPA-6.1-R2f";
}

/* The DUT's frame has C=0 where C=1 is due: whether that is held against it (MPA-5.2-03). Not
 * when the DUT is in its administrator no-CRC mode for this case (ctx.nocrc_mode: the DUT
 * declares `crc = optional-off` and the case or the run asked for that mode). One rule for
 * `expect reply|request c=1` and `expect as-model`. */
bool ex_c0_held(ctx *x)
{
	if (!x->nocrc_mode)
		return true;
	ex_note(x, "C=0 not held against the DUT: it is in its no-CRC mode for this case (crc = optional-off)");
	return false;
}

/* A Reply that comes before the Request it answers is complete: a responder waits for a
 * received and validated Request (MPA-6.1-R2a). The model, fed everything the harness sent,
 * still waits for the rest of it. The model only moves forward, so what it says when the Reply is
 * read also held when the Reply was sent. */
static bool reply_premature(ctx *x, enum iw_mpa_kind kind, const char *sum)
{
	if (kind != IW_MPA_REPLY || x->dut_role != IW_ROLE_RESPONDER || !x->h->model)
		return false;
	static const char *const rule[] = {"MPA-6.1-R2a"};
	iw_result_judged(x->r, rule, 1);
	if (iw_conn_state(x->h->model) != IW_CS_STARTUP)
		return false;
	ex_fail_frame(x, "MPA-6.1-R2a", "the DUT sent a Reply before the Request was complete (%s; seen: %s)",
		      x->h->sent_frame_valid ? "its private data had not all arrived" : "its header had not all arrived",
		      sum);
	return true;
}

int ex_frame_take(ctx *x, enum iw_mpa_kind kind, iw_mpa_frame *fout, size_t *need, iw_err *e)
{
	iw_mpa_frame f;
	size_t flen = 0;
	int rc = iw_mpa_frame_decode(x->p, x->h->in + x->h->in_cur, ex_avail(x), &f, &flen, e);
	*need = flen;
	if (rc == IW_ETRUNC)
		return EX_TAKE_PARTIAL;
	if (rc != IW_OK) {
		size_t n = ex_avail(x) < 512 ? ex_avail(x) : 512;
		if (n)
			ex_wire_in(x, "raw", NULL, x->h->in_cur, n, "%zu octets that do not decode as a %s: %s", n,
				   ex_kind_name(kind), e->msg);
		return EX_TAKE_NOT_FRAME;
	}
	char sum[200];
	frame_summary(&f, sum, sizeof sum);
	/* What the DUT did: the frame and what it says (rejects, which revision, markers, CRCs). */
	char act[64];
	snprintf(act, sizeof act, "%s%s M=%d C=%d R=%d Rev=%u", ex_kind_name(kind),
		 memcmp(f.key, iw_mpa_key(kind), IW_MPA_KEY_LEN) ? " (wrong key)" : "", f.m, f.c, f.r, f.rev);
	ex_wire_in(x, kind == IW_MPA_REPLY ? "reply" : "request", act, x->h->in_cur, flen, "%s %s (%zu octets)",
		   ex_kind_name(kind), sum, flen);
	x->h->got_frame = f;
	x->h->got_frame.pd = NULL;
	x->h->got_frame_valid = true;
	x->h->in_cur += flen;
	*fout = f;                      /* its PD points into h->in: valid until the next read */
	/* The frame must be one a conforming peer sends (MPA-6.1.1-*), and come when one may. */
	iw_violation vs[16];
	iw_viol_list l = {.v = vs, .cap = 16};
	const char *rules[8];
	iw_result_judged(x->r, rules, iw_verify_startup_rules(x->p, kind, rules, 8));
	const iw_profile *fp = kind == IW_MPA_REPLY && x->h->sent_frame_valid
				       ? iw_verify_reply_profile(x->p, x->h->sent_frame.rev, f.rev) : x->p;
	if (fp != x->p)
		ex_note(x, "the Reply is in the Request's revision (Rev %u): RFC 5044 Appendix C.2.4's permissive responder, "
			"judged as a frame of %s", f.rev, fp->name);
	iw_verify_startup_frame(fp, &f, kind, &l);
	if (l.n) {
		ex_fail_frame(x, vs[0].req, "the DUT's %s is not one a conforming %s sends: %s (seen: %s)",
			      ex_kind_name(kind), kind == IW_MPA_REPLY ? "responder" : "initiator", vs[0].detail, sum);
		return EX_TAKE_FAILED;
	}
	if (reply_premature(x, kind, sum))
		return EX_TAKE_FAILED;
	/* A DUT that chose other M or C bits than the model's own frame: the model follows it,
	 * so it frames what the harness sends next the way the DUT reads it. */
	if ((f.m != x->h->model_m || f.c != x->h->model_c) && !x->h->pre_lost)
		ex_model_make(x, x->h, f.m, f.c);
	if (x->h->sent_frame_valid || !x->p->startup_frames || kind == IW_MPA_REPLY)
		if (!f.r)
			ex_enter_full_operation(x);
	return EX_TAKE_OK;
}

/* Consumes one startup frame of the DUT and judges it. */
bool ex_exp_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind)
{
	int64_t start = ex_now_us();
	int64_t deadline = ex_within_deadline(x, s);
	iw_mpa_frame f;
	size_t need = IW_MPA_FRAME_HDR_LEN, flen = 0;
	iw_err e;
	int rc;
	for (;;) {
		ex_pump(x, need, deadline);
		rc = iw_mpa_frame_decode(x->p, x->h->in + x->h->in_cur, ex_avail(x), &f, &flen, &e);
		if (rc != IW_ETRUNC)
			break;
		if (ex_avail(x) >= flen || x->h->fin || x->h->rst || ex_now_us() >= deadline)
			break;
		need = flen;
	}
	/* No frame at all: an initiator must send its Request (rule 1); a responder answers a valid
	 * Request (rule 2: it waits for one and validates it, then replies). Whether R is 0 (R2f) or
	 * 1 (R2c) is a SHOULD; answering is not, so a missing Reply breaks MPA-6.1-R2a, except where
	 * the case expects a refusal (r=1: the refusing Reply is R2c's SHOULD). A Request the model
	 * refuses is answered by a close, so a missing Reply to it breaks only what the case expected
	 * (R2f). Nor is answering owed where the harness sent octets behind its Request before any
	 * Reply, as an initiator must not: what a responder does with them is unspecified (A6), and
	 * the Reply it should still give is R2f's SHOULD. */
	const iw_arg *ra = iw_step_arg(s, "r");
	bool refusal = kind == IW_MPA_REPLY && ra && !ra->is_pattern_any && ra->i == 1;
	bool owed = x->h->model_full && !x->h->sent_early;
	const char *req = kind == IW_MPA_REQUEST ? "MPA-6.1-R1a"
			  : refusal ? "MPA-6.1-R2c"
			  : owed ? "MPA-6.1-R2a" : "MPA-6.1-R2f";
	const char *rule = kind == IW_MPA_REQUEST ? "an initiator sends its Request first"
			   : refusal ? "a responder should refuse unacceptable private data with a Reply R=1"
			   : owed ? "a responder answers a valid Request: iwspec's reading of rule 2, docs/case-language.md"
			   : x->h->sent_early ? "with octets behind the Request, what a responder does is unspecified (A6): "
						"it should still answer" : "";
	if (rc == IW_ETRUNC) {
		size_t got = ex_avail(x);
		if (got)
			ex_wire_in(x, "raw", NULL, x->h->in_cur, got, "%zu octets of an incomplete %s", got,
				   ex_kind_name(kind));
		if (got >= IW_MPA_FRAME_HDR_LEN)
			return ex_fail_frame(x, "MPA-6.1.1-08", "the DUT's %s announces PD_Length %u but only %zu octets of private "
				    "data arrived before %s", ex_kind_name(kind), f.pd_length, got - IW_MPA_FRAME_HDR_LEN,
				    x->h->rst ? "a reset" : x->h->fin ? "its FIN" : "the wait ended");
		char how[96];
		if (x->h->rst || x->h->fin)
			snprintf(how, sizeof how, "the DUT %s", x->h->rst ? "reset the connection" : "closed (FIN)");
		else
			snprintf(how, sizeof how, "nothing %sarrived in %lld ms", got ? "more " : "",
				 (long long)((ex_now_us() - start) / 1000));
		return ex_fail(x, req, "expected a %s frame; %s after %zu of %zu octets%s%s%s", ex_kind_name(kind), how, got,
			    flen, *rule ? " (" : "", rule, *rule ? ")" : "");
	}
	rc = ex_frame_take(x, kind, &f, &flen, &e);
	if (rc == EX_TAKE_NOT_FRAME)
		return ex_fail(x, req, "expected a %s frame; cannot decode: %s", ex_kind_name(kind), e.msg);
	if (rc != EX_TAKE_OK)
		return false;
	char sum[200];
	frame_summary(&f, sum, sizeof sum);
	char why[128];
	const iw_arg *k = iw_step_arg(s, "key");
	if (k && !k->is_pattern_any) {
		const uint8_t *want = k->type == IW_ARG_WORD ? iw_mpa_key(strcmp(k->s, "reply") ? IW_MPA_REQUEST : IW_MPA_REPLY)
							     : k->bytes;
		if ((k->type != IW_ARG_WORD && k->nbytes != IW_MPA_KEY_LEN) || memcmp(f.key, want, IW_MPA_KEY_LEN))
			return ex_fail(x, kind == IW_MPA_REPLY ? "MPA-6.1.1-03" : "MPA-6.1.1-01",
				    "the %s key differs from the expected one (seen: %s)", ex_kind_name(kind), sum);
	}
	/* The row a field's mismatch breaks; NULL where it is RFC 6581's (S, IRD, ORD, A: each
	 * case's own row, its `rule=` or its first requirement), not a drafts' field rule. */
	static const struct { const char *name; const char *req; } fields[] = {
		{"m", "MPA-6.1.1-M1"}, {"c", "MPA-5.2-03"}, {"r", "MPA-6.1.1-R1"}, {"res", "MPA-6.1.1-05"},
		{"enhanced", NULL}, {"rev", "MPA-6.1.1-06"}, {"pd_length", "MPA-6.1.1-08"},
		{"ird", NULL}, {"ord", NULL}, {"p2p", NULL},
	};
	int64_t vals[] = {f.m, f.c, f.r, f.res, f.enhanced, f.rev, f.pd_length, f.ird, f.ord, f.p2p};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		if (ex_pattern_ok(s, fields[i].name, vals[i], why, sizeof why))
			continue;
		/* C=0 where c=1 is expected: the DUT's no-CRC mode decides, as in `expect as-model`. */
		if (!strcmp(fields[i].name, "c") && !f.c && !ex_c0_held(x))
			continue;
		/* A Reply's R is the responder's answer: R=1 to refuse the private data (MPA-6.1-R2c),
		 * R=0 to accept it (R2f, or the Request's own R taken for an answer: R1); in a Request
		 * it is only a reserved zero (MPA-6.1.1-R1). */
		const char *freq = fields[i].req;
		if (!strcmp(fields[i].name, "rev"))
			freq = iw_verify_startup_rev_req(x->p, (uint8_t)iw_step_arg(s, "rev")->i);
		if (!strcmp(fields[i].name, "r") && kind == IW_MPA_REPLY)
			freq = f.r ? ex_reply_r_req(x) : "MPA-6.1-R2c";
		return ex_fail(x, freq, "%s: %s (seen: %s)", ex_kind_name(kind), why, sum);
	}
	/* `rtr=TYPE`: the Reply sets the flag of that offered type (RFC 6581 §9.2: a SHOULD, for each
	 * type the Responder supports); other flags may be set too (a MAY), the Initiator picks.
	 * `rtr=none`: no RTR flag set, which RFC 6581 §9.2 asks of every frame with A=0. */
	const iw_arg *rtr = iw_step_arg(s, "rtr");
	if (rtr && rtr->s && !strcmp(rtr->s, "none") && (f.rtr_send || f.rtr_write || f.rtr_read))
		return ex_fail(x, f.p2p ? NULL : "RFC6581-9.2-15", "%s: no RTR flag expected (A=%d), B=%d C=%d D=%d seen (seen: %s)",
			       ex_kind_name(kind), f.p2p, f.rtr_send, f.rtr_write, f.rtr_read, sum);
	if (kind == IW_MPA_REPLY && rtr && rtr->s && !rtr->is_pattern_any && strcmp(rtr->s, "none")) {
		bool set = !strcmp(rtr->s, "send") ? f.rtr_send : !strcmp(rtr->s, "write") ? f.rtr_write : f.rtr_read;
		if (!set && !ex_short_of(x, "RFC6581-9.2-02", "Reply: the offered RTR type %s is not among the Reply's "
					 "(seen: %s)", rtr->s, sum))
			return false;
	}
	const iw_arg *pd = iw_step_arg(s, "pd");
	if (pd && !pd->is_pattern_any && (pd->nbytes != f.pd_len || memcmp(pd->bytes, f.pd, f.pd_len)))
		return ex_fail(x, "MPA-6.1-R9c", "%s private data differs from the expected %zu octets (seen %zu octets)",
			    ex_kind_name(kind), pd->nbytes, f.pd_len);
	return true;
}
