/*
 * test_conn_transfer.c - data transfer between two wired models (suite/engine/iw_conn.h): Sends of
 * every size in every profile, Write then Read of the same range, a Read outside the buffer and
 * a corrupted FPDU, each ending in a Terminate and nothing after it.
 */
#include "conn_fixture.h"

#include <stdlib.h>
#include <string.h>

/* ---- data transfer ---- */

TEST(conn_send_sizes_every_profile)
{
	static const size_t sizes[] = { 0, 1, 1442, 100000 };
	uint8_t *msg = malloc(100000);
	cf_pattern(msg, 100000, 11);
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		for (size_t ci = 0; ci < 2; ci++) {
			iw_conn_config ci_ = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_INITIATOR);
			iw_conn_config cr = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
			ci_.want_markers = true;       /* markers on the responder->initiator half */
			ci_.recv_buffer_size = cr.recv_buffer_size = 128 * 1024;  /* room for 100000 */
			conn_pair *pp = cf_pair_new(&ci_, &cr);
			cf_pump(pp, cf_chunks[ci]);
			for (size_t k = 0; k < 4; k++)
				CHECK_EQ(iw_conn_send(pp->i, k == 2 ? IW_OP_SEND_SE : IW_OP_SEND, msg, sizes[k], NULL),
					 IW_OK);
			cf_pump(pp, cf_chunks[ci]);
			CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 4);
			for (size_t k = 0; k < 4; k++) {
				const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_SEND, k);
				if (!ev)
					continue;
				CHECK_EQ(ev->len, sizes[k]);
				CHECK_EQ(ev->msn, k + 1);           /* DDP-6.3-08/09 */
				CHECK_EQ(ev->opcode, k == 2 ? IW_OP_SEND_SE : IW_OP_SEND);
				CHECK_MEM(ev->data, msg, sizes[k]);
				/* The reflector echo. */
				CHECK_EQ(iw_conn_send(pp->r, ev->opcode, ev->data, ev->len, NULL), IW_OK);
			}
			cf_pump(pp, cf_chunks[ci]);
			CHECK_EQ(cf_log_count(&pp->li, IW_EV_SEND), 4);
			for (size_t k = 0; k < 4; k++) {
				const iw_conn_event *ev = cf_log_find(&pp->li, IW_EV_SEND, k);
				if (ev) {
					CHECK_EQ(ev->len, sizes[k]);
					CHECK_MEM(ev->data, msg, sizes[k]);
				}
			}
			/* The 100000-octet Send is many segments, each within MULPDU, MO
			 * increasing, L only on the last (DDP-7.2-01/05, DDP-6.1-03). */
			iw_conn_params a;
			iw_conn_params_get(pp->i, &a);
			size_t req_len = cf_frame_len(p, 0, p->enhanced);
			static wire_seg segs[256];
			size_t ns = cf_wire_parse(p, a.markers_tx, a.crc, pp->cap_i2r + req_len, pp->n_i2r - req_len, segs,
						  256);
			size_t per = a.mulpdu - IW_DDP_UNTAGGED_HDR_LEN;
			size_t first = 2 + (1442 + per - 1) / per;      /* where the 100000 starts */
			CHECK_EQ(ns, first + (100000 + per - 1) / per);
			if (ns == first + (100000 + per - 1) / per) {
				CHECK_EQ(segs[0].ulpdu_len, 18);            /* DDP-7.2-08: zero-length */
				CHECK(segs[0].ddp.last);
				CHECK(!segs[2].ddp.last);                   /* 1442 > MULPDU - 18 */
				for (size_t s = first; s < ns; s++) {
					CHECK_EQ(segs[s].ddp.msn, 4);
					CHECK_EQ(segs[s].ddp.mo, (s - first) * per);
					CHECK_EQ(segs[s].ddp.last, s == ns - 1);
					CHECK(segs[s].ulpdu_len <= a.mulpdu);
				}
			}
			cf_pair_free(pp);
		}
	}
	free(msg);
}

