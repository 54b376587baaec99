/*
 * exec_send.c - the harness's FPDUs: `send <msg>` built by the engine (DDP header, RDMAP body,
 * markers, CRC, deliberate defects) and raw octets.
 */
#include "exec_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa_markers.h"
#include "ulp_profile.h"

const ex_msg_type ex_msg_types[] = {
	{"send", IW_OP_SEND, false, IW_QN_SEND},
	{"send_se", IW_OP_SEND_SE, false, IW_QN_SEND},
	{"send_inv", IW_OP_SEND_INV, false, IW_QN_SEND},
	{"write", IW_OP_WRITE, true, -1},
	{"read_req", IW_OP_READ_REQ, false, IW_QN_READ_REQ},
	{"read_resp", IW_OP_READ_RESP, true, -1},
	{"terminate", IW_OP_TERMINATE, false, IW_QN_TERMINATE},
	{"ddp", IW_OP_SEND, false, IW_QN_SEND},
};
const size_t ex_nmsg_types = sizeof ex_msg_types / sizeof ex_msg_types[0];

int ex_layer_value(const iw_arg *a)
{
	if (!a)
		return -1;
	if (a->type == IW_ARG_WORD && a->s) {
		if (!strcmp(a->s, "rdmap"))
			return IW_LAYER_RDMAP;
		if (!strcmp(a->s, "ddp"))
			return IW_LAYER_DDP;
		if (!strcmp(a->s, "llp"))
			return IW_LAYER_LLP;
		return -2;
	}
	return (int)a->i;
}

/* The octet pattern `send <msg> size=N` sends, so `expect <msg> size=N` can check an echo;
 * with fill=V every octet is V instead. */
static uint8_t size_pattern(size_t i) { return (uint8_t)(i * 7 + 3); }

uint8_t ex_payload_octet(const iw_step *s, size_t i)
{
	const iw_arg *f = iw_step_arg(s, "fill");
	return f && !f->is_pattern_any ? (uint8_t)f->i : size_pattern(i);
}

/* marker_at=start|crc|end asserts where the harness's markers fall in the FPDU about to be sent,
 * so a case that means "a marker between the pad and the CRC" cannot silently test something
 * else; the message names the payload sizes that would do. */
static bool check_marker_at(ctx *x, const iw_step *s, size_t ulpdu_len, size_t payload_len)
{
	const iw_arg *a = iw_step_arg(s, "marker_at");
	if (!a || !a->s)
		return true;
	if (!x->h->tx.markers)
		return ex_herror(x, "line %d: marker_at=%s, but the harness sends no markers on this connection (the DUT's "
			      "frame has M=0: add `needs: markers`)", s->line, a->s);
	size_t body = iw_fpdu_layout_of(ulpdu_len).body_len;
	size_t at[IW_FPDU_MAX_MARKERS];
	bool ends;
	size_t n = iw_markers_offsets(x->h->tx.pos, body, at, IW_FPDU_MAX_MARKERS, &ends);
	bool ok = false;
	for (size_t i = 0; i < n && i < IW_FPDU_MAX_MARKERS; i++)
		if ((!strcmp(a->s, "start") && at[i] == 0) || (!strcmp(a->s, "crc") && at[i] == body - 4))
			ok = true;
	if (!strcmp(a->s, "end"))
		ok = ends;
	if (ok)
		return true;
	char sizes[96] = "";
	size_t o = 0, found = 0;
	for (size_t p = payload_len > 600 ? payload_len - 600 : 0; p < payload_len + 600 && found < 4; p++) {
		size_t ul = ulpdu_len - payload_len + p, b = iw_fpdu_layout_of(ul).body_len;
		size_t m = iw_markers_offsets(x->h->tx.pos, b, at, IW_FPDU_MAX_MARKERS, &ends);
		bool hit = !strcmp(a->s, "end") && ends;
		for (size_t i = 0; i < m && i < IW_FPDU_MAX_MARKERS; i++)
			hit |= (!strcmp(a->s, "start") && at[i] == 0) || (!strcmp(a->s, "crc") && at[i] == b - 4);
		if (hit && o < sizeof sizes)
			o += (size_t)snprintf(sizes + o, sizeof sizes - o, "%s%zu", found++ ? ", " : "", p);
	}
	return ex_herror(x, "line %d: marker_at=%s does not hold: this FPDU starts at stream offset %llu with a payload "
		      "of %zu octets (payloads that would do: %s)", s->line, a->s, (unsigned long long)x->h->tx.pos,
		      payload_len, found ? sizes : "none near");
}

