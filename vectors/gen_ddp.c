/*
 * gen_ddp.c - vectors for DDP (D0/D2, RFC 5041): headers (control octet, DV, reserved bits,
 * short headers, segmentation, zero-length messages) and the data sink's checks before
 * placement (§9.1 T1-T5 and U1-U5, §10.3 stream and PD association).
 */
#include <string.h>

#include "rdmap.h"
#include "vec_int.h"

static void add(vgen *g, const char *file, const char *desc, const char *reqs, const char *flags, vbuf *s,
		json_t *receiver)
{
	json_t *v = vg_new(g, desc, reqs, flags);
	vg_stream(v, 0, false, true, NULL, s->b, s->n);
	if (receiver)
		json_object_set_new(v, "receiver", receiver);
	vg_add(g, file, v);
	vb_free(s);
}

static json_t *stag(uint32_t st, uint64_t base, uint64_t len, const char *access)
{
	char a[24], b[24];
	return json_pack("{s:s, s:s, s:I, s:s}", "stag", vec_u64hex(st, a), "base_to", vec_u64hex(base, b), "length",
			 (json_int_t)len, "access", access);
}

/* The default receiver plus one tagged buffer: STag 0x1000, TO 0x10000, 4096 octets, rw. */
static json_t *rcv_one(void)
{
	return json_pack("{s:[o]}", "stags", stag(0x1000, 0x10000, 4096, "rw"));
}

void gen_ddp_headers(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_ddp_hdr h;
	const uint8_t *pat = vec_pattern(4096);

	/* requirements.md §5.7 with MULPDU 1442: a 2048-octet Send in 1424 + 624. */
	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, false);
	vb_seg(&s, &h, pat, 1424, NULL);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 1424, true);
	vb_seg(&s, &h, pat + 1424, 624, NULL);
	add(g, "ddp-headers", "A 2048-octet Send in two untagged segments for MULPDU 1442: control 0x01 then 0x41, MO 0 "
			      "then 1424, the same QN and MSN",
	    "DDP-7.2-05,DDP-6.1-03,DDP-6.1-04,DDP-6.3-12,DDP-6.3-11,DDP-6.1-F1", "", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x1000, 0x10000, false);
	vb_seg(&s, &h, pat, 1428, NULL);
	vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x1000, 0x10000 + 1428, true);
	vb_seg(&s, &h, pat + 1428, 620, NULL);
	add(g, "ddp-headers", "A 2048-octet RDMA Write in two tagged segments for MULPDU 1442: control 0x81 then 0xC1, TO "
			      "advancing by the payload (1428 + 620)",
	    "DDP-7.2-07,DDP-6.1-03,DDP-6.2-08,DDP-6.2-F1,DDP-6.1-F1", "", &s, rcv_one());

	vb_init(&s, p, false, true, 0);
	for (uint32_t msn = 1; msn <= 3; msn++)
		vb_send(&s, msn, 10 * msn);
	add(g, "ddp-headers", "Three Sends on QN 0 with MSN 1, 2, 3: MSNs start at 1 and increase by one",
	    "DDP-6.3-08,DDP-6.3-09,DDP-7.3-07", "", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 1424, true);
	vb_seg(&s, &h, pat + 1424, 624, NULL);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, false);
	vb_seg(&s, &h, pat, 1424, NULL);
	add(g, "ddp-headers", "The two segments of a Send in reverse order (MO 1424 with L first): placed out of order, "
			      "delivered once, when complete",
	    "DDP-7.3-04,DDP-7.4-01,DDP-7.4-02", "reordered", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 1424, true);
	vb_seg(&s, &h, pat + 1424, 624, NULL);
	add(g, "ddp-headers", "Only the last segment of a Send (MO 1424, L): never delivered, the message is incomplete",
	    "DDP-7.4-01", "incomplete-message", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, true);
	h.rsvd = 0xF;
	vb_seg(&s, &h, pat, 24, NULL);
	add(g, "ddp-headers", "A Send with all four DDP Rsvd bits set (control 0x7D with DV 1): not checked on receipt",
	    "DDP-6.1-08", "ddp-rsvd-bits", &s, NULL);

	for (unsigned dv = 0; dv < 4; dv++) {
		if (dv == p->ddp_version)
			continue;
		char d[160];
		vb_init(&s, p, false, true, 0);
		vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, true);
		h.dv = (uint8_t)dv;
		vb_seg(&s, &h, pat, 24, NULL);
		snprintf(d, sizeof d, "A Send with DDP version %u: invalid DDP version, untagged (0x2/0x06)", dv);
		add(g, "ddp-headers", d, "DDP-6.1-10,DDP-6.1-09,DDP-8.2.2-01", "ddp-version", &s, NULL);
		vb_init(&s, p, false, true, 0);
		vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x1000, 0x10000, true);
		h.dv = (uint8_t)dv;
		vb_seg(&s, &h, pat, 24, NULL);
		snprintf(d, sizeof d, "An RDMA Write with DDP version %u: invalid DDP version, tagged (0x1/0x04)", dv);
		add(g, "ddp-headers", d, "DDP-6.1-10,DDP-6.1-09", "ddp-version", &s, rcv_one());
	}

	/* Headers cut short (requirements.md A9). */
	uint8_t hb[18];
	size_t hl;
	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x1000, 0x10000, true);
	iw_ddp_hdr_encode(&h, hb, sizeof hb, &hl, NULL);
	vb_fpdu(&s, hb, 13, NULL, 0, NULL);
	add(g, "ddp-headers", "A ULPDU of 13 octets with T=1: one octet short of a tagged header (fatal, A9)",
	    "DDP-6.4-01,DDP-8.2.2-01", "short-header", &s, NULL);
	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, true);
	iw_ddp_hdr_encode(&h, hb, sizeof hb, &hl, NULL);
	vb_fpdu(&s, hb, 17, NULL, 0, NULL);
	add(g, "ddp-headers", "A ULPDU of 17 octets with T=0: one octet short of an untagged header (fatal, A9)",
	    "DDP-6.4-01,DDP-8.2.2-01", "short-header", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 0);
	add(g, "ddp-headers", "A zero-length Send: one segment of 18 octets, control 0x41; it consumes a buffer and is "
			      "delivered with length 0 (D2, requirements.md A27)",
	    "DDP-7.2-08", "zero-length", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0xFFFFFFFFu, UINT64_MAX, true);
	vb_seg(&s, &h, NULL, 0, NULL);
	add(g, "ddp-headers", "A zero-length RDMA Write to STag 0xFFFFFFFF at TO 2^64-1: STag and TO are not checked for "
			      "a zero-length tagged message",
	    "DDP-7.2-08,DDP-7.2-09,DDP-7.2-10", "zero-length", &s, NULL);

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, false);
	vb_seg(&s, &h, pat, 100, NULL);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 100, true);
	h.rsvdulp[4] = 0x5A;
	vb_seg(&s, &h, pat + 100, 100, NULL);
	add(g, "ddp-headers", "The two segments of one Send with different RsvdULP: the sink need not check this, "
			      "accepting and rejecting both conform",
	    "DDP-6.3-05,DDP-6.3-04", "rsvdulp-varies", &s, NULL);
}

