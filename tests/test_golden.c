/*
 * test_golden.c - byte-exact golden vectors of requirements.md §5, produced by the MPA
 * encoders and read back by the streaming decoder.
 *
 * DDP headers are written by hand from requirements.md §0 (18-octet untagged header:
 * control, RDMAP control, RsvdULP[8:39], QN, MSN, MO) so these vectors do not depend on the
 * DDP module.
 */
#include <stdlib.h>

#include "check.h"
#include "crc32c.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "mpa_markers.h"
#include "mpa_rx.h"
#include "profile.h"

static void untagged_hdr(uint8_t h[18], uint8_t ddp_ctrl, uint8_t rdmap_ctrl, uint32_t qn, uint32_t msn,
			 uint32_t mo)
{
	memset(h, 0, 18);
	h[0] = ddp_ctrl;
	h[1] = rdmap_ctrl;
	for (int i = 0; i < 4; i++) {
		h[6 + i] = (uint8_t)(qn >> (24 - 8 * i));
		h[10 + i] = (uint8_t)(msn >> (24 - 8 * i));
		h[14 + i] = (uint8_t)(mo >> (24 - 8 * i));
	}
}

static const iw_profile *seed(void)
{
	return iw_profile_get(IW_PROFILE_SEED_EXACT);
}

/* Frames a Send of `payload` zero octets (control octets c0 c1, MSN msn) with tx. */
static size_t send_fpdu(iw_mpa_tx *tx, uint8_t c0, uint8_t c1, uint32_t msn, size_t payload, const iw_fpdu_mods *mods,
			uint8_t *out, size_t cap)
{
	static const uint8_t zeros[4096];
	uint8_t h[18];
	size_t n = 0;
	iw_err e;
	untagged_hdr(h, c0, c1, 0, msn, 0);
	int rc = iw_mpa_tx_fpdu(tx, h, sizeof h, zeros, payload, mods, out, cap, &n, &e);
	CHECK_EQ(rc, IW_OK);
	return n;
}

/* Decodes a whole stream; returns the number of FPDUs and fills starts/statuses. */
typedef struct decoded {
	int n;
	uint64_t start[8];
	size_t wire_len[8];
	uint16_t ulpdu_length[8];
	size_t nmarkers[8];
	iw_marker_seen marker[8][4];
	int error_code;             /* 0 when none */
	uint64_t error_offset;
	const char *error_req;
} decoded;

static void decode_stream(const uint8_t *s, size_t len, bool markers, bool crc, decoded *d)
{
	static iw_mpa_rx rx;
	iw_fpdu f;
	iw_violation v;
	memset(d, 0, sizeof *d);
	iw_mpa_rx_init(&rx, seed(), markers, crc);
	size_t off = 0;
	while (off < len) {
		size_t used = 0;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, s + off, len - off, &used, &f, &v);
		off += used;
		if (st == IW_RX_FPDU && d->n < 8) {
			d->start[d->n] = f.start;
			d->wire_len[d->n] = f.wire_len;
			d->ulpdu_length[d->n] = f.ulpdu_length;
			d->nmarkers[d->n] = f.nmarkers;
			for (size_t k = 0; k < f.nmarkers && k < 4; k++)
				d->marker[d->n][k] = f.markers[k];
			/* MPA-5.1-10: markers are stripped, so an all-zero Send stays all zero. */
			for (size_t k = 18; k < f.ulpdu_length; k++)
				if (f.ulpdu[k]) {
					CHECK(!"payload octet not zero");
					break;
				}
			d->n++;
		} else if (st == IW_RX_ERROR) {
			d->error_code = v.ecode;
			d->error_offset = v.offset;
			d->error_req = v.req;
			CHECK_EQ(v.layer, IW_LAYER_LLP);
			CHECK_EQ(v.etype, 0);
		}
	}
	CHECK(!iw_mpa_rx_partial(&rx));
}

static const char fig5_seed[] =
	"00 00 00 00  00 2a  40 03  00 00 00 00  00 00 00 00  00 00 00 01  00 00 00 00"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
	"4C 86 B3 84";

