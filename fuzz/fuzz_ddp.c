/*
 * fuzz_ddp.c - DDP segment headers and the segmenter (suite/engine/ddp.h; D0/D2 §6, §7.2).
 *
 * Input: [mode] then
 *   mode even: a ULPDU, decoded as a DDP header;
 *   mode odd:  [control][rsvdulp (5)][stag (4)][to (8)][qn (4)][msn (4)][msg_len (4)][mulpdu (2)]
 *              for the segmenter.
 *
 * Invariants:
 *  - decode: IW_ETRUNC exactly when the ULPDU is shorter than the header its T bit announces
 *    (14 for an empty one); otherwise every field is its octets, and encoding the header
 *    gives the same 14 or 18 octets back.
 *  - segmenter: IW_EINVAL exactly for MULPDU <= header length or a message of 2^32 octets or
 *    more; otherwise the segments cover the message in order without gaps, each fits MULPDU,
 *    MO (untagged) or TO (tagged, modulo 2^64) advances with the offset, L is set on the last
 *    segment only, a zero-length message is one segment, and every segment but the last is full.
 */
#include <string.h>

#include "ddp.h"
#include "fuzz.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void header(const uint8_t *u, size_t len)
{
	iw_ddp_hdr h;
	size_t hl = 0;
	iw_err e;
	int rc = iw_ddp_hdr_decode(u, len, &h, &hl, &e);
	if (len == 0) {
		FZ_CHECK(rc == IW_ETRUNC && hl == IW_DDP_TAGGED_HDR_LEN, "empty ULPDU: rc %d need %zu", rc, hl);
		return;
	}
	bool tagged = u[0] & IW_DDP_T;
	size_t want = tagged ? IW_DDP_TAGGED_HDR_LEN : IW_DDP_UNTAGGED_HDR_LEN;
	FZ_CHECK(hl == want, "header length %zu, T bit says %zu", hl, want);
	if (len < want) {
		FZ_CHECK(rc == IW_ETRUNC, "%zu-octet ULPDU decoded with rc %d", len, rc);
		return;
	}
	FZ_CHECK(rc == IW_OK, "complete header rejected: %s", e.msg);
	FZ_CHECK(h.tagged == tagged && h.last == !!(u[0] & IW_DDP_L) && h.rsvd == ((u[0] & IW_DDP_RSVD_MASK) >> 2) &&
			 h.dv == (u[0] & IW_DDP_DV_MASK), "control octet 0x%02x split wrongly", u[0]);
	if (tagged) {
		FZ_CHECK(h.rsvdulp[0] == u[1] && h.stag == be32(u + 2) && h.to == ((uint64_t)be32(u + 6) << 32 | be32(u + 10)),
			 "tagged fields differ from the octets");
	} else {
		FZ_CHECK(memcmp(h.rsvdulp, u + 1, 5) == 0 && h.qn == be32(u + 6) && h.msn == be32(u + 10) &&
				 h.mo == be32(u + 14), "untagged fields differ from the octets");
	}
	uint8_t out[IW_DDP_UNTAGGED_HDR_LEN];
	size_t olen = 0;
	FZ_CHECK(iw_ddp_hdr_encode(&h, out, want - 1, &olen, NULL) == IW_ENOSPC, "encode into a short buffer");
	rc = iw_ddp_hdr_encode(&h, out, sizeof out, &olen, &e);
	FZ_CHECK(rc == IW_OK && olen == want, "re-encode: rc %d len %zu", rc, olen);
	FZ_CHECK(memcmp(out, u, want) == 0, "re-encoded header differs");
}

static void segmenter(fz *f)
{
	uint8_t c = fz_u8(f);
	iw_ddp_hdr base;
	memset(&base, 0, sizeof base);
	base.tagged = c & IW_DDP_T;
	base.last = c & IW_DDP_L;
	base.rsvd = (uint8_t)((c & IW_DDP_RSVD_MASK) >> 2);
	base.dv = c & IW_DDP_DV_MASK;
	for (int i = 0; i < 5; i++)
		base.rsvdulp[i] = fz_u8(f);
	base.stag = fz_u32(f);
	base.to = fz_u64(f);
	base.qn = fz_u32(f);
	base.msn = fz_u32(f);
	base.mo = fz_u32(f);
	uint32_t m32 = fz_u32(f);
	size_t mulpdu = fz_u16(f);
	size_t hl = iw_ddp_hdr_len(base.tagged);
	/* Message lengths up to 2^32 + a little, so the limit is crossed both ways; the loop
	 * below is bounded by keeping the segment count small. */
	size_t msg_len = (size_t)m32;
	if (c & 0x04)
		msg_len += (size_t)1 << 32;
	iw_ddp_segmenter s;
	iw_err e;
	int rc = iw_ddp_seg_init(&s, &base, msg_len, mulpdu, &e);
	if (mulpdu <= hl || (uint64_t)msg_len > UINT32_MAX) {
		FZ_CHECK(rc == IW_EINVAL, "MULPDU %zu, message %zu accepted", mulpdu, msg_len);
		return;
	}
	FZ_CHECK(rc == IW_OK, "seg_init rejected MULPDU %zu message %zu: %s", mulpdu, msg_len, e.msg);
	size_t room = mulpdu - hl;
	if (msg_len / room > 2000)
		msg_len = room * (msg_len % 2000) + msg_len % room;
	FZ_CHECK(iw_ddp_seg_init(&s, &base, msg_len, mulpdu, &e) == IW_OK, "seg_init: %s", e.msg);
	size_t expect_off = 0, n = 0;
	iw_ddp_hdr h;
	size_t off, sl;
	bool last = false;
	while (iw_ddp_seg_next(&s, &h, &off, &sl)) {
		FZ_CHECK(!last, "a segment after the L segment");
		FZ_CHECK(off == expect_off, "segment at %zu, expected %zu", off, expect_off);
		FZ_CHECK(sl + hl <= mulpdu, "segment of %zu + %zu octets over MULPDU %zu", sl, hl, mulpdu);
		FZ_CHECK(off + sl <= msg_len, "segment past the message end");
		last = h.last;
		FZ_CHECK(h.last == (off + sl == msg_len), "L %d at %zu + %zu of %zu", h.last, off, sl, msg_len);
		FZ_CHECK(h.last || sl == room, "a short segment before the last");
		FZ_CHECK(h.tagged == base.tagged && h.dv == base.dv && h.rsvd == base.rsvd &&
				 memcmp(h.rsvdulp, base.rsvdulp, 5) == 0, "base fields changed");
		if (h.tagged)
			FZ_CHECK(h.to == base.to + (uint64_t)off && h.stag == base.stag, "TO/STag of segment %zu", n);
		else
			FZ_CHECK(h.mo == (uint32_t)off && h.qn == base.qn && h.msn == base.msn, "MO/QN/MSN of segment %zu",
				 n);
		expect_off += sl;
		n++;
		FZ_CHECK(n <= msg_len / room + 1, "%zu segments for %zu octets", n, msg_len);
	}
	FZ_CHECK(last && expect_off == msg_len, "segments cover %zu of %zu octets", expect_off, msg_len);
	FZ_CHECK(!iw_ddp_seg_next(&s, &h, &off, &sl), "a segment after the end");
}

int iw_fuzz_ddp(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	uint8_t mode = fz_u8(&f);
	if (mode & 1) {
		segmenter(&f);
	} else {
		size_t len;
		const uint8_t *u = fz_rest(&f, &len);
		header(u, len);
	}
	return 0;
}
