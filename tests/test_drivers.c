/* The DUT drivers (ref, tcp, exec), the built-in DUT's timeouts, hostile modes and mutants.
 * Every wait is bounded: a test that would hang fails instead. */
#include "check.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "driver.h"
#include "iw_conn.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "ref_server.h"
#include "reflector_greeting.h"
#include "req_catalog.h"

static bool has(const char *msg, const char *part)
{
	if (strstr(msg, part))
		return true;
	fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", msg, part);
	return false;
}

/* Reads until cap octets, end of stream, reset or ms elapsed; *st is the last status. */
static size_t read_for(int fd, uint8_t *buf, size_t cap, int64_t ms, int *st)
{
	size_t got = 0;
	int64_t deadline = iw_net_now_ms() + ms;
	*st = IW_NET_TIMEOUT;
	while (got < cap) {
		int64_t left = deadline - iw_net_now_ms();
		if (left <= 0)
			break;
		size_t n;
		*st = iw_net_read(fd, buf + got, cap - got, left, &n, NULL);
		if (*st != IW_NET_DATA)
			break;
		got += n;
	}
	return got;
}

/* A Request of profile p with the given flags octet (and a key octet flipped when flip >= 0). */
static void send_request(int fd, const iw_profile *p, bool m, int flip)
{
	iw_mpa_frame f;
	uint8_t buf[64];
	size_t n;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.m = m;
	CHECK_EQ(iw_mpa_frame_encode(&f, buf, sizeof buf, &n, NULL), IW_OK);
	if (flip >= 0)
		buf[flip] ^= 0x01;
	CHECK_EQ(iw_net_write_all(fd, buf, n, 1000, NULL), IW_OK);
}

static void cfg_ref(iw_dut_config *c, const char *hostile, const char *mutant)
{
	iw_err e;
	iw_dut_config_default(c);
	if (hostile)
		CHECK_EQ(iw_dut_config_set(c, "hostile", hostile, &e), IW_OK);
	if (mutant)
		CHECK_EQ(iw_dut_config_set(c, "mutant", mutant, &e), IW_OK);
}

/* Opens the ref driver and connects once (DUT responder). */
static iw_driver *ref_connect(const iw_dut_config *c, int *fd)
{
	iw_driver *d = NULL;
	iw_err e;
	*fd = -1;
	if (iw_driver_open(&d, c, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "iw_driver_open: %s", e.msg);
		return NULL;
	}
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	if (d->ops->connect(d, fd, 1000, 0, &e) != IW_OK)
		check_fail(__FILE__, __LINE__, "connect: %s", e.msg);
	return d;
}

static void end_case(iw_driver *d, int fd)
{
	iw_dut_finding f;
	iw_err e;
	if (fd >= 0)
		close(fd);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(!f.present);
	iw_driver_close(d);
}

/* Moves octets between fd and the harness-side model until an event of kind want (copied
 * to *out, with its Send payload into data) or ms elapsed. */
static bool model_until(int fd, iw_conn *m, enum iw_conn_ev_kind want, int64_t ms, iw_conn_event *out,
			uint8_t *data, size_t cap)
{
	int64_t deadline = iw_net_now_ms() + ms;
	uint8_t buf[8192];
	for (;;) {
		iw_conn_event ev;
		while (iw_conn_next_event(m, &ev)) {
			if (ev.kind == want) {
				*out = ev;
				if (data && ev.data && ev.len <= cap)
					memcpy(data, ev.data, ev.len);
				return true;
			}
		}
		size_t n;
		const uint8_t *o = iw_conn_output_peek(m, &n);
		if (n) {
			if (iw_net_write_all(fd, o, n, 1000, NULL) != IW_OK)
				return false;
			iw_conn_output_consume(m, n);
		}
		int64_t left = deadline - iw_net_now_ms();
		if (left <= 0)
			return false;
		int st = iw_net_read(fd, buf, sizeof buf, left < 50 ? left : 50, &n, NULL);
		if (st == IW_NET_DATA)
			iw_conn_input(m, buf, n);
		else if (st == IW_NET_EOF || st == IW_NET_RESET)
			iw_conn_peer_closed(m);
		else if (st < 0)
			return false;
	}
}