void gen_ddp_placement(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_ddp_hdr h;
	const uint8_t *pat = vec_pattern(4096);
	char d[200];

	/* The receiver of the tagged vectors: STags with each property the checks look at. */
#define RCV_TAGGED()                                                                                             \
	json_pack("{s:[o, o, o, o, o, o]}", "stags", stag(0x1000, 0x10000, 4096, "rw"), stag(0x2000, 0, 4096, "r"), \
		  json_pack("{s:s, s:s, s:i, s:s, s:b}", "stag", "0x3000", "base_to", "0x0", "length", 4096, "access",   \
			    "rw", "valid", 0),                                                                     \
		  json_pack("{s:s, s:s, s:i, s:s, s:i}", "stag", "0x4000", "base_to", "0x0", "length", 4096, "access",   \
			    "rw", "stream", 2),                                                                    \
		  json_pack("{s:s, s:s, s:i, s:s, s:i}", "stag", "0x5000", "base_to", "0x0", "length", 4096, "access",   \
			    "rw", "pd", 2),                                                                        \
		  stag(0x6000, 0xFFFFFFFFFFFFF000ull, 4095, "rw"))

	static const struct {
		uint32_t stag;
		uint64_t to;
		size_t len;
		const char *desc, *reqs, *flags;
	} w[] = {
		{0x1000, 0x10000, 4096, "An RDMA Write filling the whole buffer (STag 0x1000, TO 0x10000, 4096 octets)",
		 "DDP-6.1-01,DDP-7.2-04", ""},
		{0x1000, 0x10000 + 4095, 1, "A 1-octet RDMA Write at the buffer's last octet", "DDP-6.2-09,DDP-10.1-01", ""},
		{0x9999, 0x10000, 16, "An RDMA Write to an STag never registered: Invalid STag (0x1/0x00)",
		 "DDP-9.1-T1,DDP-10.4-04", "invalid-stag"},
		{0x3000, 0, 16, "An RDMA Write to an invalidated STag: Invalid STag (0x1/0x00)", "DDP-9.1-T2,DDP-10.4-02",
		 "invalid-stag"},
		{0x1000, 0x10000 - 1, 16, "An RDMA Write starting one octet below the buffer: base or bounds (0x1/0x01)",
		 "DDP-9.1-T3", "bounds"},
		{0x1000, 0x10000 + 4096, 1, "A 1-octet RDMA Write just past the buffer: base or bounds (0x1/0x01)",
		 "DDP-9.1-T3", "bounds"},
		{0x1000, 0x10000 + 4096 - 10, 11,
		 "An RDMA Write of 11 octets at 10 before the buffer's end: base or bounds, and not one octet placed",
		 "DDP-9.1-T4,DDP-9.1-01,DDP-10.1-01", "bounds"},
		{0x6000, 0xFFFFFFFFFFFFFFF8ull, 16,
		 "An RDMA Write of 16 octets at TO 2^64-8: TO + length wraps (0x1/0x03; 0x1/0x01 is accepted too, A28)",
		 "DDP-9.1-T5", "to-wrap"},
		{0x4000, 0, 16, "An RDMA Write to an STag bound to another DDP stream (0x1/0x02)", "DDP-10.3-02",
		 "stag-not-associated"},
		{0x5000, 0, 16, "An RDMA Write to an STag of another protection domain (0x1/0x02)", "DDP-10.3-01",
		 "stag-not-associated"},
		{0x2000, 0, 16, "An RDMA Write to a read-only buffer: RDMAP access rights violation (0x0/0x1/0x02)",
		 "ARCH-2.2-F1,ARCH-3-02", "access-rights"},
	};
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		vb_init(&s, p, false, true, 0);
		vb_tagged_hdr(&s, &h, IW_OP_WRITE, w[i].stag, w[i].to, true);
		vb_seg(&s, &h, pat, w[i].len, NULL);
		add(g, "ddp-placement", w[i].desc, w[i].reqs, w[i].flags, &s, RCV_TAGGED());
	}

	vb_init(&s, p, false, true, 0);
	vb_tagged_hdr(&s, &h, IW_OP_WRITE, 0x9999, 0, true);
	vb_seg(&s, &h, pat, 16, NULL);
	vb_send(&s, 1, 24);
	add(g, "ddp-placement", "An invalid-STag Write, then a valid Send: after the error every segment is dropped "
				"silently", "DDP-9.1-03,DDP-9.1-T1", "invalid-stag", &s, RCV_TAGGED());

	/* Untagged: a receiver with small, few buffers and no reposting, so the checks show. */
