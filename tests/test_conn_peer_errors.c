/*
 * test_conn_peer_errors.c - DDP and RDMAP errors a hand-built peer provokes (suite/engine/iw_conn.h):
 * each error's layer, type and code in the Terminate, Send with Invalidate, a Read Response that
 * does not match its Request, and malformed RDMAP messages.
 */
#include "conn_fixture.h"

#include <stdlib.h>
#include <string.h>

/* ---- DDP and RDMAP errors from a hand-built peer ---- */

TEST(conn_ddp_rdmap_errors_give_their_codes)
{
	static const struct {
		const char *what;
		int layer, etype, ecode;
	} want[] = {
		{ "DV 0 on a Send", IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_U_VERSION },
		{ "Write to an unknown STag", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG },
		{ "Write to a read-only STag", IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_ACCESS },
		{ "Send on QN 5", IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN },
		{ "ULPDU of 5 octets", IW_LAYER_DDP, IW_DDP_ET_CATASTROPHIC, IW_DDP_EC_CATASTROPHIC },
		{ "Send on QN 1", IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE },
		{ "Read Response never requested", IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE },
		{ "Write past the buffer end", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS },
		{ "Send too long for the buffer", IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_TOO_LONG },
	};
	static uint8_t mem[256], big[70000];
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		fake_peer f;
		cf_log_reset(l);
		iw_conn *r = cf_fake_responder(IW_PROFILE_RFC5044, &f, l);
		memset(mem, 0x33, sizeof mem);
		CHECK_EQ(iw_conn_register(r, 7, 0, mem, sizeof mem, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
		CHECK_EQ(iw_conn_register(r, 8, 0, mem, sizeof mem, IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
		/* A valid first FPDU, so rule 4 lets the responder answer with a Terminate. */
		iw_ddp_hdr h = cf_fake_untagged(p, IW_OP_SEND, 0, 1);
		cf_fake_fpdu(&f, &h, (const uint8_t *)"ok", 2, NULL);
		switch (k) {
		case 0:
			h = cf_fake_untagged(p, IW_OP_SEND, 0, 2);
			h.dv = 0;
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 1:
			h = cf_fake_tagged(p, IW_OP_WRITE, 99, 0);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 2:
			h = cf_fake_tagged(p, IW_OP_WRITE, 7, 0);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 3:
			h = cf_fake_untagged(p, IW_OP_SEND, 5, 1);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 4: {
			uint8_t five[5] = { 0x41, 0x43, 0, 0, 0 };
			size_t w;
			CHECK_EQ(iw_mpa_tx_fpdu(&f.tx, five, 5, NULL, 0, NULL, f.buf + f.len, CAP_BYTES - f.len, &w,
						NULL), IW_OK);
			f.len += w;
			break;
		}
		case 5:
			h = cf_fake_untagged(p, IW_OP_SEND, 1, 1);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 6:
			h = cf_fake_tagged(p, IW_OP_READ_RESP, 8, 0);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
			break;
		case 7:
			h = cf_fake_tagged(p, IW_OP_WRITE, 8, 250);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"0123456789", 10, NULL);
			break;
		case 8:
			/* 65536-octet receive buffers; one Send message of 65537 octets. */
			h = cf_fake_untagged(p, IW_OP_SEND, 0, 2);
			h.last = false;
			cf_fake_fpdu(&f, &h, big, 60000, NULL);
			h.last = true;
			h.mo = 60000;
			cf_fake_fpdu(&f, &h, big, 5537, NULL);
			break;
		}
		/* Then a valid Send and a valid Write that must never be delivered or placed. */
		h = cf_fake_untagged(p, IW_OP_SEND, 0, 3);
		cf_fake_fpdu(&f, &h, (const uint8_t *)"late", 4, NULL);
		h = cf_fake_tagged(p, IW_OP_WRITE, 8, 0);
		cf_fake_fpdu(&f, &h, (const uint8_t *)"LATE", 4, NULL);
		cf_fake_deliver(&f, r, l);

		CHECK_EQ(cf_log_count(l, IW_EV_SEND), 1);
		CHECK_EQ(cf_log_count(l, IW_EV_WRITE), 0);
		CHECK(memcmp(mem, "LATE", 4) != 0);     /* DDP-9.1-03 */
		CHECK_EQ(mem[250], 0x33);               /* DDP-10.1-01: nothing of the bad Write */
		const iw_conn_event *ev = cf_log_find(l, IW_EV_ERROR, 0);
		CHECK(ev != NULL);
		if (ev) {
			if (ev->viol.layer != want[k].layer || ev->viol.etype != want[k].etype ||
			    ev->viol.ecode != want[k].ecode)
				check_fail(__FILE__, __LINE__, "%s: got %d/%d/%d (%s: %s)", want[k].what,
					   ev->viol.layer, ev->viol.etype, ev->viol.ecode,
					   ev->viol.req ? ev->viol.req : "-", ev->viol.detail);
			CHECK(ev->viol.req != NULL);
		}
		CHECK(iw_conn_wants_close(r));
		/* Exactly one Terminate went out, with the error's layer, type and code. */
		size_t n;
		const uint8_t *o = iw_conn_output_peek(r, &n);
		wire_seg seg[4];
		CHECK_EQ(cf_wire_parse(p, false, true, o, n, seg, 4), 1);
		CHECK_EQ(seg[0].opcode, IW_OP_TERMINATE);
		CHECK_EQ(seg[0].ddp.qn, IW_QN_TERMINATE);
		CHECK_EQ(seg[0].ddp.msn, 1);
		const uint8_t *body = o + 2 + IW_DDP_UNTAGGED_HDR_LEN;
		CHECK_EQ(body[0], (uint8_t)(want[k].layer << 4 | want[k].etype));
		CHECK_EQ(body[1], want[k].ecode);
		/* RFC 5040 §4.8: DDP and RDMAP errors on a whole header carry it (D). */
		CHECK_EQ((body[2] & IW_RDMAP_TERM_D) != 0, k != 4);
		free(f.buf);
		iw_conn_free(r);
	}
	free(l->data);
	free(l);
}

TEST(conn_send_with_invalidate)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	fake_peer f;
	iw_conn *r = cf_fake_responder(IW_PROFILE_RFC5044, &f, l);
	static uint8_t mem[64];
	CHECK_EQ(iw_conn_register(r, 0x01020304, 0, mem, sizeof mem, IW_ACCESS_REMOTE_WRITE, NULL), IW_OK);
	iw_ddp_hdr h = cf_fake_untagged(p, IW_OP_SEND_SE_INV, 0, 1);
	h.rsvdulp[1] = 1, h.rsvdulp[2] = 2, h.rsvdulp[3] = 3, h.rsvdulp[4] = 4;
	cf_fake_fpdu(&f, &h, (const uint8_t *)"bye", 3, NULL);
	h = cf_fake_tagged(p, IW_OP_WRITE, 0x01020304, 0);
	cf_fake_fpdu(&f, &h, (const uint8_t *)"w", 1, NULL);
	cf_fake_deliver(&f, r, l);
	const iw_conn_event *ev = cf_log_find(l, IW_EV_SEND, 0);
	CHECK(ev != NULL);
	if (ev)
		CHECK_EQ(ev->opcode, IW_OP_SEND_SE_INV);
	const iw_tagged_buf *b = iw_sink_find(iw_conn_sink(r), 0x01020304);
	CHECK(b && !b->valid);
	ev = cf_log_find(l, IW_EV_ERROR, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_STR(ev->viol.req, "DDP-9.1-T2");  /* the invalidated STag */
		CHECK_EQ(ev->viol.ecode, IW_DDP_EC_INVALID_STAG);
	}
	CHECK_EQ(mem[0], 0);
	free(f.buf);
	iw_conn_free(r);
	free(l->data);
	free(l);
}

/* RFC 5040 §5.2 with RFC 6581: a peer that announced ORD 0 leaves the responder an IRD of 0, and
 * a Read Request is then beyond it: RDMAP Remote Operation 0x07, nothing read. With ORD 1 the
 * same Read Request is served. */
TEST(conn_read_request_beyond_ird)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC6581);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	static uint8_t mem[64];
	for (uint16_t ord = 0; ord < 2; ord++) {
		iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC6581, IW_ROLE_RESPONDER);
		iw_conn *r = NULL;
		CHECK_EQ(iw_conn_new(&r, &cr, NULL), IW_OK);
		CHECK_EQ(iw_conn_start(r, NULL), IW_OK);
		CHECK_EQ(iw_conn_register(r, 0x0badcafe, 0, mem, sizeof mem, IW_ACCESS_REMOTE_READ, NULL), IW_OK);
		fake_peer f;
		cf_fake_init(&f, p, false, true);
		iw_mpa_frame rq;
		iw_mpa_frame_init(&rq, p, IW_MPA_REQUEST);
		rq.ord = ord;
		cf_fake_frame(&f, &rq);
		iw_ddp_hdr h = cf_fake_untagged(p, IW_OP_SEND, IW_QN_SEND, 1);
		cf_fake_fpdu(&f, &h, (const uint8_t *)"hi", 2, NULL);
		iw_read_req rr = { .sink_stag = 0x77, .sink_to = 0, .size = 8, .src_stag = 0x0badcafe, .src_to = 0 };
		uint8_t body[IW_RDMAP_READ_REQ_LEN];
		iw_read_req_encode(&rr, body);
		h = cf_fake_untagged(p, IW_OP_READ_REQ, IW_QN_READ_REQ, 1);
		cf_fake_fpdu(&f, &h, body, sizeof body, NULL);
		cf_fake_deliver(&f, r, l);
		iw_conn_params np;
		iw_conn_params_get(r, &np);
		CHECK_EQ(np.ird, ord);
		size_t n;
		const uint8_t *o = iw_conn_output_peek(r, &n);
		size_t fl = cf_frame_len(p, 0, true);
		wire_seg seg[4];
		size_t ns = n > fl ? cf_wire_parse(p, false, true, o + fl, n - fl, seg, 4) : 0;
		const iw_conn_event *ev = cf_log_find(l, IW_EV_ERROR, 0);
		if (ord == 0) {
			CHECK(ev != NULL);
			if (ev) {
				CHECK_STR(ev->viol.req, "RFC5040-5.2-08");
				CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
				CHECK_EQ(ev->viol.etype, IW_RDMAP_ET_OPERATION);
				CHECK_EQ(ev->viol.ecode, IW_RDMAP_EC_CATASTROPHIC_STREAM);
			}
			CHECK_EQ(cf_log_count(l, IW_EV_READ_SERVICED), 0);
			CHECK(ns >= 1 && ns != (size_t)-1 && seg[ns - 1].opcode == IW_OP_TERMINATE);
			CHECK(iw_conn_wants_close(r));
		} else {
			CHECK(ev == NULL);
			CHECK_EQ(cf_log_count(l, IW_EV_READ_SERVICED), 1);
			CHECK(ns >= 1 && ns != (size_t)-1 && seg[ns - 1].opcode == IW_OP_READ_RESP);
		}
		free(f.buf);
		iw_conn_free(r);
		cf_log_reset(l);
	}
	free(l->data);
	free(l);
}

