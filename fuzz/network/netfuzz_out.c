/*
 * netfuzz_out.c - a network fuzzer finding on disk:
 *   <dir>/finding-<n>/case.iwt      a case `iwspec run --cases FILE` replays (id
 *                                   fuzz.finding.<seed>.<n>): the startup frame as `send
 *                                   request`/`send reply` fields, every later octet as `send raw`
 *                                   (write cuts as `split`, delays as `sleep`), then what a
 *                                   conforming DUT does, as computed by the model
 *   <dir>/finding-<n>/seed.txt      seed, run index, finding, how to reproduce
 *   <dir>/finding-<n>/capture.pcap  the conversation (reports/pcap_write.h)
 *
 * The expectations allow what the judge allows (netfuzz_judge.c): the reflector's greeting
 * or not, a Terminate or not after an error, echoes cut short by an error; so the case passes
 * on a conforming DUT and fails on the DUT that showed the finding.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "netfuzz.h"
#include "netfuzz_judge.h"
#include "pcap_write.h"
#include "req_level.h"
#include "result.h"

typedef struct sbuf {
	char *b;
	size_t len, cap;
	bool oom;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *s, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = s->cap - s->len;
		int n = vsnprintf(s->b ? s->b + s->len : NULL, s->b ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (s->b && (size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		size_t nc = (s->cap + (size_t)n + 1) * 2;
		char *nb = realloc(s->b, nc);
		if (!nb) {
			s->oom = true;
			return;
		}
		s->b = nb;
		s->cap = nc;
	}
}

static void sb_hex(sbuf *s, const uint8_t *b, size_t n)
{
	sb_printf(s, "x\"");
	for (size_t i = 0; i < n; i++)
		sb_printf(s, "%02x", b[i]);
	sb_printf(s, "\"");
}

/* The case language takes catalog-shaped IDs only (docs/case-language.md). */
static bool req_shape(const char *r)
{
	const char *p = r;
	if (!strncmp(p, "RFC", 3)) {
		p += 3;
		int d = 0;
		while (isdigit((unsigned char)*p))
			p++, d++;
		if (d < 4 || *p++ != '-' || !isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p) || *p == '.')
			p++;
		return *p == '\0';
	}
	if (!isupper((unsigned char)*p))
		return false;
	while (isalpha((unsigned char)*p))
		p++;
	if (*p++ != '-' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (*p++ != '-')
		return false;
	int caps = 0;
	while (isupper((unsigned char)*p) && caps < 2)
		p++, caps++;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (islower((unsigned char)*p))
		p++;
	return *p == '\0';
}

static void frame_step(sbuf *s, const nf_session *ss, const iw_mpa_frame *f, const nf_action *a, const nf_prog *p)
{
	const nf_dutinfo *d = nf_session_dut(ss);
	enum iw_mpa_kind kind = d->role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST : IW_MPA_REPLY;
	iw_mpa_frame def;
	iw_mpa_frame_init(&def, d->profile, kind);
	sb_printf(s, "send %s", kind == IW_MPA_REQUEST ? "request" : "reply");
	if (memcmp(f->key, def.key, IW_MPA_KEY_LEN)) {
		sb_printf(s, " key=");
		sb_hex(s, f->key, IW_MPA_KEY_LEN);
	}
	if (f->m != def.m) sb_printf(s, " m=%d", f->m);
	if (f->c != def.c) sb_printf(s, " c=%d", f->c);
	if (f->r != def.r) sb_printf(s, " r=%d", f->r);
	if (f->res != def.res) sb_printf(s, " res=0x%x", f->res);
	if (f->enhanced != def.enhanced) sb_printf(s, " enhanced=%d", f->enhanced);
	if (f->rev != def.rev) sb_printf(s, " rev=%u", f->rev);
	if (f->has_irdord != def.has_irdord) sb_printf(s, " irdord=%d", f->has_irdord);
	if (f->has_irdord && (f->ird != def.ird || f->ord != def.ord)) sb_printf(s, " ird=%u ord=%u", f->ird, f->ord);
	if (!f->pd_length_auto) sb_printf(s, " pd_length=%u", f->pd_length);
	if (a->len) {
		uint8_t pd[NF_POOL];
		for (size_t i = 0; i < a->len; i++)
			pd[i] = nf_act_octet(p, a, i);
		sb_printf(s, " pd=");
		sb_hex(s, pd, a->len);
	}
	sb_printf(s, "\n");
}

