/*
 * netfuzz_case.c - a fuzz finding as a case `iwspec run` replays (case.iwt, netfuzz_out.c writes
 * it): the recorded run, step for step.
 *
 * The case does what the run did, in the same order and nothing more, because a DUT's fault may
 * hang on exactly that: the octets of each action as they went out (the startup frame as `send
 * request`/`send reply` with the fields that differ from a conforming frame, every later octet
 * as `send raw`, or a Write or Read Request to the advertised STag as `send write`/`send
 * read_req`), written together where the run wrote them together (`resegment: coalesce`), cut
 * where it cut them (`split`), paused where it paused (`sleep`); a wait for the DUT only where the
 * run waited (for the greeting whose STag the next message needs); the FIN (`close`) or RST
 * (`reset`) right after the last octet, as the run sent it; and only then what a conforming DUT
 * does with all of it, computed by the model: its startup frame with the fields the judge
 * compares, its messages, a Terminate or not, and the close, with the alternatives the judge
 * allows (netfuzz_judge.c: the reflector's greeting or not, a Terminate or not after an error,
 * echoes cut short by an error).
 *
 * The case used to be written lock-step, each action followed by the answers to it, so that the
 * replay did not depend on how TCP grouped the octets. That inserted waits the run never made:
 * a Request followed at once by a FIN became `send request`, `expect reply`, `close`, a case
 * that waits for the Reply before the FIN and so does not do what the fuzzer did (issue 25,
 * item 11).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "netfuzz_int.h"
#include "req_level.h"

void nf_sb_printf(nf_sb *s, const char *fmt, ...)
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

static void sb_hex(nf_sb *s, const uint8_t *b, size_t n)
{
	nf_sb_printf(s, "x\"");
	for (size_t i = 0; i < n; i++)
		nf_sb_printf(s, "%02x", b[i]);
	nf_sb_printf(s, "\"");
}

#define sb_printf nf_sb_printf

/* A requirement the case may cite: a row of the catalog, which `iwspec run` insists on (an ID
 * that is no row is refused, exit 2). A finding rests on one always, but a crash of a run whose
 * model saw no error names none. */
const char *nf_case_req(const char *req)
{
	enum iw_level lvl;
	return req && *req && iw_req_level(req, &lvl, NULL) ? req : "DDP-8.2.2-01";
}