TEST(conn_write_then_read_same_range)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		conn_pair *pp = cf_pair_default((enum iw_profile_id)id);
		static uint8_t remote[8192], local[8192], data[5000];
		memset(remote, 0xEE, sizeof remote);
		memset(local, 0, sizeof local);
		cf_pattern(data, sizeof data, (unsigned)id);
		CHECK_EQ(iw_conn_register(pp->r, 0x200, 0x1000, remote, sizeof remote,
					  IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
		/* The Read Response lands in a local buffer: no remote right needed for it. */
		CHECK_EQ(iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
		cf_pump(pp, id == IW_PROFILE_RFC5044 ? 1 : 0);
		CHECK_EQ(iw_conn_write(pp->i, 0x200, 0x1000 + 100, data, sizeof data, NULL), IW_OK);
		iw_read_req rr = { .sink_stag = 0x100, .sink_to = 7, .size = sizeof data, .src_stag = 0x200,
				   .src_to = 0x1000 + 100 };
		CHECK_EQ(iw_conn_read(pp->i, &rr, NULL), IW_OK);
		cf_pump(pp, id == IW_PROFILE_RFC5044 ? 1 : 0);
		CHECK_MEM(remote + 100, data, sizeof data);     /* DDP-7.2-04 */
		CHECK_EQ(remote[99], 0xEE);
		CHECK_EQ(remote[100 + sizeof data], 0xEE);
		const iw_conn_event *w = cf_log_find(&pp->lr, IW_EV_WRITE, 0);
		CHECK(w != NULL);
		if (w) {
			CHECK_EQ(w->stag, 0x200);
			iw_conn_params a;
			iw_conn_params_get(pp->i, &a);
			size_t per = a.mulpdu - IW_DDP_TAGGED_HDR_LEN;
			size_t last_off = (sizeof data - 1) / per * per;
			CHECK_EQ(w->to, 0x1000 + 100 + last_off);   /* DDP-7.2-07 */
			CHECK_EQ(w->len, sizeof data - last_off);
		}
		const iw_conn_event *s = cf_log_find(&pp->lr, IW_EV_READ_SERVICED, 0);
		CHECK(s != NULL);
		if (s)
			CHECK_EQ(s->rreq.size, sizeof data);
		const iw_conn_event *d = cf_log_find(&pp->li, IW_EV_READ_DONE, 0);
		CHECK(d != NULL);
		if (d)
			CHECK_EQ(d->rreq.sink_stag, 0x100);
		CHECK_MEM(local + 7, data, sizeof data);
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_ERROR) + cf_log_count(&pp->lr, IW_EV_ERROR), 0);
		cf_pair_free(pp);
	}
}

