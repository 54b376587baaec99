/*
 * corpus.c - the seed corpora, generated from the engine's encoders, the golden vectors of
 * requirements.md §5, two connection models talking to each other, and the case files
 * (cases). Nothing here is a stored binary blob: every seed is built by the code that
 * defines the format, so a format change updates the seeds.
 *
 * Each seed starts with the parameter octets its target reads (see the comment at the top of
 * each fuzz_<name>.c), then the protocol octets.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "connrun.h"
#include "ddp.h"
#include "fuzz.h"
#include "iw_conn.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "pcap_write.h"
#include "rdmap.h"

/* ---- a growing octet buffer ---- */

typedef struct sb {
	uint8_t *b;
	size_t n, cap;
} sb;

static void sb_mem(sb *s, const void *p, size_t n)
{
	if (s->n + n > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		while (cap < s->n + n)
			cap *= 2;
		uint8_t *nb = realloc(s->b, cap);
		if (!nb)
			abort();
		s->b = nb;
		s->cap = cap;
	}
	if (n)
		memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void sb_u8(sb *s, unsigned v)
{
	uint8_t b = (uint8_t)v;
	sb_mem(s, &b, 1);
}

static void sb_u16(sb *s, unsigned v)
{
	sb_u8(s, v >> 8);
	sb_u8(s, v);
}

static void sb_u32(sb *s, uint32_t v)
{
	sb_u16(s, v >> 16);
	sb_u16(s, v & 0xFFFF);
}

static void sb_u64(sb *s, uint64_t v)
{
	sb_u32(s, (uint32_t)(v >> 32));
	sb_u32(s, (uint32_t)v);
}

static void sb_str(sb *s, const char *t)
{
	sb_mem(s, t, strlen(t));
}

typedef struct out {
	iw_fuzz_emit_fn emit;
	void *ctx;
	int n;
} out;

static void put(out *o, const char *name, const sb *s)
{
	o->emit(o->ctx, name, s->b, s->n);
	o->n++;
}

/* ---- protocol octets ---- */

/* One RDMAP message as a ULPDU (DDP header + body) under profile p. */
static size_t ulpdu(const iw_profile *p, unsigned opcode, bool last, uint32_t msn, uint32_t mo_or_stag, uint64_t to,
		    const uint8_t *body, size_t blen, uint8_t *outb)
{
	const iw_rdmap_opinfo *op = iw_rdmap_op(opcode);
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = op->tagged;
	h.last = last;
	h.dv = p->ddp_version;
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, opcode);
	if (h.tagged) {
		h.stag = mo_or_stag;
		h.to = to;
	} else {
		h.qn = op->qn < 0 ? 0 : (uint32_t)op->qn;
		h.msn = msn;
		h.mo = mo_or_stag;
	}
	size_t n = 0;
	iw_ddp_hdr_encode(&h, outb, IW_DDP_UNTAGGED_HDR_LEN, &n, NULL);
	memcpy(outb + n, body, blen);
	return n + blen;
}

/* The messages every stream seed carries: Sends, a Write, a Read Request, a Terminate. */
static size_t sample_ulpdus(const iw_profile *p, uint8_t u[6][128], size_t *len)
{
	static const uint8_t hello[24] = "iwspec seed Send payload";
	uint8_t rr[IW_RDMAP_READ_REQ_LEN];
	iw_read_req r = { .sink_stag = 0x100, .sink_to = 0, .size = 32, .src_stag = 0x200, .src_to = 0x10000 };
	iw_read_req_encode(&r, rr);
	iw_terminate t;
	uint8_t tb[64];
	size_t tl = 0;
	len[0] = ulpdu(p, IW_OP_SEND, true, 1, 0, 0, hello, sizeof hello, u[0]);
	len[1] = ulpdu(p, IW_OP_SEND_SE, true, 2, 0, 0, hello, 8, u[1]);
	len[2] = ulpdu(p, IW_OP_WRITE, true, 0, 0x100, 16, hello, 16, u[2]);
	len[3] = ulpdu(p, IW_OP_READ_REQ, true, 1, 0, 0, rr, sizeof rr, u[3]);
	iw_terminate_for(&t, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN, u[0], len[0]);
	iw_terminate_encode(&t, tb, sizeof tb, &tl, NULL);
	len[4] = ulpdu(p, IW_OP_TERMINATE, true, 1, 0, 0, tb, tl, u[4]);
	len[5] = ulpdu(p, IW_OP_READ_RESP, true, 0, 0x100, 0, hello, 20, u[5]);
	return 6;
}