static iw_conn *harness_model(enum iw_role role, bool markers)
{
	iw_conn_config mc;
	iw_conn *m = NULL;
	iw_err e;
	iw_conn_config_default(&mc, iw_profile_default(), role);
	mc.want_markers = markers;
	CHECK_EQ(iw_conn_new(&m, &mc, &e), IW_OK);
	if (m)
		CHECK_EQ(iw_conn_start(m, &e), IW_OK);
	return m;
}

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
	CHECK(has(e.msg, "tcp:nohost"));
	CHECK(has(e.msg, "HOST:PORT"));
	snprintf(c.dut, sizeof c.dut, "exec:");
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_EINVAL);
	CHECK(has(e.msg, "exec: no command"));
	snprintf(c.dut, sizeof c.dut, "ref");
	snprintf(c.mutant, sizeof c.mutant, "nonsense");
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_EINVAL);
	CHECK(has(e.msg, "unknown mutant 'nonsense'"));
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
		CHECK(model_until(fd, m, IW_EV_FRAME_ACCEPTED, 1000, &ev, NULL, 0));
		CHECK(!ev.frame.r);
		CHECK(!ev.frame.m); /* markers are a capability, asked for per case */
		CHECK(ev.frame.c);
		CHECK_EQ(ev.frame.rev, IW_MPA_REV_RFC5044);
		CHECK(model_until(fd, m, IW_EV_FULL_OPERATION, 1000, &ev, NULL, 0));
		iw_err e;
		CHECK_EQ(iw_conn_send(m, IW_OP_SEND, (const uint8_t *)"ping-reflector", 14, &e), IW_OK);
		/* The reflector's first Send advertises its buffer (docs/reflector.md), then it echoes. */
		CHECK(model_until(fd, m, IW_EV_SEND, 1000, &ev, echo, sizeof echo));
		CHECK_EQ(ev.len, IW_GREETING_LEN);
		CHECK_MEM(echo + 12, "\x00\x01\x00\x00", 4); /* 64 KiB */
		CHECK(model_until(fd, m, IW_EV_SEND, 1000, &ev, echo, sizeof echo));
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
		CHECK_EQ(read_for(fd, buf, sizeof buf, 1000, &st), 0);
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
	CHECK(has(e.msg, "initiator"));
	for (int k = 0; k < 2; k++) {
		fd = -1;
		CHECK_EQ(d->ops->accept(d, &fd, 1000, &e), IW_OK);
		if (fd < 0)
			break;
		iw_conn *m = harness_model(IW_ROLE_RESPONDER, false);
		iw_conn_event ev;
		CHECK(m && model_until(fd, m, IW_EV_FRAME_ACCEPTED, 1000, &ev, NULL, 0));
		CHECK(!ev.frame.m);
		CHECK(ev.frame.c);
		/* our Reply goes out; the initiator's reflector speaks first: its greeting advertises
		 * STag 0x1000, TO 0, 64 KiB */
		uint8_t g[32];
		CHECK(m && model_until(fd, m, IW_EV_SEND, 1000, &ev, g, sizeof g));
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
	CHECK(has(e.msg, "markers = no"));
	memset(&in, 0, sizeof in);
	in.reject = true;
	in.pd = (const uint8_t *)"why";
	in.pd_len = 3;
	CHECK_EQ(iw_driver_instruct(d, &in, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, 1000, 0, &e), IW_OK);
	send_request(fd, iw_profile_default(), false, -1);
	CHECK_EQ(read_for(fd, buf, 23, 1000, &st), 23);
	CHECK(buf[16] & IW_MPA_FLAG_R);
	CHECK_EQ(buf[19], 3);
	CHECK_MEM(buf + 20, "why", 3);
	close(fd);
	iw_dut_finding f;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, 1000, 0, &e), IW_OK);
	send_request(fd, iw_profile_default(), false, -1);
	CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
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
		CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
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
		CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
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
	CHECK_EQ(d->ops->connect(d, &fd, 1000, 0, &e), IW_OK);
	iw_conn *m = harness_model(IW_ROLE_INITIATOR, false);
	iw_conn_event ev;
	uint8_t buf[64];
	CHECK(m && model_until(fd, m, IW_EV_FULL_OPERATION, 1000, &ev, NULL, 0));
	CHECK_EQ(read_for(fd, buf, sizeof buf, 300, &st), 0);
	CHECK_EQ(st, IW_NET_TIMEOUT);
	if (m) {
		CHECK_EQ(iw_conn_send(m, IW_OP_SEND, (const uint8_t *)"hi", 2, &e), IW_OK);
		CHECK(model_until(fd, m, IW_EV_SEND, 1000, &ev, buf, sizeof buf));
		CHECK_EQ(ev.len, IW_GREETING_LEN);
		CHECK(model_until(fd, m, IW_EV_SEND, 1000, &ev, buf, sizeof buf));
		CHECK_EQ(ev.len, 2);
		CHECK_MEM(buf, "hi", 2);
	}
	iw_conn_free(m);
	end_case(d, fd);
}

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
		CHECK(has(e.msg, "tcp driver cannot pass per-case requests"));
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
	CHECK_EQ(d->ops->connect(d, &fd, 200, 0, &e), IW_ESTATE);
	int64_t took = iw_net_now_ms() - t0;
	CHECK(took >= 150 && took < 1000);
	CHECK(has(e.msg, "tcp: connect to 127.0.0.1:"));
	iw_driver_close(d);
	if (hold >= 0)
		close(hold);
}