TEST(conn_read_outside_buffer_terminates)
{
	conn_pair *pp = cf_pair_default(IW_PROFILE_RFC5044);
	static uint8_t remote[4096], local[8192];
	CHECK_EQ(iw_conn_register(pp->r, 0x200, 0, remote, sizeof remote, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
	CHECK_EQ(iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
	cf_pump(pp, 0);
	iw_read_req rr = { .sink_stag = 0x100, .sink_to = 0, .size = 4097, .src_stag = 0x200, .src_to = 0 };
	CHECK_EQ(iw_conn_read(pp->i, &rr, NULL), IW_OK);
	size_t before = pp->n_r2i;
	cf_pump(pp, 0);
	const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
		CHECK_EQ(ev->viol.etype, IW_RDMAP_ET_PROTECTION);
		CHECK_EQ(ev->viol.ecode, IW_RDMAP_EC_BASE_BOUNDS);
	}
	CHECK(cf_log_index(&pp->lr, IW_EV_ERROR) < cf_log_index(&pp->lr, IW_EV_CLOSE));
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_READ_SERVICED), 0);
	const iw_conn_event *t = cf_log_find(&pp->li, IW_EV_TERMINATE, 0);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ(t->term.layer, IW_LAYER_RDMAP);
		CHECK_EQ(t->term.etype, IW_RDMAP_ET_PROTECTION);
		CHECK_EQ(t->term.ecode, IW_RDMAP_EC_BASE_BOUNDS);
		CHECK(t->term.d);
		CHECK(t->term.r);                   /* the Read Request rides along (RFC 5040 §4.8) */
		uint8_t body[IW_RDMAP_READ_REQ_LEN];
		iw_read_req_encode(&rr, body);
		CHECK_MEM(t->term.rdma_hdr, body, sizeof body);
	}
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_CLOSE), 1);
	CHECK(iw_conn_wants_close(pp->i));
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_READ_DONE), 0);
	/* On the wire: one Terminate, untagged QN 2, MSN 1, MO 0, L. */
	wire_seg seg[4];
	CHECK_EQ(cf_wire_parse(iw_profile_get(IW_PROFILE_RFC5044), false, true, pp->cap_r2i + before,
			       pp->n_r2i - before, seg, 4), 1);
	CHECK(!seg[0].ddp.tagged && seg[0].ddp.last);
	CHECK_EQ(seg[0].opcode, IW_OP_TERMINATE);
	CHECK_EQ(seg[0].ddp.qn, 2);
	CHECK_EQ(seg[0].ddp.msn, 1);
	CHECK_EQ(seg[0].ddp.mo, 0);
	cf_pair_free(pp);

	/* A write-only buffer: the same path with the access-rights code. */
	pp = cf_pair_default(IW_PROFILE_RFC6581);
	CHECK_EQ(iw_conn_register(pp->r, 0x200, 0, remote, sizeof remote, IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
	CHECK_EQ(iw_conn_register(pp->i, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
	cf_pump(pp, 0);
	rr.size = 16;
	CHECK_EQ(iw_conn_read(pp->i, &rr, NULL), IW_OK);
	cf_pump(pp, 0);
	t = cf_log_find(&pp->li, IW_EV_TERMINATE, 0);
	CHECK(t != NULL);
	if (t)
		CHECK_EQ(t->term.ecode, IW_RDMAP_EC_ACCESS);    /* ARCH-2.2-F1 */
	cf_pair_free(pp);
}

TEST(conn_corrupt_fpdu_terminates_then_nothing)
{
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = iw_profile_get((enum iw_profile_id)id);
		conn_pair *pp = cf_pair_default((enum iw_profile_id)id);
		cf_pump(pp, 0);
		static uint8_t msg[300];
		cf_pattern(msg, sizeof msg, 5);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 10, NULL), IW_OK);
		cf_pump(pp, 0);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 1);

		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizeof msg, NULL), IW_OK);
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 20, NULL), IW_OK);
		size_t n;
		const uint8_t *o = iw_conn_output_peek(pp->i, &n);
		static uint8_t bad[1024];
		CHECK(n <= sizeof bad);
		memcpy(bad, o, n);
		bad[100] ^= 0x10;                   /* inside the 300-octet Send's payload */
		size_t used = iw_conn_input(pp->r, bad, n);
		iw_conn_output_consume(pp->i, n);
		cf_log_drain(pp->r, &pp->lr);
		CHECK(used < n);                    /* it stopped where it closed */
		CHECK_EQ(iw_conn_input(pp->r, bad, n), 0);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 1);    /* MPA-7-08: nothing later */
		const iw_conn_event *ev = cf_log_find(&pp->lr, IW_EV_ERROR, 0);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_STR(ev->viol.req, "MPA-5.2-14");
			CHECK_EQ(ev->viol.layer, IW_LAYER_LLP);
			CHECK_EQ(ev->viol.etype, IW_LLP_ET_MPA);
			CHECK_EQ(ev->viol.ecode, IW_MPA_E_CRC);
		}
		CHECK_EQ(iw_conn_state(pp->r), IW_CS_FAILED);
		CHECK(iw_conn_wants_close(pp->r));
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 1, NULL), IW_ESTATE);
		cf_pump(pp, 0);
		/* The Terminate: LLP, type 0 (MPA), code 2, no headers. */
		const iw_conn_event *t = cf_log_find(&pp->li, IW_EV_TERMINATE, 0);
		CHECK(t != NULL);
		if (t) {
			CHECK_EQ(t->term.layer, IW_LAYER_LLP);
			CHECK_EQ(t->term.etype, 0);
			CHECK_EQ(t->term.ecode, IW_MPA_E_CRC);
			CHECK(!t->term.d && !t->term.r);
		}
		CHECK_EQ(cf_log_count(&pp->li, IW_EV_CLOSE), 1);
		(void)p;
		cf_pair_free(pp);
	}
}
