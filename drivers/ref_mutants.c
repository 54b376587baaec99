/*
 * ref_mutants.c - the mutant zoo: the transformations of the mutants ref_faults.c's table names
 * after the first fourteen. Each breaks the one requirement its table row cites and, as far as
 * the wire lets it, nothing else; the engine stays the one reference (ref_mutants.h).
 */
#include "ref_mutants.h"

#include <string.h>

#include "crc32c.h"
#include "ddp.h"
#include "ddp_sink.h"
#include "iw_octets.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "rdmap.h"

#define RECV_BUF_LEN 65536u     /* the reflector's untagged buffers (iw_conn_config default) */
#define AFTER_ERROR_GRACE_MS 300

void iw_mut_init(iw_fault_conn *f)
{
	f->no_startup_timeout = f->mutant == IW_MUTANT_NO_STARTUP_TIMEOUT;
	f->msn_next = 1;
}

void iw_mut_conn_config(enum iw_mutant m, iw_conn_config *cfg)
{
	if (m == IW_MUTANT_IGNORE_EMSS) {
		cfg->emss = 1460;
	} else if (m == IW_MUTANT_MULPDU_BELOW_FLOOR) {
		cfg->mulpdu = 100; /* MPA-5.3.2-06: below the floor of 128 on any path */
	} else if (m == IW_MUTANT_MULPDU_UNCLAMPED) {
		long raw = iw_mulpdu_formula(cfg->emss, false);
		if (raw < IW_MPA_MULPDU_MIN && raw > IW_DDP_UNTAGGED_HDR_LEN)
			cfg->mulpdu = (uint32_t)raw;
	}
}

/* ---- startup frames ---- */

/* PD octets the clamping mutants let through: reply-early keeps only RFC 6581's IRD/ORD block
 * (the rest of the private data has not been waited for), accept-oversized-pd keeps the
 * profile's limit (the rest is thrown away instead of refusing the frame). UINT32_MAX: none. */
static uint32_t pd_clamp(const iw_fault_conn *f)
{
	const iw_profile *p = f->profile;
	/* reply-early still checks PD_Length against its limit, as a DUT answering on the header
	 * would: frames announcing 512 octets or more (PD_Length's high octet 2 or more, known before
	 * the low one arrives, so the unread low octet cannot change the answer) are waited for as usual. */
	if (f->mutant == IW_MUTANT_REPLY_EARLY)
		return iw_mpa_frame_pd_length(f->in_hdr) >= 512 ? UINT32_MAX
		       : iw_mpa_frame_enhanced(p, iw_mpa_frame_flags(f->in_hdr), iw_mpa_frame_rev(f->in_hdr)) ? IW_MPA_IRDORD_LEN
											: 0;
	if (f->mutant == IW_MUTANT_ACCEPT_OVERSIZED_PD && p->pd_max < IW_MPA_PD_MAX_DRAFT)
		return p->pd_max;
	return UINT32_MAX;
}

uint8_t iw_mut_hdr_in(iw_fault_conn *f, size_t p, uint8_t o)
{
	switch (f->mutant) {
	case IW_MUTANT_IGNORE_C:
		/* MPA-6.1.1-C2: C=1 in either frame means CRCs both ways; this DUT, in its no-CRC
		 * mode, only looks at its own C. */
		return p == 16 ? (uint8_t)(o & ~IW_MPA_FLAG_C) : o;
	case IW_MUTANT_IGNORE_REJECT:
		/* MPA-6.1-R3c: the initiator goes on to full operation after R=1. */
		return p == 16 && f->role == IW_ROLE_INITIATOR ? (uint8_t)(o & ~IW_MPA_FLAG_R) : o;
	case IW_MUTANT_ACCEPT_BAD_REV:
		/* MPA-6.1.1-07: Rev is not checked. */
		return p == 17 && !iw_profile_rev_ok(f->profile, o) ? f->profile->mpa_rev : o;
	case IW_MUTANT_REPLY_EARLY:
	case IW_MUTANT_ACCEPT_OVERSIZED_PD: {
		uint32_t k = pd_clamp(f);
		if (k == UINT32_MAX || (p != 18 && p != 19))
			return o;
		/* PD_Length lowered to min(PD_Length, k), one octet at a time: octet 18 may go out
		 * before octet 19 has arrived. */
		if (p == 18)
			return o >= (k >> 8) ? (uint8_t)(k >> 8) : o;
		uint32_t pdl = iw_mpa_frame_pd_length(f->in_hdr);
		return (uint8_t)(pdl < k ? pdl : k);
	}
	default:
		return o;
	}
}

