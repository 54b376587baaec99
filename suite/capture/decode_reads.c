/*
 * decode_reads.c - Read Responses against the other side's Read Requests (see decode_reads.h).
 */
#include "decode_reads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iw_proto.h"
#include "mpa_rx.h"
#include "verify.h"

/* RFC 5040 §5.2.2: a Read Response that answers no outstanding Read Request is an error at the
 * sink (Terminate, unexpected opcode). */
#define REQ_UNASKED "RFC5040-5.2-09"

struct iw_decode_reads {
	iw_decode_peer peer;
	/* The cursor over the peer's FPDUs: its decoder (allocated at the first Response), the
	 * octets it consumed, and the next Read Request it found, not yet answered. */
	iw_mpa_rx *rx;
	iw_fpdu *fp;
	size_t at;
	bool ended;                 /* no Read Request after the last one found */
	bool have;
	iw_read_req next;
	uint64_t next_frame;        /* the capture frame that completed it */
	/* The Response under way. */
	bool in_resp, matched, wrong;
	iw_read_req rr;
	iw_ddp_hdr first;
	uint64_t len;
};

iw_decode_reads *iw_decode_reads_new(const iw_decode_peer *peer)
{
	iw_decode_reads *r = calloc(1, sizeof *r);
	if (r)
		r->peer = *peer;
	return r;
}

void iw_decode_reads_free(iw_decode_reads *r)
{
	if (!r)
		return;
	free(r->rx);
	free(r->fp);
	free(r);
}

/* The peer's next Read Request, read as far as needed: false when it has none left. */
static bool peek(iw_decode_reads *r)
{
	if (r->have)
		return true;
	if (r->ended)
		return false;
	const iw_decode_peer *pe = &r->peer;
	if (!r->rx) {
		r->rx = malloc(sizeof *r->rx);
		r->fp = malloc(sizeof *r->fp);
		if (!r->rx || !r->fp) {
			r->ended = true;
			return false;
		}
		iw_mpa_rx_init(r->rx, pe->p, pe->markers || pe->p->markers_always, pe->crc || pe->p->crc_always);
	}
	const uint8_t *d = pe->s->data + pe->base;
	size_t n = pe->s->len > pe->base ? pe->s->len - pe->base : 0;
	while (r->at < n) {
		size_t used = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(r->rx, d + r->at, n - r->at, &used, r->fp, &err);
		r->at += used;
		if (st == IW_RX_ERROR)
			break;      /* nothing after an MPA error reaches the Data Source (MPA-7-08) */
		if (st != IW_RX_FPDU) {
			if (used == 0)
				break;
			continue;
		}
		iw_rdmap_msg m;
		const iw_fpdu *fp = r->fp;
		if (iw_rdmap_parse(pe->p, fp->ulpdu, fp->ulpdu_length, &m, NULL) && !m.ddp.tagged &&
		    m.opcode == IW_OP_READ_REQ && iw_read_req_decode(m.payload, m.payload_len, &r->next, NULL) == IW_OK) {
			r->next_frame = iw_pcap_frame_of(pe->s, pe->base + fp->start + fp->wire_len - 1);
			r->have = true;
			return true;
		}
	}
	r->ended = true;
	return false;
}

/* A Response that answers no Read Request, unless the peer's stream was not seen whole. */
static void unasked(iw_decode_reads *r, iw_decode_ctx *o, const iw_ddp_hdr *h, uint64_t off, uint64_t frame)
{
	if (r->peer.s->hole || r->peer.s->cut)
		return;
	char d[192];
	if (r->have)
		snprintf(d, sizeof d, "a Read Response (STag 0x%x TO 0x%llx, frame %llu) before the Read Request it could "
				      "answer: the other side's next one completed in frame %llu", h->stag,
			 (unsigned long long)h->to, (unsigned long long)frame, (unsigned long long)r->next_frame);
	else
		snprintf(d, sizeof d, "a Read Response (STag 0x%x TO 0x%llx) that answers no Read Request: the other side "
				      "has none left unanswered", h->stag, (unsigned long long)h->to);
	iw_decode_violation(o, REQ_UNASKED, IW_VIOL_FATAL, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE,
			    off, d);
}

/* What the Response answers, in the details and the JSON. */
static void answers(const iw_decode_reads *r, const iw_decode_ctx *o, uint64_t frame, json_t *jf)
{
	const iw_read_req *rr = &r->rr;
	if (jf) {
		json_t *a = json_pack("{s:I, s:I, s:I}", "sink_stag", (json_int_t)rr->sink_stag, "size", (json_int_t)rr->size,
				      "frame", (json_int_t)frame);
		char to[24];
		snprintf(to, sizeof to, "0x%016llx", (unsigned long long)rr->sink_to);
		json_object_set_new(a, "sink_to", json_string(to));
		json_object_set_new(jf, "answers_read_request", a);
	} else if (!o->json && !o->quiet) {
		printf("  answers the Read Request of frame %llu: %u octets to sink STag 0x%08x TO 0x%llx\n",
		       (unsigned long long)frame, rr->size, rr->sink_stag, (unsigned long long)rr->sink_to);
	}
}

void iw_decode_reads_segment(iw_decode_reads *r, iw_decode_ctx *o, const iw_rdmap_msg *m, uint64_t off, json_t *jf)
{
	if (!r)
		return;
	const iw_ddp_hdr *h = &m->ddp;
	bool resp = h->tagged && m->opcode == IW_OP_READ_RESP;
	/* Another message began before the Response ended (DDP-6.1-03 is the segment check's). */
	if (r->in_resp && (!resp || h->stag != r->first.stag))
		r->in_resp = false;
	if (!resp)
		return;
	if (!r->in_resp) {
		r->in_resp = true;
		r->first = *h;
		r->len = 0;
		r->wrong = false;
		uint64_t frame = iw_decode_frame_of(o, off);
		r->matched = peek(r) && (!frame || !r->next_frame || r->next_frame <= frame);
		if (r->matched) {
			r->rr = r->next;
			r->have = false;
			answers(r, o, r->next_frame, jf);
		} else {
			unasked(r, o, h, off, frame);
		}
	}
	if (r->matched && !r->wrong) {
		r->len += m->payload_len;
		iw_check chk;
		if (!iw_verify_read_resp(&r->rr, &r->first, r->len, h->last, &chk)) {
			iw_decode_check(o, &chk, off);
			r->wrong = true;    /* one fault, one violation */
		}
	}
	if (h->last)
		r->in_resp = false;
}