/* MC §7.2 / MR §5.2 Figure 5 (requirements.md §5.1). */
TEST(golden_mpa_figure5_seed)
{
	uint8_t want[64], out[128];
	size_t wn = check_unhex(fig5_seed, want, sizeof want);
	CHECK_EQ(wn, 52);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, seed(), true, true);
	CHECK_EQ(iw_mpa_tx_size(&tx, 42), 52);
	size_t n = send_fpdu(&tx, 0x40, 0x03, 1, 24, NULL, out, sizeof out);
	CHECK_EQ(n, 52);
	CHECK_MEM(out, want, 52);
	CHECK_EQ(tx.pos, 52);
	CHECK_EQ(iw_crc32c(out, 48), 0x84B3864Cu);

	decoded d;
	decode_stream(out, n, true, true, &d);
	CHECK_EQ(d.n, 1);
	CHECK_EQ(d.error_code, 0);
	CHECK_EQ(d.start[0], 0);
	CHECK_EQ(d.wire_len[0], 52);
	CHECK_EQ(d.ulpdu_length[0], 42);
	CHECK_EQ(d.nmarkers[0], 1);
	CHECK_EQ(d.marker[0][0].pos, 0);
	CHECK_EQ(d.marker[0][0].fpduptr, 0);
}

/* Builds the Figure 6 stream: a first FPDU of 492 octets (a Send, MSN 1, L set) at offset 0,
 * then the Figure 6 FPDU at 0x1EC. Returns the total length. */
static size_t fig6_stream(uint8_t c0, uint8_t c1, uint8_t *out, size_t cap, const iw_fpdu_mods *mods2)
{
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, seed(), true, true);
	/* 492 = marker 4 + length 2 + ULPDU 482 + CRC 4, pad 0. */
	size_t n1 = send_fpdu(&tx, c0, c1, 1, 482 - 18, NULL, out, cap);
	CHECK_EQ(n1, 492);
	CHECK_EQ(tx.pos, 0x1EC);
	size_t n2 = send_fpdu(&tx, c0, c1, 2, 24, mods2, out + n1, cap - n1);
	CHECK_EQ(n2, 52);
	return n1 + n2;
}

static const char fig6_seed[] =
	"00 2a  40 03  00 00 00 00  00 00 00 00  00 00 00 02  00 00 00 00"
	"00 00 00 14"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
	"A1 9C D1 03";

/* MC/MR Figure 6 (requirements.md §5.2): the marker at 0x200 carries FPDUPTR 0x14. */
TEST(golden_mpa_figure6_seed)
{
	uint8_t want[64], out[1024];
	size_t wn = check_unhex(fig6_seed, want, sizeof want);
	CHECK_EQ(wn, 52);
	size_t n = fig6_stream(0x40, 0x03, out, sizeof out, NULL);
	CHECK_EQ(n, 0x1EC + 52);
	CHECK_MEM(out + 0x1EC, want, 52);
	CHECK_MEM(out + 0x200, "\x00\x00\x00\x14", 4);

	decoded d;
	decode_stream(out, n, true, true, &d);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(d.error_code, 0);
	CHECK_EQ(d.start[1], 0x1EC);
	CHECK_EQ(d.wire_len[1], 52);
	CHECK_EQ(d.ulpdu_length[1], 42);
	CHECK_EQ(d.nmarkers[1], 1);
	CHECK_EQ(d.marker[1][0].pos, 0x200);
	CHECK_EQ(d.marker[1][0].fpduptr, 0x14);
}

static void check_crc_tail(const uint8_t *fpdu, size_t n, const char *hex)
{
	uint8_t want[4];
	CHECK_EQ(check_unhex(hex, want, 4), 4);
	CHECK_MEM(fpdu + n - 4, want, 4);
}

