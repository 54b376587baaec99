/* The ref driver (the built-in DUT in the harness): opening, both roles, per-case requests,
 * the reflector's REJECTME decision and greeting. */
#include "test_drivers.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "reflector_greeting.h"

TEST(drivers_open_errors)
{
	iw_dut_config c;
	iw_driver *d = (iw_driver *)1;
	iw_err e;
	iw_dut_config_default(&c);
	snprintf(c.dut, sizeof c.dut, "ssh:dut");
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_EINVAL);
	CHECK(d == NULL);
	CHECK_STR(e.msg, "unknown DUT 'ssh:dut': use ref, tcp:HOST:PORT or exec:'COMMAND'");
	snprintf(c.dut, sizeof c.dut, "tcp:nohost");
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_EINVAL);
	CHECK(msg_has(e.msg, "tcp:nohost"));
	CHECK(msg_has(e.msg, "HOST:PORT"));
	snprintf(c.dut, sizeof c.dut, "exec:");
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_EINVAL);
	CHECK(msg_has(e.msg, "exec: no command"));
	snprintf(c.dut, sizeof c.dut, "ref");
	snprintf(c.mutant, sizeof c.mutant, "nonsense");
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_EINVAL);
	CHECK(msg_has(e.msg, "unknown mutant 'nonsense'"));
}

/* ref, DUT responder: the startup frames cross and the reflector echoes a Send. */
TEST(drivers_ref_responder_exchange)
{
	iw_dut_config c;
	int fd;
	cfg_ref(&c, NULL, NULL);
	iw_driver *d = ref_connect(&c, &fd);
	iw_conn *m = harness_model(IW_ROLE_INITIATOR, false);
	iw_conn_event ev;
	uint8_t echo[64];
	if (d && fd >= 0 && m) {
		CHECK(model_until(fd, m, IW_EV_FRAME_ACCEPTED, AWAIT_MS, &ev, NULL, 0));
		CHECK(!ev.frame.r);
		CHECK(!ev.frame.m); /* markers are a capability, asked for per case */
		CHECK(ev.frame.c);
		CHECK_EQ(ev.frame.rev, IW_MPA_REV_RFC5044);
		CHECK(model_until(fd, m, IW_EV_FULL_OPERATION, AWAIT_MS, &ev, NULL, 0));
		iw_err e;
		CHECK_EQ(iw_conn_send(m, IW_OP_SEND, (const uint8_t *)"ping-reflector", 14, &e), IW_OK);
		/* The reflector's first Send advertises its buffer (docs/reflector.md), then it echoes. */
		CHECK(model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, echo, sizeof echo));
		CHECK_EQ(ev.len, IW_GREETING_LEN);
		CHECK_MEM(echo + 12, "\x00\x01\x00\x00", 4); /* 64 KiB */
		CHECK(model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, echo, sizeof echo));
		CHECK_EQ(ev.len, 14);
		CHECK_MEM(echo, "ping-reflector", 14);
	}
	iw_conn_free(m);
	end_case(d, fd);
}

/* A bad Request: the conforming DUT closes without a Reply (MPA-6.1-R5). */
TEST(drivers_ref_bad_key_closes)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, NULL, NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, 3);
		CHECK_EQ(read_for(fd, buf, sizeof buf, AWAIT_MS, &st), 0);   /* the close ends it */
		CHECK(st == IW_NET_EOF || st == IW_NET_RESET);
	}
	end_case(d, fd);
}

/* ref, DUT initiator: accept() makes it connect; its Request arrives; again for a second connection. */
TEST(drivers_ref_initiator_accept)
{
	iw_dut_config c;
	iw_err e;
	cfg_ref(&c, NULL, NULL);
	c.role = IW_ROLE_INITIATOR;
	iw_driver *d = NULL;
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_OK);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	int fd = -1;
	CHECK_EQ(d->ops->connect(d, &fd, 100, 0, &e), IW_ESTATE);
	CHECK(msg_has(e.msg, "initiator"));
	for (int k = 0; k < 2; k++) {
		fd = -1;
		CHECK_EQ(d->ops->accept(d, &fd, AWAIT_MS, &e), IW_OK);
		if (fd < 0)
			break;
		iw_conn *m = harness_model(IW_ROLE_RESPONDER, false);
		iw_conn_event ev;
		CHECK(m && model_until(fd, m, IW_EV_FRAME_ACCEPTED, AWAIT_MS, &ev, NULL, 0));
		CHECK(!ev.frame.m);
		CHECK(ev.frame.c);
		/* our Reply goes out; the initiator's reflector speaks first: its greeting advertises
		 * STag 0x1000, TO 0, 64 KiB */
		uint8_t g[32];
		CHECK(m && model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, g, sizeof g));
		CHECK_EQ(ev.len, IW_GREETING_LEN);
		CHECK_EQ(ev.msn, 1);
		/* STag 0x1000 + 0x100 * (connection % 64), TO 0, 64 KiB (docs/reflector.md) */
		CHECK(g[0] == 0 && g[1] == 0 && (g[2] & 0xF0) == 0x10 && g[3] == 0);
		CHECK_MEM(g + 4, "\x00\x00\x00\x00\x00\x00\x00\x00" "\x00\x01\x00\x00", 12);
		iw_conn_free(m);
		close(fd);
	}
	end_case(d, -1);
}

