/*
 * report_pcap_cut.c - cutting a direction's octets where its startup frame and each FPDU end
 * (see report_pcap_cut.h).
 */
#include "report_pcap_cut.h"

#include <stdlib.h>
#include <string.h>

#include "decode_stream.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "mpa_rx.h"

enum phase {
	CUT_HEAD,       /* collecting the first IW_MPA_FRAME_HDR_LEN octets: is it a startup frame? */
	CUT_FRAME,      /* inside the startup frame's private data */
	CUT_FPDUS,      /* FPDUs, delimited by mpa_rx */
	CUT_NONE,       /* not cut (no startup frame where one belongs) */
};

struct iw_unit_cut {
	const iw_profile *p;
	bool markers;
	enum phase phase;
	uint8_t head[IW_MPA_FRAME_HDR_LEN];
	size_t nhead;
	size_t frame_left;          /* CUT_FRAME: private data octets still to come */
	iw_fpdu fp;
	iw_mpa_rx rx;               /* large (a whole FPDU): the cutter is allocated */
};

iw_unit_cut *iw_unit_cut_new(const iw_profile *p, bool markers)
{
	iw_unit_cut *c = malloc(sizeof *c);
	if (!c)
		return NULL;
	c->p = p;
	c->markers = markers;
	c->phase = p->startup_frames ? CUT_HEAD : CUT_FPDUS;
	c->nhead = 0;
	c->frame_left = 0;
	/* CRC off: a cut needs the length chain, not the CRC; a bad CRC must not stop the cutting. */
	iw_mpa_rx_init(&c->rx, p, markers, false);
	return c;
}

void iw_unit_cut_free(iw_unit_cut *c)
{
	free(c);
}

bool iw_unit_cut_frame_m(const iw_profile *p, const uint8_t *head, size_t n, bool *m)
{
	if (!p->startup_frames || n < IW_MPA_FRAME_HDR_LEN || !iw_decode_looks_like_frame(head, n))
		return false;
	iw_mpa_frame f;
	size_t flen = 0;
	/* The header alone: IW_ETRUNC with its fields filled when private data follows. */
	int rc = iw_mpa_frame_decode(p, head, IW_MPA_FRAME_HDR_LEN, &f, &flen, NULL);
	if (rc != IW_OK && rc != IW_ETRUNC)
		return false;
	*m = f.m;
	return true;
}

/* FPDUs: up to the end of the next one in buf, or all of it. */
static size_t fpdu_piece(iw_unit_cut *c, const uint8_t *buf, size_t len)
{
	size_t used = 0;
	while (used < len) {
		size_t k = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&c->rx, buf + used, len - used, &k, &c->fp, &err);
		used += k;
		if (st == IW_RX_ERROR) {
			/* Refused (a marker off the length chain), yet it ends where its length says:
			 * decode on from there, markers still placed from SeqStart. */
			iw_mpa_rx_init_at(&c->rx, c->p, c->markers, false, c->fp.start + c->fp.wire_len);
			return used;
		}
		if (st == IW_RX_FPDU)
			return used;
		if (k == 0)
			break;
	}
	return len;
}

size_t iw_unit_cut_piece(iw_unit_cut *c, const uint8_t *buf, size_t len)
{
	size_t used = 0;
	if (!len)
		return 0;
	if (c->phase == CUT_HEAD) {
		size_t k = IW_MPA_FRAME_HDR_LEN - c->nhead;
		if (k > len)
			k = len;
		memcpy(c->head + c->nhead, buf, k);
		c->nhead += k;
		used = k;
		if (c->nhead < IW_MPA_FRAME_HDR_LEN)
			return len;
		bool m;
		if (!iw_unit_cut_frame_m(c->p, c->head, c->nhead, &m)) {
			c->phase = CUT_NONE;
			return len;
		}
		c->frame_left = iw_mpa_frame_len(c->head) - IW_MPA_FRAME_HDR_LEN;
		c->phase = CUT_FRAME;
	}
	if (c->phase == CUT_FRAME) {
		size_t k = len - used < c->frame_left ? len - used : c->frame_left;
		c->frame_left -= k;
		used += k;
		if (c->frame_left)
			return len;
		c->phase = CUT_FPDUS;
		if (used)
			return used;        /* the startup frame ends here */
	}
	if (c->phase == CUT_NONE)
		return len;
	return fpdu_piece(c, buf, len);
}