/* requirements.md §5.3: RFC control octets 41 43, and the D0/D2 with RV 0 variant 41 03. */
TEST(golden_mpa_figure5_6_profile_variants)
{
	static const struct { uint8_t c0, c1; const char *crc5, *crc6; } rows[] = {
		{ 0x40, 0x03, "4C 86 B3 84", "A1 9C D1 03" },
		{ 0x41, 0x43, "52 23 99 83", "84 92 58 98" },
		{ 0x41, 0x03, "DC 00 64 77", "4F FD C1 43" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		uint8_t out[1024];
		iw_mpa_tx tx;
		iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
		size_t n = send_fpdu(&tx, rows[i].c0, rows[i].c1, 1, 24, NULL, out, sizeof out);
		CHECK_EQ(n, 52);
		check_crc_tail(out, n, rows[i].crc5);
		n = fig6_stream(rows[i].c0, rows[i].c1, out, sizeof out, NULL);
		check_crc_tail(out, n, rows[i].crc6);
		decoded d;
		decode_stream(out, n, true, true, &d);
		CHECK_EQ(d.n, 2);
		CHECK_EQ(d.error_code, 0);
	}
}

/* requirements.md §5.3: Figure 5 content with markers off (MR with M=0): the CRC covers 44
 * octets, the FPDU is 48. */
TEST(golden_mpa_figure5_no_markers)
{
	static const struct { uint8_t c0, c1; const char *crc; } rows[] = {
		{ 0x40, 0x03, "A9 81 14 C4" },
		{ 0x41, 0x43, "B7 24 3E C3" },
	};
	for (size_t i = 0; i < 2; i++) {
		uint8_t out[128], want[64];
		iw_mpa_tx tx;
		iw_mpa_tx_init(&tx, seed(), false, true);
		CHECK_EQ(iw_mpa_tx_size(&tx, 42), 48);
		size_t n = send_fpdu(&tx, rows[i].c0, rows[i].c1, 1, 24, NULL, out, sizeof out);
		CHECK_EQ(n, 48);
		/* The same octets as Figure 5 without its leading marker. */
		check_unhex(fig5_seed, want, sizeof want);
		memcpy(want + 6, (uint8_t[]){ rows[i].c0, rows[i].c1 }, 2);
		CHECK_MEM(out, want + 4, 44);
		check_crc_tail(out, n, rows[i].crc);
		decoded d;
		decode_stream(out, n, false, true, &d);
		CHECK_EQ(d.n, 1);
		CHECK_EQ(d.nmarkers[0], 0);
		CHECK_EQ(d.error_code, 0);
	}
}

/* MR §5.1 Figure 4 (requirements.md §5.4): 16-octet ULPDU, marker 00 00 00 0C after 10
 * ULPDU octets, PAD 00 00, CRC 1D 9F FD A6. */
TEST(golden_mpa_figure4)
{
	static const uint8_t zeros[16];
	uint8_t out[1024], want[64];
	size_t wn = check_unhex("00 10  00 00 00 00 00 00 00 00 00 00  00 00 00 0C  00 00 00 00 00 00"
				"00 00  1D 9F FD A6", want, sizeof want);
	CHECK_EQ(wn, 28);
	iw_mpa_tx tx;
	iw_err e;
	size_t n1 = 0, n2 = 0;
	iw_mpa_tx_init(&tx, seed(), true, true);
	/* A first FPDU of 500 octets puts the Figure 4 FPDU 12 octets before the marker at 512:
	 * marker 4 + length 2 + ULPDU 490 + CRC 4. */
	uint8_t big[490] = { 0 };
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, big, sizeof big, NULL, 0, NULL, out, sizeof out, &n1, &e), IW_OK);
	CHECK_EQ(n1, 500);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, zeros, 10, zeros, 6, NULL, out + n1, sizeof out - n1, &n2, &e), IW_OK);
	CHECK_EQ(n2, 28);
	CHECK_MEM(out + n1, want, 28);
	CHECK_EQ(iw_crc32c(out + n1, 24), 0xA6FD9F1Du);

	decoded d;
	decode_stream(out, n1 + n2, true, true, &d);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(d.error_code, 0);
	CHECK_EQ(d.start[1], 500);
	CHECK_EQ(d.ulpdu_length[1], 16);
	CHECK_EQ(d.nmarkers[1], 1);
	CHECK_EQ(d.marker[1][0].fpduptr, 0x0C);
}

/* requirements.md §5.5 worst case: MSS 1460, ULPDU_Length 1442 at offset 0x1EC, Send 41 43
 * MSN 3: markers 0x14, 0x214, 0x414, 1460 octets, CRC 8E 88 1B 17. */
