/*
 * test_verify.c - the verifiers on their own (suite/verify/): recorded DUT octets, built by the
 * engine and then broken in one field, go through the decoder and the verifiers, and each must
 * come out on the requirement that field's rule carries.
 */
#include "check.h"

#include "crc32c.h"
#include "ddp.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "rdmap.h"
#include "verify.h"

static const iw_profile *P(void) { return iw_profile_get(IW_PROFILE_RFC5044); }

/* 120 payload octets: a segment that is not its message's last should be a ULPDU of at least 128
 * (MPA-5.3.2-04), which a header and these make. */
#define B10 "0123456789"
#define BIG B10 B10 B10 B10 B10 B10 B10 B10 B10 B10 B10 B10
#define BIGLEN 120

/* One untagged segment's ULPDU: header (QN, MSN, MO, L) then payload. */
static size_t untagged(uint8_t *u, unsigned opcode, uint32_t qn, uint32_t msn, uint32_t mo, bool last, const char *pl)
{
	iw_ddp_hdr h = {.tagged = false, .last = last, .dv = P()->ddp_version, .qn = qn, .msn = msn, .mo = mo};
	h.rsvdulp[0] = iw_rdmap_ctrl(P()->rdmap_version, opcode);
	size_t n;
	CHECK_EQ(iw_ddp_hdr_encode(&h, u, IW_DDP_UNTAGGED_HDR_LEN, &n, NULL), IW_OK);
	memcpy(u + n, pl, strlen(pl));
	return n + strlen(pl);
}

static size_t tagged(uint8_t *u, uint32_t stag, uint64_t to, bool last, const char *pl)
{
	iw_ddp_hdr h = {.tagged = true, .last = last, .dv = P()->ddp_version, .stag = stag, .to = to};
	h.rsvdulp[0] = iw_rdmap_ctrl(P()->rdmap_version, IW_OP_WRITE);
	size_t n;
	CHECK_EQ(iw_ddp_hdr_encode(&h, u, IW_DDP_TAGGED_HDR_LEN, &n, NULL), IW_OK);
	memcpy(u + n, pl, strlen(pl));
	return n + strlen(pl);
}

/* Feeds a sequence of ULPDUs to a fresh source; returns the requirement of the first broken
 * rule, or "" when every segment holds. */
static const char *judge(uint8_t u[][256], const size_t *len, size_t n)
{
	static iw_check chk;
	iw_source s;
	iw_source_init(&s);
	for (size_t i = 0; i < n; i++) {
		iw_rdmap_msg m;
		iw_violation v;
		CHECK(iw_rdmap_parse(P(), u[i], len[i], &m, &v));
		if (!iw_verify_segment(&s, P(), &m, &chk))
			return chk.req;
	}
	return "";
}

TEST(verify_segments_of_a_conforming_source)
{
	uint8_t u[4][256];
	size_t len[4];
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, false, BIG);
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, BIGLEN, true, "efg");
	len[2] = tagged(u[2], 7, 0x1000, false, BIG);
	len[3] = tagged(u[3], 7, 0x1000 + BIGLEN, true, "z");
	CHECK_STR(judge(u, len, 4), "");
	/* The next Send on QN 0 must carry MSN 2. */
	len[2] = untagged(u[2], IW_OP_SEND, 0, 2, 0, true, "h");
	CHECK_STR(judge(u, len, 3), "");
}

