/*
 * test_ddp.c - DDP headers and segmentation: golden vectors of requirements.md §5.7/§5.8,
 * truncation, and a segmentation property test (DDP-7.2-01..08, DDP-6.1-03/04).
 */
#include <stdlib.h>

#include "check.h"
#include "ddp.h"

static iw_ddp_hdr untagged_base(uint32_t qn, uint32_t msn)
{
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.dv = IW_DDP_VERSION;
	h.qn = qn;
	h.msn = msn;
	return h;
}

static iw_ddp_hdr tagged_base(uint32_t stag, uint64_t to)
{
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = true;
	h.dv = IW_DDP_VERSION;
	h.stag = stag;
	h.to = to;
	return h;
}

/* Cuts msg_len at mulpdu and checks each segment's payload length and encoded header. */
static void check_segments(const iw_ddp_hdr *base, size_t msg_len, size_t mulpdu, const size_t *lens,
			   const char *const *hdrs, size_t nseg)
{
	iw_ddp_segmenter sg;
	iw_ddp_hdr h;
	size_t off, len, i = 0, expect_off = 0;
	iw_err e;

	CHECK_EQ(iw_ddp_seg_init(&sg, base, msg_len, mulpdu, &e), IW_OK);
	while (iw_ddp_seg_next(&sg, &h, &off, &len)) {
		CHECK(i < nseg);
		if (i >= nseg)
			return;
		uint8_t want[18], got[18];
		size_t n = check_unhex(hdrs[i], want, sizeof want), got_len = 0;
		CHECK_EQ(iw_ddp_hdr_encode(&h, got, sizeof got, &got_len, &e), IW_OK);
		CHECK_EQ(got_len, n);
		CHECK_MEM(got, want, n);
		CHECK_EQ(len, lens[i]);
		CHECK_EQ(off, expect_off);
		CHECK(got_len + len <= mulpdu);
		expect_off += len;
		i++;
	}
	CHECK_EQ(i, nseg);
	CHECK_EQ(expect_off, msg_len);
}

/* requirements.md §5.7, DDP-7.2-F1: 2048 octets at MULPDU 1500 -> 1482 + 566. */
TEST(ddp_golden_untagged_mulpdu_1500)
{
	iw_ddp_hdr b = untagged_base(0, 1);
	const size_t lens[] = { 1482, 566 };
	const char *hdrs[] = {
		"01 00 00 00 00 00  00 00 00 00  00 00 00 01  00 00 00 00",
		"41 00 00 00 00 00  00 00 00 00  00 00 00 01  00 00 05 CA",
	};
	check_segments(&b, 2048, 1500, lens, hdrs, 2);
}

/* DDP-7.2-F2: tagged from TO 16384 -> 1486 + 562, second TO 17870 = 0x45CE. */
TEST(ddp_golden_tagged_mulpdu_1500)
{
	iw_ddp_hdr b = tagged_base(0x12345678, 16384);
	const size_t lens[] = { 1486, 562 };
	const char *hdrs[] = {
		"81 00  12 34 56 78  00 00 00 00 00 00 40 00",
		"C1 00  12 34 56 78  00 00 00 00 00 00 45 CE",
	};
	check_segments(&b, 2048, 1500, lens, hdrs, 2);
}

/* §5.7: the MPA-realistic MULPDU 1442 (EMSS 1460 without markers). */
TEST(ddp_golden_untagged_mulpdu_1442)
{
	iw_ddp_hdr b = untagged_base(0, 1);
	const size_t lens[] = { 1424, 624 };
	const char *hdrs[] = {
		"01 00 00 00 00 00  00 00 00 00  00 00 00 01  00 00 00 00",
		"41 00 00 00 00 00  00 00 00 00  00 00 00 01  00 00 05 90",
	};
	check_segments(&b, 2048, 1442, lens, hdrs, 2);
}

TEST(ddp_golden_tagged_mulpdu_1442)
{
	iw_ddp_hdr b = tagged_base(0x12345678, 16384);
	const size_t lens[] = { 1428, 620 };
	const char *hdrs[] = {
		"81 00  12 34 56 78  00 00 00 00 00 00 40 00",
		"C1 00  12 34 56 78  00 00 00 00 00 00 45 94",   /* 16384 + 1428 = 17812 */
	};
	check_segments(&b, 2048, 1442, lens, hdrs, 2);
}

