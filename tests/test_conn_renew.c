/*
 * test_conn_renew.c - iw_conn_renew (suite/engine/iw_conn.h): a renewed model is a fresh one.
 * The same startup and transfers between two renewed models give the same octets on the wire
 * and the same events as between two new ones, in every profile; a renewal to another
 * configuration (larger receive buffers, private data, the other role's queue sizes) takes it;
 * a model left in the middle of a message, failed or closed renews as cleanly.
 */
#include "conn_fixture.h"

#include <stdlib.h>
#include <string.h>

/* The transfers each round makes: startup, Sends of several sizes both ways, and, from the
 * initiator, a Write and a Read of a buffer the responder registered. */
static void script(conn_pair *pp, uint8_t *mem, const uint8_t *msg)
{
	iw_err e;
	cf_pump(pp, 0);
	static const size_t sizes[] = {0, 1, 1442, 20000};
	for (size_t k = 0; k < 4; k++) {
		CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, sizes[k], &e), IW_OK);
		CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg + k, sizes[k], &e), IW_OK);
	}
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_register(pp->r, 0x4400, 0, mem, 4096, IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, &e),
		 IW_OK);
	CHECK_EQ(iw_conn_write(pp->i, 0x4400, 100, msg, 700, &e), IW_OK);
	cf_pump(pp, 0);
}

static void reset_logs(conn_pair *pp)
{
	cf_log_reset(&pp->li);
	cf_log_reset(&pp->lr);
	pp->n_i2r = pp->n_r2i = 0;
}

static void renew_pair(conn_pair *pp, const iw_conn_config *ci, const iw_conn_config *cr)
{
	iw_err e;
	CHECK_EQ(iw_conn_renew(&pp->i, ci, &e), IW_OK);
	CHECK_EQ(iw_conn_renew(&pp->r, cr, &e), IW_OK);
	CHECK(pp->i && pp->r);
	if (pp->i)
		CHECK_EQ(iw_conn_start(pp->i, &e), IW_OK);
	if (pp->r)
		CHECK_EQ(iw_conn_start(pp->r, &e), IW_OK);
	reset_logs(pp);
}

TEST(conn_renew_same_as_new_every_profile)
{
	uint8_t *msg = malloc(20000 + 4), *mem = calloc(1, 4096), *want_i2r = malloc(CAP_BYTES),
		*want_r2i = malloc(CAP_BYTES);
	cf_pattern(msg, 20000 + 4, 5); /* the responder sends from msg + k */
	for (int id = 0; id < IW_PROFILE_COUNT; id++) {
		iw_conn_config ci = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_INITIATOR);
		iw_conn_config cr = cf_cfg_for((enum iw_profile_id)id, IW_ROLE_RESPONDER);
		ci.want_markers = true;
		conn_pair *pp = cf_pair_new(&ci, &cr);
		script(pp, mem, msg);
		size_t n_i2r = pp->n_i2r, n_r2i = pp->n_r2i, nli = pp->li.n, nlr = pp->lr.n;
		memcpy(want_i2r, pp->cap_i2r, n_i2r);
		memcpy(want_r2i, pp->cap_r2i, n_r2i);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 4);
		CHECK_EQ(cf_log_count(&pp->lr, IW_EV_WRITE), 1);
		/* Twice: a renewed model that has itself been renewed is still fresh. */
		for (int round = 0; round < 2; round++) {
			renew_pair(pp, &ci, &cr);
			memset(mem, 0, 4096);
			script(pp, mem, msg);
			CHECK_EQ(pp->n_i2r, n_i2r);
			CHECK_EQ(pp->n_r2i, n_r2i);
			if (pp->n_i2r == n_i2r)
				CHECK_MEM(pp->cap_i2r, want_i2r, n_i2r);
			if (pp->n_r2i == n_r2i)
				CHECK_MEM(pp->cap_r2i, want_r2i, n_r2i);
			CHECK_EQ(pp->li.n, nli);
			CHECK_EQ(pp->lr.n, nlr);
			CHECK_MEM(mem + 100, msg, 700);
		}
		cf_pair_free(pp);
	}
	free(msg);
	free(mem);
	free(want_i2r);
	free(want_r2i);
}