TEST(verify_segment_rules_each_on_its_requirement)
{
	uint8_t u[2][256];
	size_t len[2];
	len[0] = untagged(u[0], IW_OP_SEND, 0, 2, 0, true, "a");
	CHECK_STR(judge(u, len, 1), "DDP-6.3-09"); /* the first MSN is 1 */

	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, false, BIG);
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, 3, true, "e");
	CHECK_STR(judge(u, len, 2), "DDP-7.2-05"); /* MO 3 after 120 octets */

	len[1] = untagged(u[1], IW_OP_SEND, 0, 2, BIGLEN, true, "e");
	CHECK_STR(judge(u, len, 2), "DDP-6.3-11"); /* MSN changed within the message */

	len[0] = tagged(u[0], 7, 0x1000, false, BIG);
	len[1] = tagged(u[1], 8, 0x1000 + BIGLEN, true, "z");
	CHECK_STR(judge(u, len, 2), "DDP-6.2-08"); /* STag changed */
	len[1] = tagged(u[1], 7, 0x1000 + BIGLEN - 1, true, "z");
	CHECK_STR(judge(u, len, 2), "DDP-7.2-07"); /* TO is not initial TO + 120 */

	/* A message's non-last segment below 128 octets: DDP should fill MULPDU, never below 128
	 * (MPA-5.3.2-04, a SHOULD: it may post any size, MPA-3.2-05); its last may be shorter. */
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, false, "abcd");
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, 4, true, "e");
	CHECK_STR(judge(u, len, 2), "MPA-5.3.2-04");

	/* One more segment of MSN 1 after its L=1 segment (DDP-6.1-05), not a wrong new MSN. */
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, true, "abcd");
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, 4, true, "e");
	CHECK_STR(judge(u, len, 2), "DDP-6.1-05");
	len[1] = untagged(u[1], IW_OP_SEND, 0, 3, 0, true, "e");
	CHECK_STR(judge(u, len, 2), "DDP-6.3-08");

	/* The L=1 segment ahead of the octets before it (posted before a middle segment): DDP-6.1-05,
	 * untagged and tagged; an MO or TO short of the octets so far stays DDP-7.2-05/07. */
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, false, BIG);
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, 2 * BIGLEN, true, "e");
	CHECK_STR(judge(u, len, 2), "DDP-6.1-05");
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, BIGLEN - 1, true, "e");
	CHECK_STR(judge(u, len, 2), "DDP-7.2-05");
	len[0] = tagged(u[0], 7, 0x1000, false, BIG);
	len[1] = tagged(u[1], 7, 0x1000 + 2 * BIGLEN, true, "z");
	CHECK_STR(judge(u, len, 2), "DDP-6.1-05");
	len[0] = tagged(u[0], 7, 0x1000, false, BIG);
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, 0, true, "z");
	CHECK_STR(judge(u, len, 2), "DDP-6.1-03"); /* a Send began inside a Write */

	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, true, "a");
	u[0][0] |= 0x04; /* a reserved bit of the control octet */
	CHECK_STR(judge(u, len, 1), "DDP-6.1-08");
	u[0][0] &= (uint8_t)~0x04;
	u[0][0] ^= 0x01; /* DV */
	CHECK_STR(judge(u, len, 1), "DDP-6.1-09");
	u[0][0] ^= 0x01;
	u[0][IW_DDP_OFF_RSVDULP + 2] = 0x99; /* the RDMAP reserved word of a Send */
	CHECK_STR(judge(u, len, 1), "DDP-6.3-02");
}

/* An FPDU decoded from octets the engine built, one octet then changed. */
static iw_violation decode(uint8_t *fpdu, size_t n, iw_fpdu *fp, enum iw_rx_status *st)
{
	static iw_mpa_rx rx;
	iw_mpa_rx_init(&rx, P(), false, true);
	iw_violation v;
	memset(&v, 0, sizeof v);
	size_t used;
	*st = iw_mpa_rx_push(&rx, fpdu, n, &used, fp, &v);
	return v;
}

TEST(verify_fpdu_and_stream_requirements)
{
	uint8_t u[64], out[96];
	size_t ul = untagged(u, IW_OP_SEND, 0, 1, 0, true, "abcde"); /* 23 octets: pad 3 */
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, P(), false, true);
	size_t n;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, ul, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
	iw_fpdu fp;
	enum iw_rx_status st;
	iw_check chk;
	decode(out, n, &fp, &st);
	CHECK_EQ(st, IW_RX_FPDU);
	CHECK(iw_verify_fpdu(&fp, &chk));
	/* CRC on, three pad octets, no markers: the CRC and pad rules were applied, no marker rule. */
	CHECK_EQ(chk.nrules, 2);
	CHECK_STR(chk.rules[0], "MPA-5.2-11");
	CHECK_STR(chk.rules[1], "MPA-4-02");
	CHECK(iw_verify_ulpdu_size(&fp, &chk));
	CHECK_EQ(chk.nrules, 1);
	CHECK_STR(chk.rules[0], "MPA-3.2-04");

	/* A pad octet set, the CRC recomputed over it: the FPDU decodes, the pad rule fails. */
	out[2 + ul] = 0x63;
	uint32_t crc = iw_crc32c(out, n - 4);
	for (int k = 0; k < 4; k++)
		out[n - 4 + (size_t)k] = (uint8_t)(crc >> (8 * k));
	decode(out, n, &fp, &st);
	CHECK_EQ(st, IW_RX_FPDU);
	CHECK(!iw_verify_fpdu(&fp, &chk));
	CHECK_STR(chk.req, "MPA-4-02");

	/* A payload octet changed, the CRC left: the stream is refused, on the sender's CRC rule. */
	out[2 + 18] ^= 0x20;
	iw_violation v = decode(out, n, &fp, &st);
	CHECK_EQ(st, IW_RX_ERROR);
	CHECK_STR(iw_verify_stream_req(&v, &fp), "MPA-5.2-11");
}