/* One sequence: [greeting] messages [terminate] [close], as an alternative of a one-of block
 * ("  - a ; b") or as plain steps ("expect a" lines). */
static void seq(sbuf *s, const nf_expect *x, bool plain, bool greet, size_t nmsg, bool term, bool closes, bool allow)
{
	const char *first = plain ? "expect " : "  - ", *sep = plain ? "\nexpect " : " ; ";
	const char *cur = first;
	bool any = false;
	if (greet) {
		sb_printf(s, "%sgreeting within=2s", cur);
		cur = sep;
		any = true;
	}
	for (size_t i = 0; i < nmsg; i++) {
		unsigned op = x->msg[i].opcode;
		if (op == IW_OP_READ_RESP) {
			sb_printf(s, "%sread_resp within=2s", cur);
		} else if ((op == IW_OP_SEND || op == IW_OP_SEND_SE) && x->msg[i].len <= 400) {
			sb_printf(s, "%ssend within=2s data=", cur);
			sb_hex(s, x->data + x->msg[i].off, x->msg[i].len);
		} else if (op == IW_OP_SEND || op == IW_OP_SEND_SE) {
			/* Too long for a case line (4096 characters): the message, not its octets. */
			sb_printf(s, "%ssend within=2s", cur);
		} else {
			sb_printf(s, "%sany within=2s", cur);
		}
		cur = sep;
		any = true;
	}
	if (term) {
		sb_printf(s, "%sterminate within=2s layer=%d etype=%d ecode=%d", cur, x->t_layer, x->t_etype, x->t_ecode);
		cur = sep;
		any = true;
	}
	/* Then the DUT closes, or (when a conforming DUT keeps the connection) stays quiet. */
	if (closes)
		sb_printf(s, "%sclose within=2s%s\n", cur, allow ? " allow_data=1" : "");
	else if (!allow)
		sb_printf(s, "%ssilence 300ms\n", cur);
	else if (any)
		sb_printf(s, "\n");
}

typedef struct variant {
	bool g;
	size_t n;
	bool t;
} variant;

/* Messages and closing: one-of alternatives for the reactions a conforming DUT may have. */
static void expect_msgs(sbuf *s, const nf_expect *x, bool closes)
{
	size_t k = x->nmsg;
	bool cut = false;
	if (k > 3) {
		k = 3;
		cut = true;
	}
	variant v[8];
	size_t nv = 0;
	bool failed_like = x->terminate || x->model_closed;
	for (int g = x->may_greet ? 1 : 0; g >= 0; g--)
		for (size_t n = k + 1; n-- > 0;) {
			if (n < k && !failed_like)
				break;
			for (int t = x->terminate ? 1 : 0; t >= 0; t--)
				if (nv < 6)
					v[nv++] = (variant){g != 0, n, t != 0};
		}
	if (nv == 1) {
		seq(s, x, true, v[0].g, v[0].n, v[0].t, closes, cut);
		return;
	}
	sb_printf(s, "expect one-of\n");
	for (size_t i = 0; i < nv; i++)
		seq(s, x, false, v[i].g, v[i].n, v[i].t, closes, cut || (closes && v[i].n < x->nmsg));
	sb_printf(s, "end\n");
}

/* An RDMA Write or Read Request to the STag the DUT advertised, as a `send` step that leaves
 * the STag out: the replay takes the one its DUT advertises (`expect greeting`), which need not
 * be the one of the fuzzing session. Only messages the case language renders as the fuzzer
 * did: one segment, no FPDU defect. */