/* ---- exec ---- */

static iw_driver *exec_open(const char *cmd, enum iw_role role, iw_dut_config *c)
{
	iw_err e;
	iw_driver *d = NULL;
	iw_dut_config_default(c);
	c->role = role;
	snprintf(c->dut, sizeof c->dut, "exec:%s", cmd);
	if (iw_driver_open(&d, c, &e) != IW_OK)
		check_fail(__FILE__, __LINE__, "open %s: %s", cmd, e.msg);
	return d;
}

TEST(drivers_exec_exit_status_is_a_finding)
{
	iw_dut_config c;
	iw_driver *d = exec_open("sh -c 'echo boom on {host}:{port} >&2; exit 3'", IW_ROLE_RESPONDER, &c);
	if (!d)
		return;
	iw_err e;
	int fd = -1;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(d->ops->connect(d, &fd, 1500, 0, &e), IW_ESTATE);
	CHECK(iw_net_now_ms() - t0 < 1400); /* the exit is noticed, not waited out */
	CHECK(has(e.msg, "exited with status 3"));
	iw_dut_finding f;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(f.present);
	CHECK(!f.crashed);
	CHECK_EQ(f.exit_code, 3);
	CHECK(has(f.stderr_tail, "boom on 127.0.0.1:"));
	iw_driver_close(d);
}

TEST(drivers_exec_crash_is_a_finding)
{
	iw_dut_config c;
	iw_driver *d = exec_open("'echo about to crash; kill -SEGV $$'", IW_ROLE_RESPONDER, &c);
	if (!d)
		return;
	iw_err e;
	int fd = -1;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, 1500, 0, &e), IW_ESTATE);
	CHECK(has(e.msg, "signal 11"));
	iw_dut_finding f;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(f.present);
	CHECK(f.crashed);
	CHECK_EQ(f.signal, SIGSEGV);
	CHECK(has(f.stderr_tail, "about to crash"));
	iw_driver_close(d);
}

TEST(drivers_exec_our_stop_is_no_finding)
{
	iw_dut_config c;
	iw_driver *d = exec_open("sleep 30", IW_ROLE_RESPONDER, &c);
	if (!d)
		return;
	iw_err e;
	int fd = -1;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->connect(d, &fd, 200, 0, &e), IW_ESTATE);
	CHECK(has(e.msg, "did not accept a connection"));
	iw_dut_finding f;
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(iw_net_now_ms() - t0 < 1000);
	CHECK(!f.present);
	/* one that ignores SIGTERM is killed after 1 s, still no finding */
	iw_driver_close(d);
	d = exec_open("trap '' TERM; sleep 30", IW_ROLE_RESPONDER, &c);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	usleep(150000); /* let the shell set its trap */
	t0 = iw_net_now_ms();
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	int64_t took = iw_net_now_ms() - t0;
	CHECK(took >= 900 && took < 2000);
	CHECK(!f.present);
	iw_driver_close(d);
}