#define RCV_SMALL(n)                                                                                             \
	json_pack("{s:b, s:[{s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]}", "repost", 0, "queues", "qn", 0,    \
		  "buffers", n, "size", 256, "qn", 1, "buffers", 4, "size", 64, "qn", 2, "buffers", 1, "size", 64)

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 100);
	add(g, "ddp-placement", "A 100-octet Send into a 256-octet buffer: a partly filled buffer is delivered with the "
				"message's length",
	    "DDP-3.2-F1,DDP-7.4-02", "", &s, RCV_SMALL(2));

	static const uint32_t qns[] = {3, 0xFFFFFFFFu};
	for (size_t i = 0; i < 2; i++) {
		vb_init(&s, p, false, true, 0);
		vb_untagged_hdr(&s, &h, IW_OP_SEND, qns[i], 1, 0, true);
		vb_seg(&s, &h, pat, 24, NULL);
		snprintf(d, sizeof d, "A Send on QN %u, which the stream does not use: Invalid QN (0x2/0x01)", qns[i]);
		add(g, "ddp-placement", d, "DDP-9.1-U1", "invalid-qn", &s, RCV_SMALL(2));
	}
	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, 3, 1, 0, true);
	vb_seg(&s, &h, NULL, 0, NULL);
	add(g, "ddp-placement", "A zero-length Send on QN 3: the sink's answer is implementation-defined (A27)",
	    "DDP-7.2-08,DDP-9.1-U1", "invalid-qn,zero-length", &s, RCV_SMALL(2));

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	vb_send(&s, 1, 24);
	add(g, "ddp-placement", "MSN 1 twice: the second is below the window (already completed), MSN range (0x2/0x03)",
	    "DDP-9.1-U5", "msn-range", &s, RCV_SMALL(2));

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 3, 24);
	add(g, "ddp-placement", "MSN 3 with two buffers posted: no buffer for it (0x2/0x02; 0x2/0x03 accepted too, A28)",
	    "DDP-9.1-U2,DDP-9.1-U5", "msn-no-buffer", &s, RCV_SMALL(2));

	vb_init(&s, p, false, true, 0);
	for (uint32_t msn = 1; msn <= 3; msn++)
		vb_send(&s, msn, 24);
	add(g, "ddp-placement", "Three Sends with two buffers posted and none reposted: the third finds no buffer",
	    "DDP-9.1-U2,DDP-3.2-F2", "msn-no-buffer", &s, RCV_SMALL(2));

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 256, true);
	vb_seg(&s, &h, pat, 1, NULL);
	add(g, "ddp-placement", "A Send segment at MO 256 into a 256-octet buffer: Invalid MO (0x2/0x04)", "DDP-9.1-U3",
	    "invalid-mo", &s, RCV_SMALL(2));

	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 200, true);
	vb_seg(&s, &h, pat, 100, NULL);
	add(g, "ddp-placement", "A Send segment at MO 200 with 100 octets into a 256-octet buffer: too long (0x2/0x05; "
				"0x2/0x04 accepted too, A28)",
	    "DDP-9.1-U4", "too-long", &s, RCV_SMALL(2));

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 300);
	add(g, "ddp-placement", "A 300-octet Send into a 256-octet buffer: message too long for the buffer",
	    "DDP-9.1-U4,DDP-3.2-F1", "too-long", &s, RCV_SMALL(2));
#undef RCV_SMALL
#undef RCV_TAGGED
}