static bool adv_step(sbuf *s, const nf_prog *p, const nf_action *a)
{
	const nf_fpdu *x = &a->fp;
	iw_fpdu_mods zero;
	memset(&zero, 0, sizeof zero);
	if (x->mulpdu || x->norder || x->mo_set || x->rsvdulp_set || memcmp(&x->mods, &zero, sizeof zero))
		return false;
	if (x->msg == NF_M_WRITE && x->stag_adv && x->tagged) {
		sb_printf(s, "send write tagged=1 last=%d dv=%u rsvd=%u rv=%u opcode=%u qn=%u msn=%u to=0x%llx data=", x->last,
			  x->dv, x->rsvd, x->rv, x->opcode, x->qn, x->msn, (unsigned long long)x->to);
		uint8_t b[NF_POOL];
		size_t n = a->len < sizeof b ? a->len : sizeof b;
		if (a->len > 1800)
			return false;
		for (size_t i = 0; i < n; i++)
			b[i] = nf_act_octet(p, a, i);
		sb_hex(s, b, n);
		sb_printf(s, "\n");
		return true;
	}
	if (x->msg == NF_M_READ_REQ && x->rr_src_adv && !x->tagged) {
		sb_printf(s, "send read_req tagged=0 last=%d dv=%u rsvd=%u rv=%u opcode=%u qn=%u msn=%u sink_stag=0x%x "
			  "sink_to=0x%llx rsize=%u src_to=0x%llx\n", x->last, x->dv, x->rsvd, x->rv, x->opcode, x->qn, x->msn,
			  x->rr.sink_stag, (unsigned long long)x->rr.sink_to, x->rr.size, (unsigned long long)x->rr.src_to);
		return true;
	}
	return false;
}

/* The harness's octets of action i, as case steps. */
static void action_steps(sbuf *s, nf_session *ss, const nf_prog *p, size_t i, unsigned *split)
{
	const nf_dutinfo *d = nf_session_dut(ss);
	const nf_trace *t = nf_session_trace(ss);
	const nf_action *a = &p->a[i];
	if (a->kind == NF_A_SPLIT) {
		if (a->split_every != *split) {
			/* The fuzzer's pieces went out back to back and the DUT most likely read each on
			 * its own; a millisecond between them makes the replay read them so every time (a
			 * DUT that fails only on a read ending inside a header, MPA-5.4-04, needs that). */
			if (a->split_every)
				sb_printf(s, "split every=%u delay=1ms\n", a->split_every);
			else
				sb_printf(s, "split none\n");
			*split = a->split_every;
		}
		return;
	}
	if (a->kind == NF_A_SLEEP) {
		sb_printf(s, "sleep %ums\n", (a->sleep_us + 999) / 1000);
		return;
	}
	if (a->kind == NF_A_RESET)
		return;
	if (a->kind == NF_A_FRAME && t->frame_sent && t->act_start[i] == 0 && d->profile->startup_frames) {
		frame_step(s, ss, &t->frame, a, p);
		return;
	}
	if (a->kind == NF_A_FPDU && t->act_adv[i] && adv_step(s, p, a))
		return;
	/* Everything else exactly as it went out, in lines the parser takes. */
	for (uint32_t off = t->act_start[i]; off < t->act_end[i];) {
		uint32_t k = t->act_end[i] - off;
		if (k > 1800)
			k = 1800;
		sb_printf(s, "send raw ");
		sb_hex(s, t->to_dut + off, k);
		sb_printf(s, "\n");
		off += k;
	}
}

/* One expectation of a model message, without "expect " and the newline. */
static void msg_expect(sbuf *s, const nf_msgs *E, const nf_msgrec *m)
{
	if (m->opcode == IW_OP_READ_RESP) {
		sb_printf(s, "read_resp within=2s");
	} else if ((m->opcode == IW_OP_SEND || m->opcode == IW_OP_SEND_SE) && m->len <= 400) {
		sb_printf(s, "send within=2s data=");
		sb_hex(s, E->data + m->off, m->len);
	} else if (m->opcode == IW_OP_SEND || m->opcode == IW_OP_SEND_SE) {
		sb_printf(s, "send within=2s"); /* too long for a case line */
	} else {
		sb_printf(s, "any within=2s");
	}
}

/* The answers to one action: [greeting] messages [Terminate] [close], with the alternatives a
 * conforming DUT has (greeting or not where it may speak first; Terminate or not). */