/* Renewed to another configuration: buffers of another size, private data, the roles
 * swapped (the Read Request queue follows IRD/ORD). */
TEST(conn_renew_other_configuration)
{
	iw_err e;
	iw_conn_config ci = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_INITIATOR);
	iw_conn_config cr = cf_cfg_for(IW_PROFILE_RFC5044, IW_ROLE_RESPONDER);
	conn_pair *pp = cf_pair_new(&ci, &cr);
	cf_pump(pp, 0);
	/* Left in the middle of a message, then renewed to bigger buffers and private data. */
	uint8_t *msg = malloc(100000);
	cf_pattern(msg, 100000, 9);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 30000, &e), IW_OK);
	cf_move1(pp->i, pp->r, &pp->lr, pp->cap_i2r, &pp->n_i2r, 700);
	static const uint8_t pd[] = "renewed";
	iw_conn_config ci2 = ci, cr2 = cr;
	ci2.recv_buffer_size = cr2.recv_buffer_size = 128 * 1024;
	ci2.pd = pd;
	ci2.pd_len = sizeof pd;
	/* The responder becomes an initiator and the other way round. */
	ci2.role = IW_ROLE_RESPONDER;
	cr2.role = IW_ROLE_INITIATOR;
	CHECK_EQ(iw_conn_renew(&pp->i, &ci2, &e), IW_OK);
	CHECK_EQ(iw_conn_renew(&pp->r, &cr2, &e), IW_OK);
	CHECK_EQ(iw_conn_start(pp->i, &e), IW_OK);
	CHECK_EQ(iw_conn_start(pp->r, &e), IW_OK);
	reset_logs(pp);
	cf_pump(pp, 1);
	CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
	const iw_conn_event *acc = cf_log_find(&pp->li, IW_EV_FRAME_ACCEPTED, 0);
	CHECK(acc != NULL);
	const iw_conn_event *acc_r = cf_log_find(&pp->lr, IW_EV_FRAME_ACCEPTED, 0);
	CHECK(acc_r != NULL);
	if (acc_r)
		CHECK_EQ(acc_r->frame.pd_length, sizeof pd);
	/* 100000 octets fit the new 128 KiB buffers (64 KiB ones would refuse them). */
	CHECK_EQ(iw_conn_send(pp->r, IW_OP_SEND, msg, 100000, &e), IW_OK);
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_state(pp->i), IW_CS_FULL);   /* the responder, since the first FPDU */
	const iw_conn_event *ev = cf_log_find(&pp->li, IW_EV_SEND, 0);
	CHECK(ev != NULL);
	if (ev) {
		CHECK_EQ(ev->len, 100000);
		CHECK_MEM(ev->data, msg, 100000);
	}
	CHECK_EQ(cf_log_count(&pp->li, IW_EV_ERROR), 0);
	/* Failed (a corrupt FPDU) and closed, then renewed back to the first configuration. */
	iw_fpdu_mods bad;
	memset(&bad, 0, sizeof bad);
	fake_peer f;
	cf_fake_init(&f, iw_profile_get(IW_PROFILE_RFC5044), false, true);
	cf_fake_fpdu(&f, &(iw_ddp_hdr){0}, msg, 10, &bad);
	(void)iw_conn_input(pp->i, f.buf, f.len);
	iw_conn_peer_closed(pp->i);
	free(f.buf);
	renew_pair(pp, &ci, &cr);
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_send(pp->i, IW_OP_SEND, msg, 1000, &e), IW_OK);
	cf_pump(pp, 0);
	CHECK_EQ(iw_conn_state(pp->i), IW_CS_FULL);
	CHECK_EQ(iw_conn_state(pp->r), IW_CS_FULL);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_SEND), 1);
	CHECK_EQ(cf_log_count(&pp->lr, IW_EV_ERROR), 0);
	/* A configuration iw_conn_new refuses: the model is freed and NULL. */
	iw_conn_config broken = cr;
	broken.profile = NULL;
	CHECK(iw_conn_renew(&pp->r, &broken, &e) != IW_OK);
	CHECK(pp->r == NULL);
	cf_pair_free(pp);
	free(msg);
}