static void frame_step(nf_sb *s, const nf_dutinfo *d, const iw_mpa_frame *f, const nf_action *a, const nf_prog *p)
{
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

/* The FPDU defects of a message as `send` arguments (exec_send.c's fpdu_mods_of reads them back).
 * False for one the language has no word for. */
static bool mods_args(nf_sb *s, const iw_fpdu_mods *m)
{
	if (m->marker_swapped)
		return false;
	if (m->set_length) sb_printf(s, " length=%u", m->ulpdu_length);
	if (m->set_crc) sb_printf(s, " crc=0x%x", m->crc_value);
	if (m->crc_big_endian) sb_printf(s, " crc_order=be");
	if (m->crc_xor) sb_printf(s, " crc_xor=0x%x", m->crc_xor);
	if (m->corrupt) sb_printf(s, " corrupt=%zu", m->corrupt_at);
	if (m->pad_fill) sb_printf(s, " pad_fill=%u", m->pad_fill);
	if (m->marker_reserved) sb_printf(s, " marker_reserved=0x%x", m->marker_reserved);
	if (m->fpduptr_or) sb_printf(s, " fpduptr_or=0x%x", m->fpduptr_or);
	if (m->fpduptr_delta) sb_printf(s, " fpduptr_delta=%d", (int)m->fpduptr_delta);
	if (m->no_markers) sb_printf(s, " no_markers=1");
	return true;
}

/* How the message of x with blen octets is cut: into *nseg segments by its MULPDU, *mulpdu
 * when that is one the case can give (the renderer falls back to one segment for another). */
static void cuts_of(const nf_fpdu *x, size_t blen, unsigned *mulpdu, size_t *nseg)
{
	*mulpdu = 0;
	*nseg = 1;
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = x->tagged;
	iw_ddp_segmenter sg;
	if (!x->mulpdu || iw_ddp_seg_init(&sg, &h, blen, x->mulpdu, NULL) != IW_OK)
		return;
	*mulpdu = x->mulpdu;
	iw_ddp_hdr sh;
	size_t off, len, n = 0;
	while (n < 64 && iw_ddp_seg_next(&sg, &sh, &off, &len))
		n++;
	*nseg = n;
}

/* An RDMA Write or Read Request to the STag the DUT advertised, as a `send` step that leaves
 * the STag out: the replay takes the one its DUT advertises (`expect greeting`), which need not
 * be the one of the fuzzing session (raw octets would carry the old STag: the DUT would see
 * another message). Every field, cut and FPDU defect is written out as exec_send.c reads it, so
 * the octets are the run's but for the STag. Returns false when nothing was written (then the
 * octets go raw): a message longer than a case line, a defect the language has no word for, a
 * segment order that sends none. */
static bool adv_step(nf_sb *s, const nf_prog *p, const nf_action *a)
{
	const nf_fpdu *x = &a->fp;
	bool write = x->msg == NF_M_WRITE && x->stag_adv && x->tagged;
	bool rreq = x->msg == NF_M_READ_REQ && x->rr_src_adv && !x->tagged;
	if ((!write && !rreq) || (write && a->len > 1800))
		return false;
	unsigned mulpdu;
	size_t nseg;
	cuts_of(x, write ? a->len : IW_RDMAP_READ_REQ_LEN, &mulpdu, &nseg);
	char order[64] = "";
	if (x->norder) {
		/* The renderer leaves out an index past the last segment. */
		size_t o = 0;
		for (size_t i = 0; i < x->norder && i < 8; i++)
			if (x->order[i] < nseg)
				o += (size_t)snprintf(order + o, sizeof order - o, "%s%u", o ? "," : "", x->order[i]);
		if (!o)
			return false;
	}
	nf_sb t = {0};
	sb_printf(&t, "send %s tagged=%d dv=%u rsvd=%u rv=%u opcode=%u", write ? "write" : "read_req", write ? 1 : 0, x->dv,
		  x->rsvd, x->rv, x->opcode);
	/* L and MO of every segment, where the program set them; else the segmenter's, as the run's. */
	if (x->last_set)
		sb_printf(&t, " last=%d", x->last);
	if (x->mo_set)
		sb_printf(&t, " mo=%u", x->mo);
	if (mulpdu)
		sb_printf(&t, " mulpdu=%u", mulpdu);
	if (*order)
		sb_printf(&t, " order=%s", order);
	if (rreq && x->rsvdulp_set) {
		/* The octet before them is RDMAP's control octet, as the renderer writes it. */
		uint8_t ru[5] = {iw_rdmap_ctrl(x->rv, x->opcode), x->rsvdulp[1], x->rsvdulp[2], x->rsvdulp[3], x->rsvdulp[4]};
		sb_printf(&t, " rsvdulp=");
		sb_hex(&t, ru, sizeof ru);
	}
	bool ok = mods_args(&t, &x->mods);
	if (write) {
		sb_printf(&t, " qn=%u msn=%u to=0x%llx data=", x->qn, x->msn, (unsigned long long)x->to);
		uint8_t b[1800];
		for (size_t i = 0; i < a->len; i++)
			b[i] = nf_act_octet(p, a, i);
		sb_hex(&t, b, a->len);
	} else {
		sb_printf(&t, " qn=%u msn=%u sink_stag=0x%x sink_to=0x%llx rsize=%u src_to=0x%llx", x->qn, x->msn,
			  x->rr.sink_stag, (unsigned long long)x->rr.sink_to, x->rr.size, (unsigned long long)x->rr.src_to);
	}
	ok = ok && !t.oom;
	if (ok)
		sb_printf(s, "%s\n", t.b);
	free(t.b);
	return ok;
}

/* The harness's octets of action i, as case steps. */
static void action_steps(nf_sb *s, const nf_dutinfo *d, const nf_trace *t, const nf_prog *p, size_t i,
			 unsigned *split)
{
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
		/* Durations are whole milliseconds: a pause of 0.2 ms is 1 ms in the case. */
		sb_printf(s, "sleep %ums\n", (a->sleep_us + 999) / 1000);
		return;
	}
	if (a->kind == NF_A_RESET)
		return; /* the `reset` at the end */
	if (a->kind == NF_A_FRAME && t->frame_sent && t->act_start[i] == 0 && d->profile->startup_frames) {
		frame_step(s, d, &t->frame, a, p);
		return;
	}
	if (a->kind == NF_A_FPDU && t->act_adv[i] && adv_step(s, p, a))
		return;
	/* Everything else exactly as it went out, in lines the parser takes (4096 characters). A
	 * cut restarts with each send step: a line holds whole pieces, so the pieces are the run's. */
	uint32_t line = 1800;
	if (*split && *split < line)
		line -= line % *split;
	for (uint32_t off = t->act_start[i]; off < t->act_end[i];) {
		uint32_t k = t->act_end[i] - off;
		if (k > line)
			k = line;
		sb_printf(s, "send raw ");
		sb_hex(s, t->to_dut + off, k);
		sb_printf(s, "\n");
		off += k;
	}
}