static void answer(sbuf *s, const nf_msgs *E, size_t m0, size_t m1, bool greet, bool term, const nf_expect *x,
		   bool closes)
{
	size_t nl = 0;
	for (size_t j = m0; j < m1; j++)
		nl += E->m[j].opcode != IW_OP_TERMINATE;
	if (!greet && !term) {
		for (size_t j = m0; j < m1; j++)
			if (E->m[j].opcode != IW_OP_TERMINATE) {
				sb_printf(s, "expect ");
				msg_expect(s, E, &E->m[j]);
				sb_printf(s, "\n");
			}
		if (closes)
			sb_printf(s, "expect close within=2s\n");
		return;
	}
	if (!nl && !closes && greet && !term) {
		sb_printf(s, "expect one-of\n  - greeting within=1s\n  - silence 100ms\nend\n");
		return;
	}
	sb_printf(s, "expect one-of\n");
	for (int g = greet ? 1 : 0; g >= 0; g--)
		for (int tm = term ? 1 : 0; tm >= 0; tm--) {
			const char *sep = "  - ";
			if (g) {
				sb_printf(s, "%sgreeting within=1s", sep);
				sep = " ; ";
			}
			for (size_t j = m0; j < m1; j++)
				if (E->m[j].opcode != IW_OP_TERMINATE) {
					sb_printf(s, "%s", sep);
					msg_expect(s, E, &E->m[j]);
					sep = " ; ";
				}
			if (tm) {
				sb_printf(s, "%sterminate within=2s layer=%d etype=%d ecode=%d", sep, x->t_layer, x->t_etype,
					  x->t_ecode);
				sep = " ; ";
			}
			if (closes)
				sb_printf(s, "%sclose within=2s", sep);
			else if (!strcmp(sep, "  - "))
				sb_printf(s, "%ssilence 100ms", sep);
			sb_printf(s, "\n");
		}
	sb_printf(s, "end\n");
}

/* Lock-step: each action, then what a conforming DUT answers to it. Sending the next octets only
 * after the answers makes the replay independent of how TCP groups them. Returns -1 when the
 * model's output does not decode (then the batch form is used). */
static int lockstep_steps(sbuf *s, nf_session *ss, const nf_prog *p)
{
	const nf_dutinfo *d = nf_session_dut(ss);
	const nf_trace *t = nf_session_trace(ss);
	const nf_expect *x = nf_session_expect(ss);
	bool responder = d->role == IW_ROLE_RESPONDER;
	bool frames = d->profile->startup_frames;
	iw_mpa_frame mf;
	size_t mflen = 0;
	bool frame_due = false;
	if (frames)
		frame_due = iw_mpa_frame_decode(d->profile, t->exp, t->exp_len, &mf, &mflen, NULL) == IW_OK;
	if (!frame_due)
		mflen = 0;
	nf_dec dec;
	if (nf_dec_init(&dec)) {
		nf_dec_free(&dec);
		return -1;
	}
	nf_finding bad;
	memset(&bad, 0, sizeof bad);
	nf_msgs *E = &dec.exp;
	if (t->exp_len > mflen &&
	    !nf_decode_msgs(&dec, d->profile, t->exp + mflen, t->exp_len - mflen, t->markers_tx, t->crc, E, &bad)) {
		nf_dec_free(&dec);
		return -1;
	}
	unsigned split = 0;
	/* Any reflector may greet once it may speak (docs/reflector.md), whether or not the DUT of
	 * the session did: the case must pass on the built-in DUT, which does. */
	bool frame_done = !responder || !frames, greeted = false, closed = false;
	size_t m = 0;
	for (size_t i = 0; i < t->sent_actions && i < p->n && !closed; i++) {
		action_steps(s, ss, p, i, &split);
		uint32_t upto = t->act_exp_end[i];
		if (!frame_done && frame_due && upto >= mflen) {
			sb_printf(s, "expect reply within=2s r=%d\n", mf.r);
			frame_done = true;
		}
		size_t m0 = m;
		while (m < E->n && mflen + E->m[m].end <= upto)
			m++;
		bool term = false;
		for (size_t j = m0; j < m; j++)
			term |= E->m[j].opcode == IW_OP_TERMINATE;
		/* Did a conforming DUT close on this action? (It stops sending then: the rest of
		 * the program was not sent either.) */
		closed = x->model_closed && i + 1 == t->sent_actions;
		bool rel = !greeted && (frames ? frame_due && (t->act_released[i] || upto > mflen) : true);
		if (rel)
			greeted = true;
		if (closed && frames && !frame_due && responder)
			sb_printf(s, "expect close within=2s\n"); /* its frame was refused: no Reply */
		else if (m > m0 || rel || closed)
			answer(s, E, m0, m, rel, term, x, closed);
	}
	if (split)
		sb_printf(s, "split none\n");
	if (t->we_rst) {
		sb_printf(s, "reset\n");
	} else if (!closed) {
		if (!frame_done && frame_due)
			sb_printf(s, "expect reply within=2s r=%d\n", mf.r);
		sb_printf(s, "close\n");
		/* Answers to the FIN itself (rare), then the close. */
		answer(s, E, m, E->n, false, false, x, true);
	}
	nf_dec_free(&dec);
	return 0;
}