/* A TO a case names for the reflector's buffer is an offset from the base TO it advertised
 * (docs/case-language.md): devices register at a virtual address (siw ignores a requested
 * zero base). Offsets that would pass 2^64 from that base stay as written: they are the TO-wrap
 * stimuli (to=0xfffffffffffffff8), which need the absolute value. `buf` is the connection whose
 * greeting named the buffer, NULL when the case gave its own STag. */
static uint64_t buffer_to(const hconn *buf, uint64_t to)
{
	if (!buf || !buf->have_adv || to > UINT64_MAX - buf->adv_to)
		return to;
	return buf->adv_to + to;
}

/* The offset argument `name` (to, src_to) gives into a range of len octets: as written, or,
 * written `end-N`, len - N, so that a case reaches the end of whatever range the DUT's
 * application advertised (rping's 64 octets, the reflector's 64 KiB). `known`: whether the
 * connection knows the range; without it an end is a harness error, not a guess. */
static bool offset_arg(ctx *x, const iw_step *s, const char *name, bool known, uint64_t len, uint64_t *off)
{
	const iw_arg *a = iw_step_arg(s, name);
	*off = (uint64_t)ex_arg_i(s, name, 0);
	if (!a || !a->from_end)
		return true;
	char as[40];
	int k = snprintf(as, sizeof as, "%s=end", name);
	if (a->i && k > 0 && (size_t)k < sizeof as)
		snprintf(as + k, sizeof as - (size_t)k, "-%lld", (long long)a->i);
	if (!known)
		return ex_herror(x, "line %d: %s: the DUT advertised no buffer on this connection, so it has no end to count "
			      "back from", s->line, as);
	if ((uint64_t)a->i > len)
		return ex_herror(x, "line %d: %s lies before the start of the %llu-octet range the DUT advertised", s->line,
			      as, (unsigned long long)len);
	*off = len - (uint64_t)a->i;
	return true;
}

/* The value of `name` (size, mo, msn of an untagged Send) into *v: as written, or, written
 * `recv+N` (recv-N), N from the size of the receives the DUT's application posts (size, mo) or
 * from the MSN of the last of them (msn), as its ULP profile gave them when `startup` ended;
 * without a startup the connection knows none, and that is a harness error, not a guess. */
static bool recv_arg(ctx *x, const iw_step *s, const char *name, int64_t dflt, int64_t max, int64_t *v)
{
	const iw_arg *a = iw_step_arg(s, name);
	*v = ex_arg_i(s, name, dflt);
	if (!a || !a->from_recv)
		return true;
	char as[48];
	if (a->i)
		snprintf(as, sizeof as, "%s=recv%c%lld", name, a->i < 0 ? '-' : '+', llabs((long long)a->i));
	else
		snprintf(as, sizeof as, "%s=recv", name);
	if (!x->h->startup_msn)
		return ex_herror(x, "line %d: %s: this connection was not taken to full operation by `startup`, so the "
			      "DUT's posted receives are not known", s->line, as);
	/* What the profile posts, counted from the harness's next MSN after startup: the Sends of
	 * startup (the reflector's, ib_send_lat's) took theirs and were reposted. The case needs
	 * `recv` (case_parse.c), so the profile posts some. */
	const iw_case_needs_amounts *r = &iw_ulp_profile_of(&x->o->dut, x->dut_role)->amounts;
	int64_t last = (int64_t)x->h->startup_msn + r->recv_n - 1;
	*v = (!strcmp(name, "msn") ? last : (int64_t)r->recv_size) + a->i;
	if (*v < 0 || *v > max)
		return ex_herror(x, "line %d: %s is %lld, outside 0..%lld (the DUT's receives: %u octets, the last at MSN "
			      "%lld)", s->line, as, (long long)*v, (long long)max, r->recv_size, (long long)last);
	return true;
}

/* The TO of `name` on the advertised buffer of buf (NULL: an STag of the case's own). */
static bool adv_to_arg(ctx *x, const iw_step *s, const char *name, const hconn *buf, uint64_t *to)
{
	uint64_t off;
	if (!offset_arg(x, s, name, buf && buf->have_adv, buf ? buf->adv_len : 0, &off))
		return false;
	*to = buffer_to(buf, off);
	return true;
}

