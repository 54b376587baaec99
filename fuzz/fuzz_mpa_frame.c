/*
 * fuzz_mpa_frame.c - MPA startup Request/Reply frames (suite/engine/mpa_frame.h, MR §6.1).
 *
 * Input: [profile][expect: bit 0 = Reply expected, else Request] [frame octets...]
 *
 * Invariants:
 *  - decode: IW_EINVAL exactly for a profile without frames; IW_ETRUNC exactly when fewer
 *    than 20 + PD_Length octets are there, with *frame_len the octets needed; on IW_OK every
 *    field is the octet it came from and the private data lies inside the input.
 *  - encode(decode(x)) gives x back octet for octet (PD_Length as received).
 *  - check: true iff no FATAL violation was listed; every FATAL one carries MPA code 4
 *    (MPA-6.1-R5, R8a, R9a, 6.1.1-07) and a requirement ID.
 *  - the header-only judgement the connection model makes (PD_Length 0 copy, MPA-7-06)
 *    rejects no header the full check accepts.
 */
#include <string.h>

#include "fuzz.h"
#include "iw_proto.h"
#include "mpa_frame.h"

static void check_list(const iw_viol_list *l, bool ok)
{
	size_t fatal = 0;
	for (size_t i = 0; i < l->n; i++) {
		const iw_violation *v = &l->v[i];
		FZ_CHECK(v->req && v->req[0], "violation %zu has no requirement ID", i);
		FZ_CHECK(memchr(v->detail, '\0', sizeof v->detail), "detail not terminated");
		if (v->kind == IW_VIOL_FATAL) {
			fatal++;
			FZ_CHECK(v->layer == IW_LAYER_LLP && v->ecode == IW_MPA_E_STARTUP,
				 "fatal frame defect %s with code %d/%d/%d, MPA code 4 expected", v->req, v->layer,
				 v->etype, v->ecode);
		}
	}
	FZ_CHECK(l->dropped || ok == (fatal == 0), "check returned %d with %zu fatal violations", ok, fatal);
}

int iw_fuzz_mpa_frame(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	const iw_profile *p = fz_profile(&f);
	enum iw_mpa_kind expect = (fz_u8(&f) & 1) ? IW_MPA_REPLY : IW_MPA_REQUEST;
	size_t len;
	const uint8_t *buf = fz_rest(&f, &len);

	iw_mpa_frame fr;
	size_t flen = 0;
	iw_err e;
	int rc = iw_mpa_frame_decode(p, buf, len, &fr, &flen, &e);
	if (!p->startup_frames) {
		FZ_CHECK(rc == IW_EINVAL, "profile %s has no frames, decode gave %d", p->name, rc);
		iw_violation vs[4];
		iw_viol_list l = { .v = vs, .cap = 4 };
		FZ_CHECK(!iw_mpa_frame_check(p, &fr, expect, &l), "a frame accepted under %s", p->name);
		return 0;
	}
	if (len < IW_MPA_FRAME_HDR_LEN) {
		FZ_CHECK(rc == IW_ETRUNC && flen == IW_MPA_FRAME_HDR_LEN, "short header: rc %d need %zu", rc, flen);
		return 0;
	}
	size_t pdl = (size_t)(buf[18] << 8 | buf[19]);
	FZ_CHECK(flen == IW_MPA_FRAME_HDR_LEN + pdl, "frame_len %zu for PD_Length %zu", flen, pdl);
	/* With the header in, the fields are there even when the private data is not. */
	FZ_CHECK(memcmp(fr.key, buf, IW_MPA_KEY_LEN) == 0, "key differs from octets 0-15");
	FZ_CHECK(fr.rev == buf[17] && fr.pd_length == pdl, "Rev/PD_Length differ from the octets");
	FZ_CHECK(fr.m == !!(buf[16] & IW_MPA_FLAG_M) && fr.c == !!(buf[16] & IW_MPA_FLAG_C) &&
			 fr.r == !!(buf[16] & IW_MPA_FLAG_R), "M/C/R differ from octet 16");
	if (len < flen) {
		FZ_CHECK(rc == IW_ETRUNC, "%zu of %zu octets decoded with rc %d", len, flen, rc);
		return 0;
	}
	FZ_CHECK(rc == IW_OK, "complete frame rejected: %s", e.msg);
	FZ_CHECK(fr.pd_len + (fr.has_irdord ? IW_MPA_IRDORD_LEN : 0) == pdl, "pd_len %zu + block for PD_Length %zu",
		 fr.pd_len, pdl);
	FZ_CHECK(fr.pd >= buf + IW_MPA_FRAME_HDR_LEN && fr.pd + fr.pd_len <= buf + flen, "pd outside the frame");
	FZ_CHECK(!fr.has_irdord || (p->enhanced && fr.enhanced), "IRD/ORD block outside RFC 6581 Enhanced");
	/* 0x10 is the Enhanced flag only in an RFC 6581 frame of Rev 2, a Res bit elsewhere. */
	unsigned resmask = iw_mpa_frame_enhanced(p, buf[16], buf[17]) ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT;
	FZ_CHECK(fr.res == (buf[16] & resmask), "Res 0x%x from flags 0x%x", fr.res, buf[16]);

	/* Round trip: the frame as decoded encodes to the same octets. */
	uint8_t *out = malloc(flen);
	FZ_CHECK(out != NULL, "out of memory");
	size_t olen = 0;
	FZ_CHECK(iw_mpa_frame_size(&fr) == flen, "size %zu for a %zu-octet frame", iw_mpa_frame_size(&fr), flen);
	rc = iw_mpa_frame_encode(&fr, out, flen, &olen, &e);
	FZ_CHECK(rc == IW_OK && olen == flen, "re-encode: rc %d len %zu: %s", rc, olen, e.msg);
	FZ_CHECK(memcmp(out, buf, flen) == 0, "re-encoded frame differs");
	free(out);

	iw_violation vs[16];
	iw_viol_list l = { .v = vs, .cap = 16 };
	bool ok = iw_mpa_frame_check(p, &fr, expect, &l);
	check_list(&l, ok);

	/* The model's early check: header fields with the private data not yet there. */
	uint8_t hdr[IW_MPA_FRAME_HDR_LEN];
	memcpy(hdr, buf, sizeof hdr);
	hdr[18] = hdr[19] = 0;
	iw_mpa_frame h;
	FZ_CHECK(iw_mpa_frame_decode(p, hdr, sizeof hdr, &h, &flen, NULL) == IW_OK, "header copy does not decode");
	h.pd_length = (uint16_t)pdl;
	h.has_irdord = p->enhanced && h.enhanced && pdl >= IW_MPA_IRDORD_LEN;
	h.pd = NULL;
	h.pd_len = 0;
	iw_violation hv[16];
	iw_viol_list hl = { .v = hv, .cap = 16 };
	bool hok = iw_mpa_frame_check(p, &h, expect, &hl);
	check_list(&hl, hok);
	FZ_CHECK(hok || !ok, "the header check rejects (%s) a frame the full check accepts", hv[0].req);
	return 0;
}