/* Frames ULPDUs into an FPDU stream; mods (may be NULL) apply to FPDU `bad`. */
static void frame_stream(const iw_profile *p, bool markers, bool crc, uint8_t u[][128], const size_t *len, size_t n,
			 const iw_fpdu_mods *mods, size_t bad, sb *s)
{
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, markers, crc);
	for (size_t k = 0; k < n; k++) {
		uint8_t buf[512];
		size_t w = 0;
		if (iw_mpa_tx_fpdu(&tx, u[k], len[k], NULL, 0, k == bad ? mods : NULL, buf, sizeof buf, &w, NULL) == IW_OK)
			sb_mem(s, buf, w);
	}
}

/* Figures 5 and 6 of requirements.md §5.1-5.2 (seed-exact: DV 0, RV 0): a 492-octet FPDU of
 * Send MSN 1 (the figure's unnamed first FPDU), then the 42-octet Send MSN 2 whose ULPDU a
 * marker splits; with fig5_only, the 52-octet Figure 5 FPDU alone. */
static void golden_figs(const iw_profile *p, bool fig5_only, sb *s)
{
	uint8_t u[2][512];
	memset(u, 0, sizeof u);
	size_t l0 = fig5_only ? 42 : 482;
	size_t k = ulpdu(p, IW_OP_SEND, true, 1, 0, 0, u[1], l0 - IW_DDP_UNTAGGED_HDR_LEN, u[0]);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, true, true);
	uint8_t buf[1024];
	size_t w;
	if (iw_mpa_tx_fpdu(&tx, u[0], k, NULL, 0, NULL, buf, sizeof buf, &w, NULL) == IW_OK)
		sb_mem(s, buf, w);
	if (fig5_only)
		return;
	uint8_t zero[24] = { 0 };
	k = ulpdu(p, IW_OP_SEND, true, 2, 0, 0, zero, sizeof zero, u[1]);
	if (iw_mpa_tx_fpdu(&tx, u[1], k, NULL, 0, NULL, buf, sizeof buf, &w, NULL) == IW_OK)
		sb_mem(s, buf, w);
}

static void frame_bytes(const iw_mpa_frame *f, sb *s)
{
	uint8_t buf[1024];
	size_t n;
	if (iw_mpa_frame_encode(f, buf, sizeof buf, &n, NULL) == IW_OK)
		sb_mem(s, buf, n);
}

/* Frames of a profile: the default, M=1, C=0, R=1 with private data "bad", and under RFC
 * 6581 peer-to-peer with all RTR types offered. */
static size_t sample_frames(const iw_profile *p, enum iw_mpa_kind kind, iw_mpa_frame *f)
{
	static const uint8_t bad[3] = { 'b', 'a', 'd' };
	size_t n = 0;
	iw_mpa_frame_init(&f[n++], p, kind);
	f[n] = f[0];
	f[n++].m = true;
	f[n] = f[0];
	f[n++].c = false;
	f[n] = f[0];
	f[n].r = kind == IW_MPA_REPLY;
	f[n].pd = bad;
	f[n++].pd_len = sizeof bad;
	if (p->enhanced) {
		f[n] = f[0];
		f[n].p2p = f[n].rtr_send = f[n].rtr_write = f[n].rtr_read = true;
		n++;
	}
	return n;
}

/* ---- two models back to back: realistic streams in both directions ---- */

typedef struct pair_streams {
	sb i2r, r2i;
	fz_conn_setup si, sr;   /* setups whose octets are in cfg_i / cfg_r */
	sb cfg_i, cfg_r;
} pair_streams;

static uint8_t pair_rw[2][4096], pair_ro[2][512];

static void setup_bytes(sb *s, const iw_profile *p, uint8_t flags, uint16_t emss, uint8_t cut)
{
	sb_u8(s, (unsigned)p->id);
	sb_u8(s, flags);
	sb_u8(s, 7);            /* rtr */
	sb_u8(s, 16);           /* ird */
	sb_u8(s, 16);           /* ord */
	sb_u16(s, emss);
	sb_u8(s, cut);
	sb_u8(s, 0);            /* pd_len */
}

