/* The built-in DUT as perftest's client (drivers/ref_perftest_client.c, the initiator role of
 * ulp = perftest-*), driven here by a harness-side model playing perftest's server: the comm
 * connection's messages in order, the client's first, then the test connection, the keys four
 * times (ib_send_bw five), the test (5 Sends of 65536 octets, 5 Writes into the buffer the
 * server's keys name, or 5 Read Requests of it), and the close of the run after it (the keys;
 * ib_write_bw and ib_read_bw the 5 report values and the keys again), after which the client ends
 * both connections, as perftest exits. */
#include "test_drivers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iw_octets.h"
#include "iw_proto.h"
#include "net.h"
#include "perftest_msg.h"

/* Writes what the model has queued. */
static void flush(int fd, iw_conn *m)
{
	size_t n;
	const uint8_t *o = iw_conn_output_peek(m, &n);
	if (n && iw_net_write_all(fd, o, n, 1000, NULL) == IW_OK)
		iw_conn_output_consume(m, n);
}

/* The client's next message on the comm connection: a Send of want octets, copied to got. */
static bool client_says(int fd, iw_conn *m, size_t want, uint8_t *got)
{
	iw_conn_event ev;
	uint8_t b[64];
	if (!model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, b, sizeof b))
		return false;
	CHECK_EQ(ev.len, want);
	if (got && ev.len <= sizeof b)
		memcpy(got, b, ev.len);
	return ev.len == want;
}

static void answer(int fd, iw_conn *m, const uint8_t *b, size_t n)
{
	iw_err e;
	CHECK_EQ(iw_conn_send(m, IW_OP_SEND, b, n, &e), IW_OK);
	flush(fd, m);
}

/* The kind of event the server's model shows for one message of the client's test. */
static enum iw_conn_ev_kind test_event(int ulp)
{
	return ulp == IW_ULP_PERFTEST_SEND ? IW_EV_SEND : ulp == IW_ULP_PERFTEST_WRITE ? IW_EV_WRITE : IW_EV_READ_SERVICED;
}

/* One message of the test as the server's model saw it: of the size and at the buffer due. */
static void check_test_message(int ulp, const iw_conn_event *ev)
{
	if (ulp == IW_ULP_PERFTEST_SEND) {
		CHECK_EQ(ev->len, IW_PERFTEST_SIZE);
	} else if (ulp == IW_ULP_PERFTEST_WRITE) {
		CHECK_EQ(ev->stag, IW_PERFTEST_HARNESS_RKEY);
	} else {
		CHECK_EQ(ev->rreq.src_stag, IW_PERFTEST_HARNESS_RKEY);
		CHECK_EQ(ev->rreq.src_to, IW_PERFTEST_HARNESS_VADDR);
		CHECK_EQ(ev->rreq.size, IW_PERFTEST_SIZE);
	}
}

