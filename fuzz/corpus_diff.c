/*
 * corpus_diff.c - the seeds of the differential targets: encode-decode round trips of frames,
 * headers, Read Requests, Terminates, FPDU streams, model pairs and segmented messages
 * (diff_roundtrip), marker layouts against the golden figures (diff_markers), and CRC32c
 * inputs with known values (diff_crc32c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "corpus_int.h"
#include "rdmap.h"

void cs_seeds_roundtrip(out *o)
{
	sb s = { 0 };
	/* 0: a Reply under each profile with frames */
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		s.n = 0;
		sb_u8(&s, 0);
		sb_u8(&s, (unsigned)id);
		sb_u8(&s, 1);
		sb_u8(&s, 0x02 | 0x80);
		sb_u8(&s, 0);
		sb_u8(&s, iw_profile_get((enum iw_profile_id)id)->mpa_rev);
		sb_u16(&s, 16);
		sb_u16(&s, 16);
		sb_str(&s, "private data");
		char name[64];
		snprintf(name, sizeof name, "frame-%s", iw_profile_get((enum iw_profile_id)id)->name);
		put(o, name, &s);
	}
	/* 1: §5.7 headers */
	s.n = 0;
	sb_u8(&s, 1);
	sb_u8(&s, 0xC1);
	for (int i = 0; i < 5; i++)
		sb_u8(&s, 0);
	sb_u32(&s, 0x12345678u);
	sb_u64(&s, 17870);
	sb_u32(&s, 0);
	sb_u32(&s, 0);
	sb_u32(&s, 0);
	put(o, "ddp-tagged", &s);
	/* 2: Read Request */
	s.n = 0;
	sb_u8(&s, 2);
	sb_u32(&s, 0x100);
	sb_u64(&s, 64);
	sb_u32(&s, 48);
	sb_u32(&s, 0x200);
	sb_u64(&s, 0x10000);
	put(o, "read-req", &s);
	/* 3: a Terminate with D, M and R (a Read Request at fault) */
	s.n = 0;
	sb_u8(&s, 3);
	sb_u8(&s, IW_LAYER_RDMAP);
	sb_u8(&s, IW_RDMAP_ET_PROTECTION);
	sb_u8(&s, IW_RDMAP_EC_BASE_BOUNDS);
	sb_u8(&s, 7);
	sb_u16(&s, 46);
	sb_u8(&s, 0x41);
	sb_u8(&s, 0x41);
	for (int i = 0; i < 16; i++)
		sb_u8(&s, i == 7 ? 1 : 0);
	for (int i = 0; i < 28; i++)
		sb_u8(&s, (unsigned)i);
	put(o, "terminate", &s);
	/* 4: FPDU streams, markers and CRC both ways */
	for (int fl = 0; fl < 4; fl++) {
		s.n = 0;
		sb_u8(&s, 4);
		sb_u8(&s, IW_PROFILE_RFC5044);
		sb_u8(&s, (unsigned)fl | 0x10);
		sb_u16(&s, fl == 3 ? 12 : 0);
		sb_u8(&s, 5);
		sb_u8(&s, 4);
		static const uint16_t lens[4] = { 42, 1442, 0, 511 };
		for (int k = 0; k < 4; k++) {
			sb_u16(&s, lens[k]);
			sb_u16(&s, 18);
		}
		char name[64];
		snprintf(name, sizeof name, "fpdus-%d", fl);
		put(o, name, &s);
	}
	/* 5: two models under each profile, then Sends, Writes and Reads both ways */
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		s.n = 0;
		sb_u8(&s, 5);
		sb_u8(&s, (unsigned)id);
		sb_u8(&s, id == IW_PROFILE_RFC6581 ? 0x21 : 0x01);
		sb_u8(&s, 0x77);
		sb_u8(&s, 4);
		sb_u8(&s, 4);
		sb_u16(&s, 1460);
		for (unsigned op = 0; op < 6; op++) {
			sb_u8(&s, op);
			sb_u16(&s, 100 + op * 200);
			sb_u16(&s, 64);
			for (unsigned i = 0; i < 16; i++)
				sb_u8(&s, i);
		}
		char name[64];
		snprintf(name, sizeof name, "pair-%s", iw_profile_get((enum iw_profile_id)id)->name);
		put(o, name, &s);
	}
	/* 6: a message cut at MULPDU 1442, in and out of order */
	for (int fl = 0; fl < 4; fl++) {
		s.n = 0;
		sb_u8(&s, 6);
		sb_u8(&s, IW_PROFILE_RFC5044);
		sb_u8(&s, (unsigned)fl | 0x20);
		sb_u16(&s, 1442 - 19);
		sb_u16(&s, 5000);
		sb_u8(&s, 9);
		char name[64];
		snprintf(name, sizeof name, "message-%d", fl);
		put(o, name, &s);
	}
	free(s.b);
}