/* Full operation for the harness's first FPDU (after a startup frame where the profile has
 * them), and the declared pause a DUT needs before it. */
static bool enter_fpdus(ctx *x, const iw_step *s)
{
	if (!x->h->full_op) {
		if (x->p->startup_frames && !x->h->sent_frame_valid)
			return ex_herror(x, "line %d: an FPDU before any startup frame: send a Request or Reply first", s->line);
		ex_enter_full_operation(x);
	}
	/* first_fpdu_delay: a declared workaround for a responder that loses an FPDU arriving right
	 * after its Reply (docs/dut-config.md); MPA itself lets the initiator send at once. */
	if (!x->h->sent_fpdu && x->dut_role == IW_ROLE_RESPONDER && x->o->dut.first_fpdu_delay_ms > 0 &&
	    x->p->startup_frames) {
		ex_note(x, "first_fpdu_delay: waiting %lld ms after the Reply before the first FPDU",
		     (long long)x->o->dut.first_fpdu_delay_ms);
		ex_sleep_ms(x->o->dut.first_fpdu_delay_ms);
	}
	x->h->sent_fpdu = true;
	return true;
}

/* stag_of=N: the STag connection N's reflector advertised (another stream's STag, DDP-10.3);
 * *adv_of stays NULL without it. */
static bool stag_of_conn(ctx *x, const iw_step *s, const hconn **adv_of)
{
	if (iw_step_arg(s, "stag_of")) {
		int64_t n = ex_arg_i(s, "stag_of", 1);
		if (n < 1 || n > x->nconns || !x->conns[n - 1].have_adv)
			return ex_herror(x, "line %d: stag_of=%lld: connection %lld has not received the reflector's greeting",
				      s->line, (long long)n, (long long)n);
		*adv_of = &x->conns[n - 1];
	}
	return true;
}

/* inv_stag_of=N: a Send with Invalidate naming the STag connection N's reflector advertised, so a
 * case can invalidate the buffer the DUT offered and then see it refused (RFC 5040 §5.3,
 * DDP-9.1-T2). */
static bool inv_stag_of_conn(ctx *x, const iw_step *s, iw_ddp_hdr *h)
{
	int64_t n = ex_arg_i(s, "inv_stag_of", 1);
	if (n < 1 || n > x->nconns || !x->conns[n - 1].have_adv)
		return ex_herror(x, "line %d: inv_stag_of=%lld: connection %lld has not received the reflector's greeting",
			      s->line, (long long)n, (long long)n);
	iw_rdmap_set_rsvd_word(h, x->conns[n - 1].adv_stag);
	return true;
}

/* The message body of a `send`: a Read Request or Terminate built from its fields, or the
 * octets data= gives, or size=N octets of the payload pattern. */
typedef struct fpdu_body {
	uint8_t fixed[64];          /* a Read Request or Terminate */
	const uint8_t *p;           /* NULL: no body */
	size_t len;
	uint8_t *owned;             /* size=N's octets, to free */
} fpdu_body;

static bool build_body(ctx *x, const iw_step *s, const ex_msg_type *mt, const hconn *adv_of, fpdu_body *b)
{
	b->p = NULL;
	b->len = 0;
	b->owned = NULL;
	const iw_arg *a;
	if (mt->opcode == IW_OP_READ_REQ && strcmp(s->word, "ddp")) {
		uint64_t src_to;
		if (!adv_to_arg(x, s, "src_to", adv_of ? adv_of : iw_step_arg(s, "src_stag") ? NULL : x->h, &src_to))
			return false;
		iw_read_req rr = {
			.sink_stag = (uint32_t)ex_arg_i(s, "sink_stag", 0x2000), .sink_to = (uint64_t)ex_arg_i(s, "sink_to", 0),
			.size = (uint32_t)ex_arg_i(s, "rsize", 0),
			.src_stag = adv_of ? adv_of->adv_stag
					   : (uint32_t)ex_arg_i(s, "src_stag", x->h->have_adv ? x->h->adv_stag : 0x1000),
			.src_to = src_to,
		};
		iw_read_req_encode(&rr, b->fixed);
		b->p = b->fixed;
		b->len = IW_RDMAP_READ_REQ_LEN;
	} else if (mt->opcode == IW_OP_TERMINATE && strcmp(s->word, "ddp")) {
		iw_terminate t;
		int layer = ex_layer_value(iw_step_arg(s, "layer"));
		iw_terminate_for(&t, layer < 0 ? IW_LAYER_RDMAP : layer, (int)ex_arg_i(s, "etype", 0),
				 (int)ex_arg_i(s, "ecode", 0), NULL, 0);
		iw_err e;
		if (iw_terminate_encode(&t, b->fixed, sizeof b->fixed, &b->len, &e))
			return ex_herror(x, "line %d: cannot encode the Terminate: %s", s->line, e.msg);
		b->p = b->fixed;
	}
	if ((a = iw_step_arg(s, "data"))) {
		b->p = a->bytes;
		b->len = a->nbytes;
	} else if (iw_step_arg(s, "size")) {
		int64_t size;
		if (!recv_arg(x, s, "size", 0, 16 << 20, &size))
			return false;
		b->owned = malloc((size_t)size + 1);
		if (!b->owned)
			return ex_herror(x, "out of memory");
		for (int64_t i = 0; i < size; i++)
			b->owned[i] = ex_payload_octet(s, (size_t)i);
		b->p = b->owned;
		b->len = (size_t)size;
	}
	return true;
}