/* Runs an initiator and a responder under profile p with the given wishes, then the ULP
 * operations, recording the octets of each direction. */
static void run_pair(const iw_profile *p, uint8_t iflags, uint8_t rflags, uint16_t emss, pair_streams *ps)
{
	memset(ps, 0, sizeof *ps);
	setup_bytes(&ps->cfg_i, p, iflags, emss, 0x0F);
	setup_bytes(&ps->cfg_r, p, rflags, emss, 0x0E);
	fz fi = fz_init(ps->cfg_i.b, ps->cfg_i.n), fr = fz_init(ps->cfg_r.b, ps->cfg_r.n);
	fz_conn_setup_read(&fi, IW_ROLE_INITIATOR, &ps->si);
	fz_conn_setup_read(&fr, IW_ROLE_RESPONDER, &ps->sr);
	iw_conn *c[2] = { NULL, NULL };
	if (iw_conn_new(&c[0], &ps->si.cfg, NULL) || iw_conn_new(&c[1], &ps->sr.cfg, NULL)) {
		iw_conn_free(c[0]);
		return;
	}
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < sizeof pair_ro[i]; k++)
			pair_ro[i][k] = (uint8_t)(k + 1);
		iw_conn_register(c[i], 0x100, 0, pair_rw[i], sizeof pair_rw[i],
				 IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL);
		iw_conn_register(c[i], 0x200, 0x10000, pair_ro[i], sizeof pair_ro[i], IW_ACCESS_REMOTE_READ, NULL);
	}
	iw_conn_start(c[0], NULL);
	iw_conn_start(c[1], NULL);
	static const uint8_t msg[300] = "a Send between two iwspec connection models";
	bool ops_done = false;
	for (int round = 0; round < 32; round++) {
		bool moved = false;
		for (int i = 0; i < 2; i++) {
			size_t n;
			const uint8_t *o = iw_conn_output_peek(c[i], &n);
			if (n) {
				sb_mem(i == 0 ? &ps->i2r : &ps->r2i, o, n);
				iw_conn_input(c[1 - i], o, n);
				iw_conn_output_consume(c[i], n);
				moved = true;
			}
			iw_conn_event ev;
			while (iw_conn_next_event(c[i], &ev))
				;
		}
		if (!moved && !ops_done && iw_conn_state(c[0]) == IW_CS_FULL) {
			/* Both ways: Sends, a Write, a Read, as a reflector test would. */
			iw_read_req rr = { .sink_stag = 0x100, .sink_to = 64, .size = 48, .src_stag = 0x200, .src_to = 0x10000 };
			iw_conn_send(c[0], IW_OP_SEND, msg, 40, NULL);
			iw_conn_send(c[0], IW_OP_SEND_SE, msg, sizeof msg, NULL);
			iw_conn_write(c[0], 0x100, 8, msg, 100, NULL);
			iw_conn_read(c[0], &rr, NULL);
			iw_conn_send(c[1], IW_OP_SEND, msg, 12, NULL);
			iw_conn_write(c[1], 0x100, 0, msg, 64, NULL);
			iw_conn_read(c[1], &rr, NULL);
			ops_done = true;
			moved = true;
		}
		if (!moved)
			break;
	}
	iw_conn_free(c[0]);
	iw_conn_free(c[1]);
}

static void pair_free(pair_streams *ps)
{
	free(ps->i2r.b);
	free(ps->r2i.b);
	free(ps->cfg_i.b);
	free(ps->cfg_r.b);
}

/* Profiles and negotiation wishes the pair seeds cover. */
static const struct { enum iw_profile_id id; uint8_t iflags, rflags; uint16_t emss; } pair_cases[] = {
	{ IW_PROFILE_RFC5044, 0x02 | 0x80, 0x02 | 0x80, 1460 },
	{ IW_PROFILE_RFC5044, 0x01 | 0x02 | 0x80, 0x01 | 0x02 | 0x80, 1460 },
	{ IW_PROFILE_RFC5044, 0x04 | 0x80, 0x04 | 0x80, 536 },
	{ IW_PROFILE_RDDP_MPA_01, 0x01 | 0x02 | 0x80, 0x02 | 0x80, 1460 },
	{ IW_PROFILE_RFC6581, 0x02 | 0x10 | 0x80, 0x01 | 0x02 | 0x80, 1460 },
	{ IW_PROFILE_RFC6581, 0x02 | 0x80, 0x02 | 0x80, 9000 },
	{ IW_PROFILE_CULLEY_MPA_02, 0x80, 0x80, 1460 },
	{ IW_PROFILE_SEED_EXACT, 0x01 | 0x02 | 0x80, 0x01 | 0x02 | 0x80, 1460 },
};
#define NPAIR (sizeof pair_cases / sizeof pair_cases[0])