/* The rules a segment check applied, held or broken, for the runner's record of what it judged
 * (suite/run/result_judged.c): a first untagged segment meets DV, reserved bits, MSN, the RDMAP
 * reserved word and MO; a continuing tagged one STag, TO and RsvdULP; a broken rule is listed
 * as applied, the rules after it are not. */
TEST(verify_segment_lists_the_rules_it_applied)
{
	uint8_t u[2][256];
	size_t len[2];
	iw_check chk;
	iw_source s;
	iw_rdmap_msg m;
	iw_violation v;
	iw_source_init(&s);
	len[0] = tagged(u[0], 7, 0x1000, false, BIG);
	len[1] = tagged(u[1], 7, 0x1000 + BIGLEN, true, "z");
	CHECK(iw_rdmap_parse(P(), u[0], len[0], &m, &v));
	CHECK(iw_verify_segment(&s, P(), &m, &chk));
	CHECK_EQ(chk.nrules, 3);
	CHECK_STR(chk.rules[0], "DDP-6.1-09");
	CHECK_STR(chk.rules[1], "DDP-6.1-08");
	CHECK_STR(chk.rules[2], "MPA-5.3.2-04");
	CHECK(iw_rdmap_parse(P(), u[1], len[1], &m, &v));
	CHECK(iw_verify_segment(&s, P(), &m, &chk));
	CHECK_EQ(chk.nrules, 7);
	CHECK_STR(chk.rules[2], "DDP-6.1-03");
	CHECK_STR(chk.rules[3], "DDP-6.2-08");
	CHECK_STR(chk.rules[4], "DDP-6.1-05");
	CHECK_STR(chk.rules[5], "DDP-7.2-07");
	CHECK_STR(chk.rules[6], "DDP-6.2-04");

	iw_source_init(&s);
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, true, "a");
	CHECK(iw_rdmap_parse(P(), u[0], len[0], &m, &v));
	CHECK(iw_verify_segment(&s, P(), &m, &chk));
	CHECK_EQ(chk.nrules, 6);
	CHECK_STR(chk.rules[2], "DDP-6.3-09");
	CHECK_STR(chk.rules[3], "DDP-6.3-02");
	CHECK_STR(chk.rules[4], "RFC5040-4.1-07");
	CHECK_STR(chk.rules[5], "DDP-7.2-05");

	/* MSN 3 where 2 is due: MSN broken, listed; the reserved word and MO not reached. */
	len[0] = untagged(u[0], IW_OP_SEND, 0, 3, 0, true, "a");
	CHECK(iw_rdmap_parse(P(), u[0], len[0], &m, &v));
	CHECK(!iw_verify_segment(&s, P(), &m, &chk));
	CHECK_STR(chk.req, "DDP-6.3-08");
	CHECK_EQ(chk.nrules, 4);
	CHECK_STR(chk.rules[2], "DDP-6.1-05");
	CHECK_STR(chk.rules[3], "DDP-6.3-08");
}

/* The DUT's ULPDU as the engine parses it (iw_verify_ulpdu): a header shorter than its T bit
 * announces breaks that header's rule (DDP-6.2-01 tagged, DDP-6.3-01 untagged); a tagged
 * segment whose RsvdULP is not a valid RDMAP control octet breaks DDP-6.2-02; on an untagged one
 * the same octet keeps RFC 5040's own rule. */