TEST(drivers_exec_initiator_needs_a_connection)
{
	iw_dut_config c;
	iw_driver *d = exec_open("echo I never connect to {host} {port}; exit 0", IW_ROLE_INITIATOR, &c);
	if (!d)
		return;
	iw_err e;
	int fd = -1;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->accept(d, &fd, 1000, &e), IW_ESTATE);
	CHECK(has(e.msg, "exited (status 0) before connecting"));
	CHECK_EQ(d->ops->connect(d, &fd, 100, 0, &e), IW_ESTATE);
	iw_dut_finding f;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(!f.present);
	iw_driver_close(d);
}

static const char *iwspec_binary(void)
{
	const char *env = getenv("IWSPEC");
	if (env && access(env, X_OK) == 0)
		return env;
	if (access("build/iwspec", X_OK) == 0)
		return "build/iwspec";
	return NULL;
}

TEST(drivers_exec_iwspec_serve)
{
	const char *bin = iwspec_binary();
	if (!bin) {
		printf("  drivers_exec_iwspec_serve: skipped: no build/iwspec (nor $IWSPEC) to exec\n");
		return;
	}
	char cmd[512];
	iw_dut_config c;
	iw_err e;
	int fd = -1, st;
	uint8_t buf[32];
	/* responder, serving one connection per process: the second connect restarts it */
	snprintf(cmd, sizeof cmd, "%s serve --quiet --once --port {port}", bin);
	iw_driver *d = exec_open(cmd, IW_ROLE_RESPONDER, &c);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	for (int k = 0; k < 2; k++) {
		CHECK_EQ(d->ops->connect(d, &fd, 2000, 0, &e), IW_OK);
		if (fd < 0)
			break;
		send_request(fd, iw_profile_default(), false, -1);
		CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
		CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
		close(fd);
		fd = -1;
		usleep(100000); /* let the --once process exit */
	}
	iw_dut_finding f;
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(!f.present);
	iw_driver_close(d);

	/* initiator */
	snprintf(cmd, sizeof cmd, "%s serve --quiet --once --role initiator --host {host} --port {port}", bin);
	d = exec_open(cmd, IW_ROLE_INITIATOR, &c);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->accept(d, &fd, 2000, &e), IW_OK);
	if (fd >= 0) {
		CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
		CHECK_MEM(buf, IW_MPA_KEY_REQ, 16);
		close(fd);
	}
	CHECK_EQ(d->ops->case_end(d, &f, &e), IW_OK);
	CHECK(!f.present);
	iw_driver_close(d);
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
	CHECK_EQ(st, IW_NET_EOF);
	CHECK(took >= 150 && took < 1000);
	close(fd);
	iw_ref_stats stt;
	iw_ref_server_stats(s, &stt);
	CHECK_EQ(stt.startup_timeouts, 1);
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
	int64_t t0 = iw_net_now_ms();
	CHECK_EQ(read_for(fd, buf, sizeof buf, 1500, &st), 0);
	CHECK_EQ(st, IW_NET_EOF);
	CHECK(iw_net_now_ms() - t0 < 1000);
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

/* ---- hostile modes: each ends, none hangs the harness ---- */

TEST(drivers_hostile_garbage)
{
	iw_dut_config c;
	int fd, st;
	static uint8_t buf[4096];
	cfg_ref(&c, "garbage", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		size_t n = read_for(fd, buf, sizeof buf, 1000, &st);
		CHECK_EQ(n, sizeof buf);
		CHECK(memcmp(buf, IW_MPA_KEY_REP, 16) != 0);
	}
	end_case(d, fd);
}

TEST(drivers_hostile_reset_mid_frame)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, "reset-mid-frame", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		size_t n = read_for(fd, buf, sizeof buf, 1000, &st);
		CHECK_EQ(n, 10);
		CHECK_MEM(buf, IW_MPA_KEY_REP, 10);
		CHECK_EQ(st, IW_NET_RESET);
	}
	end_case(d, fd);
}

TEST(drivers_hostile_slow)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, "slow", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		size_t n = read_for(fd, buf, 1, 500, &st);
		CHECK_EQ(n, 1);
		CHECK_EQ(buf[0], 'M');
		n = read_for(fd, buf, sizeof buf, 700, &st);
		CHECK(n <= 1);
		CHECK_EQ(st, n ? IW_NET_DATA : IW_NET_TIMEOUT);
	}
	end_case(d, fd);
}

