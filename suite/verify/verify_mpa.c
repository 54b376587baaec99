/*
 * verify_mpa.c - an FPDU as its sender built it (MPA-4, MPA-4.1, MPA-5.1, MPA-3.2).
 */
#include "verify.h"

#include <stdio.h>

#include "iw_proto.h"

static void applied(iw_check *out, const char *req)
{
	if (out->nrules < IW_CHECK_MAX_RULES)
		out->rules[out->nrules++] = req;
}

static bool broken(iw_check *out, const char *req, const char *detail, unsigned long long at)
{
	out->req = req;
	snprintf(out->detail, sizeof out->detail, detail, at);
	return false;
}

bool iw_verify_fpdu(const iw_fpdu *fp, iw_check *out)
{
	unsigned long long at = (unsigned long long)fp->start;
	out->nrules = 0;
	/* The decoder accepted the FPDU: its CRC (when on) and its markers' FPDUPTRs were held to
	 * the sender's rules already (a refusal is iw_verify_stream_req's). */
	if (fp->crc_checked)
		applied(out, "MPA-5.2-11");
	if (fp->nmarkers) {
		applied(out, "MPA-5.1-03");
		applied(out, "MPA-4.1-01"); /* a swapped marker would have been refused (iw_verify_stream_req) */
	}
	if (fp->pad_len)
		applied(out, "MPA-4-02");
	if (fp->notes & IW_NOTE_PAD_NONZERO)
		return broken(out, "MPA-4-02", "the DUT's FPDU at %llu has non-zero pad octets", at);
	if (fp->nmarkers)
		applied(out, "MPA-4.1-02");
	if (fp->notes & IW_NOTE_MARKER_RESERVED)
		return broken(out, "MPA-4.1-02", "a DUT marker in the FPDU at %llu has RESERVED set", at);
	if (fp->nmarkers)
		applied(out, "MPA-5.1-05");
	if (fp->notes & IW_NOTE_FPDUPTR_LOWBITS)
		return broken(out, "MPA-5.1-05", "a DUT marker in the FPDU at %llu has FPDUPTR low bits set", at);
	return true;
}

bool iw_verify_ulpdu_size(const iw_fpdu *fp, iw_check *out)
{
	out->nrules = 0;
	applied(out, "MPA-3.2-04");
	if (fp->ulpdu_length > IW_MPA_MULPDU_MAX) {
		out->req = "MPA-3.2-04";
		snprintf(out->detail, sizeof out->detail, "the DUT sent a ULPDU of %u octets, more than %u",
			 fp->ulpdu_length, IW_MPA_MULPDU_MAX);
		return false;
	}
	return true;
}

/* A marker the length chain disagrees with whose halves are the wrong way round: FPDUPTR 0 where
 * the distance back to the FPDU start was due, and that distance in the RESERVED half. The
 * sender did not keep the marker format (RESERVED, then FPDUPTR: MPA-4.1-01). */
static bool marker_swapped(const iw_fpdu *fp)
{
	for (size_t i = 0; fp && i < fp->nmarkers; i++) {
		const iw_marker_seen *m = &fp->markers[i];
		uint16_t want = (uint16_t)(m->pos - fp->start);
		if ((m->fpduptr & IW_MPA_FPDUPTR_MASK) == want)
			continue;
		return want != 0 && m->fpduptr == 0 && m->reserved == want;
	}
	return false;
}

const char *iw_verify_stream_req(const iw_violation *err, const iw_fpdu *fp)
{
	/* The decoder speaks for a receiver; what the DUT broke is the sender's rule. */
	if (err->ecode == IW_MPA_E_MARKER)
		return marker_swapped(fp) ? "MPA-4.1-01" : "MPA-5.1-03";
	return err->ecode == IW_MPA_E_CRC ? "MPA-5.2-11" : err->req;
}