TEST(verify_ulpdu_headers_on_their_requirements)
{
	uint8_t u[256];
	iw_rdmap_msg m;
	iw_check chk;
	size_t n = tagged(u, 7, 0x1000, true, "ok");
	CHECK(iw_verify_ulpdu(P(), u, n, &m, &chk));
	CHECK(m.ddp.tagged);
	CHECK_EQ(chk.nrules, 6);    /* and RFC 5040's RV, opcode, model and Rsvd rows */
	CHECK_STR(chk.rules[0], "DDP-6.2-01");
	CHECK_STR(chk.rules[1], "DDP-6.2-02");
	CHECK_STR(chk.rules[2], "RFC5040-4.1-02");
	CHECK_STR(chk.rules[5], "RFC5040-4.1-04");
	CHECK(!iw_verify_ulpdu(P(), u, IW_DDP_TAGGED_HDR_LEN - 4, &m, &chk));
	CHECK_STR(chk.req, "DDP-6.2-01");
	CHECK(strstr(chk.detail, "shorter") != NULL);
	u[IW_DDP_OFF_RSVDULP] = iw_rdmap_ctrl(P()->rdmap_version + 1, IW_OP_WRITE); /* RV */
	CHECK(!iw_verify_ulpdu(P(), u, n, &m, &chk));
	CHECK_STR(chk.req, "DDP-6.2-02");
	u[IW_DDP_OFF_RSVDULP] = iw_rdmap_ctrl(P()->rdmap_version, IW_OP_SEND); /* an untagged opcode */
	CHECK(!iw_verify_ulpdu(P(), u, n, &m, &chk));
	CHECK_STR(chk.req, "DDP-6.2-02");

	n = untagged(u, IW_OP_SEND, 0, 1, 0, true, "ok");
	CHECK(iw_verify_ulpdu(P(), u, n, &m, &chk));
	CHECK_EQ(chk.nrules, 5);
	CHECK_STR(chk.rules[0], "DDP-6.3-01");
	CHECK_STR(chk.rules[3], "RFC5040-4.2-02");
	CHECK(!iw_verify_ulpdu(P(), u, IW_DDP_UNTAGGED_HDR_LEN - 1, &m, &chk));
	CHECK_STR(chk.req, "DDP-6.3-01");
	u[IW_DDP_OFF_RSVDULP] = iw_rdmap_ctrl(P()->rdmap_version + 1, IW_OP_SEND);
	CHECK(!iw_verify_ulpdu(P(), u, n, &m, &chk));
	CHECK_STR(chk.req, "RFC5040-4.1-02");   /* the sender's row of the field the parse refused */
	u[IW_DDP_OFF_RSVDULP] = (uint8_t)(iw_rdmap_ctrl(P()->rdmap_version, IW_OP_SEND) | 0x30);
	CHECK(!iw_verify_ulpdu(P(), u, n, &m, &chk));
	CHECK_STR(chk.req, "RFC5040-4.1-04");
	CHECK(!iw_verify_ulpdu(P(), u, 0, &m, &chk));
	CHECK_EQ(chk.nrules, 0);
}

/* A DUT marker inside an FPDU, refused by the length chain: with its halves swapped (FPDUPTR
 * 0, the distance in RESERVED) the sender broke the marker format (MPA-4.1-01); with a wrong
 * FPDUPTR, the FPDUPTR rule (MPA-5.1-03). The CRC is recomputed, so only the marker is wrong. */
