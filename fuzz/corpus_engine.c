/*
 * corpus_engine.c - the seeds of the targets that feed the engine's parsers directly: startup
 * frames (mpa_frame), FPDU streams (mpa_rx, and the streams other targets reuse), DDP headers
 * and the segmenter (ddp), the data sink's scripts (ddp_sink) and RDMAP messages (rdmap).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_int.h"
#include "ddp.h"
#include "iw_conn.h"
#include "rdmap.h"

void cs_seeds_mpa_frame(out *o)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (int kind = 0; kind < 2; kind++) {
			iw_mpa_frame f[8];
			size_t n = cs_sample_frames(p, (enum iw_mpa_kind)kind, f);
			for (size_t k = 0; k < n; k++) {
				for (int expect = 0; expect < 2; expect++) {
					sb s = { 0 };
					sb_u8(&s, (unsigned)id);
					sb_u8(&s, (unsigned)expect);
					cs_frame_bytes(&f[k], &s);
					char name[64];
					snprintf(name, sizeof name, "%s-%s-%zu-exp%d", p->name, kind ? "rep" : "req", k, expect);
					put(o, name, &s);
					free(s.b);
				}
			}
		}
	}
}

/* FPDU streams with their decoder parameters: every profile, markers and CRC both ways, the
 * golden figures, and the engine's deliberate defects (iw_fpdu_mods). */
void cs_seeds_streams(out *o, const char *prefix, void (*head)(sb *, const iw_profile *, bool, bool))
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		uint8_t u[6][128];
		size_t len[6];
		size_t n = cs_sample_ulpdus(p, u, len);
		for (int m = 0; m < 2; m++)
			for (int c = 0; c < 2; c++) {
				sb s = { 0 };
				head(&s, p, m, c);
				cs_frame_stream(p, m, c, u, len, n, NULL, 0, &s);
				char name[64];
				snprintf(name, sizeof name, "%s-%s-m%d-c%d", prefix, p->name, m, c);
				put(o, name, &s);
				free(s.b);
			}
	}
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t u[6][128];
	size_t len[6];
	size_t n = cs_sample_ulpdus(p, u, len);
	static const struct { const char *name; iw_fpdu_mods m; } mods[] = {
		{ "crc-xor", { .crc_xor = 1 } },
		{ "crc-big-endian", { .crc_big_endian = true } },
		{ "fpduptr-delta", { .fpduptr_delta = 4 } },
		{ "fpduptr-lowbits", { .fpduptr_or = 1 } },
		{ "marker-reserved", { .marker_reserved = 0x8000 } },
		{ "pad-fill", { .pad_fill = 0xAA } },
		{ "length-short", { .set_length = true, .ulpdu_length = 8 } },
		{ "corrupt", { .corrupt = true, .corrupt_at = 3 } },
		{ "no-markers", { .no_markers = true } },
	};
	for (size_t k = 0; k < sizeof mods / sizeof mods[0]; k++) {
		sb s = { 0 };
		head(&s, p, true, true);
		cs_frame_stream(p, true, true, u, len, n, &mods[k].m, 1, &s);
		char name[64];
		snprintf(name, sizeof name, "%s-mod-%s", prefix, mods[k].name);
		put(o, name, &s);
		free(s.b);
	}
	const iw_profile *se = iw_profile_get(IW_PROFILE_SEED_EXACT);
	for (int fig5 = 0; fig5 < 2; fig5++) {
		sb s = { 0 };
		head(&s, se, true, true);
		cs_golden_figs(se, fig5, &s);
		put(o, fig5 ? "golden-fig5" : "golden-fig5-fig6", &s);
		free(s.b);
	}
}

void cs_head_mpa_rx(sb *s, const iw_profile *p, bool m, bool c)
{
	sb_u8(s, (unsigned)p->id);
	sb_u8(s, (unsigned)(m | c << 1) | 0x08);
	sb_u32(s, 0);
	sb_u8(s, 1);
}