TEST(drivers_hostile_pd_never)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, "pd-never", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		size_t n = read_for(fd, buf, sizeof buf, 400, &st);
		CHECK_EQ(n, 30);
		CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
		CHECK_EQ(buf[18] << 8 | buf[19], 100);
		CHECK_EQ(st, IW_NET_TIMEOUT);
	}
	end_case(d, fd);
}

TEST(drivers_hostile_endless)
{
	iw_dut_config c;
	int fd, st;
	static uint8_t buf[65536];
	cfg_ref(&c, "endless", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		CHECK_EQ(read_for(fd, buf, 20, 1000, &st), 20);
		CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
		size_t total = 0;
		for (int i = 0; i < 16; i++)
			total += read_for(fd, buf, sizeof buf, 500, &st);
		CHECK_EQ(total, 16 * sizeof buf);
	}
	end_case(d, fd);
}

TEST(drivers_hostile_never_close)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, "never-close", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, 0);
		CHECK_EQ(read_for(fd, buf, sizeof buf, 400, &st), 0);
		CHECK_EQ(st, IW_NET_TIMEOUT);
		/* not even our FIN makes it close */
		shutdown(fd, SHUT_WR);
		CHECK_EQ(read_for(fd, buf, sizeof buf, 200, &st), 0);
		CHECK_EQ(st, IW_NET_TIMEOUT);
	}
	end_case(d, fd);
}

/* ---- hostile modes at the connection (issue 14) ---- */

/* silent: the Request gets no octet back, and the connection stays open until we close. */
TEST(drivers_hostile_silent)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, "silent", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		CHECK_EQ(read_for(fd, buf, sizeof buf, 1000, &st), 0);
		CHECK_EQ(st, IW_NET_TIMEOUT);
		/* it was open all along: our FIN is what ends it */
		shutdown(fd, SHUT_WR);
		CHECK_EQ(read_for(fd, buf, sizeof buf, 2000, &st), 0);
		CHECK_EQ(st, IW_NET_EOF);
	}
	end_case(d, fd);
}

/* Waits up to ms for fd to be readable, then one recv(): its result, errno in *err. */
static ssize_t recv_once(int fd, uint8_t *buf, size_t cap, int ms, int *err)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	*err = 0;
	if (poll(&p, 1, ms) != 1) {
		*err = ETIMEDOUT;
		return -1;
	}
	ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);
	if (n < 0)
		*err = errno;
	return n;
}

/* close: end of stream (FIN, not RST) before we have sent anything. */
TEST(drivers_hostile_close)
{
	iw_dut_config c;
	int fd, err;
	uint8_t buf[64];
	cfg_ref(&c, "close", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		CHECK_EQ(recv_once(fd, buf, sizeof buf, 1000, &err), 0);
		CHECK_EQ(err, 0);
	}
	end_case(d, fd);
}

/* rst: the connection is reset before we have sent anything. */
TEST(drivers_hostile_rst)
{
	iw_dut_config c;
	int fd, err;
	uint8_t buf[64];
	cfg_ref(&c, "rst", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		CHECK_EQ(recv_once(fd, buf, sizeof buf, 1000, &err), -1);
		CHECK_EQ(err, ECONNRESET);
	}
	end_case(d, fd);
}

/* A 20-octet frame header whose PD_Length, as the engine reads it, is 65535, then silence on
 * an open connection. */
static void check_stalled_frame(int fd, enum iw_mpa_kind kind)
{
	int st;
	uint8_t buf[64];
	CHECK_EQ(read_for(fd, buf, IW_MPA_FRAME_HDR_LEN, 1000, &st), IW_MPA_FRAME_HDR_LEN);
	CHECK_MEM(buf, iw_mpa_key(kind), IW_MPA_KEY_LEN);
	CHECK_EQ(iw_mpa_frame_pd_length(buf), 65535);
	iw_mpa_frame f;
	size_t flen = 0;
	CHECK_EQ(iw_mpa_frame_decode(iw_profile_default(), buf, IW_MPA_FRAME_HDR_LEN, &f, &flen, NULL), IW_ETRUNC);
	CHECK_EQ(flen, IW_MPA_FRAME_HDR_LEN + 65535);
	CHECK_EQ(f.pd_length, 65535);
	CHECK(!f.r);
	CHECK_EQ(read_for(fd, buf, sizeof buf, 1000, &st), 0);
	CHECK_EQ(st, IW_NET_TIMEOUT);
}