/* The DUT's startup frame as a conforming DUT sends it here, with the fields the judge compares
 * (netfuzz_judge.c, frame_fields_agree): R, Rev, and C=1 where CRCs are on by default. */
static void frame_expect(nf_sb *s, const nf_dutinfo *d, const nf_expect *x)
{
	sb_printf(s, "expect %s within=2s r=%d rev=%d%s\n", d->role == IW_ROLE_RESPONDER ? "reply" : "request", x->frame_r,
		  x->frame_rev, x->frame_c ? " c=1" : "");
}

/* One expectation of a model message, without "expect " and the newline: what the judge
 * compares (compare_kind: an echo's octets; a Read Response's STag, TO and length). */
static void msg_expect(nf_sb *s, const nf_expect *x, size_t i)
{
	unsigned op = x->msg[i].opcode;
	if (op == IW_OP_READ_RESP) {
		sb_printf(s, "read_resp within=2s stag=0x%x to=0x%llx len=%u", x->msg[i].stag,
			  (unsigned long long)x->msg[i].to, x->msg[i].len);
	} else if ((op == IW_OP_SEND || op == IW_OP_SEND_SE) && x->msg[i].len <= 400) {
		sb_printf(s, "send within=2s data=");
		sb_hex(s, x->data + x->msg[i].off, x->msg[i].len);
	} else if (op == IW_OP_SEND || op == IW_OP_SEND_SE) {
		sb_printf(s, "send within=2s"); /* too long for a case line: the message, not its octets */
	} else {
		sb_printf(s, "any within=2s");
	}
}

/* One reaction a conforming DUT may have after its startup frame: its messages in the order they
 * come (indices into nf_expect.msg[], or the greeting, or the Terminate), then its close. */
#define R_GREET (-1)
#define R_TERM  (-2)
#define R_MAX   8
typedef struct reaction {
	int8_t it[R_MAX];
	uint8_t n;
} reaction;

/* Every reaction the judge allows (netfuzz_judge.c), likeliest first: the model's messages, at
 * most NF_CASE_MSGS of them; after an error (or the harness's Terminate) each kind, echoes and
 * Read Responses, may stop early (compare_kind); the two kinds in any interleaving, each in its
 * order (the reflector answers after delivery, so TCP's cuts decide); the greeting, where the
 * DUT may speak, before its first Send or not at all (greeting_index); the Terminate of the
 * error or none (MPA-7-02 is a SHOULD). */
