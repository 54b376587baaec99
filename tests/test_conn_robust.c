/*
 * test_conn_robust.c - random garbage and mutations of a recorded conversation, fed in random
 * chunks, must never crash the connection model (suite/engine/iw_conn.h; run under ASan/UBSan) and
 * never deliver or place anything after its first error.
 */
#include "conn_fixture.h"

#include <stdlib.h>
#include <string.h>

/* ---- robustness ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/* Invariants every run must keep, whatever the input. */
static void check_invariants(iw_conn *c, conn_log *l)
{
	size_t err = l->n;
	for (size_t i = 0; i < l->n; i++) {
		enum iw_conn_ev_kind k = l->ev[i].kind;
		CHECK(k >= IW_EV_FRAME_ACCEPTED && k <= IW_EV_PEER_CLOSED);
		if ((k == IW_EV_ERROR || k == IW_EV_FRAME_REJECTED) && err == l->n)
			err = i;
		/* MPA-7-08, DDP-9.1-03: nothing delivered or placed after the first error. */
		if (i > err)
			CHECK(k != IW_EV_SEND && k != IW_EV_WRITE && k != IW_EV_READ_DONE && k != IW_EV_READ_SERVICED);
	}
	CHECK_EQ(cf_log_count(l, IW_EV_CLOSE) > 0, iw_conn_wants_close(c));
	CHECK(cf_log_count(l, IW_EV_CLOSE) <= 1);
	if (iw_conn_wants_close(c))
		CHECK_EQ(iw_conn_input(c, (const uint8_t *)"z", 1), 0);
}

static void feed_random_chunks(iw_conn *c, conn_log *l, const uint8_t *s, size_t n)
{
	size_t off = 0;
	while (off < n) {
		size_t k = 1 + rnd() % (rnd() % 4 == 0 ? 1 : 700);
		if (k > n - off)
			k = n - off;
		size_t used = iw_conn_input(c, s + off, k);
		CHECK(used <= k);
		cf_log_drain(c, l);
		size_t on;
		iw_conn_output_peek(c, &on);
		iw_conn_output_consume(c, rnd() % 2 ? on : on / 2);
		off += k;
	}
}

TEST(conn_random_garbage_never_crashes)
{
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	uint8_t *buf = malloc(4096);
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (int role = 0; role < 2; role++) {
			for (int it = 0; it < 150; it++) {
				iw_conn_config cfg = cf_cfg_for((enum iw_profile_id)id, (enum iw_role)role);
				cfg.want_markers = rnd() & 1;
				static uint8_t reg[512];
				iw_conn *c = NULL;
				CHECK_EQ(iw_conn_new(&c, &cfg, NULL), IW_OK);
				if (!c)
					continue;
				CHECK_EQ(iw_conn_start(c, NULL), IW_OK);
				iw_conn_register(c, rnd() % 4, 0, reg, sizeof reg,
						 IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL);
				size_t n = 0;
				if (p->startup_frames && it % 2) {
					/* Past the startup, so the garbage reaches the FPDU decoder. */
					iw_mpa_frame f;
					iw_mpa_frame_init(&f, p, role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST
											  : IW_MPA_REPLY);
					f.m = rnd() & 1;
					f.c = rnd() & 1;
					iw_mpa_frame_encode(&f, buf, 64, &n, NULL);
				}
				size_t len = n + rnd() % 3000;
				for (size_t b = n; b < len; b++)
					buf[b] = (uint8_t)rnd();
				if (it % 3 == 0) {
					/* Plausible lengths make the decoder go deeper. */
					for (size_t b = n; b + 2 < len; b += 2 + rnd() % 100) {
						buf[b] = 0;
						buf[b + 1] = (uint8_t)(rnd() % 64);
					}
				}
				cf_log_reset(l);
				cf_log_drain(c, l);
				feed_random_chunks(c, l, buf, len);
				if (rnd() % 2) {
					iw_conn_peer_closed(c);
					cf_log_drain(c, l);
				}
				check_invariants(c, l);
				iw_conn_free(c);
			}
		}
	}
	free(buf);
	free(l->data);
	free(l);
}

