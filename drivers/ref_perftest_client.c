/*
 * ref_perftest_client.c - the built-in DUT as perftest's client (`ib_send_bw -R -n 5 HOST`,
 * ib_write_bw, ib_read_bw), for the connections it dials as initiator: the other side of
 * suite/engine/perftest_msg.h's exchange, whose server the harness then plays.
 *
 * A run is two connections to one port: the comm connection first, then the test connection.
 * The dials cannot say which is which, so the first dial is a comm connection and, once that
 * one has sent its keys before the test connection (the sync after which perftest's server
 * listens for it), the next dial is its test connection. On the comm connection the client
 * sends first and waits for the server's answer to each message: the version, from 5.32 the
 * cycle buffer and the cache line size, from 5.1 the MTU (by the server's version), the keys
 * all zero; after the test connection's Reply (rdma_cm's ESTABLISHED) its keys four times
 * (ib_send_bw five), the first still zero. The server's last keys name its buffer (rkey, vaddr); the client then
 * runs its test on the test connection: 5 messages of 65536 octets (Sends, Writes to that
 * buffer, or Read Requests of it, one outstanding at a time), then closes the flow on the comm
 * connection, each message answered before the next: its keys, then (ib_write_bw, ib_read_bw)
 * the five values of its bandwidth report and its keys a last time; then it ends both
 * connections, as perftest disconnects and exits. A message the flow does not expect, or the
 * comm connection's end, ends both too.
 */
#include "ref_server_int.h"

#include <string.h>

#include "iw_octets.h"
#include "iw_proto.h"
#include "perftest_msg.h"

#define PUMP_BELOW (MODEL_OUT_CAP / 2)  /* post the next message while the model holds less */

