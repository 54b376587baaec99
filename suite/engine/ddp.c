/*
 * ddp.c - DDP segment headers and the data source's segmenter (D0/D2 §6, §7.2; RFC 5041).
 */
#include "ddp.h"
#include "iw_octets.h"

#include <string.h>

int iw_ddp_hdr_encode(const iw_ddp_hdr *h, uint8_t *out, size_t cap, size_t *out_len, iw_err *e)
{
	size_t n = iw_ddp_hdr_len(h->tagged);

	/* rsvd and dv are bit fields on the wire: a wider value would spill into T, L or DV. */
	if (h->rsvd > 0x0F)
		return iw_errf(e, IW_EINVAL, "DDP Rsvd %u does not fit its 4 bits", (unsigned)h->rsvd);
	if (h->dv > 0x03)
		return iw_errf(e, IW_EINVAL, "DDP DV %u does not fit its 2 bits", (unsigned)h->dv);
	if (cap < n)
		return iw_errf(e, IW_ENOSPC, "%s DDP header needs %zu octets, the buffer has %zu",
			       h->tagged ? "tagged" : "untagged", n, cap);

	out[0] = (uint8_t)((h->tagged ? IW_DDP_T : 0) | (h->last ? IW_DDP_L : 0) | (h->rsvd << 2) | h->dv);
	if (h->tagged) {
		out[1] = h->rsvdulp[0];
		iw_put_be32(out + 2, h->stag);
		iw_put_be64(out + 6, h->to);
	} else {
		memcpy(out + 1, h->rsvdulp, 5);
		iw_put_be32(out + 6, h->qn);
		iw_put_be32(out + 10, h->msn);
		iw_put_be32(out + 14, h->mo);
	}
	if (out_len)
		*out_len = n;
	return IW_OK;
}

int iw_ddp_hdr_decode(const uint8_t *ulpdu, size_t len, iw_ddp_hdr *h, size_t *hdr_len, iw_err *e)
{
	memset(h, 0, sizeof *h);
	if (len == 0) {
		/* Without the control octet the T bit is unknown: the shortest header is what is missing. */
		if (hdr_len)
			*hdr_len = IW_DDP_TAGGED_HDR_LEN;
		return iw_errf(e, IW_ETRUNC, "empty ULPDU: a DDP segment starts with a 14- or 18-octet header "
			       "(DDP-6.4-01)");
	}
	bool tagged = (ulpdu[0] & IW_DDP_T) != 0;
	size_t n = iw_ddp_hdr_len(tagged);
	if (hdr_len)
		*hdr_len = n;
	if (len < n)
		return iw_errf(e, IW_ETRUNC, "ULPDU of %zu octets is shorter than the %zu-octet %s DDP header its "
			       "T bit announces (DDP-6.4-01)", len, n, tagged ? "tagged" : "untagged");

	h->tagged = tagged;
	h->last = (ulpdu[0] & IW_DDP_L) != 0;
	h->rsvd = (uint8_t)((ulpdu[0] & IW_DDP_RSVD_MASK) >> 2);
	h->dv = ulpdu[0] & IW_DDP_DV_MASK;
	if (tagged) {
		h->rsvdulp[0] = ulpdu[1];
		h->stag = iw_get_be32(ulpdu + 2);
		h->to = iw_get_be64(ulpdu + 6);
	} else {
		memcpy(h->rsvdulp, ulpdu + 1, 5);
		h->qn = iw_get_be32(ulpdu + 6);
		h->msn = iw_get_be32(ulpdu + 10);
		h->mo = iw_get_be32(ulpdu + 14);
	}
	return IW_OK;
}

int iw_ddp_seg_init(iw_ddp_segmenter *s, const iw_ddp_hdr *base, size_t msg_len, size_t mulpdu, iw_err *e)
{
	size_t hl = iw_ddp_hdr_len(base->tagged);

	memset(s, 0, sizeof *s);
	if (mulpdu <= hl)
		return iw_errf(e, IW_EINVAL, "MULPDU %zu leaves no room for payload after the %zu-octet %s DDP "
			       "header (DDP-7.2-01)", mulpdu, hl, base->tagged ? "tagged" : "untagged");
	/* DDP-7.2-02: the untagged MO is 32 bits, and both models share the limit. */
	if ((uint64_t)msg_len > UINT32_MAX)
		return iw_errf(e, IW_EINVAL, "ULP message of %zu octets: DDP messages are shorter than 2^32 "
			       "octets (DDP-7.2-02)", msg_len);
	s->base = *base;
	s->msg_len = msg_len;
	s->mulpdu = mulpdu;
	return IW_OK;
}

bool iw_ddp_seg_next(iw_ddp_segmenter *s, iw_ddp_hdr *h, size_t *off, size_t *len)
{
	if (s->done)
		return false;

	size_t room = s->mulpdu - iw_ddp_hdr_len(s->base.tagged);
	size_t left = s->msg_len - s->off;
	size_t n = left < room ? left : room;

	*h = s->base;
	/* DDP-7.2-05 / DDP-7.2-07. A tagged TO past 2^64 wraps here on purpose: what the ULP asked
	 * for goes on the wire, and the sink's T5 check is what catches it. */
	if (s->base.tagged)
		h->to = s->base.to + (uint64_t)s->off;
	else
		h->mo = (uint32_t)s->off;
	/* DDP-6.1-03/04: L on the last segment only; a zero-length message is that one segment
	 * (DDP-7.2-08). */
	h->last = (s->off + n == s->msg_len);
	*off = s->off;
	*len = n;
	s->off += n;
	if (h->last)
		s->done = true;
	return true;
}