/* ---- per target ---- */

static void seeds_mpa_frame(out *o)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (int kind = 0; kind < 2; kind++) {
			iw_mpa_frame f[8];
			size_t n = sample_frames(p, (enum iw_mpa_kind)kind, f);
			for (size_t k = 0; k < n; k++) {
				for (int expect = 0; expect < 2; expect++) {
					sb s = { 0 };
					sb_u8(&s, (unsigned)id);
					sb_u8(&s, (unsigned)expect);
					frame_bytes(&f[k], &s);
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
static void seeds_streams(out *o, const char *prefix, void (*head)(sb *, const iw_profile *, bool, bool))
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		uint8_t u[6][128];
		size_t len[6];
		size_t n = sample_ulpdus(p, u, len);
		for (int m = 0; m < 2; m++)
			for (int c = 0; c < 2; c++) {
				sb s = { 0 };
				head(&s, p, m, c);
				frame_stream(p, m, c, u, len, n, NULL, 0, &s);
				char name[64];
				snprintf(name, sizeof name, "%s-%s-m%d-c%d", prefix, p->name, m, c);
				put(o, name, &s);
				free(s.b);
			}
	}
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t u[6][128];
	size_t len[6];
	size_t n = sample_ulpdus(p, u, len);
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
		frame_stream(p, true, true, u, len, n, &mods[k].m, 1, &s);
		char name[64];
		snprintf(name, sizeof name, "%s-mod-%s", prefix, mods[k].name);
		put(o, name, &s);
		free(s.b);
	}
	const iw_profile *se = iw_profile_get(IW_PROFILE_SEED_EXACT);
	for (int fig5 = 0; fig5 < 2; fig5++) {
		sb s = { 0 };
		head(&s, se, true, true);
		golden_figs(se, fig5, &s);
		put(o, fig5 ? "golden-fig5" : "golden-fig5-fig6", &s);
		free(s.b);
	}
}

static void head_mpa_rx(sb *s, const iw_profile *p, bool m, bool c)
{
	sb_u8(s, (unsigned)p->id);
	sb_u8(s, (unsigned)(m | c << 1) | 0x08);
	sb_u32(s, 0);
	sb_u8(s, 1);
}

static void head_diff_cuts(sb *s, const iw_profile *p, bool m, bool c)
{
	sb_u8(s, 0);
	sb_u8(s, (unsigned)p->id);
	sb_u8(s, (unsigned)(m | c << 1));
	sb_u8(s, 4);
	sb_u16(s, 1);
	sb_u16(s, 6);
	sb_u16(s, 60);
	sb_u16(s, 513);
}

static void head_harness(sb *s, const iw_profile *p, bool m, bool c)
{
	sb_u8(s, (unsigned)p->id);
	sb_u8(s, (unsigned)(m << 1 | c << 2) | 0x08);
	sb_u16(s, 0);
}

