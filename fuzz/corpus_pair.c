/*
 * corpus_pair.c - seeds from two connection models back to back: an initiator and a responder
 * under each profile and negotiation wish, then Sends, Writes and Reads both ways, recorded
 * direction by direction. Realistic streams for the connection targets (conn_responder,
 * conn_initiator), the harness's receive path (harness_rx) and the cut differential (diff_cuts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connrun.h"
#include "corpus_int.h"
#include "iw_conn.h"

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

void cs_seeds_conn(out *o, bool responder)
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

void cs_seeds_harness(out *o)
{
	cs_seeds_streams(o, "stream", head_harness);
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

void cs_seeds_diff_cuts(out *o)
{
	cs_seeds_streams(o, "rx", head_diff_cuts);
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