/* Per-case requests: reject only when the configuration allows it, and case_end undoes them. */
TEST(drivers_ref_instruct)
{
	iw_dut_config c;
	iw_err e;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, NULL, NULL);
	c.markers = false;
	iw_driver *d = ref_connect(&c, &fd);
	if (!d)
		return;
	close(fd);
	iw_dut_instr in;
	memset(&in, 0, sizeof in);
	in.markers = true;
	CHECK_EQ(iw_driver_instruct(d, &in, &e), IW_EINVAL);
	CHECK(msg_has(e.msg, "markers = no"));
	memset(&in, 0, sizeof in);
	in.reject = true;
	in.pd = (const uint8_t *)"why";
	in.pd_len = 3;
	CHECK_EQ(iw_driver_instruct(d, &in, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, AWAIT_MS, 0, &e), IW_OK);
	send_request(fd, iw_profile_default(), false, -1);
	CHECK_EQ(read_for(fd, buf, 23, AWAIT_MS, &st), 23);
	CHECK(buf[16] & IW_MPA_FLAG_R);
	CHECK_EQ(buf[19], 3);
	CHECK_MEM(buf + 20, "why", 3);
	close(fd);
	iw_dut_finding f;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, AWAIT_MS, 0, &e), IW_OK);
	send_request(fd, iw_profile_default(), false, -1);
	CHECK_EQ(read_for(fd, buf, 20, AWAIT_MS, &st), 20);
	CHECK(!(buf[16] & IW_MPA_FLAG_R));
	CHECK_EQ(buf[19], 0);
	end_case(d, fd);
}

/* MPA-6.1-R2c: the reflector finds the private data "REJECTME" unacceptable: R=1. */
TEST(drivers_ref_rejects_rejectme)
{
	for (int reject_cap = 0; reject_cap < 2; reject_cap++) {
		iw_dut_config c;
		int fd, st;
		uint8_t buf[64];
		cfg_ref(&c, NULL, NULL);
		c.reject = reject_cap;
		iw_driver *d = ref_connect(&c, &fd);
		if (!d || fd < 0) {
			end_case(d, fd);
			continue;
		}
		iw_mpa_frame f;
		size_t n;
		iw_mpa_frame_init(&f, iw_profile_default(), IW_MPA_REQUEST);
		f.pd = (const uint8_t *)"REJECTME";
		f.pd_len = 8;
		CHECK_EQ(iw_mpa_frame_encode(&f, buf, sizeof buf, &n, NULL), IW_OK);
		/* in two pieces, the second completing the frame */
		CHECK_EQ(iw_net_write_all(fd, buf, 22, 1000, NULL), IW_OK);
		usleep(20000);
		CHECK_EQ(iw_net_write_all(fd, buf + 22, n - 22, 1000, NULL), IW_OK);
		CHECK_EQ(read_for(fd, buf, 20, AWAIT_MS, &st), 20);
		CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
		CHECK_EQ(!!(buf[16] & IW_MPA_FLAG_R), reject_cap);
		end_case(d, fd);
	}
	/* any other private data is accepted */
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, NULL, NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		iw_mpa_frame f;
		size_t n;
		iw_mpa_frame_init(&f, iw_profile_default(), IW_MPA_REQUEST);
		f.pd = (const uint8_t *)"ACCEPTME";
		f.pd_len = 8;
		CHECK_EQ(iw_mpa_frame_encode(&f, buf, sizeof buf, &n, NULL), IW_OK);
		CHECK_EQ(iw_net_write_all(fd, buf, n, 1000, NULL), IW_OK);
		CHECK_EQ(read_for(fd, buf, 20, AWAIT_MS, &st), 20);
		CHECK_EQ(buf[16] & IW_MPA_FLAG_R, 0);
	}
	end_case(d, fd);
}

/* A responder's greeting, when asked for, waits for the peer's first FPDU (MPA-6.1-R4). */
TEST(drivers_ref_responder_greeting_waits)
{
	iw_dut_config c;
	iw_err e;
	int fd, st;
	cfg_ref(&c, NULL, NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (!d)
		return;
	close(fd);
	iw_dut_instr in;
	memset(&in, 0, sizeof in);
	in.greeting = true;
	CHECK_EQ(iw_driver_instruct(d, &in, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, AWAIT_MS, 0, &e), IW_OK);
	iw_conn *m = harness_model(IW_ROLE_INITIATOR, false);
	iw_conn_event ev;
	uint8_t buf[64];
	CHECK(m && model_until(fd, m, IW_EV_FULL_OPERATION, AWAIT_MS, &ev, NULL, 0));
	CHECK_EQ(read_for(fd, buf, sizeof buf, 300, &st), 0);
	CHECK_EQ(st, IW_NET_TIMEOUT);
	if (m) {
		CHECK_EQ(iw_conn_send(m, IW_OP_SEND, (const uint8_t *)"hi", 2, &e), IW_OK);
		CHECK(model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, buf, sizeof buf));
		CHECK_EQ(ev.len, IW_GREETING_LEN);
		CHECK(model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, buf, sizeof buf));
		CHECK_EQ(ev.len, 2);
		CHECK_MEM(buf, "hi", 2);
	}
	iw_conn_free(m);
	end_case(d, fd);
}