/* Batch: all octets, then all expectations (for programs too long for lock-step). */
static void batch_steps(sbuf *s, nf_session *ss, const nf_prog *p)
{
	const nf_dutinfo *d = nf_session_dut(ss);
	const nf_trace *t = nf_session_trace(ss);
	const nf_expect *x = nf_session_expect(ss);
	bool responder = d->role == IW_ROLE_RESPONDER;
	unsigned split = 0;
	for (size_t i = 0; i < t->sent_actions && i < p->n; i++)
		action_steps(s, ss, p, i, &split);
	if (split)
		sb_printf(s, "split none\n");
	if (t->we_rst) {
		sb_printf(s, "reset\n");
	} else if (!x->model_closed) {
		if (responder && d->profile->startup_frames && x->frame_due)
			sb_printf(s, "expect reply within=2s r=%d\n", x->frame_r);
		if (x->frame_due || !d->profile->startup_frames)
			expect_msgs(s, x, false);
		else
			sb_printf(s, "expect silence 300ms\n");
		sb_printf(s, "close\nexpect close within=2s%s\n", x->nmsg > 3 ? " allow_data=1" : "");
	} else {
		if (responder && d->profile->startup_frames && x->frame_due)
			sb_printf(s, "expect reply within=2s r=%d\n", x->frame_r);
		if (x->frame_due || !d->profile->startup_frames)
			expect_msgs(s, x, true);
		else
			sb_printf(s, "expect close within=2s\n");
	}
}

int nf_case_text(nf_session *ss, const nf_prog *p, const nf_finding *f, unsigned n, bool batch, char **out,
		 iw_err *e)
{
	*out = NULL;
	const nf_dutinfo *d = nf_session_dut(ss);
	const nf_trace *t = nf_session_trace(ss);
	bool responder = d->role == IW_ROLE_RESPONDER;
	const char *req = req_shape(f->req) ? f->req : "DDP-8.2.2-01";
	sbuf s = {0};
	sb_printf(&s, "# iwspec fuzz: finding %u, %s: %s\n", n, nf_fkind_name(f->kind), f->detail);
	sb_printf(&s, "# seed %llu, run %llu, %zu action%s after minimisation (seed.txt tells how to reproduce it)\n",
		  (unsigned long long)p->seed, (unsigned long long)p->run, p->n, p->n == 1 ? "" : "s");
	for (size_t i = 0; i < p->n; i++) {
		char line[400];
		nf_action_describe(p, &p->a[i], line, sizeof line);
		sb_printf(&s, "#   %zu. %s\n", i + 1, line);
	}
	sb_printf(&s, "id: fuzz.finding.%llu.%u\n", (unsigned long long)p->seed, n);
	char title[160];
	snprintf(title, sizeof title, "Fuzz finding %u: the DUT's reaction differs from a conforming DUT's (%s)", n,
		 nf_fkind_name(f->kind));
	sb_printf(&s, "title: \"%s\"\n", title);
	/* The level the catalog gives the requirement, so the case file says what its replay judges
	 * (a finding on a SHOULD is a warning); an id the catalog does not hold (RFC 5040 sections)
	 * stays MUST, as the cases hold them. */
	enum iw_level lvl = IW_LEVEL_MUST;
	(void)iw_req_level(req, &lvl, NULL);
	sb_printf(&s, "requirement: %s %s\n", req, iw_level_name(lvl));
	sb_printf(&s, "role: %s\n", responder ? "responder" : "initiator");
	sb_printf(&s, "profiles: %s\n", d->profile->name);
	sb_printf(&s, "timeout: 30s\n\n");
	sb_printf(&s, responder ? "connect\n" : "accept within=10s\nexpect request within=5s\n");
	sbuf body = {0};
	if (batch || t->sent_actions > 24 || lockstep_steps(&body, ss, p) != 0) {
		free(body.b);
		memset(&body, 0, sizeof body);
		batch_steps(&body, ss, p);
	}
	if (body.b)
		sb_printf(&s, "%s", body.b);
	s.oom |= body.oom;
	free(body.b);
	/* A crash is reported when the case ends: let the process finish dying first. */
	if (f->kind == NF_F_CRASH || f->kind == NF_F_DEAD)
		sb_printf(&s, "sleep 300ms\n");
	if (s.oom) {
		free(s.b);
		return iw_errf(e, IW_ENOSPC, "out of memory writing the case");
	}
	*out = s.b;
	return IW_OK;
}