void iw_mut_hdr_out(const iw_fault_conn *f, uint8_t h[IW_MPA_FRAME_HDR_LEN])
{
	/* MPA-6.1.1-01: an initiator puts the Request key in its frame; this one sends the Reply key. */
	if (f->mutant == IW_MUTANT_REQUEST_REPLY_KEY && f->role == IW_ROLE_INITIATOR)
		h[IW_MPA_KEY_DIFF_OCTET] = (uint8_t)IW_MPA_KEY_REP[IW_MPA_KEY_DIFF_OCTET];
}

void iw_mut_clamp_pd(iw_fault_conn *f, const uint8_t *data, size_t len, uint64_t pos0)
{
	if (!f->profile->startup_frames || pos0 + len <= IW_MPA_FRAME_HDR_LEN)
		return;
	uint32_t k = pd_clamp(f);
	if (k == UINT32_MAX)
		return;
	uint32_t pdl = iw_mpa_frame_pd_length(f->in_hdr);
	uint64_t lo = IW_MPA_FRAME_HDR_LEN + (uint64_t)(pdl < k ? pdl : k), hi = IW_MPA_FRAME_HDR_LEN + (uint64_t)pdl;
	if (pos0 >= hi || pos0 + len <= lo || len > sizeof f->clamp_buf)
		return;
	size_t o = 0;
	for (size_t i = 0; i < len; i++)
		if (pos0 + i < lo || pos0 + i >= hi)
			f->clamp_buf[o++] = data[i];
	f->in_rewritten = true;
	f->in_buf = f->clamp_buf;
	f->in_len = o;
}

/* ---- the peer's ULPDUs ---- */

bool iw_mut_is_in(enum iw_mutant m)
{
	switch (m) {
	case IW_MUTANT_RESYNC_ON_READ:
	case IW_MUTANT_CRC_UNCHECKED:
	case IW_MUTANT_BOUNDS_OFF_BY_ONE:
	case IW_MUTANT_TO_WRAP_UNCHECKED:
	case IW_MUTANT_ACCEPT_FOREIGN_STAG:
	case IW_MUTANT_MO_UNCHECKED:
	case IW_MUTANT_QN_UNCHECKED:
	case IW_MUTANT_DELIVER_OUT_OF_ORDER:
	case IW_MUTANT_ZERO_LENGTH_WRITE_CHECKED:
	case IW_MUTANT_READ_OUT_OF_BOUNDS:
	case IW_MUTANT_UNKNOWN_OPCODE_IGNORED:
	case IW_MUTANT_SEND_INV_UNCHECKED:
	case IW_MUTANT_RDMAP_VERSION_UNCHECKED:
	case IW_MUTANT_PLACE_AFTER_ERROR:
	case IW_MUTANT_ZERO_READ_DATA:
	case IW_MUTANT_READ_QUEUE_OFF_BY_ONE:
	case IW_MUTANT_RREQ_QN_UNCHECKED:
	case IW_MUTANT_SEND_SE_INV_UNCHECKED:
	case IW_MUTANT_INVALIDATE_IGNORED:
	case IW_MUTANT_RDMAP_RSVD_CHECKED:
		return true;
	default:
		return false;
	}
}

bool iw_mut_is_out(enum iw_mutant m)
{
	switch (m) {
	case IW_MUTANT_PAD_NONZERO:
	case IW_MUTANT_PAD_WRONG_LENGTH:
	case IW_MUTANT_CRC_BIG_ENDIAN:
	case IW_MUTANT_MARKER_WRONG_FPDUPTR:
	case IW_MUTANT_MARKER_FIRST_MISSING:
	case IW_MUTANT_MARKER_DRIFT:
	case IW_MUTANT_MARKERS_UNREQUESTED:
	case IW_MUTANT_MARKER_RESERVED_SET:
	case IW_MUTANT_MARKER_HALVES_SWAPPED:
	case IW_MUTANT_CRC_SKIPS_LEADING_MARKER:
	case IW_MUTANT_MSN_START_0:
	case IW_MUTANT_L_ON_MIDDLE:
	case IW_MUTANT_TAGGED_RV_WRONG:
	case IW_MUTANT_TERM_WRONG_LAYER:
	case IW_MUTANT_TERM_NO_HEADERS:
	case IW_MUTANT_TERM_RSVD_SET:
		return true;
	default:
		return false;
	}
}