TEST(golden_mpa_worst_case_1442)
{
	uint8_t out[4096];
	size_t n = fig6_stream(0x41, 0x43, out, sizeof out, NULL);
	CHECK_EQ(n, 0x1EC + 52);
	/* Replace the second FPDU by the worst-case one. */
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	iw_mpa_tx_skip(&tx, 0x1EC);
	CHECK_EQ(iw_mulpdu(1460, true), 1442);
	CHECK_EQ(iw_mpa_tx_size(&tx, 1442), 1460);
	uint8_t *f = out + 0x1EC;
	size_t fn = send_fpdu(&tx, 0x41, 0x43, 3, 1442 - 18, NULL, f, sizeof out - 0x1EC);
	CHECK_EQ(fn, 1460);
	CHECK_MEM(f, "\x05\xA2\x41\x43", 4);
	CHECK_MEM(f + 0x14, "\x00\x00\x00\x14", 4);
	CHECK_MEM(f + 0x214, "\x00\x00\x02\x14", 4);
	CHECK_MEM(f + 0x414, "\x00\x00\x04\x14", 4);
	check_crc_tail(f, fn, "8E 88 1B 17");
	CHECK_EQ(iw_markers_in_fpdu(0x1EC, 2 + 1442 + 4), 3);

	decoded d;
	decode_stream(out, 0x1EC + fn, true, true, &d);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(d.error_code, 0);
	CHECK_EQ(d.wire_len[1], 1460);
	CHECK_EQ(d.nmarkers[1], 3);
	CHECK_EQ(d.marker[1][0].fpduptr, 0x14);
	CHECK_EQ(d.marker[1][1].fpduptr, 0x214);
	CHECK_EQ(d.marker[1][2].fpduptr, 0x414);
	CHECK_EQ(d.marker[1][2].pos, 0x600);
}

/* MPA-5.1-F2 (requirements.md §5.5): started at TCP sequence 11, markers begin at 11, 523,
 * 1035; as stream offsets (seq - SeqStart) mod 2^32 (MPA-5.1-F1) these are 0, 512, 1024.
 * Same for the wrap case SeqStart 0xFFFFFF00. */
TEST(golden_mpa_marker_placement)
{
	static const uint32_t seq_start[2] = { 11, 0xFFFFFF00u };
	static const uint32_t at[2][3] = { { 11, 523, 1035 }, { 0xFFFFFF00u, 0x100, 0x300 } };
	for (int s = 0; s < 2; s++) {
		int seen = 0;
		for (uint32_t k = 0; k < 1100; k++) {
			uint32_t seq = seq_start[s] + k;
			uint64_t off = (uint32_t)(seq - seq_start[s]);
			if (iw_marker_at(off)) {
				CHECK(seen < 3);
				if (seen < 3) {
					CHECK_EQ(seq, at[s][seen]);
					CHECK_EQ(off, 512u * (unsigned)seen);
				}
				seen++;
			}
		}
		CHECK_EQ(seen, 3);
	}
	CHECK_EQ(iw_marker_next(1), 512);
	CHECK_EQ(iw_marker_next(512), 512);
	CHECK_EQ(iw_marker_next(0), 0);
}

/* requirements.md §5.6: every row of the MULPDU table, formula and clamp. */
TEST(golden_mpa_mulpdu_table)
{
	static const struct { uint32_t emss; long fm, fn; uint32_t cm, cn; } rows[] = {
		{ 128, 118, 122, 128, 128 },
		{ 140, 130, 134, 130, 134 },
		{ 536, 522, 530, 522, 530 },
		{ 1024, 1010, 1018, 1010, 1018 },
		{ 1448, 1430, 1442, 1430, 1442 },
		{ 1460, 1442, 1454, 1442, 1454 },
		{ 1461, 1442, 1454, 1442, 1454 },
		{ 1462, 1442, 1454, 1442, 1454 },
		{ 1463, 1442, 1454, 1442, 1454 },
		{ 4096, 4058, 4090, 4058, 4090 },
		{ 8960, 8882, 8954, 8882, 8954 },
		{ 16384, 16250, 16378, 16250, 16378 },
		{ 65495, 64974, 65486, 64768, 64768 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		CHECK_EQ(iw_mulpdu_formula(rows[i].emss, true), rows[i].fm);
		CHECK_EQ(iw_mulpdu_formula(rows[i].emss, false), rows[i].fn);
		CHECK_EQ(iw_mulpdu(rows[i].emss, true), rows[i].cm);
		CHECK_EQ(iw_mulpdu(rows[i].emss, false), rows[i].cn);
	}
	/* MPA-3.1.1-F1: the 536 fallback. */
	CHECK_EQ(iw_mulpdu(536, true), 522);
}

static void check_frame(const iw_profile *p, const iw_mpa_frame *f, enum iw_mpa_kind kind, const char *tail_hex)
{
	uint8_t want[64], out[64];
	memcpy(want, iw_mpa_key(kind), 16);
	size_t wn = 16 + check_unhex(tail_hex, want + 16, sizeof want - 16);
	size_t n = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_frame_size(f), wn);
	CHECK_EQ(iw_mpa_frame_encode(f, out, sizeof out, &n, &e), IW_OK);
	CHECK_EQ(n, wn);
	CHECK_MEM(out, want, wn);
	iw_mpa_frame d;
	size_t fl = 0;
	CHECK_EQ(iw_mpa_frame_decode(p, out, n, &d, &fl, &e), IW_OK);
	CHECK_EQ(fl, wn);
	CHECK(iw_mpa_frame_check(p, &d, kind, NULL));
}