static int write_pcap(nf_session *ss, const char *path, iw_err *e)
{
	const nf_trace *t = nf_session_trace(ss);
	const nf_dutinfo *d = nf_session_dut(ss);
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, e);
	if (!w)
		return -1;
	iw_pcap_tcp_params prm;
	iw_pcap_tcp_params_default(&prm);
	iw_pcap_tcp *c = iw_pcap_tcp_open(w, &prm, e);
	if (!c) {
		iw_pcap_writer_free(w);
		return -1;
	}
	/* The client is the side that connected: the harness for a responder DUT. */
	enum iw_pcap_dir harness = d->role == IW_ROLE_RESPONDER ? IW_PCAP_C2S : IW_PCAP_S2C;
	enum iw_pcap_dir dut = harness == IW_PCAP_C2S ? IW_PCAP_S2C : IW_PCAP_C2S;
	int rc = 0;
	for (size_t i = 0; i < t->nchunks && rc == 0; i++) {
		const nf_chunk *k = &t->chunks[i];
		rc = k->dir == 0 ? iw_pcap_tcp_data(c, harness, t->to_dut + k->off, k->len, e)
				 : iw_pcap_tcp_data(c, dut, t->from_dut + k->off, k->len, e);
	}
	if (rc == 0) {
		if (t->we_rst)
			rc = iw_pcap_tcp_rst(c, harness, e);
		else if (t->we_fin)
			rc = iw_pcap_tcp_fin(c, harness, e);
	}
	if (rc == 0 && !t->we_rst) {
		if (t->dut_rst)
			rc = iw_pcap_tcp_rst(c, dut, e);
		else if (t->dut_fin)
			rc = iw_pcap_tcp_fin(c, dut, e);
	}
	if (rc) {
		iw_pcap_writer_free(w);
		return -1;
	}
	return iw_pcap_writer_commit(w, path, e);
}

/* seed.txt: what was found, in which run of which seed, and how to reproduce it (sub: "finding"
 * or "unconfirmed"; with_case: a case.iwt was written beside it). */
static int write_seed(const char *dir, const char *sub, unsigned n, const nf_prog *p, const nf_finding *f,
		      const char *status, bool with_case, iw_err *e)
{
	sbuf s = {0};
	unsigned long long seed = p->seed, run = p->run;
	sb_printf(&s, "seed: %llu\nrun: %llu\nkind: %s\nrequirement: %s\ndetail: %s\nactions: %zu\n%s\n", seed, run,
		  nf_fkind_name(f->kind), f->req, f->detail, p->n, status);
	if (with_case)
		sb_printf(&s, "reproduce: iwspec fuzz --seed %llu --runs %llu ... (the same DUT options); the minimised\n"
			  "           case: iwspec run --cases %s/%s-%u/case.iwt --dut ...\n", seed, run + 1, dir, sub, n);
	else
		sb_printf(&s, "reproduce: iwspec fuzz --seed %llu --first-run %llu --runs 1 ... (the same DUT options)\n",
			  seed, run);
	char path[1200];
	snprintf(path, sizeof path, "%s/%s-%u/seed.txt", dir, sub, n);
	int rc = s.oom ? iw_errf(e, IW_ENOSPC, "out of memory writing %s", path) : iw_write_atomic(path, s.b, s.len, e);
	free(s.b);
	return rc ? IW_EINVAL : IW_OK;
}