static const iw_ddp_sink *sink_of(const iw_fault_conn *f) { return f->model ? iw_conn_sink(f->model) : NULL; }

/* The registered buffer an STag names, NULL when unknown or invalid. */
static const iw_tagged_buf *buf_of(const iw_fault_conn *f, uint32_t stag)
{
	const iw_ddp_sink *s = sink_of(f);
	const iw_tagged_buf *b = s ? iw_sink_find(s, stag) : NULL;
	return b && b->valid ? b : NULL;
}

/* This connection's own STag: the first valid one bound to the sink's stream. */
static bool own_stag(const iw_fault_conn *f, uint32_t *stag)
{
	const iw_ddp_sink *s = sink_of(f);
	for (size_t i = 0; s && i < s->nstags; i++)
		if (s->stags[i].valid && s->stags[i].stream == s->stream) {
			*stag = s->stags[i].stag;
			return true;
		}
	return false;
}

static void put_hdr(const iw_ddp_hdr *h, uint8_t *u)
{
	size_t w;
	(void)iw_ddp_hdr_encode(h, u, iw_ddp_hdr_len(h->tagged), &w, NULL);
}

/* deliver-out-of-order: the MSN a Send on QN 0 is given, in the order its first segment came. */
static uint32_t arrival_msn(iw_fault_conn *f, uint32_t msn)
{
	size_t n = f->msn_n < 16 ? f->msn_n : 16;
	for (size_t i = 0; i < n; i++)
		if (f->msn_from[i] == msn)
			return f->msn_to[i];
	unsigned slot = f->msn_n++ % 16;
	f->msn_from[slot] = msn;
	f->msn_to[slot] = f->msn_next++;
	return f->msn_to[slot];
}

/* place-after-error: an RDMA Write the failed model refuses, placed all the same. */
static void place_anyway(iw_fault_conn *f, const iw_ddp_hdr *h, const uint8_t *payload, size_t len)
{
	const iw_ddp_sink *s = sink_of(f);
	const iw_tagged_buf *b = buf_of(f, h->stag);
	if (!s || !b || !b->mem || b->stream != s->stream || h->to < b->base_to || h->to - b->base_to > b->length ||
	    len > b->length - (h->to - b->base_to))
		return;
	memcpy(b->mem + (h->to - b->base_to), payload, len);
}