/* The DDP header template of the message: the type's defaults, the step's fields over them, and
 * the connection's next MSN on the queue (which it takes). False: a harness error (an end with no
 * range to count back from). */
static bool ddp_template(ctx *x, const iw_step *s, const ex_msg_type *mt, const hconn *adv_of, iw_ddp_hdr *h)
{
	const iw_arg *a;
	memset(h, 0, sizeof *h);
	h->tagged = ex_arg_i(s, "tagged", mt->tagged);
	h->dv = (uint8_t)ex_arg_i(s, "dv", x->p->ddp_version);
	h->rsvd = (uint8_t)ex_arg_i(s, "rsvd", 0);
	unsigned opcode = (unsigned)ex_arg_i(s, "opcode", mt->opcode);
	h->rsvdulp[0] = iw_rdmap_ctrl((unsigned)ex_arg_i(s, "rv", x->p->rdmap_version), opcode);
	if ((a = iw_step_arg(s, "rsvdulp")) && a->nbytes) {
		size_t n = a->nbytes > 5 ? 5 : a->nbytes;
		memcpy(h->rsvdulp, a->bytes, n);
	}
	if ((a = iw_step_arg(s, "inv_stag")))
		iw_rdmap_set_rsvd_word(h, (uint32_t)a->i);
	h->stag = (uint32_t)ex_arg_i(s, "stag", x->h->have_adv ? x->h->adv_stag : 0x1000);
	if (adv_of)
		h->stag = adv_of->adv_stag;
	/* A Read Response answers the DUT's last Read Request (rping's server reading the harness's
	 * buffer): its sink STag, and `to` as an offset from its sink TO (`end`: its size). */
	if (mt->opcode == IW_OP_READ_RESP && x->h->have_dut_rr && !adv_of && !iw_step_arg(s, "stag")) {
		uint64_t off;
		if (!offset_arg(x, s, "to", true, x->h->dut_rr.size, &off))
			return false;
		h->stag = x->h->dut_rr.sink_stag;
		h->to = off > UINT64_MAX - x->h->dut_rr.sink_to ? off : x->h->dut_rr.sink_to + off;
	} else if (!adv_to_arg(x, s, "to", adv_of ? adv_of : iw_step_arg(s, "stag") ? NULL : x->h, &h->to)) {
		return false;
	}
	int qn = mt->qn < 0 ? 0 : mt->qn;
	h->qn = (uint32_t)ex_arg_i(s, "qn", qn);
	uint32_t auto_msn = h->qn < 4 ? x->h->msn[h->qn] : 1;
	int64_t msn;
	if (!recv_arg(x, s, "msn", auto_msn, UINT32_MAX, &msn))
		return false;
	h->msn = (uint32_t)msn;
	/* Only untagged messages take an MSN (DDP-6.3-08); a Write leaves QN 0's sequence alone. */
	if (!iw_step_arg(s, "msn") && h->qn < 4 && !h->tagged)
		x->h->msn[h->qn]++;
	return true;
}

/* One DDP segment of the message: its header and where its payload lies in the body. */
typedef struct fpdu_seg {
	iw_ddp_hdr h;
	size_t off, len;
} fpdu_seg;

#define MAX_SEGS 64

/* Segments by mulpdu (default: one segment) into segs, and the order to send them in (order=,
 * default as cut) into order[0..*norder). */
