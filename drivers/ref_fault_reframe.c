/*
 * ref_fault_reframe.c - re-framing for the message-level mutants: one direction's FPDUs decoded,
 * their ULPDUs rewritten or dropped, and framed again with the same markers and CRC, so the
 * stream stays consistent.
 */
#include "ref_fault_int.h"

#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "rdmap.h"
#include "ref_mutants.h"
#include "ref_server.h"

bool fs_out_mutant(enum iw_mutant m)
{
	return m == IW_MUTANT_TERM_WRONG_CODE || m == IW_MUTANT_NO_TERMINATE || m == IW_MUTANT_INTEROP_CODES ||
	       iw_mut_is_out(m);
}

bool fs_in_mutant(enum iw_mutant m)
{
	return m == IW_MUTANT_DELIVER_AFTER_ERROR || m == IW_MUTANT_IGNORE_BOUNDS || iw_mut_is_in(m);
}

void iw_fault_conn_free(iw_fault_conn *f)
{
	for (int i = 0; i < 2; i++) {
		iw_reframe *r = i ? f->rf_out : f->rf_in;
		if (r)
			free(r->out);
		free(r);
	}
	f->rf_in = f->rf_out = NULL;
}

iw_reframe *fs_reframe_new(const iw_profile *p, bool markers, bool crc)
{
	iw_reframe *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->out_cap = 1u << 18;
	r->out = malloc(r->out_cap);
	if (!r->out) {
		free(r);
		return NULL;
	}
	iw_mpa_rx_init(&r->dec, p, markers, crc);
	iw_mpa_tx_init(&r->enc, p, markers, crc);
	return r;
}

/* Frames one ULPDU into r->out (mods may carry a CRC defect); false when it does not fit. */
static bool reframe_emit(iw_reframe *r, const uint8_t *u, size_t n, const iw_fpdu_mods *mods)
{
	if (r->out_off && r->out_off == r->out_len)
		r->out_off = r->out_len = 0;
	size_t need = iw_mpa_tx_size(&r->enc, n);
	if (r->out_len + need > r->out_cap) {
		memmove(r->out, r->out + r->out_off, r->out_len - r->out_off);
		r->out_len -= r->out_off;
		r->out_off = 0;
		if (r->out_len + need > r->out_cap)
			return false;
	}
	size_t w = 0;
	if (iw_mpa_tx_fpdu(&r->enc, u, n, NULL, 0, mods, r->out + r->out_len, r->out_cap - r->out_len, &w, NULL))
		return false;
	r->out_len += w;
	return true;
}

/* The DUT's Terminates as a message-level mutant rewrites them (RFC 5040 §4.8: the control
 * word after the 18-octet untagged header is Layer|EType, ECode, flags). */
static bool rewrite_out(iw_fault_conn *f, uint8_t *u, size_t n)
{
	if (iw_mut_is_out(f->mutant))
		return iw_mut_rewrite_out(f, u, &n);
	bool term = n >= IW_TERM_OFF_CTRL + 4 && !iw_ddp_octets_tagged(u) && iw_rdmap_octets_opcode(u) == IW_OP_TERMINATE;
	if (!term)
		return true;
	uint8_t *cw = u + IW_TERM_OFF_CTRL;
	unsigned layer = iw_term_ctrl_layer(cw), etype = iw_term_ctrl_etype(cw), ecode = iw_term_ctrl_ecode(cw);
	switch (f->mutant) {
	case IW_MUTANT_NO_TERMINATE:
		return false;
	case IW_MUTANT_TERM_WRONG_CODE:
		iw_term_ctrl_set(cw, layer, etype, ecode ^ 0x20);
		break;
	case IW_MUTANT_INTEROP_CODES:
		if (layer == IW_LAYER_LLP && etype == IW_LLP_ET_MPA)
			iw_term_ctrl_set(cw, IW_LAYER_LLP, 3, ecode);       /* cxgb4: 0x23 */
		else if (layer == IW_LAYER_DDP && etype == IW_DDP_ET_UNTAGGED && ecode == IW_DDP_EC_TOO_LONG)
			iw_term_ctrl_set(cw, layer, etype, IW_DDP_EC_MSN_NO_BUFFER); /* siw: "no buffer" */
		else if (layer == IW_LAYER_DDP && etype == IW_DDP_ET_TAGGED && ecode == IW_DDP_EC_TO_WRAP)
			iw_term_ctrl_set(cw, layer, etype, IW_DDP_EC_BASE_BOUNDS);   /* siw: no wrap check */
		break;
	default:
		break;
	}
	return true;
}

/* The peer's ULPDU as the input mutant lets the model see it: false drops it. An RDMA Write
 * running past the reflector's buffer is cut to what fits (ignore-bounds). */
static bool rewrite_in(iw_fault_conn *f, uint8_t *u, size_t *n)
{
	if (iw_mut_is_in(f->mutant))
		return iw_mut_rewrite_in(f, u, n);
	if (f->mutant != IW_MUTANT_IGNORE_BOUNDS || *n < IW_DDP_TAGGED_HDR_LEN || !iw_ddp_octets_tagged(u) ||
	    iw_rdmap_octets_opcode(u) != IW_OP_WRITE)
		return true;
	uint64_t to = iw_ddp_octets_to(u);
	size_t len = *n - IW_DDP_TAGGED_HDR_LEN;
	if (!len)
		return true;
	if (to >= IW_REF_STAG_LEN)
		return false;
	if (to + len > IW_REF_STAG_LEN)
		*n = IW_DDP_TAGGED_HDR_LEN + (size_t)(IW_REF_STAG_LEN - to);
	return true;
}