bool iw_mut_rewrite_in(iw_fault_conn *f, uint8_t *u, size_t *n)
{
	iw_ddp_hdr h;
	size_t hl;
	if (iw_ddp_hdr_decode(u, *n, &h, &hl, NULL) != IW_OK)
		return true; /* not a DDP segment: the model judges it as it is */
	unsigned op = iw_rdmap_ctrl_opcode(h.rsvdulp[0]), rv = iw_rdmap_ctrl_rv(h.rsvdulp[0]);
	size_t plen = *n - hl;
	uint8_t *pl = u + hl;
	const iw_ddp_sink *s = sink_of(f);
	const iw_tagged_buf *b = h.tagged ? buf_of(f, h.stag) : NULL;
	switch (f->mutant) {
	case IW_MUTANT_BOUNDS_OFF_BY_ONE:
		/* DDP-10.1-01: the end check compares with > where >= was needed, so a Write ending one
		 * octet past the buffer passes, and the octet past the end goes nowhere visible. */
		if (b && op == IW_OP_WRITE && plen && h.to >= b->base_to && h.to - b->base_to <= b->length &&
		    plen == b->length - (h.to - b->base_to) + 1)
			*n -= 1;
		return true;
	case IW_MUTANT_TO_WRAP_UNCHECKED: {
		/* DDP-9.1-T5: TO + length is computed modulo 2^64; a sum that wraps to inside the
		 * buffer passes, and the tail of the payload lands at its start. */
		uint64_t end = h.to + plen;
		if (!b || op != IW_OP_WRITE || !plen || end >= h.to)
			return true;
		if (end <= b->base_to || end - b->base_to > b->length)
			return true;
		size_t k = (size_t)(end - b->base_to);
		memmove(pl, pl + plen - k, k);
		h.to = b->base_to;
		put_hdr(&h, u);
		*n = hl + k;
		return true;
	}
	case IW_MUTANT_ACCEPT_FOREIGN_STAG: {
		/* DDP-10.3-02: the STag of another stream is taken as this stream's own. */
		uint32_t own;
		if (b && s && op == IW_OP_WRITE && plen && b->stream != s->stream && own_stag(f, &own)) {
			h.stag = own;
			put_hdr(&h, u);
		}
		return true;
	}
	case IW_MUTANT_MO_UNCHECKED:
		/* DDP-9.1-U3: MO is not checked: a segment past the buffer is written out of sight and
		 * nothing is reported. */
		return h.tagged || h.qn != IW_QN_SEND || !plen || h.mo < RECV_BUF_LEN;
	case IW_MUTANT_QN_UNCHECKED:
		/* DDP-9.1-U1: any QN lands on the Send queue, as its next message. */
		if (!h.tagged && plen && h.qn > IW_QN_TERMINATE && s) {
			h.qn = IW_QN_SEND;
			h.msn = s->queues[IW_QN_SEND].next_msn;
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_DELIVER_OUT_OF_ORDER:
		/* DDP-7.3-07: Sends are delivered in the order they arrive, not in MSN order: each
		 * message posted in the receive window is renumbered by arrival. */
		if (!h.tagged && h.qn == IW_QN_SEND && s && h.msn - s->queues[IW_QN_SEND].next_msn < 8) {
			h.msn = arrival_msn(f, h.msn);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_ZERO_LENGTH_WRITE_CHECKED:
		/* DDP-7.2-10: the STag of a zero-length Write is checked as if it carried data. */
		if (h.tagged && op == IW_OP_WRITE && !plen && !b) {
			u[hl] = 0;
			*n = hl + 1;
		}
		return true;
	case IW_MUTANT_READ_OUT_OF_BOUNDS: {
		/* RFC5040-5.2: a Read Request running past the source buffer is served up to the
		 * buffer's end instead of refused. */
		iw_read_req rr;
		if (h.tagged || op != IW_OP_READ_REQ || iw_read_req_decode(pl, plen, &rr, NULL) != IW_OK)
			return true;
		const iw_tagged_buf *src = buf_of(f, rr.src_stag);
		if (!src || rr.src_to < src->base_to || rr.src_to - src->base_to >= src->length)
			return true;
		uint64_t room = src->length - (rr.src_to - src->base_to);
		if (rr.size > room) {
			rr.size = (uint32_t)room;
			iw_read_req_encode(&rr, pl);
		}
		return true;
	}
	case IW_MUTANT_UNKNOWN_OPCODE_IGNORED:
		/* RFC5040-4.2: a message with a reserved opcode is silently discarded; it becomes a
		 * zero-length RDMA Write, which the model takes without a check (DDP-7.2-10). */
		if (!h.tagged && op >= 0xC) {
			iw_ddp_hdr z;
			memset(&z, 0, sizeof z);
			z.tagged = z.last = true;
			z.dv = h.dv;
			z.rsvdulp[0] = iw_rdmap_ctrl(rv, IW_OP_WRITE);
			put_hdr(&z, u);
			*n = IW_DDP_TAGGED_HDR_LEN;
		}
		return true;
	case IW_MUTANT_SEND_INV_UNCHECKED:
		/* RFC5040-5.3: a Send with Invalidate is taken as a plain Send; the STag is left alone. */
		if (!h.tagged && (op == IW_OP_SEND_INV || op == IW_OP_SEND_SE_INV)) {
			h.rsvdulp[0] = iw_rdmap_ctrl(rv, op == IW_OP_SEND_INV ? IW_OP_SEND : IW_OP_SEND_SE);
			memset(h.rsvdulp + 1, 0, 4);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_RDMAP_VERSION_UNCHECKED:
		/* RFC5040-4.2: RV is not checked. */
		if (rv != f->profile->rdmap_version) {
			h.rsvdulp[0] = iw_rdmap_ctrl(f->profile->rdmap_version, op);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_ZERO_READ_DATA: {
		/* RFC5040-5.2: a zero-length Read Request is served as a Read of 8 octets at its
		 * source TO (when they are inside the source buffer). */
		iw_read_req rr;
		if (h.tagged || op != IW_OP_READ_REQ || iw_read_req_decode(pl, plen, &rr, NULL) != IW_OK || rr.size)
			return true;
		const iw_tagged_buf *src = buf_of(f, rr.src_stag);
		if (src && rr.src_to >= src->base_to && rr.src_to - src->base_to <= src->length - 8) {
			rr.size = 8;
			iw_read_req_encode(&rr, pl);
		}
		return true;
	}
	case IW_MUTANT_READ_QUEUE_OFF_BY_ONE: {
		/* RFC5040-5.5: each Read Request after the first is served from the source range of
		 * the one before it (its own sink STag and TO are kept). */
		iw_read_req rr;
		if (h.tagged || op != IW_OP_READ_REQ || iw_read_req_decode(pl, plen, &rr, NULL) != IW_OK)
			return true;
		iw_read_req mine = rr;
		if (f->have_prev_rr) {
			rr.src_stag = f->prev_src_stag;
			rr.src_to = f->prev_src_to;
			rr.size = f->prev_size;
			iw_read_req_encode(&rr, pl);
		}
		f->have_prev_rr = true;
		f->prev_src_stag = mine.src_stag;
		f->prev_src_to = mine.src_to;
		f->prev_size = mine.size;
		return true;
	}
	case IW_MUTANT_RREQ_QN_UNCHECKED:
		/* RFC5040-4.2: a Read Request is dispatched by its opcode, whatever QN carries it: on
		 * QN 0 or 2 it becomes the next message of QN 1. */
		if (!h.tagged && op == IW_OP_READ_REQ && (h.qn == IW_QN_SEND || h.qn == IW_QN_TERMINATE) && s) {
			h.qn = IW_QN_READ_REQ;
			h.msn = s->queues[IW_QN_READ_REQ].next_msn;
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_SEND_SE_INV_UNCHECKED:
		/* RFC5040-5.3: the SE variant of Send with Invalidate is taken as a Send with SE. */
		if (!h.tagged && op == IW_OP_SEND_SE_INV) {
			h.rsvdulp[0] = iw_rdmap_ctrl(rv, IW_OP_SEND_SE);
			memset(h.rsvdulp + 1, 0, 4);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_INVALIDATE_IGNORED:
		/* DDP-9.1-T2: a Send with Invalidate of a valid STag of this DUT is delivered as a plain
		 * Send, so the STag is never invalidated; one it does not know is still refused (0x9). */
		if (!h.tagged && (op == IW_OP_SEND_INV || op == IW_OP_SEND_SE_INV) && buf_of(f, iw_rdmap_rsvd_word(&h))) {
			h.rsvdulp[0] = iw_rdmap_ctrl(rv, op == IW_OP_SEND_INV ? IW_OP_SEND : IW_OP_SEND_SE);
			memset(h.rsvdulp + 1, 0, 4);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_RDMAP_RSVD_CHECKED:
		/* RFC5040-4.1-05: the Rsvd bits are checked: set, they are taken for a version the model
		 * refuses (RV 0 where the stream's is 1). */
		if (iw_rdmap_ctrl_rsvd(h.rsvdulp[0])) {
			h.rsvdulp[0] = iw_rdmap_ctrl(rv ? 0 : 1, op);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_PLACE_AFTER_ERROR:
		/* DDP-9.1-03: after its error the DUT still places the RDMA Writes that follow. */
		if (!f->model_failed)
			return true;
		if (h.tagged && op == IW_OP_WRITE && plen)
			place_anyway(f, &h, pl, plen);
		return false;
	default:
		return true;
	}
}

bool iw_mut_pass_bad(const iw_fault_conn *f, const iw_violation *v)
{
	/* MPA-5.2-14: the CRC is not checked (a marker error is still one). */
	return f->mutant == IW_MUTANT_CRC_UNCHECKED && v->layer == IW_LAYER_LLP && v->ecode == IW_MPA_E_CRC;
}

void iw_mut_fed(iw_fault_conn *f, const uint8_t *octets, size_t n)
{
	if (!f->direct_feed || !f->model)
		return;
	/* place-after-error: after its error the model gets nothing more; the mutant places the
	 * Writes itself (iw_mut_rewrite_in). */
	if (f->mutant == IW_MUTANT_PLACE_AFTER_ERROR && f->model_failed)
		return;
	(void)iw_conn_input(f->model, octets, n);
	if (f->after_feed)
		f->after_feed(f->after_feed_arg);
	enum iw_conn_state st = iw_conn_state(f->model);
	if (st == IW_CS_FAILED || st == IW_CS_CLOSED)
		f->model_failed = true;
}

/* ---- our ULPDUs and their framing ---- */

bool iw_mut_rewrite_out(iw_fault_conn *f, uint8_t *u, size_t *n)
{
	iw_ddp_hdr h;
	size_t hl;
	if (iw_ddp_hdr_decode(u, *n, &h, &hl, NULL) != IW_OK)
		return true;
	unsigned op = iw_rdmap_ctrl_opcode(h.rsvdulp[0]);
	switch (f->mutant) {
	case IW_MUTANT_TERM_WRONG_LAYER:
		/* RFC5040-4.8: the Terminate names the wrong layer (RDMAP and DDP swapped, LLP as 3). */
		if (!h.tagged && op == IW_OP_TERMINATE && *n >= hl + 4)
			u[hl] ^= 0x10;
		return true;
	case IW_MUTANT_TERM_NO_HEADERS:
		/* RFC5040-4.8-03: the Terminate keeps its control word and drops what M, D, R announce. */
		if (!h.tagged && op == IW_OP_TERMINATE && *n > hl + 4) {
			u[hl + 2] &= 0x1Fu;
			*n = hl + 4;
		}
		return true;
	case IW_MUTANT_TERM_RSVD_SET:
		/* RFC5040-4.8-05: the octet after M, D, R (reserved) is sent as 0xFF. */
		if (!h.tagged && op == IW_OP_TERMINATE && *n >= hl + 4)
			u[hl + 3] = 0xFF;
		return true;
	case IW_MUTANT_MSN_START_0:
		/* DDP-6.3-09: every queue's MSNs start at 0 instead of 1. */
		if (!h.tagged) {
			h.msn -= 1;
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_TAGGED_RV_WRONG:
		/* DDP-6.2-02: the tagged RsvdULP is not RDMAP's control octet as RDMAP set it. */
		if (h.tagged) {
			h.rsvdulp[0] = iw_rdmap_ctrl(0, op);
			put_hdr(&h, u);
		}
		return true;
	case IW_MUTANT_L_ON_MIDDLE:
		/* DDP-6.1-04: L on the middle segments of a message too (untagged: any but the first
		 * and the last; tagged: any but the first and the last, tracked segment by segment). */
		if (!h.tagged) {
			if (!h.last && h.mo > 0)
				iw_ddp_octets_set_last(u, true);
		} else if (h.last) {
			f->out_tagged_cont = false;
		} else {
			if (f->out_tagged_cont)
				iw_ddp_octets_set_last(u, true);
			f->out_tagged_cont = true;
		}
		return true;
	default:
		return true;
	}
}

void iw_mut_out_init(const iw_fault_conn *f, iw_mpa_tx *enc)
{
	/* MPA-6.1.1-M1: markers although the peer's frame had M=0. */
	if (f->mutant == IW_MUTANT_MARKERS_UNREQUESTED)
		enc->markers = true;
}

size_t iw_mut_out_size(const iw_mpa_tx *enc, size_t n) { return iw_mpa_tx_size(enc, n) + 8; }

/* pad-wrong-length: the pad computed without the 2-octet length field, (4 - L % 4) % 4, so the
 * FPDU is not a multiple of 4 octets and the CRC is not where ULPDU_Length puts it. */
static int frame_bad_pad(iw_mpa_tx *enc, const uint8_t *u, size_t n, uint8_t *out, size_t cap, size_t *w)
{
	size_t pad = (4 - n % 4) % 4, total = 2 + n + pad + IW_MPA_CRC_LEN;
	if (cap < total || n > 0xFFFF)
		return IW_ENOSPC;
	iw_put_be16(out, (uint16_t)n);
	memcpy(out + 2, u, n);
	memset(out + 2 + n, 0, pad);
	uint32_t crc = enc->crc ? iw_crc32c(out, 2 + n + pad) : 0;
	iw_crc32c_put_wire(out + 2 + n + pad, crc);
	enc->pos += total;
	*w = total;
	return IW_OK;
}

int iw_mut_out_frame(iw_fault_conn *f, iw_mpa_tx *enc, const uint8_t *u, size_t n, uint8_t *out, size_t cap,
		     size_t *w)
{
	iw_fpdu_mods m;
	memset(&m, 0, sizeof m);
	bool at_marker = enc->markers && enc->pos % IW_MPA_MARKER_INTERVAL == 0;
	switch (f->mutant) {
	case IW_MUTANT_PAD_NONZERO:
		m.pad_fill = 0xFF;  /* MPA-4-02 (the CRC covers the octets sent) */
		break;
	case IW_MUTANT_PAD_WRONG_LENGTH:
		if (!enc->markers)
			return frame_bad_pad(enc, u, n, out, cap, w);
		break;
	case IW_MUTANT_CRC_BIG_ENDIAN:
		m.crc_big_endian = enc->crc;    /* MPA-5.2-11: most-significant octet first */
		break;
	case IW_MUTANT_MARKER_WRONG_FPDUPTR:
		/* MPA-5.1-03: FPDUPTRs inside an FPDU point 4 octets too far back; a marker between
		 * FPDUs keeps its 0 (that is MPA-5.1-04's rule). */
		if (enc->markers && !at_marker)
			m.fpduptr_delta = 4;
		break;
	case IW_MUTANT_MARKER_FIRST_MISSING:
		/* MPA-5.1-06: no marker at SeqStart; the later ones are where they belong. */
		m.no_markers = enc->markers && enc->pos == 0;
		break;
	case IW_MUTANT_MARKER_RESERVED_SET:
		m.marker_reserved = 0xFFFF;     /* MPA-4.1-02 */
		break;
	case IW_MUTANT_MARKER_HALVES_SWAPPED:
		m.marker_swapped = true;        /* MPA-4.1-01: FPDUPTR, then RESERVED */
		break;
	case IW_MUTANT_CRC_SKIPS_LEADING_MARKER:
		/* MPA-5.2-13: an FPDU that starts with a marker has its CRC computed from its
		 * ULPDU_Length on, leaving the marker out. */
		if (at_marker && enc->crc) {
			iw_mpa_tx t = *enc;
			size_t k = 0;
			int rc = iw_mpa_tx_fpdu(&t, u, n, NULL, 0, NULL, out, cap, &k, NULL);
			if (rc != IW_OK)
				return rc;
			m.set_crc = true;
			m.crc_value = iw_crc32c(out + IW_MPA_MARKER_LEN, k - IW_MPA_MARKER_LEN - IW_MPA_CRC_LEN);
		}
		break;
	default:
		break;
	}
	int rc = iw_mpa_tx_fpdu(enc, u, n, NULL, 0, &m, out, cap, w, NULL);
	/* MPA-5.1-02: the marker grid slips 4 octets with every FPDU. */
	if (rc == IW_OK && f->mutant == IW_MUTANT_MARKER_DRIFT && enc->markers && enc->pos >= 4)
		enc->pos -= 4;
	return rc;
}

/* ---- lifetime ---- */

int64_t iw_mut_pump(iw_fault_conn *f, iw_conn *model, int64_t now_ms)
{
	if (iw_conn_state(model) == IW_CS_FAILED)
		f->model_failed = true;
	switch (f->mutant) {
	case IW_MUTANT_NEVER_CLOSE:
		/* DDP-5-10: after its error (and its Terminate) the DUT keeps the connection open. */
		if (f->model_failed)
			f->hold_open = true;
		return -1;
	case IW_MUTANT_PLACE_AFTER_ERROR:
		/* It closes once the peer has been quiet for a moment, so what the peer pipelined
		 * behind the error is all read (and placed), whatever the timing. */
		if (!f->model_failed)
			return -1;
		if (f->quiet_since_ms == 0 || f->in_pos != f->quiet_in_pos) {
			f->quiet_in_pos = f->in_pos;
			f->quiet_since_ms = now_ms;
		}
		f->hold_open = now_ms - f->quiet_since_ms < AFTER_ERROR_GRACE_MS;
		return f->hold_open ? f->quiet_since_ms + AFTER_ERROR_GRACE_MS : -1;
	default:
		return -1;
	}
}