#define NF_CASE_MSGS 3
typedef struct reactions {
	reaction r[64];
	size_t n;
} reactions;

static bool is_echo(unsigned op) { return op == IW_OP_SEND || op == IW_OP_SEND_SE; }

static size_t bits(unsigned v)
{
	size_t n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static void add_reaction(reactions *rs, const int8_t *it, size_t n)
{
	if (rs->n < sizeof rs->r / sizeof rs->r[0] && n <= R_MAX) {
		memcpy(rs->r[rs->n].it, it, n);
		rs->r[rs->n++].n = (uint8_t)n;
	}
}

/* The merges of the first ne echoes and the first nr other messages, each kind in its order:
 * the model's own order first. */
static size_t merges(const nf_expect *x, size_t k, size_t ne, size_t nr, int8_t out[][NF_CASE_MSGS])
{
	int8_t e[NF_CASE_MSGS], o[NF_CASE_MSGS];
	size_t ce = 0, co = 0;
	for (size_t i = 0; i < k; i++) {
		if (is_echo(x->msg[i].opcode) && ce < ne)
			e[ce++] = (int8_t)i;
		else if (!is_echo(x->msg[i].opcode) && co < nr)
			o[co++] = (int8_t)i;
	}
	size_t m = ne + nr, cnt = 0;
	/* Each merge is a choice of the positions the echoes take: a bit mask of m bits. */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned mask = 0; mask < (1u << m); mask++) {
			if (bits(mask) != ne)
				continue;
			int8_t seq[NF_CASE_MSGS];
			size_t ie = 0, io = 0;
			bool model_order = true;
			for (size_t j = 0; j < m; j++) {
				seq[j] = mask & (1u << j) ? e[ie++] : o[io++];
				if (j && seq[j] < seq[j - 1])
					model_order = false;
			}
			if (model_order != (pass == 0))
				continue;
			memcpy(out[cnt++], seq, m);
		}
	return cnt;
}

static void enumerate(const nf_expect *x, bool greet, reactions *rs)
{
	rs->n = 0;
	size_t k = x->nmsg < NF_CASE_MSGS ? x->nmsg : NF_CASE_MSGS;
	size_t E = 0;
	for (size_t i = 0; i < k; i++)
		E += is_echo(x->msg[i].opcode);
	size_t O = k - E;
	bool may_stop = x->terminate || x->model_closed;
	/* The most messages first. */
	for (size_t total = k + 1; total-- > 0;) {
		for (size_t ne = E + 1; ne-- > 0;) {
			size_t nr = total - ne;
			if (total < ne || nr > O || (!may_stop && (ne != E || nr != O)))
				continue;
			int8_t mg[8][NF_CASE_MSGS];
			size_t nm = merges(x, k, ne, nr, mg);
			for (size_t j = 0; j < nm; j++) {
				size_t first_echo = total;
				for (size_t q = 0; q < total && first_echo == total; q++)
					if (is_echo(x->msg[mg[j][q]].opcode))
						first_echo = q;
				/* The greeting at each place it may take (before the first echo), then none. */
				for (size_t g = 0; g <= (greet ? first_echo + 1 : 0); g++) {
					bool with_g = greet && g <= first_echo;
					for (int t = x->terminate ? 1 : 0; t >= 0; t--) {
						int8_t it[R_MAX];
						size_t n = 0;
						for (size_t q = 0; q < total; q++) {
							if (with_g && q == g)
								it[n++] = R_GREET;
							it[n++] = mg[j][q];
						}
						if (with_g && g == total)
							it[n++] = R_GREET;
						if (t)
							it[n++] = R_TERM;
						add_reaction(rs, it, n);
					}
				}
			}
		}
	}
}

/* One reaction: its expectations, then the close, as an alternative of a one-of block
 * ("  - a ; b") or as plain steps ("expect a" lines). cut: the model sends more messages than
 * the case names, which the close then lets through (each still judged as every frame is). */