static void seeds_ddp(out *o)
{
	/* requirements.md §5.7: untagged and tagged segments of a 2048-octet message. */
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	static const uint8_t body[40];
	for (int t = 0; t < 2; t++)
		for (int last = 0; last < 2; last++) {
			uint8_t u[128];
			size_t n = ulpdu(p, t ? IW_OP_WRITE : IW_OP_SEND, last, 1, t ? 0x12345678u : (last ? 1482u : 0u),
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

static void seeds_ddp_sink(out *o)
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

static void seeds_rdmap(out *o)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		uint8_t u[6][128];
		size_t len[6];
		size_t n = sample_ulpdus(p, u, len);
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

static void seeds_conn(out *o, bool responder)
{
	for (size_t k = 0; k < NPAIR; k++) {
		pair_streams ps;
		run_pair(iw_profile_get(pair_cases[k].id), pair_cases[k].iflags, pair_cases[k].rflags, pair_cases[k].emss,
			 &ps);
		sb s = { 0 };
		if (responder) {
			sb_mem(&s, ps.cfg_r.b, ps.cfg_r.n);
			sb_mem(&s, ps.i2r.b, ps.i2r.n);
		} else {
			sb_mem(&s, ps.cfg_i.b, ps.cfg_i.n);
			sb_mem(&s, ps.r2i.b, ps.r2i.n);
		}
		char name[64];
		snprintf(name, sizeof name, "pair-%zu-%s", k, iw_profile_get(pair_cases[k].id)->name);
		put(o, name, &s);
		/* The same with the peer closing and the ULP acting. */
		s.b[1] |= 0x20 | 0x40;
		snprintf(name, sizeof name, "pair-%zu-%s-close", k, iw_profile_get(pair_cases[k].id)->name);
		put(o, name, &s);
		free(s.b);
		pair_free(&ps);
	}
}

static void seeds_harness(out *o)
{
	seeds_streams(o, "stream", head_harness);
	for (size_t k = 0; k < NPAIR; k++) {
		const iw_profile *p = iw_profile_get(pair_cases[k].id);
		pair_streams ps;
		run_pair(p, pair_cases[k].iflags, pair_cases[k].rflags, pair_cases[k].emss, &ps);
		for (int dut_resp = 0; dut_resp < 2; dut_resp++) {
			sb s = { 0 };
			sb_u8(&s, (unsigned)p->id);
			/* The harness plays the other side: its frame's M and C are that side's wishes. */
			uint8_t hflags = dut_resp ? pair_cases[k].iflags : pair_cases[k].rflags;
			sb_u8(&s, (unsigned)dut_resp | (hflags & 1 ? 2u : 0u) | 4u | 8u | (dut_resp ? 16u : 0u));
			sb_u16(&s, 0);
			const sb *d = dut_resp ? &ps.r2i : &ps.i2r;
			sb_mem(&s, d->b, d->n);
			char name[64];
			snprintf(name, sizeof name, "pair-%zu-%s-%s", k, p->name, dut_resp ? "dut-responder" : "dut-initiator");
			put(o, name, &s);
			free(s.b);
		}
		pair_free(&ps);
	}
}

static void seeds_diff_cuts(out *o)
{
	seeds_streams(o, "rx", head_diff_cuts);
	for (size_t k = 0; k < NPAIR; k++) {
		const iw_profile *p = iw_profile_get(pair_cases[k].id);
		pair_streams ps;
		run_pair(p, pair_cases[k].iflags, pair_cases[k].rflags, pair_cases[k].emss, &ps);
		for (int mode = 1; mode <= 2; mode++) {
			/* mode 1: the model is the responder and gets the initiator's octets. */
			uint8_t wish = mode == 1 ? pair_cases[k].rflags : pair_cases[k].iflags;
			const sb *d = mode == 1 ? &ps.i2r : &ps.r2i;
			sb s = { 0 };
			sb_u8(&s, (unsigned)mode);
			sb_u8(&s, (unsigned)p->id);
			sb_u8(&s, (wish & 1) | ((wish & 4) ? 2u : 0u) | ((wish & 2) ? 0u : 4u) | (wish & 0x10));
			sb_u8(&s, 3);
			sb_u16(&s, 3);
			sb_u16(&s, 21);
			sb_u16(&s, (unsigned)(d->n / 2));
			sb_mem(&s, d->b, d->n);
			char name[64];
			snprintf(name, sizeof name, "pair-%zu-%s-%s", k, p->name, mode == 1 ? "responder" : "initiator");
			put(o, name, &s);
			free(s.b);
		}
		pair_free(&ps);
	}
}

static void seeds_roundtrip(out *o)
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

static void seeds_markers(out *o)
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
	golden_figs(se, false, &s);
	put(o, "raw-golden-fig5-fig6", &s);
	free(s.b);
}

static void seeds_crc(out *o)
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
	golden_figs(iw_profile_get(IW_PROFILE_SEED_EXACT), true, &s);
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

static void seeds_dut_config(out *o)
{
	static const char *const files[] = {
		"# a DUT reached over TCP\n"
		"dut = tcp:127.0.0.1:4791\nrole = initiator\nprofile = rfc6581\nmpa_revision = 2\nmarkers = no\n"
		"crc = optional-off\nprivate_data_limit = 512\nreflector = yes\nreject = no\n"
		"connect_timeout = 2s\ncase_timeout = 1.5m\nclose_timeout = 250ms\n"
		"disable = MPA-6.1-R10a* : no startup timer\n"
		"map = ddp/1/0x04 -> llp/0/0x02 : reports a CRC error for a bad DDP version\n",
		"dut = exec:'./mydut --listen {host}:{port}'\nprofile = rddp-mpa-01 # the drafts\n",
		"dut = ref\nhostile = none\nmutant = none\n",
		"profile = rfc5044\nprofile = rfc6581\n",
		"markers = perhaps\n",
		"map = rdmap/2/0x06 -> 0/0x2/255 : reason\nmap = x -> y\n",
	};
	sb s = { 0 };
	for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
		for (int mode = 0; mode < 2; mode++) {
			s.n = 0;
			sb_u8(&s, (unsigned)mode);
			sb_str(&s, files[k]);
			char name[64];
			snprintf(name, sizeof name, "%s-%zu", mode ? "set" : "file", k);
			put(o, name, &s);
		}
	}
	s.n = 0;
	sb_u8(&s, 2);
	sb_str(&s, "1.25s\nmpa.startup.* : not this DUT\nmpa.startup.key-octet-00");
	put(o, "duration-glob", &s);
	free(s.b);
}

/* Captures the pcap writer makes (reports/pcap_write.h): a startup and an FPDU over Ethernet
 * and raw IPv4, cut into small segments, ended by FIN or RST, two connections at once, and one
 * cut short inside its last record. */
static void seeds_pcap(out *o)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t req[IW_MPA_FRAME_HDR_LEN], rep[IW_MPA_FRAME_HDR_LEN], fp[256], u[128];
	iw_mpa_frame f;
	size_t n;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	if (iw_mpa_frame_encode(&f, req, sizeof req, &n, NULL) != IW_OK)
		return;
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	if (iw_mpa_frame_encode(&f, rep, sizeof rep, &n, NULL) != IW_OK)
		return;
	static const uint8_t hello[] = "hello, reflector";
	size_t un = ulpdu(p, IW_OP_SEND, true, 1, 0, 0, hello, sizeof hello - 1, u);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	size_t fn = 0;
	if (iw_mpa_tx_fpdu(&tx, u, un, NULL, 0, NULL, fp, sizeof fp, &fn, NULL) != IW_OK)
		return;
	static const struct {
		const char *name;
		enum iw_pcap_link link;
		uint16_t mss;
		bool rst, two, cut;
	} shapes[] = {
		{"ethernet", IW_PCAP_LINK_ETHERNET, 0, false, false, false},
		{"raw-small-mss", IW_PCAP_LINK_RAW, 7, false, false, false},
		{"rst", IW_PCAP_LINK_ETHERNET, 0, true, false, false},
		{"two-connections", IW_PCAP_LINK_ETHERNET, 16, false, true, false},
		{"cut-last-record", IW_PCAP_LINK_RAW, 0, false, false, true},
	};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		iw_pcap_writer *w = iw_pcap_writer_new(shapes[k].link, NULL);
		if (!w)
			return;
		iw_pcap_tcp *t[2] = {NULL, NULL};
		for (int c = 0; c < (shapes[k].two ? 2 : 1); c++) {
			iw_pcap_tcp_params prm;
			iw_pcap_tcp_params_default(&prm);
			prm.mss = shapes[k].mss;
			prm.client_port = (uint16_t)(prm.client_port + c);
			t[c] = iw_pcap_tcp_open(w, &prm, NULL);
		}
		for (int c = 0; c < 2 && t[c]; c++) {
			(void)iw_pcap_tcp_data(t[c], IW_PCAP_C2S, req, sizeof req, NULL);
			(void)iw_pcap_tcp_data(t[c], IW_PCAP_S2C, rep, sizeof rep, NULL);
			(void)iw_pcap_tcp_data(t[c], IW_PCAP_C2S, fp, fn, NULL);
			if (shapes[k].rst) {
				(void)iw_pcap_tcp_rst(t[c], IW_PCAP_S2C, NULL);
			} else {
				(void)iw_pcap_tcp_fin(t[c], IW_PCAP_C2S, NULL);
				(void)iw_pcap_tcp_fin(t[c], IW_PCAP_S2C, NULL);
			}
		}
		uint8_t *img = NULL;
		size_t len = 0;
		if (iw_pcap_writer_take(w, &img, &len, NULL) != 0)
			continue;
		sb s = { img, shapes[k].cut && len > 10 ? len - 10 : len, len };
		put(o, shapes[k].name, &s);
		free(img);
	}
}