/* The case, seed.txt and the capture of the run just recorded. */
static int write_case(nf_session *ss, const char *dir, unsigned n, const nf_prog *p, const nf_finding *f, iw_err *e)
{
	int rc;
	char path[1200];
	/* The case must fail where the finding was made and pass on a conforming DUT: check it
	 * with the runner; lock-step first, then the batch form (the DUT saw the octets together). */
	char *text = NULL;
	const char *checked = "not checked";
	for (int form = 0; form < 2; form++) {
		char *t = NULL;
		rc = nf_case_text(ss, p, f, n, form == 1, &t, e);
		if (rc) {
			free(text);
			return rc;
		}
		int v_dut = -1, v_clean = -1;
		iw_err re;
		int rd = nf_session_replay(ss, t, false, &v_dut, &re);
		bool ok = rd == IW_OK && nf_session_replay(ss, t, true, &v_clean, &re) == IW_OK && v_dut == IW_FAIL &&
			  v_clean == IW_PASS;
		if (ok || !text) {
			free(text);
			text = t;
			checked = ok ? "FAIL against the DUT of the finding, PASS against the built-in DUT"
				: rd == IW_ETRUNC ? "not checked: too little of --time was left to replay it"
				: "did not FAIL against the DUT, or did not PASS against the built-in DUT, when checked";
		} else {
			free(t);
		}
		if (ok || rd == IW_ETRUNC)
			break;
	}
	snprintf(path, sizeof path, "%s/finding-%u/case.iwt", dir, n);
	if (iw_write_atomic(path, text, strlen(text), e)) {
		free(text);
		return IW_EINVAL;
	}
	free(text);
	char status[300];
	snprintf(status, sizeof status, "case: %s", checked);
	if (write_seed(dir, "finding", n, p, f, status, true, e))
		return IW_EINVAL;
	snprintf(path, sizeof path, "%s/finding-%u/capture.pcap", dir, n);
	if (write_pcap(ss, path, e))
		return IW_EINVAL;
	return IW_OK;
}

int nf_write_unconfirmed(const char *dir, unsigned n, const nf_prog *p, const nf_finding *f, const char *why,
			 iw_err *e)
{
	char status[400];
	snprintf(status, sizeof status, "confirmed: no: %s", why);
	return write_seed(dir, "unconfirmed", n, p, f, status, false, e);
}

int nf_write_finding(nf_session *ss, const char *dir, unsigned n, const nf_prog *p, const nf_finding *f, iw_err *e)
{
	/* Once more, recorded, for the capture and the expected reaction. A finding is written
	 * however little of the session's time is left: the run has an allowance of its own. */
	nf_finding again;
	int64_t was = nf_session_allow(ss, nf_session_run_bound(ss));
	nf_session_record(ss, true);
	nf_session_confirming(ss, true); /* a crash is seen (and the DUT restarted) at once */
	int rc = nf_run(ss, p, &again, e);
	nf_session_confirming(ss, false);
	nf_session_record(ss, false);
	bool cut = rc == IW_OK && nf_session_expired(ss);
	/* The replays that check the case fit in what is left of the session's own time. */
	nf_session_set_deadline(ss, was);
	if (rc == IW_OK && !cut)
		return write_case(ss, dir, n, p, f, e);
	/* Not recorded: what was found is still written, with how to reproduce it. */
	char why[sizeof e->msg + 40];
	snprintf(why, sizeof why, "%s", cut ? "the run that records it was cut (a signal came, or the DUT outlasted "
		 "its allowance)" : e->msg);
	char status[sizeof why + 40];
	snprintf(status, sizeof status, "case: not written: %s", why);
	iw_err we;
	if (write_seed(dir, "finding", n, p, f, status, false, &we))
		return iw_errf(e, IW_EINVAL, "%s", we.msg);
	return iw_errf(e, IW_ETRUNC, "no case: %s; %s/finding-%u/seed.txt says how to reproduce it", why, dir, n);
}