/* requirements.md §5.9 (and §4.1, MPA-6.1.1-F1): startup frames byte for byte. */
TEST(golden_mpa_startup_frames)
{
	static const uint8_t req_key[16] = { 0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
					     0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65 };
	static const uint8_t rep_key[16] = { 0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
					     0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65 };
	CHECK_MEM(iw_mpa_key(IW_MPA_REQUEST), req_key, 16);
	CHECK_MEM(iw_mpa_key(IW_MPA_REPLY), rep_key, 16);

	const iw_profile *mr = iw_profile_get(IW_PROFILE_RDDP_MPA_01);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, mr, IW_MPA_REQUEST);
	check_frame(mr, &f, IW_MPA_REQUEST, "40 00 00 00");

	iw_mpa_frame_init(&f, mr, IW_MPA_REPLY);
	f.m = true;
	check_frame(mr, &f, IW_MPA_REPLY, "C0 00 00 00");

	iw_mpa_frame_init(&f, mr, IW_MPA_REPLY);
	f.r = true;
	f.pd = (const uint8_t *)"bad";
	f.pd_len = 3;
	check_frame(mr, &f, IW_MPA_REPLY, "60 00 00 03 62 61 64");

	const iw_profile *r5044 = iw_profile_get(IW_PROFILE_RFC5044);
	iw_mpa_frame_init(&f, r5044, IW_MPA_REQUEST);
	check_frame(r5044, &f, IW_MPA_REQUEST, "40 01 00 00");

	const iw_profile *r6581 = iw_profile_get(IW_PROFILE_RFC6581);
	iw_mpa_frame_init(&f, r6581, IW_MPA_REQUEST);
	check_frame(r6581, &f, IW_MPA_REQUEST, "50 02 00 04 00 10 00 10");
}

/* A1 / requirements.md §5.3: the byte-reversed CRC mutants 84 B3 86 4C and 03 D1 9C A1 are
 * code 2 (MPA-5.2-14) at the FPDU's start. */
TEST(golden_mpa_reversed_crc_rejected)
{
	uint8_t out[1024];
	iw_fpdu_mods mods = { .crc_big_endian = true };
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, seed(), true, true);
	size_t n = send_fpdu(&tx, 0x40, 0x03, 1, 24, &mods, out, sizeof out);
	check_crc_tail(out, n, "84 B3 86 4C");
	decoded d;
	decode_stream(out, n, true, true, &d);
	CHECK_EQ(d.n, 0);
	CHECK_EQ(d.error_code, 2);
	CHECK_EQ(d.error_offset, 0);
	CHECK_STR(d.error_req, "MPA-5.2-14");

	n = fig6_stream(0x40, 0x03, out, sizeof out, &mods);
	check_crc_tail(out, n, "03 D1 9C A1");
	decode_stream(out, n, true, true, &d);
	CHECK_EQ(d.n, 1);
	CHECK_EQ(d.error_code, 2);
	CHECK_EQ(d.error_offset, 0x1EC);

	/* With CRC off by agreement the same octets pass (MPA-4-04). */
	decode_stream(out, n, true, false, &d);
	CHECK_EQ(d.n, 2);
	CHECK_EQ(d.error_code, 0);
}