TEST(verify_marker_format_and_fpduptr_refusals)
{
	static uint8_t u[700], out[800];
	size_t ul = untagged(u, IW_OP_SEND, 0, 1, 0, true, "");
	memset(u + ul, 0x5a, 600);
	ul += 600;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, P(), true, true);
	size_t n;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, ul, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
	for (int variant = 0; variant < 3; variant++) {
		static uint8_t w[800];
		memcpy(w, out, n);
		if (variant == 1) { /* RESERVED 0x0200, FPDUPTR 0 */
			w[512] = w[514];
			w[513] = w[515];
			w[514] = w[515] = 0;
		} else if (variant == 2) {
			w[515] ^= 0x04; /* FPDUPTR 4 off */
		}
		uint32_t crc = iw_crc32c(w, n - 4);
		for (int k = 0; k < 4; k++)
			w[n - 4 + (size_t)k] = (uint8_t)(crc >> (8 * k));
		static iw_mpa_rx rx;
		iw_mpa_rx_init(&rx, P(), true, true);
		iw_violation v;
		memset(&v, 0, sizeof v);
		iw_fpdu fp;
		iw_check chk;
		size_t used;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, w, n, &used, &fp, &v);
		if (variant == 0) {
			CHECK_EQ(st, IW_RX_FPDU);
			CHECK_EQ(fp.nmarkers, 2);
			CHECK(iw_verify_fpdu(&fp, &chk));
			bool listed = false;
			for (size_t i = 0; i < chk.nrules; i++)
				listed |= !strcmp(chk.rules[i], "MPA-4.1-01");
			CHECK(listed);
			continue;
		}
		CHECK_EQ(st, IW_RX_ERROR);
		/* A wrong FPDUPTR breaks the profile's rule: RFC 5044's under an RFC profile. */
		CHECK_STR(iw_verify_stream_req(&v, &fp), variant == 1 ? "MPA-4.1-01" : P()->fpduptr_from_length ? "RFC5044-4-02" : "MPA-5.1-03");
	}
	/* The engine's own swapped-marker defect (iw_fpdu_mods.marker_swapped, the mutant
	 * marker-halves-swapped's) comes out the same way. */
	iw_fpdu_mods mods;
	memset(&mods, 0, sizeof mods);
	mods.marker_swapped = true;
	iw_mpa_tx_init(&tx, P(), true, true);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, ul, NULL, 0, &mods, out, sizeof out, &n, NULL), IW_OK);
	static iw_mpa_rx rx2;
	iw_mpa_rx_init(&rx2, P(), true, true);
	iw_violation v2;
	memset(&v2, 0, sizeof v2);
	iw_fpdu fp2;
	size_t used2;
	CHECK_EQ(iw_mpa_rx_push(&rx2, out, n, &used2, &fp2, &v2), IW_RX_ERROR);
	CHECK_STR(iw_verify_stream_req(&v2, &fp2), "MPA-4.1-01");
}

/* Rules that do not depend on one another are each judged: a DDP header with DV 0 and reserved
 * bits set breaks both, the first in the check's own fields, the other in more[], with how a
 * receiver takes each (DV: fatal, the untagged "invalid DDP version" code; Rsvd: ignored). So does
 * an FPDU with a non-zero pad octet and a marker RESERVED set (decode lists both; the runner reads
 * the first). */
TEST(verify_independent_rules_all_reported)
{
	iw_ddp_hdr h = {.tagged = false, .last = true, .dv = 0, .rsvd = 0x5, .qn = 0, .msn = 1};
	iw_check chk;
	CHECK(!iw_verify_ddp_hdr(P(), &h, &chk));
	CHECK_STR(chk.req, "DDP-6.1-09");
	CHECK_EQ(chk.kind, IW_VIOL_FATAL);
	CHECK_EQ(chk.layer, IW_LAYER_DDP);
	CHECK_EQ(chk.ecode, IW_DDP_EC_U_VERSION);
	CHECK_EQ(chk.nmore, 1);
	CHECK_STR(chk.more[0].req, "DDP-6.1-08");
	CHECK_EQ(chk.more[0].kind, IW_VIOL_SENDER);
	h.dv = 1;
	CHECK(!iw_verify_ddp_hdr(P(), &h, &chk));
	CHECK_STR(chk.req, "DDP-6.1-08");
	CHECK_EQ(chk.nmore, 0);
	h.rsvd = 0;
	CHECK(iw_verify_ddp_hdr(P(), &h, &chk));
	CHECK(chk.req == NULL);

	iw_fpdu fp;
	memset(&fp, 0, sizeof fp);
	fp.pad_len = 2;
	fp.nmarkers = 1;
	fp.notes = IW_NOTE_PAD_NONZERO | IW_NOTE_MARKER_RESERVED;
	CHECK(!iw_verify_fpdu(&fp, &chk));
	CHECK_STR(chk.req, "MPA-4-02");
	CHECK_EQ(chk.nmore, 1);
	CHECK_STR(chk.more[0].req, "MPA-4.1-02");
}