/* bad-reply-stall: a Reply promising 65535 octets of private data, and nothing after it. As an
 * initiator the same lie is its Request. */
TEST(drivers_hostile_bad_reply_stall)
{
	iw_dut_config c;
	int fd;
	uint8_t buf[64];
	cfg_ref(&c, "bad-reply-stall", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		/* nothing before the whole Request is in */
		iw_mpa_frame f;
		size_t n;
		int st;
		iw_mpa_frame_init(&f, iw_profile_default(), IW_MPA_REQUEST);
		f.pd = (const uint8_t *)"private";
		f.pd_len = 7;
		CHECK_EQ(iw_mpa_frame_encode(&f, buf, sizeof buf, &n, NULL), IW_OK);
		CHECK_EQ(iw_net_write_all(fd, buf, n - 1, 1000, NULL), IW_OK);
		CHECK_EQ(read_for(fd, buf, sizeof buf, 300, &st), 0);
		CHECK_EQ(st, IW_NET_TIMEOUT);
		CHECK_EQ(iw_net_write_all(fd, (const uint8_t *)"e", 1, 1000, NULL), IW_OK);
		check_stalled_frame(fd, IW_MPA_REPLY);
	}
	end_case(d, fd);

	iw_err e;
	cfg_ref(&c, "bad-reply-stall", NULL);
	c.role = IW_ROLE_INITIATOR;
	d = NULL;
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_OK);
	if (!d)
		return;
	fd = -1;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	CHECK_EQ(d->ops->accept(d, &fd, 1000, &e), IW_OK);
	if (fd >= 0)
		check_stalled_frame(fd, IW_MPA_REQUEST);
	end_case(d, fd);
}

/* drip on the wire: the first octet of its Reply, then at most one more in the next 700 ms. */
TEST(drivers_hostile_drip)
{
	iw_dut_config c;
	int fd, st;
	uint8_t buf[64];
	cfg_ref(&c, "drip", NULL);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), false, -1);
		CHECK_EQ(read_for(fd, buf, 1, 1500, &st), 1);
		CHECK_EQ(buf[0], 'M');
		size_t n = read_for(fd, buf, sizeof buf, 700, &st);
		CHECK(n <= 1);
		CHECK_EQ(st, n ? IW_NET_DATA : IW_NET_TIMEOUT);
	}
	end_case(d, fd);
}

/* Octets the fault stage moves into tx in one pump at now. */
static size_t pumped(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, int64_t now)
{
	size_t before = tx->len;
	(void)iw_fault_pump(f, model, tx, now);
	return tx->len - before;
}

/* slow and drip side by side, on the fault stage with a clock of our own: both send the
 * initiator's Request one octet a second; after it, slow sends an FPDU at once, drip one octet
 * a second still. */