/* A conversation the initiator sends: its Request and a mix of every message kind. */
static size_t record_initiator_stream(enum iw_profile_id id, uint8_t *out, size_t cap, uint8_t *reply,
				      size_t *reply_len, bool markers)
{
	iw_conn_config ci = cf_cfg_for(id, IW_ROLE_INITIATOR), cr = cf_cfg_for(id, IW_ROLE_RESPONDER);
	ci.want_markers = markers;
	cr.want_markers = markers;
	conn_pair *pp = cf_pair_new(&ci, &cr);
	static uint8_t remote[8192], local[8192], msg[5000];
	cf_pattern(msg, sizeof msg, 9);
	iw_conn_register(pp->r, 0x200, 0, remote, sizeof remote, IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE,
			 NULL);
	iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL);
	cf_pump(pp, 0);
	iw_conn_send(pp->i, IW_OP_SEND, msg, 100, NULL);
	iw_conn_write(pp->i, 0x200, 64, msg, 3000, NULL);
	iw_read_req rr = { 0x100, 0, 3000, 0x200, 64 };
	iw_conn_read(pp->i, &rr, NULL);
	iw_conn_send(pp->i, IW_OP_SEND_SE, msg, 0, NULL);
	iw_conn_send(pp->i, IW_OP_SEND, msg, 5000, NULL);
	cf_pump(pp, 0);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 3);
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_READ_DONE), 1);
	size_t n = pp->n_i2r < cap ? pp->n_i2r : cap;
	memcpy(out, pp->cap_i2r, n);
	*reply_len = pp->n_r2i < cap ? pp->n_r2i : cap;
	memcpy(reply, pp->cap_r2i, *reply_len);
	cf_pair_free(pp);
	return n;
}

TEST(conn_random_mutations_never_crash)
{
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	size_t cap = 64 * 1024;
	uint8_t *good = malloc(cap), *bad = malloc(cap), *rgood = malloc(cap);
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		for (int mk = 0; mk < 2; mk++) {
			size_t rlen;
			size_t n = record_initiator_stream((enum iw_profile_id)id, good, cap, rgood, &rlen, mk);
			for (int it = 0; it < 120; it++) {
				bool to_resp = it % 2 == 0;
				const uint8_t *src = to_resp ? good : rgood;
				size_t len = to_resp ? n : rlen;
				memcpy(bad, src, len);
				int muts = 1 + (int)(rnd() % 4);
				for (int m = 0; m < muts && len; m++) {
					size_t at = rnd() % len;
					switch (rnd() % 3) {
					case 0: bad[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
					case 1: bad[at] = (uint8_t)rnd(); break;
					default: len = at + (len - at) / 2; break;     /* truncate */
					}
				}
				iw_conn_config cfg = cf_cfg_for((enum iw_profile_id)id,
								to_resp ? IW_ROLE_RESPONDER : IW_ROLE_INITIATOR);
				cfg.want_markers = mk;
				iw_conn *c = NULL;
				CHECK_EQ(iw_conn_new(&c, &cfg, NULL), IW_OK);
				if (!c)
					continue;
				static uint8_t remote[8192], local[8192];
				iw_conn_register(c, to_resp ? 0x200 : 0x100, 0, to_resp ? remote : local, 8192,
						 to_resp ? IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE : 0, NULL);
				CHECK_EQ(iw_conn_start(c, NULL), IW_OK);
				if (!to_resp) {
					/* Its Request is "sent"; the recorded Reply stream follows. */
					size_t on;
					iw_conn_output_peek(c, &on);
					iw_conn_output_consume(c, on);
				}
				cf_log_reset(l);
				cf_log_drain(c, l);
				feed_random_chunks(c, l, bad, len);
				check_invariants(c, l);
				iw_conn_free(c);
			}
			/* Unmutated, the responder takes the whole stream without an error. */
			iw_conn_config cfg = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
			cfg.want_markers = mk;
			iw_conn *c = NULL;
			CHECK_EQ(iw_conn_new(&c, &cfg, NULL), IW_OK);
			static uint8_t remote2[8192];
			iw_conn_register(c, 0x200, 0, remote2, sizeof remote2,
					 IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL);
			cf_log_reset(l);
			feed_random_chunks(c, l, good, n);
			CHECK_EQ(cf_log_count(l, IW_EV_ERROR), 0);
			CHECK_EQ(cf_log_count(l, IW_EV_SEND), 3);
			CHECK_EQ(cf_log_count(l, IW_EV_READ_SERVICED), 1);
			iw_conn_free(c);
		}
	}
	free(good);
	free(bad);
	free(rgood);
	free(l->data);
	free(l);
}