void cs_seeds_markers(out *o)
{
	sb s = { 0 };
	static const uint16_t sets[][5] = {
		{ 42, 42, 0, 0, 0 },            /* Figure 5, twice */
		{ 1442, 1442, 1442, 0, 0 },     /* full-size FPDUs (§5.5 worst case) */
		{ 482, 42, 0, 0, 0 },           /* Figures 5 and 6 layout */
		{ 0, 1, 2, 3, 508 },
	};
	for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
		for (int mut = 0; mut < 2; mut++) {
			s.n = 0;
			sb_u8(&s, IW_PROFILE_RFC5044);
			sb_u8(&s, 1);
			size_t n = 0;
			while (n < 5 && (sets[k][n] || n == 0 || k == 3))
				n++;
			sb_u8(&s, (unsigned)n);
			sb_u8(&s, mut ? 2 : 0);
			for (size_t i = 0; i < n; i++)
				sb_u16(&s, sets[k][i]);
			if (mut) {
				sb_u32(&s, 514);
				sb_u8(&s, 0x04);
				sb_u32(&s, 3);
				sb_u8(&s, 0x01);
			}
			char name[64];
			snprintf(name, sizeof name, "framed-%zu%s", k, mut ? "-mutated" : "");
			put(o, name, &s);
		}
	s.n = 0;
	const iw_profile *se = iw_profile_get(IW_PROFILE_SEED_EXACT);
	sb_u8(&s, IW_PROFILE_SEED_EXACT);
	sb_u8(&s, 3);
	sb_u8(&s, 0);
	sb_u8(&s, 0);
	cs_golden_figs(se, false, &s);
	put(o, "raw-golden-fig5-fig6", &s);
	free(s.b);
}

void cs_seeds_crc(out *o)
{
	sb s = { 0 };
	sb_u8(&s, 0);
	sb_u8(&s, 0);
	sb_str(&s, "123456789");        /* 0xE3069283 */
	put(o, "check-123456789", &s);
	s.n = 0;
	sb_u8(&s, 3);
	sb_u8(&s, 2);
	sb_u16(&s, 7);
	sb_u16(&s, 16);
	for (int i = 0; i < 32; i++)
		sb_u8(&s, 0);           /* RFC 3720: 0x8A9136AA */
	put(o, "zeros-32", &s);
	s.n = 0;
	sb_u8(&s, 5);
	sb_u8(&s, 1);
	sb_u16(&s, 20);
	cs_golden_figs(iw_profile_get(IW_PROFILE_SEED_EXACT), true, &s);
	put(o, "golden-fig5", &s);
	s.n = 0;
	sb_u8(&s, 1);
	sb_u8(&s, 3);
	sb_u16(&s, 100);
	sb_u16(&s, 700);
	sb_u16(&s, 1500);
	for (int i = 0; i < 2048; i++)
		sb_u8(&s, (unsigned)(i * 7));
	put(o, "long-2048", &s);
	free(s.b);
}