static void run_client(int ulp)
{
	iw_dut_config c;
	iw_err e;
	cfg_ref(&c, NULL, NULL);
	c.role = IW_ROLE_INITIATOR;
	c.reflector = false;
	c.ulp = ulp;
	iw_driver *d = NULL;
	CHECK_EQ(iw_driver_open(&d, &c, &e), IW_OK);
	if (!d)
		return;
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	int fd = -1, tfd = -1;
	iw_conn *m = NULL, *t = NULL;
	uint8_t *mem = calloc(1, IW_PERFTEST_SIZE);
	uint8_t got[64], b[IW_PERFTEST_KEYS_LEN];
	iw_conn_event ev;
	CHECK_EQ(d->ops->accept(d, &fd, AWAIT_MS, &e), IW_OK);
	m = harness_model(IW_ROLE_RESPONDER, false);
	if (fd < 0 || !m || !mem)
		goto out;
	CHECK(model_until(fd, m, IW_EV_FRAME_ACCEPTED, AWAIT_MS, &ev, NULL, 0));
	/* The client speaks first: its version, then (the server's being 6.06) the cycle buffer,
	 * the cache line size, the MTU and the zero keys, each after the server's answer. */
	if (!client_says(fd, m, IW_PERFTEST_VERSION_LEN, got))
		goto out;
	CHECK_EQ(iw_perftest_version_parse(got), 606);
	iw_perftest_version_encode(b, IW_PERFTEST_VERSION);
	answer(fd, m, b, IW_PERFTEST_VERSION_LEN);
	if (!client_says(fd, m, IW_PERFTEST_INT_LEN, got))
		goto out;
	CHECK_EQ(iw_get_be32(got), IW_PERFTEST_CYCLE_BUFFER);
	answer(fd, m, got, IW_PERFTEST_INT_LEN);
	if (!client_says(fd, m, IW_PERFTEST_INT_LEN, got))
		goto out;
	CHECK_EQ(iw_get_be32(got), IW_PERFTEST_CACHE_LINE);
	answer(fd, m, got, IW_PERFTEST_INT_LEN);
	if (!client_says(fd, m, IW_PERFTEST_MTU_LEN, got))
		goto out;
	CHECK_EQ(iw_perftest_mtu_parse(got), 3);
	answer(fd, m, got, IW_PERFTEST_MTU_LEN);
	if (!client_says(fd, m, IW_PERFTEST_KEYS_LEN, got))
		goto out;
	iw_perftest_keys k, mine = { .rkey = IW_PERFTEST_HARNESS_RKEY, .vaddr = IW_PERFTEST_HARNESS_VADDR };
	iw_perftest_keys_parse(got, &k);
	CHECK_EQ(k.rkey, 0);
	iw_perftest_keys_encode(b, &mine);
	answer(fd, m, b, sizeof b);
	/* The next dial is this run's test connection. */
	CHECK_EQ(d->ops->accept(d, &tfd, AWAIT_MS, &e), IW_OK);
	t = harness_model(IW_ROLE_RESPONDER, false);
	if (tfd < 0 || !t)
		goto out;
	CHECK_EQ(iw_conn_register(t, IW_PERFTEST_HARNESS_RKEY, IW_PERFTEST_HARNESS_VADDR, mem, IW_PERFTEST_SIZE,
				  ulp == IW_ULP_PERFTEST_READ ? IW_ACCESS_REMOTE_READ : IW_ACCESS_REMOTE_WRITE, &e), IW_OK);
	CHECK(model_until(tfd, t, IW_EV_FRAME_ACCEPTED, AWAIT_MS, &ev, NULL, 0));
	flush(tfd, t);      /* the Reply: the client's ESTABLISHED */
	int keys_after = ulp == IW_ULP_PERFTEST_SEND ? IW_PERFTEST_SEND_KEYS_AFTER : IW_PERFTEST_KEYS_AFTER;
	for (int i = 0; i < keys_after; i++) {
		if (!client_says(fd, m, IW_PERFTEST_KEYS_LEN, got))
			goto out;
		answer(fd, m, b, sizeof b);
	}
	iw_perftest_keys_parse(got, &k);
	CHECK(k.rkey != 0 && k.vaddr != 0);
	/* The test: 5 messages (Sends; Writes into the buffer the server's keys named; Read
	 * Requests of it, which the server's model answers), seen by the server's model. */
	memset(mem, 0xee, IW_PERFTEST_SIZE);
	int msgs = 0;
	while (msgs < IW_PERFTEST_ITERS && model_until(tfd, t, test_event(ulp), AWAIT_MS, &ev, NULL, 0)) {
		check_test_message(ulp, &ev);
		msgs++;
	}
	CHECK_EQ(msgs, IW_PERFTEST_ITERS);
	flush(tfd, t);      /* the last Read Response: the client's test ends when it completes */
	if (ulp == IW_ULP_PERFTEST_WRITE)
		CHECK(mem[0] != 0xee || mem[IW_PERFTEST_SIZE - 1] != 0xee);
	/* Read Responses are the server's to send: the next Read Request comes once one is done. */
	/* Then the close of the run on the comm connection, each message answered: the keys (no
	 * more of the test meanwhile), and (not ib_send_bw) the five values of the report and the
	 * keys again. */
	CHECK(client_says(fd, m, IW_PERFTEST_KEYS_LEN, got));
	CHECK(!model_until(tfd, t, test_event(ulp), 500, &ev, NULL, 0));
	answer(fd, m, b, sizeof b);
	if (ulp != IW_ULP_PERFTEST_SEND) {
		static const uint8_t report[IW_PERFTEST_REPORT_LEN];
		for (int i = 0; i < IW_PERFTEST_REPORTS; i++) {
			if (!client_says(fd, m, IW_PERFTEST_REPORT_LEN, got))
				goto out;
			answer(fd, m, report, sizeof report);
		}
		if (!client_says(fd, m, IW_PERFTEST_KEYS_LEN, got))
			goto out;
		answer(fd, m, b, sizeof b);
	}
	/* The run is over: the client sends nothing more and closes both connections. */
	CHECK(model_until(fd, m, IW_EV_PEER_CLOSED, AWAIT_MS, &ev, NULL, 0));
	CHECK(model_until(tfd, t, IW_EV_PEER_CLOSED, AWAIT_MS, &ev, NULL, 0));
out:
	free(mem);
	iw_conn_free(m);
	iw_conn_free(t);
	if (tfd >= 0)
		close(tfd);
	end_case(d, fd);
}

TEST(perftest_client_runs_send_test) { run_client(IW_ULP_PERFTEST_SEND); }
TEST(perftest_client_runs_write_test) { run_client(IW_ULP_PERFTEST_WRITE); }
TEST(perftest_client_runs_read_test) { run_client(IW_ULP_PERFTEST_READ); }