/* Octets of the peer's FPDU stream through the input re-framer; the result is in f->in_buf. */
void fs_reframe_input(iw_fault_conn *f, const uint8_t *data, size_t len)
{
	iw_reframe *r = f->rf_in;
	/* resync-on-read (MPA-5.4.1-01): a receiver that takes the data arriving after a stall (15 ms
	 * or more), or after its TCP had a hole (out-of-order segments), for an FPDU start. The
	 * partial FPDU the short read before left is dropped and the decoder starts afresh here,
	 * markers still where the stream position puts them. Data that arrives back to back (a
	 * write cut into segments on loopback) is framed right: only a stall or a hole trips it. */
	if (f->mutant == IW_MUTANT_RESYNC_ON_READ && f->short_partial && iw_mpa_rx_partial(&r->dec) &&
	    (f->ooo_packets > 0 || f->read_gap_ms >= 15))
		iw_mpa_rx_init_at(&r->dec, f->profile, r->dec.markers, r->dec.crc, r->dec.pos);
	r->out_off = r->out_len = 0;
	f->in_rewritten = true;
	f->in_buf = r->out;
	f->in_len = 0;
	while (len) {
		size_t used = 0;
		iw_violation v;
		enum iw_rx_status st = iw_mpa_rx_push(&r->dec, data, len, &used, &r->fp, &v);
		data += used;
		len -= used;
		size_t from = r->out_len;
		if (st == IW_RX_FPDU) {
			size_t n = r->fp.ulpdu_length;
			memcpy(r->ulpdu, r->fp.ulpdu, n);
			if (rewrite_in(f, r->ulpdu, &n))
				(void)reframe_emit(r, r->ulpdu, n, NULL);
		} else if (st == IW_RX_ERROR) {
			/* deliver-after-error hands the first bad FPDU on as if it were valid, so it and what
			 * follows are delivered; any later one reaches the model as a CRC error. */
			bool pass = (f->mutant == IW_MUTANT_DELIVER_AFTER_ERROR && !f->dropped_once) || iw_mut_pass_bad(f, &v);
			iw_fpdu_mods bad;
			memset(&bad, 0, sizeof bad);
			bad.crc_xor = pass ? 0 : 1;
			(void)reframe_emit(r, r->fp.ulpdu, r->fp.ulpdu_length, &bad);
			f->dropped_once = true;
			uint64_t pos = r->dec.pos;
			iw_mpa_rx_init_at(&r->dec, f->profile, r->dec.markers, r->dec.crc, pos);
		} else {
			break;
		}
		/* The model takes each FPDU here, before the next one is rewritten. The octets stay in
		 * r->out until the server has drained the model's events, which may point into them. */
		if (f->direct_feed)
			iw_mut_fed(f, r->out + from, r->out_len - from);
	}
	f->in_len = r->out_len;
	f->short_partial = f->read_short && iw_mpa_rx_partial(&r->dec);
}

/* Frames one of our ULPDUs into r->out as the output mutant wants; false when it does not fit. */
static bool reframe_emit_out(iw_fault_conn *f, iw_reframe *r, const uint8_t *u, size_t n)
{
	if (r->out_off && r->out_off == r->out_len)
		r->out_off = r->out_len = 0;
	size_t need = iw_mut_out_size(&r->enc, n);
	if (r->out_len + need > r->out_cap) {
		memmove(r->out, r->out + r->out_off, r->out_len - r->out_off);
		r->out_len -= r->out_off;
		r->out_off = 0;
		if (r->out_len + need > r->out_cap)
			return false;
	}
	size_t w = 0;
	if (iw_mut_out_frame(f, &r->enc, u, n, r->out + r->out_len, r->out_cap - r->out_len, &w) != IW_OK)
		return false;
	r->out_len += w;
	return true;
}

/* Model output through the output re-framer into tx. */
void fs_reframe_output(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx)
{
	iw_reframe *r = f->rf_out;
	for (;;) {
		/* Hand on what is framed first, so the buffers stay bounded. */
		size_t pend = r->out_len - r->out_off, room = iw_txbuf_room(tx);
		size_t k = pend < room ? pend : room;
		memcpy(iw_txbuf_tail(tx), r->out + r->out_off, k);
		tx->len += k;
		r->out_off += k;
		if (r->out_off < r->out_len)
			return;
		r->out_off = r->out_len = 0;
		size_t avail;
		const uint8_t *src = iw_conn_output_peek(model, &avail);
		if (!avail)
			return;
		size_t used = 0;
		iw_violation v;
		enum iw_rx_status st = iw_mpa_rx_push(&r->dec, src, avail, &used, &r->fp, &v);
		iw_conn_output_consume(model, used);
		f->out_pos += used;
		if (st == IW_RX_FPDU) {
			size_t n = r->fp.ulpdu_length;
			memcpy(r->ulpdu, r->fp.ulpdu, n);
			if (rewrite_out(f, r->ulpdu, n))
				(void)reframe_emit_out(f, r, r->ulpdu, n);
		} else if (st == IW_RX_ERROR || used == 0) {
			return;
		}
	}
}