TEST(drivers_hostile_drip_every_octet)
{
	static iw_fault_conn f;
	static uint8_t txmem[4096];
	enum iw_hostile modes[] = {IW_HOSTILE_SLOW, IW_HOSTILE_DRIP};
	for (size_t k = 0; k < 2; k++) {
		iw_conn *dut = harness_model(IW_ROLE_INITIATOR, false);
		iw_conn *peer = harness_model(IW_ROLE_RESPONDER, false);
		if (!dut || !peer) {
			iw_conn_free(dut);
			iw_conn_free(peer);
			return;
		}
		iw_fault_conn_init(&f, modes[k], IW_MUTANT_NONE, iw_profile_default(), IW_ROLE_INITIATOR, 1);
		iw_txbuf tx = {.buf = txmem, .cap = sizeof txmem};
		int64_t now = 100000;
		CHECK_EQ(pumped(&f, dut, &tx, now), 1);
		CHECK_EQ(iw_fault_pump(&f, dut, &tx, now + 999), now + 1000);
		CHECK_EQ(tx.len, 1);
		unsigned pumps = 1;
		while (tx.len < IW_MPA_FRAME_HDR_LEN && pumps < 40) {
			now += 1000;
			CHECK_EQ(pumped(&f, dut, &tx, now), 1);
			pumps++;
		}
		CHECK_EQ(pumps, IW_MPA_FRAME_HDR_LEN);
		/* the peer takes the Request; its Reply brings the DUT to full operation */
		iw_conn_input(peer, tx.buf + tx.off, tx.len);
		iw_txbuf_drop(&tx, tx.len);
		size_t n;
		const uint8_t *o = iw_conn_output_peek(peer, &n);
		iw_conn_input(dut, o, n);
		iw_conn_output_consume(peer, n);
		CHECK_EQ(iw_conn_state(dut), IW_CS_FULL);
		iw_err e;
		CHECK_EQ(iw_conn_send(dut, IW_OP_SEND, (const uint8_t *)"dripping", 8, &e), IW_OK);
		size_t fpdu;
		(void)iw_conn_output_peek(dut, &fpdu);
		CHECK(fpdu > 8);
		now += 1000;
		if (modes[k] == IW_HOSTILE_SLOW) {
			CHECK_EQ(pumped(&f, dut, &tx, now), fpdu);
		} else {
			CHECK_EQ(pumped(&f, dut, &tx, now), 1);
			CHECK_EQ(pumped(&f, dut, &tx, now + 999), 0);
			CHECK_EQ(pumped(&f, dut, &tx, now + 1000), 1);
			CHECK_EQ(tx.len, 2);
		}
		iw_fault_conn_free(&f);
		iw_conn_free(dut);
		iw_conn_free(peer);
	}
}

/* ---- mutants: each visible on the wire ---- */

static size_t mutant_reply(const char *mutant, bool m, int flip, uint8_t *buf, size_t cap, int64_t ms)
{
	iw_dut_config c;
	int fd, st;
	size_t n = 0;
	cfg_ref(&c, NULL, mutant);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), m, flip);
		n = read_for(fd, buf, cap, ms, &st);
	}
	end_case(d, fd);
	return n;
}

TEST(drivers_mutant_frames)
{
	uint8_t buf[64];
	CHECK_EQ(mutant_reply("accept-bad-key", false, 5, buf, 20, 1000), 20);
	CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
	CHECK_EQ(mutant_reply("reply-wrong-rev", false, -1, buf, 20, 1000), 20);
	CHECK_EQ(buf[17], IW_MPA_REV_RFC5044 + 1);
	CHECK_EQ(mutant_reply("reply-res-set", false, -1, buf, 20, 1000), 20);
	CHECK_EQ(buf[16] & IW_MPA_RES_MASK_DRAFT, IW_MPA_RES_MASK_DRAFT);
	CHECK(buf[16] & IW_MPA_FLAG_C);
	CHECK_EQ(mutant_reply("reply-c0", false, -1, buf, 20, 1000), 20);
	CHECK_EQ(buf[16] & IW_MPA_FLAG_C, 0);
	CHECK_EQ(mutant_reply("truncate-pd", false, -1, buf, 20, 1000), 20);
	CHECK_EQ(buf[18] << 8 | buf[19], 4);
	/* rule 4: a conforming responder says nothing after its Reply; early-fpdu does */
	CHECK_EQ(mutant_reply(NULL, false, -1, buf, sizeof buf, 300), 20);
	CHECK_EQ(mutant_reply("early-fpdu", false, -1, buf, sizeof buf, 300), 40);
	CHECK_EQ(buf[20] << 8 | buf[21], IW_DDP_TAGGED_HDR_LEN);
	CHECK_EQ(buf[22] & (IW_DDP_T | IW_DDP_L), IW_DDP_T | IW_DDP_L);
}

/* ignore-m: Request M=1, and the DUT's echo comes without markers; the harness model sees the error. */
TEST(drivers_mutant_ignore_m)
{
	for (int mutate = 0; mutate < 2; mutate++) {
		iw_dut_config c;
		int fd;
		cfg_ref(&c, NULL, mutate ? "ignore-m" : NULL);
		iw_driver *d = ref_connect(&c, &fd);
		iw_conn *m = harness_model(IW_ROLE_INITIATOR, true);
		iw_conn_event ev;
		if (d && fd >= 0 && m) {
			CHECK(model_until(fd, m, IW_EV_FULL_OPERATION, 1000, &ev, NULL, 0));
			iw_err e;
			static uint8_t big[1200]; /* long enough to cross a marker position */
			CHECK_EQ(iw_conn_send(m, IW_OP_SEND, big, sizeof big, &e), IW_OK);
			if (mutate)
				CHECK(model_until(fd, m, IW_EV_ERROR, 1000, &ev, NULL, 0));
			else
				CHECK(model_until(fd, m, IW_EV_SEND, 1000, &ev, NULL, 0));
		}
		iw_conn_free(m);
		end_case(d, fd);
	}
}