static void reaction_steps(nf_sb *s, const nf_expect *x, const reaction *r, bool plain, bool cut)
{
	const char *cur = plain ? "expect " : "  - ", *sep = plain ? "\nexpect " : " ; ";
	for (size_t i = 0; i < r->n; i++) {
		sb_printf(s, "%s", cur);
		if (r->it[i] == R_GREET)
			sb_printf(s, "greeting within=2s");
		else if (r->it[i] == R_TERM)
			sb_printf(s, "terminate within=2s layer=%d etype=%d ecode=%d", x->t_layer, x->t_etype, x->t_ecode);
		else
			msg_expect(s, x, (size_t)r->it[i]);
		cur = sep;
	}
	sb_printf(s, "%sclose within=2s%s\n", cur, cut ? " allow_data=1" : "");
}

/* The DUT's messages after its startup frame and its close (after the harness's FIN a conforming
 * DUT closes). A one-of holds six alternatives, fewer than the reactions the judge allows: the
 * case's `form` says which six (the likeliest first); netfuzz_out.c takes the first form a
 * conforming DUT passes. Every one of them is a reaction the judge allows, so whichever is
 * written, the DUT of the finding matches none. */
static void expect_msgs(nf_sb *s, const nf_expect *x, bool greet, unsigned form, unsigned *nforms)
{
	reactions rs;
	enumerate(x, greet, &rs);
	*nforms = (unsigned)((rs.n + IW_CASE_MAX_ALTS - 1) / IW_CASE_MAX_ALTS);
	size_t from = (size_t)form * IW_CASE_MAX_ALTS;
	if (from >= rs.n)
		from = 0;
	size_t nv = rs.n - from < IW_CASE_MAX_ALTS ? rs.n - from : IW_CASE_MAX_ALTS;
	bool cut = x->nmsg > NF_CASE_MSGS;
	if (nv == 1) {
		reaction_steps(s, x, &rs.r[from], true, cut);
		return;
	}
	sb_printf(s, "expect one-of\n");
	for (size_t i = 0; i < nv; i++)
		reaction_steps(s, x, &rs.r[from + i], false, cut);
	sb_printf(s, "end\n");
}

/* Whether the steps expect the reflector's greeting (the run waited for one): the case then
 * says `needs: greeting`, which the parser requires of a case that expects it. */
static bool run_greets(nf_session *ss, const nf_prog *p)
{
	const nf_trace *t = nf_session_trace(ss);
	for (size_t i = 0; i < t->sent_actions && i < p->n; i++)
		if (t->act_waited[i] && t->act_adv[i])
			return true;
	return false;
}

/* What the case needs of its DUT: the greeting the run waited for, and the DUT's own wishes the
 * run's octets were framed for, so that the clean built-in DUT of the check is asked for them
 * too: markers (its frame had M=1, and the octets to it carry markers) and its no-CRC mode. */
static void case_needs(nf_sb *s, nf_session *ss, const nf_prog *p)
{
	const nf_dutinfo *d = nf_session_dut(ss);
	bool greet = run_greets(ss, p), markers = d->markers && !d->profile->markers_always;
	if (!greet && !markers && !d->crc_off)
		return;
	sb_printf(s, "needs:%s%s%s\n", greet ? " greeting" : "", markers ? " markers" : "", d->crc_off ? " crc-off" : "");
}

