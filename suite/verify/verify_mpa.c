/*
 * verify_mpa.c - an FPDU as its sender built it (MPA-4, MPA-4.1, MPA-5.1, MPA-3.2).
 */
#include "verify_int.h"

#include "iw_proto.h"
#include "mpa_markers.h"

/* The sender's FPDUPTR rule: the drafts' (the distance back to the FPDU's first octet) or RFC
 * 5044's (back to its ULPDU Length field). */
static const char *fpduptr_rule(const iw_fpdu *fp)
{
	return fp && fp->fpduptr_from_length ? "RFC5044-4-02" : "MPA-5.1-03";
}

bool iw_verify_fpdu(const iw_fpdu *fp, iw_check *out)
{
	unsigned long long at = (unsigned long long)fp->start;
	iw_check_begin(out);
	/* The decoder accepted the FPDU: its CRC (when on) and its markers' FPDUPTRs were held to
	 * the sender's rules already (a refusal is iw_verify_stream_req's). */
	if (fp->crc_checked)
		iw_check_applied(out, "MPA-5.2-11");
	if (fp->nmarkers) {
		iw_check_applied(out, fpduptr_rule(fp));
		if (fp->fpduptr_from_length && fp->nmarkers > 1)
			iw_check_applied(out, "RFC5044-4-05");  /* every inner marker points at one octet */
		iw_check_applied(out, "MPA-4.1-01"); /* a swapped marker would have been refused (iw_verify_stream_req) */
	}
	/* The three rules are independent: each is judged, whatever the one before found. */
	if (fp->pad_len)
		iw_check_applied(out, "MPA-4-02");
	if (fp->notes & IW_NOTE_PAD_NONZERO)
		iw_check_sender(out, "MPA-4-02", "the sender's FPDU at %llu has non-zero pad octets", at);
	if (fp->nmarkers)
		iw_check_applied(out, "MPA-4.1-02");
	if (fp->notes & IW_NOTE_MARKER_RESERVED)
		iw_check_sender(out, "MPA-4.1-02", "a marker in the sender's FPDU at %llu has RESERVED set", at);
	if (fp->nmarkers) {
		iw_check_applied(out, "MPA-5.1-05");
		iw_check_applied(out, "RFC5044-4-01");  /* the same two bits: RFC 5044's transmitter clause */
	}
	if (fp->notes & IW_NOTE_FPDUPTR_LOWBITS)
		iw_check_sender(out, "MPA-5.1-05", "a marker in the sender's FPDU at %llu has FPDUPTR low bits set", at);
	return out->req == NULL;
}

bool iw_verify_ulpdu_size(const iw_fpdu *fp, iw_check *out)
{
	iw_check_begin(out);
	iw_check_applied(out, "MPA-3.2-04");
	/* The receiver takes it (A8), but no sender may post a ULPDU that large. */
	if (fp->ulpdu_length > IW_MPA_MULPDU_MAX)
		return iw_check_sender(out, "MPA-3.2-04", "the sender's ULPDU_Length is %u, more than %u octets",
				       fp->ulpdu_length, IW_MPA_MULPDU_MAX);
	return true;
}

/* A marker the length chain disagrees with whose halves are the wrong way round: FPDUPTR 0 where
 * the distance back to the FPDU start was due, and that distance in the RESERVED half. The
 * sender did not keep the marker format (RESERVED, then FPDUPTR: MPA-4.1-01). */
static bool marker_swapped(const iw_fpdu *fp)
{
	for (size_t i = 0; fp && i < fp->nmarkers; i++) {
		const iw_marker_seen *m = &fp->markers[i];
		uint16_t want = iw_marker_fpduptr_due(fp->start, fp->fpduptr_origin, m->pos);
		if ((m->fpduptr & IW_MPA_FPDUPTR_MASK) == want)
			continue;
		return want != 0 && m->fpduptr == 0 && m->reserved == want;
	}
	return false;
}

const char *iw_verify_stream_req(const iw_violation *err, const iw_fpdu *fp)
{
	/* The decoder speaks for a receiver; what the sender broke is the sender's rule. */
	if (err->ecode == IW_MPA_E_MARKER)
		return marker_swapped(fp) ? "MPA-4.1-01" : fpduptr_rule(fp);
	return err->ecode == IW_MPA_E_CRC ? "MPA-5.2-11" : err->req;
}

bool iw_verify_crc_reversed(const iw_violation *err, const iw_fpdu *fp)
{
	if (!fp || err->layer != IW_LAYER_LLP || err->ecode != IW_MPA_E_CRC)
		return false;
	uint32_t c = fp->crc_computed;
	uint32_t swapped = c >> 24 | (c >> 8 & 0xff00u) | (c << 8 & 0xff0000u) | c << 24;
	return fp->crc_received == swapped && swapped != c;
}