static rconn *find(iw_ref_server *s, unsigned id)
{
	for (rconn *c = s->conns; c && id; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static bool alive(const rconn *c) { return c && c->st == RC_OPEN && !c->app_close && !c->peer_eof; }

static void fail(iw_ref_server *s, rconn *c, const char *why)
{
	rs_log(s, c, "perftest client: %s: exiting", why);
	c->app_close = true;
	rconn *o = find(s, c->pt.pair);
	if (o && o->pt.pair == c->id)
		o->app_close = true;
	if (s->pt_waiting == c->id)
		s->pt_waiting = 0;
}

void rs_perftest_client_start(iw_ref_server *s, rconn *c)
{
	rconn *comm = find(s, s->pt_waiting);
	if (alive(comm) && !comm->pt.pair) {
		c->pt.test = true;
		c->pt.pair = comm->id;
		comm->pt.pair = c->id;
		s->pt_waiting = 0;
		rs_log(s, c, "perftest client: the test connection of comm connection %u", comm->id);
	} else {
		c->pt.comm = true;
	}
}

static void send_msg(iw_ref_server *s, rconn *c, const uint8_t *b, size_t n)
{
	iw_err e;
	if (iw_conn_send(c->model, IW_OP_SEND, b, n, &e) != IW_OK)
		fail(s, c, e.msg);
}

static void send_keys(iw_ref_server *s, rconn *c, bool zero)
{
	iw_perftest_keys k;
	uint8_t b[IW_PERFTEST_KEYS_LEN];
	if (zero)
		memset(&k, 0, sizeof k);
	else
		rs_perftest_own_keys(&k);
	iw_perftest_keys_encode(b, &k);
	send_msg(s, c, b, sizeof b);
}

/* The messages of the exchange before the keys, by the server's version: the client's
 * 0 version, 1 cycle buffer, 2 cache line, 3 MTU; steps the version leaves out are skipped. */
enum { ST_VERSION, ST_CYCLE, ST_CACHE, ST_MTU, ST_KEYS_BEFORE, ST_WAIT_TEST, ST_KEYS, ST_TESTING, ST_REPORTS,
       ST_CLOSING };

static size_t len_of(int st)
{
	return st == ST_VERSION ? IW_PERFTEST_VERSION_LEN
	       : st == ST_CYCLE || st == ST_CACHE ? IW_PERFTEST_INT_LEN
	       : st == ST_MTU ? IW_PERFTEST_MTU_LEN : IW_PERFTEST_KEYS_LEN;
}

static int next_step(const rs_perftest *p, int st)
{
	st++;
	if ((st == ST_CYCLE || st == ST_CACHE) && p->rem_version < 532)
		st = ST_MTU;
	if (st == ST_MTU && p->rem_version < 510)
		st = ST_KEYS_BEFORE;
	return st;
}

static void send_step(iw_ref_server *s, rconn *c, int st)
{
	uint8_t b[IW_PERFTEST_KEYS_LEN] = { 0 };
	c->pt.step = (unsigned)st;
	switch (st) {
	case ST_VERSION:
		iw_perftest_version_encode(b, IW_PERFTEST_VERSION);
		break;
	case ST_CYCLE:
		iw_put_be32(b, IW_PERFTEST_CYCLE_BUFFER);
		break;
	case ST_CACHE:
		iw_put_be32(b, IW_PERFTEST_CACHE_LINE);
		break;
	case ST_MTU:
		iw_perftest_mtu_encode(b, 3);
		break;
	default:
		/* The sync before the test connection: the next dial is this run's test connection. */
		send_keys(s, c, true);
		c->pt.step = ST_KEYS_BEFORE;
		s->pt_waiting = c->id;
		return;
	}
	iw_err e;
	if (iw_conn_send(c->model, IW_OP_SEND, b, len_of(st), &e) != IW_OK)
		fail(s, c, e.msg);
}

/* The keys after the test connection go once both its Reply came and the sync was answered. */
static void keys_if_ready(iw_ref_server *s, rconn *comm)
{
	rconn *t = find(s, comm->pt.pair);
	if (comm->pt.before_done && !comm->pt.keys_sent && alive(t) && t->pt.full) {
		comm->pt.keys_sent++;
		send_keys(s, comm, true);
		comm->pt.step = ST_KEYS;
	}
}

static void read_next(iw_ref_server *s, rconn *t)
{
	iw_perftest_keys mine;
	rs_perftest_own_keys(&mine);
	iw_read_req rr = { .sink_stag = mine.rkey, .sink_to = mine.vaddr, .size = IW_PERFTEST_SIZE,
			   .src_stag = t->pt.rem_rkey, .src_to = t->pt.rem_vaddr };
	iw_err e;
	if (iw_conn_read(t->model, &rr, &e) != IW_OK)
		fail(s, t, e.msg);
}

static void start_test(iw_ref_server *s, rconn *comm)
{
	rconn *t = find(s, comm->pt.pair);
	if (!alive(t)) {
		fail(s, comm, "the test connection is gone");
		return;
	}
	t->pt.rem_rkey = comm->pt.rem_rkey;
	t->pt.rem_vaddr = comm->pt.rem_vaddr;
	t->pt.iters_left = IW_PERFTEST_ITERS;
	if (t->o.perftest == IW_REF_PERFTEST_READ) {
		t->pt.iters_left--;
		read_next(s, t);
	}
	rs_log(s, t, "perftest client: the test, %d messages of %d octets (server's rkey 0x%x, vaddr 0x%llx)",
	       IW_PERFTEST_ITERS, IW_PERFTEST_SIZE, t->pt.rem_rkey, (unsigned long long)t->pt.rem_vaddr);
}

/* The test is over: the sync after it, on the comm connection. */
static void test_done(iw_ref_server *s, rconn *t)
{
	rconn *comm = find(s, t->pt.pair);
	rs_log(s, t, "perftest client: the test is done");
	if (alive(comm)) {
		comm->pt.test_over = true;
		send_keys(s, comm, false);
	}
}

/* The server answered a message of the close after the test (ST_TESTING: the sync's keys): the
 * next one, or the end of the run. */
static void closing_next(iw_ref_server *s, rconn *c, const iw_conn_event *ev)
{
	rs_perftest *p = &c->pt;
	bool reports = c->o.perftest != IW_REF_PERFTEST_SEND;
	size_t want = p->step == ST_REPORTS ? IW_PERFTEST_REPORT_LEN : IW_PERFTEST_KEYS_LEN;
	if (ev->len != want) {
		fail(s, c, "a message of a size the close of the run does not expect");
		return;
	}
	if (p->step == ST_TESTING && reports) {
		p->step = ST_REPORTS;
		p->reports_sent = 0;
	}
	if (p->step == ST_REPORTS && p->reports_sent < IW_PERFTEST_REPORTS) {
		/* The report's values themselves: none of iwspec's concern, zero. */
		static const uint8_t report[IW_PERFTEST_REPORT_LEN];
		p->reports_sent++;
		send_msg(s, c, report, sizeof report);
		return;
	}
	if (p->step == ST_REPORTS) {
		p->step = ST_CLOSING;
		send_keys(s, c, false);
		return;
	}
	rs_log(s, c, "perftest client: the run is over: exiting");
	c->app_close = true;
	rconn *t = find(s, p->pair);
	if (t && t->pt.pair == c->id)
		t->app_close = true;
}

static void comm_answer(iw_ref_server *s, rconn *c, const iw_conn_event *ev)
{
	rs_perftest *p = &c->pt;
	int st = (int)p->step;
	if (st >= ST_TESTING && p->test_over) {
		closing_next(s, c, ev);
		return;
	}
	if (st == ST_WAIT_TEST || st >= ST_TESTING || ev->len != len_of(st)) {
		fail(s, c, "a message of a size or at a time the comm connection does not expect");
		return;
	}
	if (st == ST_VERSION) {
		p->rem_version = iw_perftest_version_parse(ev->data);
		if (p->rem_version < IW_PERFTEST_MIN_VERSION) {
			fail(s, c, "a server older than 5.70 is refused");
			return;
		}
	}
	if (st < ST_KEYS_BEFORE) {
		send_step(s, c, next_step(p, st));
		return;
	}
	if (st == ST_KEYS_BEFORE) {
		p->before_done = true;
		p->step = ST_WAIT_TEST;
		keys_if_ready(s, c);
		return;
	}
	p->keys_got++;
	if (p->keys_got < (c->o.perftest == IW_REF_PERFTEST_SEND ? IW_PERFTEST_SEND_KEYS_AFTER : IW_PERFTEST_KEYS_AFTER)) {
		p->keys_sent++;
		send_keys(s, c, false);
		p->step = ST_KEYS;
		return;
	}
	iw_perftest_keys k;
	iw_perftest_keys_parse(ev->data, &k);
	p->rem_rkey = k.rkey;
	p->rem_vaddr = k.vaddr;
	p->step = ST_TESTING;
	start_test(s, c);
}

void rs_perftest_client_event(iw_ref_server *s, rconn *c, const iw_conn_event *ev)
{
	rs_perftest *p = &c->pt;
	if (c->app_close)
		return;
	if (ev->kind == IW_EV_PEER_CLOSED || ev->kind == IW_EV_CLOSE) {
		if (p->comm)
			fail(s, c, "the comm connection ended");
		return;
	}
	if (p->comm && ev->kind == IW_EV_FULL_OPERATION) {
		send_step(s, c, ST_VERSION);
	} else if (p->comm && ev->kind == IW_EV_SEND) {
		comm_answer(s, c, ev);
	} else if (p->test && ev->kind == IW_EV_FULL_OPERATION) {
		p->full = true;
		rconn *comm = find(s, p->pair);
		if (alive(comm))
			keys_if_ready(s, comm);
	} else if (p->test && ev->kind == IW_EV_READ_DONE && c->o.perftest == IW_REF_PERFTEST_READ) {
		if (p->iters_left) {
			p->iters_left--;
			read_next(s, c);
		} else {
			test_done(s, c);
		}
	} else if (p->test && ev->kind == IW_EV_SEND) {
		fail(s, c, "a Send on the test connection, which has no receive posted");
	}
}

void rs_perftest_pump(iw_ref_server *s, rconn *c)
{
	rs_perftest *p = &c->pt;
	if (c->o.role != IW_ROLE_INITIATOR || !p->test || !p->iters_left || c->app_close ||
	    c->o.perftest == IW_REF_PERFTEST_READ)
		return;
	uint8_t *buf = s->pt_mem + IW_PERFTEST_SIZE;
	iw_err e;
	while (p->iters_left) {
		size_t pending;
		(void)iw_conn_output_peek(c->model, &pending);
		if (pending >= PUMP_BELOW)
			return;
		int rc;
		if (c->o.perftest == IW_REF_PERFTEST_SEND)
			rc = iw_conn_send(c->model, IW_OP_SEND, buf, IW_PERFTEST_SIZE, &e);
		else
			rc = iw_conn_write(c->model, p->rem_rkey, p->rem_vaddr, buf, IW_PERFTEST_SIZE, &e);
		if (rc != IW_OK) {
			fail(s, c, e.msg);
			return;
		}
		if (--p->iters_left == 0)
			test_done(s, c);
	}
}