/* ---- the paths a well-behaved peer never takes ---- */

TEST(conn_read_response_must_match_the_request)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	static uint8_t local[256];
	for (int k = 0; k < 3; k++) {
		fake_peer f;
		iw_conn *c = cf_fake_initiator(IW_PROFILE_RFC5044, &f, l, 0);
		CHECK_EQ(iw_conn_register(c, 0x100, 0, local, sizeof local, 0, NULL), IW_OK);
		CHECK_EQ(iw_conn_register(c, 0x101, 0, local, sizeof local, 0, NULL), IW_OK);
		iw_read_req rr = { .sink_stag = 0x100, .sink_to = 16, .size = 32, .src_stag = 9, .src_to = 0 };
		CHECK_EQ(iw_conn_read(c, &rr, NULL), IW_OK);
		memset(local, 0, sizeof local);
		/* k 0: another local STag; k 1: past the requested range; k 2: right. */
		iw_ddp_hdr h = cf_fake_tagged(p, IW_OP_READ_RESP, k == 0 ? 0x101 : 0x100, k == 1 ? 40 : 16);
		cf_fake_fpdu(&f, &h, (const uint8_t *)"0123456789abcdef0123456789abcdef", 32, NULL);
		cf_fake_deliver(&f, c, l);
		const iw_conn_event *ev = cf_log_find(l, IW_EV_ERROR, 0);
		if (k == 2) {
			CHECK(ev == NULL);
			CHECK_EQ(cf_log_count(l, IW_EV_READ_DONE), 1);
			CHECK_MEM(local + 16, "0123456789abcdef", 16);
		} else {
			CHECK(ev != NULL);
			if (ev)
				CHECK_EQ(ev->viol.ecode, k == 0 ? IW_DDP_EC_INVALID_STAG : IW_DDP_EC_BASE_BOUNDS);
			CHECK_EQ(local[16], 0);         /* nothing placed */
		}
		free(f.buf);
		iw_conn_free(c);
	}
	free(l->data);
	free(l);
}