static bool segment(ctx *x, const iw_step *s, const iw_ddp_hdr *h, size_t body_len, fpdu_seg segs[MAX_SEGS],
		    size_t order[MAX_SEGS], size_t *norder)
{
	size_t mulpdu = (size_t)ex_arg_i(s, "mulpdu", 65535);
	iw_ddp_segmenter seg;
	iw_err e;
	if (iw_ddp_seg_init(&seg, h, body_len, mulpdu, &e))
		return ex_herror(x, "line %d: %s", s->line, e.msg);
	size_t nseg = 0;
	while (nseg < MAX_SEGS && iw_ddp_seg_next(&seg, &segs[nseg].h, &segs[nseg].off, &segs[nseg].len))
		nseg++;
	const iw_arg *ord = iw_step_arg(s, "order");
	*norder = nseg;
	for (size_t i = 0; i < nseg; i++)
		order[i] = i;
	if (ord) {
		*norder = ord->nlist;
		for (size_t i = 0; i < *norder; i++) {
			if (ord->list[i] < 0 || (size_t)ord->list[i] >= nseg)
				return ex_herror(x, "line %d: order names segment %lld; the message has %zu", s->line,
					      (long long)ord->list[i], nseg);
			order[i] = (size_t)ord->list[i];
		}
	}
	return true;
}

/* The deliberate defects a step asks of every FPDU of the message. */
static void fpdu_mods_of(const iw_step *s, iw_fpdu_mods *mods)
{
	const iw_arg *a;
	memset(mods, 0, sizeof *mods);
	if ((a = iw_step_arg(s, "length")))
		mods->set_length = true, mods->ulpdu_length = (uint16_t)a->i;
	if ((a = iw_step_arg(s, "crc")))
		mods->set_crc = true, mods->crc_value = (uint32_t)a->i;
	if ((a = iw_step_arg(s, "crc_order")) && a->s && !strcmp(a->s, "be"))
		mods->crc_big_endian = true;
	mods->crc_xor = (uint32_t)ex_arg_i(s, "crc_xor", 0);
	if ((a = iw_step_arg(s, "corrupt")))
		mods->corrupt = true, mods->corrupt_at = (size_t)a->i;
	mods->pad_fill = (uint8_t)ex_arg_i(s, "pad_fill", 0);
	mods->marker_reserved = (uint16_t)ex_arg_i(s, "marker_reserved", 0);
	mods->fpduptr_or = (uint16_t)ex_arg_i(s, "fpduptr_or", 0);
	mods->fpduptr_delta = (int32_t)ex_arg_i(s, "fpduptr_delta", 0);
	mods->no_markers = ex_arg_i(s, "no_markers", 0);
}

/* The wire log's line for an FPDU sent. */
static void log_fpdu(ctx *x, const iw_step *s, const iw_ddp_hdr *hh, size_t plen, const iw_fpdu_mods *mods,
		     const uint8_t *out, size_t outlen)
{
	if (hh->tagged)
		iw_result_wire(x->r, IW_TO_DUT, x->h->no, ex_tcase(x), "fpdu", out, outlen,
			       "FPDU %s: DDP tagged L=%d DV=%u STag=0x%x TO=0x%llx, %zu payload octets%s", s->word,
			       hh->last, hh->dv, hh->stag, (unsigned long long)hh->to, plen,
			       mods->crc_xor || mods->corrupt || mods->crc_big_endian || mods->set_crc ? " (CRC defect)" : "");
	else
		iw_result_wire(x->r, IW_TO_DUT, x->h->no, ex_tcase(x), "fpdu", out, outlen,
			       "FPDU %s: DDP untagged L=%d DV=%u QN=%u MSN=%u MO=%u, %zu payload octets%s", s->word,
			       hh->last, hh->dv, hh->qn, hh->msn, hh->mo, plen,
			       mods->crc_xor || mods->corrupt || mods->crc_big_endian || mods->set_crc ? " (CRC defect)" : "");
}

/* Builds segment sg of the message (body: its octets, NULL for none) as an FPDU with the step's
 * last=, mo=, cut= and defects, logs it, feeds the model and sends it; first: the message's
 * first FPDU, where marker_at= is checked. */