/* A judge that reads on past a fault (decode) takes the segment as the sender meant it: after
 * MSN 3 where 2 was due, MSN 4 holds; after a segment with a wrong MO, the next is judged from
 * that MO. A source met mid-stream takes each queue's first MSN, and a message under way, as they
 * come. */
TEST(verify_source_reads_on_past_a_fault_and_joins_mid_stream)
{
	uint8_t u[3][256];
	size_t len[3];
	iw_check chk;
	iw_rdmap_msg m;
	iw_violation v;
	iw_source s;
	iw_source_init(&s);
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, true, "a");
	len[1] = untagged(u[1], IW_OP_SEND, 0, 3, 0, true, "b");
	len[2] = untagged(u[2], IW_OP_SEND, 0, 4, 0, true, "c");
	for (int i = 0; i < 3; i++) {
		CHECK(iw_rdmap_parse(P(), u[i], len[i], &m, &v));
		bool held = iw_verify_segment(&s, P(), &m, &chk);
		CHECK_EQ(held, i != 1);
		if (!held) {
			CHECK_STR(chk.req, "DDP-6.3-08");
			iw_source_take(&s, &m);
		}
	}
	iw_source_init(&s);
	len[0] = untagged(u[0], IW_OP_SEND, 0, 1, 0, false, BIG);
	len[1] = untagged(u[1], IW_OP_SEND, 0, 1, BIGLEN + 8, false, BIG);
	len[2] = untagged(u[2], IW_OP_SEND, 0, 1, 2 * BIGLEN + 8, true, "c");
	for (int i = 0; i < 3; i++) {
		CHECK(iw_rdmap_parse(P(), u[i], len[i], &m, &v));
		bool held = iw_verify_segment(&s, P(), &m, &chk);
		CHECK_EQ(held, i != 1);
		if (!held) {
			CHECK_STR(chk.req, "DDP-7.2-05");
			iw_source_take(&s, &m);
		}
	}

	/* Joined mid-stream: a Send of MSN 7 at MO 120, its message's last, then MSN 8. */
	iw_source_join(&s);
	len[0] = untagged(u[0], IW_OP_SEND, 0, 7, BIGLEN, true, "a");
	len[1] = untagged(u[1], IW_OP_SEND, 0, 8, 0, true, "b");
	len[2] = untagged(u[2], IW_OP_SEND, 0, 10, 0, true, "c");
	for (int i = 0; i < 3; i++) {
		CHECK(iw_rdmap_parse(P(), u[i], len[i], &m, &v));
		CHECK_EQ(iw_verify_segment(&s, P(), &m, &chk), i != 2);
	}
	CHECK_STR(chk.req, "DDP-6.3-08"); /* once a queue is met, its MSNs follow on */
}

/* A Read Response against its Read Request (iw_verify_read_resp, the runner's and decode's one
 * rule, RFC5040-5.2-03): whole, or segment by segment, where a partial Response is wrong only
 * once it targets another STag or TO or has more octets than asked. */
TEST(verify_read_response_against_its_request)
{
	iw_read_req rr = {.sink_stag = 0x10, .sink_to = 0x1000, .size = 300};
	iw_ddp_hdr f = {.tagged = true, .last = false, .dv = 1, .stag = 0x10, .to = 0x1000};
	iw_check chk;
	CHECK(iw_verify_read_resp(&rr, &f, 300, true, &chk));
	CHECK_EQ(chk.nrules, 1);
	CHECK_STR(chk.rules[0], "RFC5040-5.2-03");
	CHECK(iw_verify_read_resp(&rr, &f, 150, false, &chk));   /* so far, so good */
	CHECK(!iw_verify_read_resp(&rr, &f, 150, true, &chk));   /* ended short */
	CHECK(strstr(chk.detail, "(fewer octets)") != NULL);
	CHECK(!iw_verify_read_resp(&rr, &f, 301, false, &chk));  /* past the size already */
	CHECK(strstr(chk.detail, "(more octets)") != NULL);
	f.stag = 0x11;
	CHECK(!iw_verify_read_resp(&rr, &f, 10, false, &chk));
	CHECK_STR(chk.req, "RFC5040-5.2-03");
	CHECK_EQ(chk.kind, IW_VIOL_FATAL);
	CHECK(strstr(chk.detail, "(another STag)") != NULL);
}