TEST(conn_malformed_messages)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	conn_log *l = calloc(1, sizeof *l);
	l->data = malloc(LOG_DATA);
	for (int k = 0; k < 3; k++) {
		fake_peer f;
		iw_conn *r = cf_fake_responder(IW_PROFILE_RFC5044, &f, l);
		iw_ddp_hdr h;
		if (k == 0) {
			/* Send with Invalidate of an STag never registered. */
			h = cf_fake_untagged(p, IW_OP_SEND_INV, 0, 1);
			h.rsvdulp[4] = 0x77;
			cf_fake_fpdu(&f, &h, (const uint8_t *)"x", 1, NULL);
		} else if (k == 1) {
			/* A Read Request body of 20 octets. */
			h = cf_fake_untagged(p, IW_OP_READ_REQ, 1, 1);
			static uint8_t body[20];
			cf_fake_fpdu(&f, &h, body, sizeof body, NULL);
		} else {
			/* A Terminate of 2 octets: reported, never answered with a Terminate. */
			h = cf_fake_untagged(p, IW_OP_TERMINATE, 2, 1);
			cf_fake_fpdu(&f, &h, (const uint8_t *)"\x10\x00", 2, NULL);
		}
		cf_fake_deliver(&f, r, l);
		const iw_conn_event *ev = cf_log_find(l, IW_EV_ERROR, 0);
		CHECK(ev != NULL);
		if (ev) {
			CHECK_EQ(ev->viol.layer, IW_LAYER_RDMAP);
			CHECK_EQ(ev->viol.ecode, k == 0 ? IW_RDMAP_EC_CANNOT_INVALIDATE : IW_RDMAP_EC_UNSPECIFIED);
		}
		CHECK(iw_conn_wants_close(r));
		size_t n;
		const uint8_t *o = iw_conn_output_peek(r, &n);
		wire_seg seg[2];
		CHECK_EQ(cf_wire_parse(p, false, true, o, n, seg, 2), k == 2 ? 0u : 1u);
		CHECK_EQ(cf_log_count(l, IW_EV_SEND) + cf_log_count(l, IW_EV_READ_SERVICED) + cf_log_count(l, IW_EV_TERMINATE),
			 0);
		free(f.buf);
		iw_conn_free(r);
	}
	free(l->data);
	free(l);
}