static bool send_segment(ctx *x, const iw_step *s, const fpdu_seg *sg, const uint8_t *body, bool first,
			 const iw_fpdu_mods *mods)
{
	iw_err e;
	iw_ddp_hdr hh = sg->h;
	if (iw_step_arg(s, "last"))
		hh.last = ex_arg_i(s, "last", hh.last);
	if (iw_step_arg(s, "mo")) {
		int64_t mo;
		if (!recv_arg(x, s, "mo", hh.mo, UINT32_MAX, &mo))
			return false;
		hh.mo = (uint32_t)mo;
	}
	uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
	size_t hl = 0;
	iw_ddp_hdr_encode(&hh, hb, sizeof hb, &hl, &e);
	size_t plen = sg->len;
	const uint8_t *pl = body ? body + sg->off : NULL;
	if (first && !check_marker_at(x, s, hl + plen, plen))
		return false;
	/* What a Terminate reporting this segment attaches (RFC 5040 §4.8). */
	memcpy(x->h->last_hdr, hb, hl);
	x->h->last_hdr_len = hl;
	x->h->last_ulpdu_len = hl + plen;
	if (!hh.tagged && hh.qn == IW_QN_READ_REQ && plen == IW_RDMAP_READ_REQ_LEN && pl) {
		memcpy(x->h->last_rr, pl, IW_RDMAP_READ_REQ_LEN);
		x->h->have_last_rr = true;
	}
	size_t cap = iw_mpa_tx_size(&x->h->tx, hl + plen) + 16;
	uint8_t *out = malloc(cap);
	size_t outlen = 0;
	/* cut=N: the ULPDU is its first N octets, framed as a valid FPDU (A9: shorter than a DDP header). */
	const iw_arg *cut = iw_step_arg(s, "cut");
	size_t chl = hl, cpl = plen;
	if (cut && (size_t)cut->i < hl + plen) {
		chl = (size_t)cut->i < hl ? (size_t)cut->i : hl;
		cpl = (size_t)cut->i - chl;
	}
	if (!out || iw_mpa_tx_fpdu(&x->h->tx, hb, chl, cpl ? pl : NULL, cpl, mods, out, cap, &outlen, &e)) {
		free(out);
		return ex_herror(x, "line %d: cannot build the FPDU: %s", s->line, out ? e.msg : "no memory");
	}
	log_fpdu(x, s, &hh, plen, mods, out, outlen);
	ex_model_feed(x, out, outlen);
	bool ok = ex_send_cut(x, out, outlen);
	free(out);
	return ok;
}

bool ex_act_send_fpdu(ctx *x, const iw_step *s)
{
	if (!enter_fpdus(x, s))
		return false;
	size_t ti = 0;
	while (ti < ex_nmsg_types && strcmp(ex_msg_types[ti].word, s->word))
		ti++;
	if (ti == ex_nmsg_types)
		return ex_herror(x, "line %d: unknown message '%s'", s->line, s->word);
	const ex_msg_type *mt = &ex_msg_types[ti];
	const hconn *adv_of = NULL;
	if (!stag_of_conn(x, s, &adv_of))
		return false;
	fpdu_body b;
	if (!build_body(x, s, mt, adv_of, &b))
		return false;
	iw_ddp_hdr h;
	if (!ddp_template(x, s, mt, adv_of, &h) || (iw_step_arg(s, "inv_stag_of") && !inv_stag_of_conn(x, s, &h))) {
		free(b.owned);
		return false;
	}
	fpdu_seg segs[MAX_SEGS];
	size_t order[MAX_SEGS], norder = 0;
	if (!segment(x, s, &h, b.len, segs, order, &norder)) {
		free(b.owned);
		return false;
	}
	iw_fpdu_mods mods;
	fpdu_mods_of(s, &mods);
	bool ok = true;
	for (size_t k = 0; ok && k < norder; k++)
		ok = send_segment(x, s, &segs[order[k]], b.p, k == 0, &mods);
	free(b.owned);
	return ok;
}

bool ex_act_send_raw(ctx *x, const iw_step *s)
{
	const iw_arg *a = iw_step_arg(s, "data");
	if (!a)
		return ex_herror(x, "line %d: send raw needs data", s->line);
	iw_result_wire(x->r, IW_TO_DUT, x->h->no, ex_tcase(x), "raw", a->bytes, a->nbytes, "%zu raw octets", a->nbytes);
	ex_model_feed(x, a->bytes, a->nbytes);
	if (x->h->full_op)
		iw_mpa_tx_skip(&x->h->tx, a->nbytes);
	return ex_send_cut(x, a->bytes, a->nbytes);
}