/* The steps: the run's actions as they went out, its FIN or RST, then the reaction. */
static void run_steps(nf_sb *s, nf_session *ss, const nf_prog *p, unsigned form, unsigned *nforms)
{
	*nforms = 1;
	const nf_dutinfo *d = nf_session_dut(ss);
	const nf_trace *t = nf_session_trace(ss);
	const nf_expect *x = nf_session_expect(ss);
	bool frames = d->profile->startup_frames;
	bool frame_done = !frames, greeted = false;
	unsigned split = 0;
	for (size_t i = 0; i < t->sent_actions && i < p->n; i++) {
		/* The one wait of a run: for the greeting, whose STag this message needs. What the
		 * DUT sent before it (its startup frame) is judged where it came. */
		if (t->act_waited[i]) {
			if (!frame_done && x->frame_due) {
				frame_expect(s, d, x);
				frame_done = true;
			}
			if (t->act_adv[i]) {
				sb_printf(s, "expect greeting within=2s\n");
				greeted = true;
			}
		}
		action_steps(s, d, t, p, i, &split);
	}
	if (t->we_rst) {
		/* After its RST a run judges only whether the DUT survived (a crash, a dead DUT). */
		sb_printf(s, "reset\n");
		return;
	}
	if (t->we_fin)
		sb_printf(s, "close\n");
	if (!frame_done) {
		if (!x->frame_due) {
			/* A conforming DUT refuses what it got, or waits for the rest of a frame the FIN
			 * cuts short: no frame, a close. */
			sb_printf(s, "expect close within=2s\n");
			return;
		}
		frame_expect(s, d, x);
	}
	expect_msgs(s, x, x->may_greet && !greeted, form, nforms);
}

int nf_case_text(nf_session *ss, const nf_prog *p, const nf_finding *f, unsigned n, unsigned form, unsigned *nforms,
		 char **out, iw_err *e)
{
	*out = NULL;
	unsigned scratch;
	if (!nforms)
		nforms = &scratch;
	const nf_dutinfo *d = nf_session_dut(ss);
	bool responder = d->role == IW_ROLE_RESPONDER;
	const char *req = nf_case_req(f->req);
	nf_sb s = {0};
	sb_printf(&s, "# iwspec fuzz: finding %u, %s: %s\n", n, nf_fkind_name(f->kind), f->detail);
	sb_printf(&s, "# seed %llu, run %llu, %zu action%s after minimisation (seed.txt tells how to reproduce it)\n",
		  (unsigned long long)p->seed, (unsigned long long)p->run, p->n, p->n == 1 ? "" : "s");
	for (size_t i = 0; i < p->n; i++) {
		char line[400];
		nf_action_describe(p, &p->a[i], line, sizeof line);
		sb_printf(&s, "#   %zu. %s\n", i + 1, line);
	}
	sb_printf(&s, "# The steps send what the run sent, as it sent it, then the FIN; then what a conforming DUT\n"
		  "# does with all of it.\n");
	if (!d->reflector)
		sb_printf(&s, "# The DUT of the finding runs no reflector (so %s): neither does the\n"
			  "# conforming DUT this case expects (`reflector = no`).\n",
			  d->ulp_declared ? "its configuration declares" : "calibration found");
	sb_printf(&s, "id: fuzz.finding.%llu.%u\n", (unsigned long long)p->seed, n);
	char title[160];
	snprintf(title, sizeof title, "Fuzz finding %u: the DUT's reaction differs from a conforming DUT's (%s)", n,
		 nf_fkind_name(f->kind));
	sb_printf(&s, "title: \"%s\"\n", title);
	/* The level the catalog gives the requirement, so the case file says what its replay judges
	 * (a finding on a SHOULD is a warning). */
	enum iw_level lvl = IW_LEVEL_MUST;
	(void)iw_req_level(req, &lvl, NULL);
	sb_printf(&s, "requirement: %s %s\n", req, iw_level_name(lvl));
	sb_printf(&s, "role: %s\n", responder ? "responder" : "initiator");
	case_needs(&s, ss, p);
	sb_printf(&s, "profiles: %s\n", d->profile->name);
	sb_printf(&s, "timeout: 30s\n");
	/* The run wrote its octets in one write until a cut, a pause or a wait: so does the case. */
	sb_printf(&s, "resegment: coalesce\n\n");
	sb_printf(&s, responder ? "connect\n" : "accept within=10s\n");
	run_steps(&s, ss, p, form, nforms);
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