void cs_seeds_ddp(out *o)
{
	/* requirements.md §5.7: untagged and tagged segments of a 2048-octet message. */
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	static const uint8_t body[40];
	for (int t = 0; t < 2; t++)
		for (int last = 0; last < 2; last++) {
			uint8_t u[128];
			size_t n = cs_ulpdu(p, t ? IW_OP_WRITE : IW_OP_SEND, last, 1, t ? 0x12345678u : (last ? 1482u : 0u),
					 t ? 16384 + (last ? 1486u : 0u) : 0, body, sizeof body, u);
			sb s = { 0 };
			sb_u8(&s, 0);
			sb_mem(&s, u, n);
			char name[64];
			snprintf(name, sizeof name, "hdr-%s-%s", t ? "tagged" : "untagged", last ? "last" : "first");
			put(o, name, &s);
			free(s.b);
		}
	/* Segmenter: the §5.7 examples (MULPDU 1500, 2048 octets) and MPA-realistic 1442. */
	static const struct { uint8_t ctl; uint32_t len; uint16_t mulpdu; } segs[] = {
		{ 0x01, 2048, 1500 }, { 0x81, 2048, 1500 }, { 0x01, 2048, 1442 }, { 0x81, 0, 1442 }, { 0x01, 0, 19 },
	};
	for (size_t k = 0; k < sizeof segs / sizeof segs[0]; k++) {
		sb s = { 0 };
		sb_u8(&s, 1);
		sb_u8(&s, segs[k].ctl);
		for (int i = 0; i < 5; i++)
			sb_u8(&s, 0);
		sb_u32(&s, 0x12345678u);
		sb_u64(&s, 16384);
		sb_u32(&s, 0);
		sb_u32(&s, 1);
		sb_u32(&s, 0);
		sb_u32(&s, segs[k].len);
		sb_u16(&s, segs[k].mulpdu);
		char name[64];
		snprintf(name, sizeof name, "seg-%zu", k);
		put(o, name, &s);
		free(s.b);
	}
}

/* A ddp_sink script segment op: untagged (qn, mo) or tagged (STag slot 0, TO base + b). */
static void sink_seg(sb *s, const iw_profile *p, bool tagged, bool last, unsigned mo_or_off, unsigned len,
		     unsigned access)
{
	sb_u8(s, 0);
	sb_u8(s, (tagged ? 0x80u : 0u) | (last ? 0x40u : 0u) | p->ddp_version);
	sb_u8(s, iw_rdmap_ctrl(p->rdmap_version, tagged ? IW_OP_WRITE : IW_OP_SEND));
	sb_u8(s, 0);            /* sel: QN 0 / STag slot 0, TO base + b, MSN next */
	sb_u32(s, 0);
	sb_u16(s, mo_or_off);
	sb_u16(s, len);
	sb_u8(s, access);
	for (unsigned i = 0; i < len; i++)
		sb_u8(s, i * 3 + 1);
}

void cs_seeds_ddp_sink(out *o)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (int variant = 0; variant < 3; variant++) {
			sb s = { 0 };
			sb_u8(&s, (unsigned)id);
			sb_u8(&s, 1);           /* stream */
			sb_u8(&s, 2);           /* pd */
			sb_u8(&s, 0x07);        /* QN 0-2 */
			/* post two buffers on QN 0 */
			for (int k = 0; k < 2; k++) {
				sb_u8(&s, 5);
				sb_u8(&s, 0);
				sb_u16(&s, 300);
			}
			/* register STag 0x100: read+write, base 0x1000, 512 octets */
			sb_u8(&s, 3);
			sb_u8(&s, 0);
			sb_u8(&s, 4 | 8);
			sb_u32(&s, 0x1000);
			sb_u16(&s, 512);
			/* a Send in two segments, out of order in variant 1 */
			if (variant == 1) {
				sink_seg(&s, p, false, true, 150, 100, 0);
				sink_seg(&s, p, false, false, 0, 150, 0);
			} else {
				sink_seg(&s, p, false, false, 0, 150, 0);
				sink_seg(&s, p, false, true, 150, 100, 0);
			}
			sb_u8(&s, 6);           /* deliver QN 0 */
			sb_u8(&s, 0);
			sink_seg(&s, p, true, true, 10, 100, IW_ACCESS_REMOTE_WRITE);
			sb_u8(&s, 7);           /* check_read STag slot 0 at base + 16, 64 octets */
			sb_u8(&s, 0);
			sb_u8(&s, 0);
			sb_u32(&s, 0);
			sb_u16(&s, 16);
			sb_u16(&s, 64);
			if (variant == 2) {
				sb_u8(&s, 4);   /* invalidate, then write again: T2 */
				sb_u8(&s, 0);
				sink_seg(&s, p, true, true, 0, 8, IW_ACCESS_REMOTE_WRITE);
			} else {
				sink_seg(&s, p, false, true, 0, 0, 0);  /* a zero-length Send */
				sb_u8(&s, 6);
				sb_u8(&s, 0);
			}
			char name[64];
			snprintf(name, sizeof name, "script-%s-%d", p->name, variant);
			put(o, name, &s);
			free(s.b);
		}
	}
}

void cs_seeds_rdmap(out *o)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		uint8_t u[6][128];
		size_t len[6];
		size_t n = cs_sample_ulpdus(p, u, len);
		for (size_t k = 0; k < n; k++) {
			sb s = { 0 };
			sb_u8(&s, (unsigned)id);
			sb_u8(&s, 1 + k % 3);   /* layer: RDMAP, DDP, LLP */
			sb_u8(&s, (unsigned)k);
			sb_u8(&s, (unsigned)k * 3);
			sb_mem(&s, u[k], len[k]);
			char name[64];
			snprintf(name, sizeof name, "%s-%zu", p->name, k);
			put(o, name, &s);
			free(s.b);
		}
	}
}