/* §5.8 and DDP-6.1-F1: control octets with DV 1, and the seed dumps' DV 0. */
TEST(ddp_control_octets)
{
	static const struct { bool t, l; uint8_t dv, want; } rows[] = {
		{ false, false, 1, 0x01 }, { false, true, 1, 0x41 }, { true, false, 1, 0x81 }, { true, true, 1, 0xC1 },
		{ false, false, 0, 0x00 }, { false, true, 0, 0x40 }, { true, false, 0, 0x80 }, { true, true, 0, 0xC0 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		iw_ddp_hdr h, back;
		uint8_t out[18];
		size_t n = 0, hl = 0;
		memset(&h, 0, sizeof h);
		h.tagged = rows[i].t;
		h.last = rows[i].l;
		h.dv = rows[i].dv;
		CHECK_EQ(iw_ddp_hdr_encode(&h, out, sizeof out, &n, NULL), IW_OK);
		CHECK_EQ(out[0], rows[i].want);
		CHECK_EQ(n, rows[i].t ? 14 : 18);
		CHECK_EQ(iw_ddp_hdr_decode(out, n, &back, &hl, NULL), IW_OK);
		CHECK_EQ(back.tagged, rows[i].t);
		CHECK_EQ(back.last, rows[i].l);
		CHECK_EQ(back.dv, rows[i].dv);
		CHECK_EQ(hl, n);
	}
}

/* DDP-6.1-08: Rsvd is read back as sent; judging it is not the decoder's business. */
TEST(ddp_decode_keeps_reserved_bits)
{
	uint8_t in[18] = { 0x7D, 0x43, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 2, 0x80, 0, 0, 1, 0, 0, 1, 0 };
	iw_ddp_hdr h;
	size_t hl = 0;
	CHECK_EQ(iw_ddp_hdr_decode(in, sizeof in, &h, &hl, NULL), IW_OK);
	CHECK(!h.tagged);
	CHECK(h.last);
	CHECK_EQ(h.rsvd, 0x0F);
	CHECK_EQ(h.dv, 1);
	CHECK_EQ(h.rsvdulp[0], 0x43);
	CHECK_EQ(h.rsvdulp[4], 0xDD);
	CHECK_EQ(h.qn, 2);
	CHECK_EQ(h.msn, 0x80000001u);
	CHECK_EQ(h.mo, 256);
	CHECK_EQ(hl, 18);
}

static bool same_hdr(const iw_ddp_hdr *a, const iw_ddp_hdr *b)
{
	return a->tagged == b->tagged && a->last == b->last && a->rsvd == b->rsvd && a->dv == b->dv &&
	       memcmp(a->rsvdulp, b->rsvdulp, sizeof a->rsvdulp) == 0 && a->stag == b->stag && a->to == b->to &&
	       a->qn == b->qn && a->msn == b->msn && a->mo == b->mo;
}

TEST(ddp_header_roundtrip_random)
{
	srand(7);
	for (int i = 0; i < 2000; i++) {
		iw_ddp_hdr h, back;
		uint8_t out[18];
		size_t n = 0;
		memset(&h, 0, sizeof h);
		h.tagged = rand() & 1;
		h.last = rand() & 1;
		h.rsvd = (uint8_t)(rand() & 0x0F);
		h.dv = (uint8_t)(rand() & 3);
		for (int k = 0; k < (h.tagged ? 1 : 5); k++)
			h.rsvdulp[k] = (uint8_t)rand();
		if (h.tagged) {
			h.stag = (uint32_t)rand() << 16 ^ (uint32_t)rand();
			h.to = (uint64_t)rand() << 40 ^ (uint64_t)rand() << 20 ^ (uint64_t)rand();
		} else {
			h.qn = (uint32_t)rand() << 16 ^ (uint32_t)rand();
			h.msn = (uint32_t)rand() << 16 ^ (uint32_t)rand();
			h.mo = (uint32_t)rand() << 16 ^ (uint32_t)rand();
		}
		CHECK_EQ(iw_ddp_hdr_encode(&h, out, sizeof out, &n, NULL), IW_OK);
		CHECK_EQ(iw_ddp_hdr_decode(out, n, &back, NULL, NULL), IW_OK);
		CHECK(same_hdr(&h, &back));
	}
}

/* DDP-6.4-01: every prefix of a header is a clean IW_ETRUNC naming the length needed. */
TEST(ddp_decode_truncated_prefixes)
{
	uint8_t tagged[14] = { 0xC1, 0x40, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 9 };
	uint8_t untagged[18] = { 0x41, 0x43 };
	iw_ddp_hdr h;
	size_t hl;
	iw_err e;

	hl = 99;
	CHECK_EQ(iw_ddp_hdr_decode(tagged, 0, &h, &hl, &e), IW_ETRUNC);
	CHECK_EQ(hl, 14);
	CHECK(strstr(e.msg, "empty") != NULL);
	for (size_t n = 1; n < 14; n++) {
		hl = 0;
		CHECK_EQ(iw_ddp_hdr_decode(tagged, n, &h, &hl, &e), IW_ETRUNC);
		CHECK_EQ(hl, 14);
	}
	for (size_t n = 1; n < 18; n++) {
		hl = 0;
		CHECK_EQ(iw_ddp_hdr_decode(untagged, n, &h, &hl, &e), IW_ETRUNC);
		CHECK_EQ(hl, 18);
	}
	CHECK_EQ(iw_ddp_hdr_decode(tagged, 14, &h, &hl, &e), IW_OK);
	CHECK_EQ(h.stag, 0x01020304);
	CHECK_EQ(h.to, 9);
	CHECK_EQ(iw_ddp_hdr_decode(untagged, 18, &h, NULL, NULL), IW_OK);
}

TEST(ddp_encode_rejects_bad_fields_and_small_buffers)
{
	iw_ddp_hdr h = tagged_base(1, 2);
	uint8_t out[18];
	iw_err e;

	CHECK_EQ(iw_ddp_hdr_encode(&h, out, 13, NULL, &e), IW_ENOSPC);
	CHECK_EQ(iw_ddp_hdr_encode(&h, out, 14, NULL, &e), IW_OK);
	h = untagged_base(0, 1);
	CHECK_EQ(iw_ddp_hdr_encode(&h, out, 17, NULL, &e), IW_ENOSPC);
	CHECK_EQ(iw_ddp_hdr_encode(&h, out, 18, NULL, &e), IW_OK);
	h.dv = 4;
	CHECK_EQ(iw_ddp_hdr_encode(&h, out, 18, NULL, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "DV 4") != NULL);
	h.dv = 1;
	h.rsvd = 16;
	CHECK_EQ(iw_ddp_hdr_encode(&h, out, 18, NULL, &e), IW_EINVAL);
}

/* DDP-7.2-08: a zero-length message is exactly one segment, with L, of either model. */
TEST(ddp_zero_length_message_is_one_segment)
{
	for (int t = 0; t < 2; t++) {
		iw_ddp_hdr b = t ? tagged_base(0xFFFFFFFF, 77) : untagged_base(0, 5), h;
		iw_ddp_segmenter sg;
		size_t off = 9, len = 9;
		CHECK_EQ(iw_ddp_seg_init(&sg, &b, 0, 1442, NULL), IW_OK);
		CHECK(iw_ddp_seg_next(&sg, &h, &off, &len));
		CHECK(h.last);
		CHECK_EQ(off, 0);
		CHECK_EQ(len, 0);
		if (t)
			CHECK_EQ(h.to, 77);
		else
			CHECK_EQ(h.mo, 0);
		CHECK(!iw_ddp_seg_next(&sg, &h, &off, &len));
	}
}

/* A message that is an exact multiple of the segment payload gets no empty trailing segment. */
TEST(ddp_exact_multiple_has_no_empty_tail)
{
	iw_ddp_hdr b = untagged_base(0, 1), h;
	iw_ddp_segmenter sg;
	size_t off, len, n = 0;
	CHECK_EQ(iw_ddp_seg_init(&sg, &b, 2 * 1482, 1500, NULL), IW_OK);
	while (iw_ddp_seg_next(&sg, &h, &off, &len)) {
		n++;
		CHECK_EQ(len, 1482);
		CHECK_EQ(h.last, n == 2);
	}
	CHECK_EQ(n, 2);
}

TEST(ddp_seg_init_rejects_mulpdu_without_room)
{
	iw_ddp_hdr u = untagged_base(0, 1), t = tagged_base(1, 0), h;
	iw_ddp_segmenter sg;
	size_t off, len;
	iw_err e;

	CHECK_EQ(iw_ddp_seg_init(&sg, &u, 10, 18, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "MULPDU 18") != NULL);
	CHECK_EQ(iw_ddp_seg_init(&sg, &u, 10, 0, &e), IW_EINVAL);
	CHECK_EQ(iw_ddp_seg_init(&sg, &t, 10, 14, &e), IW_EINVAL);
	CHECK_EQ(iw_ddp_seg_init(&sg, &t, 10, 15, &e), IW_OK);     /* one payload octet per segment */
	size_t n = 0;
	while (iw_ddp_seg_next(&sg, &h, &off, &len)) {
		CHECK_EQ(len, 1);
		CHECK_EQ(h.to, n);
		n++;
	}
	CHECK_EQ(n, 10);
#if SIZE_MAX > UINT32_MAX
	CHECK_EQ(iw_ddp_seg_init(&sg, &u, (size_t)UINT32_MAX + 1, 1500, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "DDP-7.2-02") != NULL);
#endif
	CHECK_EQ(iw_ddp_seg_init(&sg, &u, UINT32_MAX, 1500, &e), IW_OK);
}

/* The segmenter puts on the wire what the ULP asked; a TO past 2^64 wraps and the sink's T5
 * check (DDP-9.1-T5) is what catches it. */
TEST(ddp_tagged_to_wraps_modulo_2_64)
{
	iw_ddp_hdr b = tagged_base(1, 0xFFFFFFFFFFFFFFF8ull), h;
	iw_ddp_segmenter sg;
	size_t off, len;
	CHECK_EQ(iw_ddp_seg_init(&sg, &b, 16, 14 + 8, NULL), IW_OK);
	CHECK(iw_ddp_seg_next(&sg, &h, &off, &len));
	CHECK_EQ(h.to, 0xFFFFFFFFFFFFFFF8ull);
	CHECK(iw_ddp_seg_next(&sg, &h, &off, &len));
	CHECK_EQ(h.to, 0);
	CHECK(h.last);
}

/* Property (DDP-7.2-01/03/05/07, DDP-6.1-03/04): for random lengths and MULPDUs, segments
 * cover the message exactly once, in order, each fits the MULPDU, L only on the last, and
 * every segment but the last is full. */
TEST(ddp_segmentation_property)
{
	srand(12345);
	for (int iter = 0; iter < 3000; iter++) {
		bool tagged = rand() & 1;
		size_t hl = tagged ? 14 : 18;
		size_t msg_len = (iter % 10 == 0) ? 0 : (size_t)(rand() % 20000);
		size_t mulpdu = hl + 1 + (size_t)(rand() % 3000);
		uint64_t to0 = (uint64_t)rand() << 20;
		iw_ddp_hdr b = tagged ? tagged_base(0xABCD0000u + (uint32_t)iter, to0) : untagged_base(0, (uint32_t)iter), h;
		b.rsvdulp[0] = 0x43;
		iw_ddp_segmenter sg;
		size_t off, len, covered = 0, n = 0, room = mulpdu - hl;
		bool seen_last = false, ok = true;

		CHECK_EQ(iw_ddp_seg_init(&sg, &b, msg_len, mulpdu, NULL), IW_OK);
		while (iw_ddp_seg_next(&sg, &h, &off, &len)) {
			n++;
			ok &= !seen_last;                       /* nothing after the L segment */
			ok &= off == covered;                   /* in order, no gap, no overlap */
			ok &= hl + len <= mulpdu;
			ok &= h.last == (off + len == msg_len);
			ok &= h.last || len == room;
			ok &= h.tagged == tagged && h.rsvdulp[0] == 0x43 && h.dv == IW_DDP_VERSION;
			if (tagged)
				ok &= h.to == to0 + off && h.stag == b.stag;
			else
				ok &= h.mo == off && h.msn == b.msn && h.qn == 0;
			seen_last = h.last;
			covered += len;
			if (n > msg_len + 1)
				break;
		}
		ok &= seen_last && covered == msg_len;
		ok &= n == (msg_len == 0 ? 1 : (msg_len + room - 1) / room);
		if (!ok) {
			check_fail(__FILE__, __LINE__, "iteration %d: %s message of %zu octets at MULPDU %zu cut wrong",
				   iter, tagged ? "tagged" : "untagged", msg_len, mulpdu);
			break;
		}
	}
}