/* Baselines as `iwspec run --write-expect` writes them, and by hand. */
static void seeds_baseline(out *o)
{
	static const char *const texts[] = {
		"# iwspec baseline\nmpa.startup.resp.happy-path PASS\nmpa.startup.resp.key-octet-00@rfc5044 FAIL : "
		"[MPA-6.1-R5] the DUT accepted a wrong key\nddp.tagged.to-wrap@rfc6581 SKIP : needs reflector\n",
		"mpa.startup.resp.request-timeout INFO\nmpa.markers.dut-first-marker WARN : [MPA-5.1-06] late\n"
		"rdmap.read.bounds ERROR : harness\n",
		"mpa.x maybe\n",
		"mpa.a PASS\nmpa.a PASS\n",
	};
	sb s = { 0 };
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
		s.n = 0;
		sb_str(&s, texts[k]);
		char name[32];
		snprintf(name, sizeof name, "baseline-%zu", k);
		put(o, name, &s);
	}
	free(s.b);
}

/* .iwt files under dir, recursively, in name order. */
static void seeds_cases_dir(out *o, const char *dir, int depth)
{
	if (depth > 6)
		return;
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *nm = list[i]->d_name;
		if (nm[0] != '.') {
			char path[1024];
			snprintf(path, sizeof path, "%s/%s", dir, nm);
			struct stat st;
			size_t l = strlen(nm);
			if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
				seeds_cases_dir(o, path, depth + 1);
			} else if (l > 4 && strcmp(nm + l - 4, ".iwt") == 0 && st.st_size <= IW_FUZZ_MAX_SEED) {
				FILE *fp = fopen(path, "rb");
				if (fp) {
					sb s = { 0 };
					uint8_t buf[4096];
					size_t k;
					while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
						sb_mem(&s, buf, k);
					fclose(fp);
					/* Name the seed after its path below the cases directory. */
					char name[1024];
					memcpy(name, path, sizeof name);
					for (char *c = name; *c; c++)
						if (*c == '/')
							*c = '_';
					put(o, name, &s);
					free(s.b);
				}
			}
		}
		free(list[i]);
	}
	free(list);
}