/* Every hostile mode and mutant, in both roles, on every profile: a connection is made, a
 * little is exchanged, and the driver ends the case and closes promptly. */
TEST(drivers_faults_all_end)
{
	const char *profiles[] = {"rfc5044", "rfc6581", "culley-mpa-02"};
	for (size_t pi = 0; pi < sizeof profiles / sizeof profiles[0]; pi++) {
		for (int role = 0; role < 2; role++) {
			for (int k = 0; k < IW_HOSTILE_COUNT + IW_MUTANT_COUNT - 1; k++) {
				iw_dut_config c;
				iw_err e;
				const char *h = k < IW_HOSTILE_COUNT ? iw_hostile_info((enum iw_hostile)k)->name : NULL;
				const char *m = k >= IW_HOSTILE_COUNT
					? iw_mutant_info((enum iw_mutant)(k - IW_HOSTILE_COUNT + 1))->name : NULL;
				cfg_ref(&c, h, m);
				CHECK_EQ(iw_dut_config_set(&c, "profile", profiles[pi], &e), IW_OK);
				c.role = role == 0 ? IW_ROLE_RESPONDER : IW_ROLE_INITIATOR;
				iw_driver *d = NULL;
				if (iw_driver_open(&d, &c, &e) != IW_OK) {
					check_fail(__FILE__, __LINE__, "open %s: %s", h ? h : m, e.msg);
					continue;
				}
				int fd = -1, st;
				uint8_t buf[4096];
				int64_t t0 = iw_net_now_ms();
				CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
				if (role == 0) {
					CHECK_EQ(d->ops->connect(d, &fd, 1000, 0, &e), IW_OK);
					if (fd >= 0)
						send_request(fd, c.profile, true, -1);
				} else {
					CHECK_EQ(d->ops->accept(d, &fd, 1000, &e), IW_OK);
				}
				if (fd >= 0)
					read_for(fd, buf, sizeof buf, 15, &st);
				end_case(d, fd);
				int64_t took = iw_net_now_ms() - t0;
				if (took > 500)
					check_fail(__FILE__, __LINE__, "%s %s as %s took %lld ms", profiles[pi], h ? h : m,
						   role ? "initiator" : "responder", (long long)took);
			}
		}
	}
}

/* The mutant zoo's table (issue 7): at least 40 mutants, each with a unique name, a family, and
 * one requirement: a catalog ID, or an RFC 5040 section for RDMAP, which the seeds do not
 * define (docs/case-language.md); every family has at least one. */
TEST(drivers_mutant_table)
{
	static const char *const families[] = {"startup", "framing", "markers", "ddp", "rdmap", "errors", "robustness"};
	size_t per_family[sizeof families / sizeof families[0]] = {0};
	CHECK(IW_MUTANT_COUNT - 1 >= 40);
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		if (!m->name || !m->req || !m->family || !m->desc) {
			check_fail(__FILE__, __LINE__, "mutant %d: a field of its table row is missing", i);
			continue;
		}
		if (!iw_req_find(m->req) && strncmp(m->req, "RFC5040-", 8) != 0)
			check_fail(__FILE__, __LINE__, "mutant %s cites %s, which the catalog does not know", m->name, m->req);
		bool known = false;
		for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
			if (!strcmp(m->family, families[f])) {
				per_family[f]++;
				known = true;
			}
		if (!known)
			check_fail(__FILE__, __LINE__, "mutant %s: unknown family %s", m->name, m->family);
		enum iw_mutant back;
		iw_err e;
		CHECK_EQ(iw_mutant_find(m->name, &back, &e), IW_OK);
		CHECK_EQ((int)back, i);
	}
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		if (!per_family[f])
			check_fail(__FILE__, __LINE__, "no mutant in family %s", families[f]);
}
