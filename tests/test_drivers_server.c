/* The built-in DUT's server over TCP: the tcp driver against it, its startup and idle timeouts,
 * and a peer that does not read. */
#include "test_drivers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "ref_server.h"

TEST(drivers_tcp_against_ref_server)
{
	iw_ref_options o;
	iw_ref_server *s = NULL;
	iw_err e;
	iw_ref_options_default(&o);
	CHECK_EQ(iw_ref_server_new(&s, &o, &e), IW_OK);
	if (!s)
		return;
	CHECK_EQ(iw_ref_server_start(s, &e), IW_OK);
	iw_dut_config c;
	iw_dut_config_default(&c);
	char v[64];
	snprintf(v, sizeof v, "tcp:127.0.0.1:%u", (unsigned)iw_ref_server_port(s));
	CHECK_EQ(iw_dut_config_set(&c, "dut", v, &e), IW_OK);
	iw_driver *d = NULL;
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_OK);
	if (d) {
		int fd = -1, st;
		uint8_t buf[32];
		CHECK_STR(d->ops->name, "tcp");
		CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
		CHECK_EQ(d->ops->connect(d, &fd, 1000, 0, &e), IW_OK);
		send_request(fd, iw_profile_default(), false, -1);
		CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
		CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
		CHECK_EQ(d->ops->accept(d, &fd, 100, &e), IW_ESTATE);
		CHECK_STR(e.msg, "tcp: driver cannot make the DUT connect; use exec:");
		iw_dut_instr in;
		memset(&in, 0, sizeof in);
		CHECK_EQ(iw_driver_instruct(d, &in, &e), IW_ESTATE);
		CHECK(msg_has(e.msg, "tcp driver cannot pass per-case requests"));
		end_case(d, fd);
	}
	iw_ref_stats stt;
	iw_ref_server_stats(s, &stt);
	CHECK_EQ(stt.connections, 1);
	iw_ref_server_free(s);
}

TEST(drivers_tcp_refused_is_bounded)
{
	uint16_t port;
	int hold;
	iw_err e;
	CHECK_EQ(iw_net_free_port(&port, &hold, &e), IW_OK);
	iw_dut_config c;
	iw_dut_config_default(&c);
	snprintf(c.dut, sizeof c.dut, "tcp:127.0.0.1:%u", (unsigned)port);
	iw_driver *d = NULL;
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_OK);
	if (!d)
		return;
	int fd = -1;
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(d->ops->connect(d, &fd, 200, 0, &e), IW_NET_EREFUSED);
	int64_t took = iw_net_now_ms() - t0;
	CHECK(took >= 150 && took < 5000);
	CHECK(msg_has(e.msg, "tcp: connect to 127.0.0.1:"));
	iw_driver_close(d);
	if (hold >= 0)
		close(hold);
}

/* ---- the built-in DUT's timeouts ---- */

static iw_ref_server *server_with(int64_t startup_ms, int64_t idle_ms, int *fd)
{
	iw_ref_options o;
	iw_ref_server *s = NULL;
	iw_err e;
	iw_ref_options_default(&o);
	o.startup_timeout_ms = startup_ms;
	o.idle_timeout_ms = idle_ms;
	CHECK_EQ(iw_ref_server_new(&s, &o, &e), IW_OK);
	if (!s)
		return NULL;
	CHECK_EQ(iw_ref_server_start(s, &e), IW_OK);
	CHECK_EQ(iw_net_connect("127.0.0.1", iw_ref_server_port(s), 1000, 0, fd, &e), IW_OK);
	return s;
}

/* MPA-6.1-R10a: 19 of the 20 header octets, then a stall -> closed after the startup timeout. */
TEST(drivers_ref_startup_timeout)
{
	int fd = -1, st;
	iw_ref_server *s = server_with(200, 5000, &fd);
	if (!s)
		return;
	uint8_t req[20], buf[8];
	memcpy(req, IW_MPA_KEY_REQ, 16);
	req[16] = IW_MPA_FLAG_C;
	req[17] = 1;
	req[18] = 0;
	CHECK_EQ(iw_net_write_all(fd, req, 19, 1000, NULL), IW_OK);
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(read_for(fd, buf, sizeof buf, 1500, &st), 0);
	int64_t took = iw_net_now_ms() - t0;
	CHECK_EQ(st, IW_NET_EOF); /* closed by the DUT before read_for's own 1500 ms ran out */
	CHECK(took >= 150);
	close(fd);
	iw_ref_stats stt;
	iw_ref_server_stats(s, &stt);
	CHECK_EQ(stt.startup_timeouts, 1);
	iw_ref_server_free(s);
}