int iw_fuzz_seeds(const char *target, const char *cases_dir, iw_fuzz_emit_fn emit, void *ctx)
{
	out o = { emit, ctx, 0 };
	if (!strcmp(target, "mpa_frame"))
		seeds_mpa_frame(&o);
	else if (!strcmp(target, "mpa_rx"))
		seeds_streams(&o, "stream", head_mpa_rx);
	else if (!strcmp(target, "ddp"))
		seeds_ddp(&o);
	else if (!strcmp(target, "ddp_sink"))
		seeds_ddp_sink(&o);
	else if (!strcmp(target, "rdmap"))
		seeds_rdmap(&o);
	else if (!strcmp(target, "conn_responder"))
		seeds_conn(&o, true);
	else if (!strcmp(target, "conn_initiator"))
		seeds_conn(&o, false);
	else if (!strcmp(target, "case_parse")) {
		if (cases_dir)
			seeds_cases_dir(&o, cases_dir, 0);
	} else if (!strcmp(target, "dut_config"))
		seeds_dut_config(&o);
	else if (!strcmp(target, "harness_rx"))
		seeds_harness(&o);
	else if (!strcmp(target, "diff_cuts"))
		seeds_diff_cuts(&o);
	else if (!strcmp(target, "diff_roundtrip"))
		seeds_roundtrip(&o);
	else if (!strcmp(target, "diff_markers"))
		seeds_markers(&o);
	else if (!strcmp(target, "diff_crc32c"))
		seeds_crc(&o);
	else if (!strcmp(target, "pcap_read"))
		seeds_pcap(&o);
	else if (!strcmp(target, "baseline"))
		seeds_baseline(&o);
	else
		return -1;
	return o.n;
}