/* The startup timer runs from the peer's last octet, up to IW_REF_STARTUP_CAP timeouts in all. */
TEST(drivers_ref_startup_expiry_rule)
{
	CHECK(!iw_ref_startup_expired(1000, 0, 600, 500));      /* 400 ms since the last octet */
	CHECK(iw_ref_startup_expired(1100, 0, 600, 500));       /* stalled for the timeout */
	CHECK(iw_ref_startup_expired(500, 0, 0, 500));          /* nothing sent for the timeout */
	CHECK(!iw_ref_startup_expired(4999, 0, 4990, 500));     /* still progressing, under the cap */
	CHECK(iw_ref_startup_expired(5000, 0, 4990, 500));      /* progressing, but 10 timeouts in all */
}

/* A Request header sent one octet every 50 ms (about 1 s in all) to a DUT whose startup timeout is
 * 500 ms: it never stalls for the timeout, so it is answered, however long the whole takes. */
TEST(drivers_ref_startup_slow_but_steady)
{
	int fd = -1, st;
	iw_ref_server *s = server_with(500, 5000, &fd);
	if (!s)
		return;
	uint8_t req[20], buf[20];
	memcpy(req, IW_MPA_KEY_REQ, 16);
	req[16] = IW_MPA_FLAG_C;
	req[17] = 1;
	req[18] = 0;
	req[19] = 0;
	for (size_t i = 0; i < sizeof req; i++) {
		CHECK_EQ(iw_net_write_all(fd, req + i, 1, 1000, NULL), IW_OK);
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
	CHECK_EQ(read_for(fd, buf, 20, 3000, &st), 20);
	CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
	close(fd);
	iw_ref_stats stt;
	iw_ref_server_stats(s, &stt);
	CHECK_EQ(stt.startup_timeouts, 0);
	iw_ref_server_free(s);
}

TEST(drivers_ref_idle_timeout)
{
	int fd = -1, st;
	iw_ref_server *s = server_with(5000, 300, &fd);
	if (!s)
		return;
	uint8_t buf[32];
	send_request(fd, iw_profile_default(), false, -1);
	CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
	CHECK_EQ(read_for(fd, buf, sizeof buf, 1500, &st), 0);
	CHECK_EQ(st, IW_NET_EOF); /* closed by the DUT before read_for's own 1500 ms ran out */
	close(fd);
	iw_ref_stats stt;
	iw_ref_server_stats(s, &stt);
	CHECK_EQ(stt.idle_timeouts, 1);
	CHECK_EQ(stt.startup_timeouts, 0);
	iw_ref_server_free(s);
}

/* A peer that never reads: the server stops reading from it and keeps serving others. */
TEST(drivers_ref_slow_reader_does_not_block)
{
	iw_ref_options o;
	iw_ref_server *s = NULL;
	iw_err e;
	int st;
	iw_ref_options_default(&o);
	CHECK_EQ(iw_ref_server_new(&s, &o, &e), IW_OK);
	if (!s)
		return;
	CHECK_EQ(iw_ref_server_start(s, &e), IW_OK);
	/* a small receive window, so the echoes pile up at the server */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int small = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons(iw_ref_server_port(s));
	sa.sin_addr.s_addr = htonl(0x7F000001);
	CHECK_EQ(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	uint8_t buf[32];
	iw_conn *m = harness_model(IW_ROLE_INITIATOR, false);
	iw_conn_event ev;
	CHECK(m && model_until(fd, m, IW_EV_FULL_OPERATION, 1000, &ev, NULL, 0));
	static uint8_t payload[8192];
	size_t sent = 0;
	int64_t t0 = iw_net_now_ms(), stuck_since = -1;
	bool blocked = false;
	iw_net_set_nonblock(fd, true);
	while (m && sent < 256u * 1024 * 1024 && iw_net_now_ms() - t0 < 3000) {
		size_t n;
		const uint8_t *out = iw_conn_output_peek(m, &n);
		if (n < sizeof payload)
			iw_conn_send(m, IW_OP_SEND, payload, sizeof payload, &e);
		out = iw_conn_output_peek(m, &n);
		ssize_t k = n ? send(fd, out, n, MSG_DONTWAIT | MSG_NOSIGNAL) : 0;
		if (k > 0) {
			iw_conn_output_consume(m, (size_t)k);
			sent += (size_t)k;
			stuck_since = -1;
		} else if (stuck_since < 0) {
			stuck_since = iw_net_now_ms();
		} else if (iw_net_now_ms() - stuck_since > 300) {
			blocked = true; /* the server has stopped reading us */
			break;
		} else {
			usleep(1000);
		}
	}
	CHECK(blocked);
	/* a second connection is still served at once */
	int fd2 = -1;
	CHECK_EQ(iw_net_connect("127.0.0.1", iw_ref_server_port(s), 1000, 0, &fd2, &e), IW_OK);
	send_request(fd2, iw_profile_default(), false, -1);
	CHECK_EQ(read_for(fd2, buf, 20, 1000, &st), 20);
	close(fd2);
	close(fd);
	iw_conn_free(m);
	iw_ref_server_free(s);
}
