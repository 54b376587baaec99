/*
 * ref_perftest.c - the built-in DUT as perftest's server (ib_send_bw, ib_write_bw, ib_read_bw
 * run with -R), written from suite/engine/perftest_msg.h's description of its wire protocol.
 *
 * perftest's server takes a comm connection first and answers each of the client's Sends on it
 * with one of its own (the version, from 5.32 the cycle buffer and cache line size, from 5.1 the
 * MTU, then its keys to each of the client's), and takes the test connection between the MTU and
 * the keys. The built-in DUT serves both on its one listener, every connection alike: one whose
 * first Send is a perftest version is a comm connection and is answered so; any other is a test
 * connection. Since the two cannot be paired, the keys name one buffer for all: one memory of
 * 2 x 65536 octets registered under one STag on every connection (a perftest run has one MR),
 * with the access of the mode, vaddr at its second half as perftest gives it. Each connection
 * keeps receives posted: ib_send_bw's server receives of 65536 octets, as many as the engine's
 * sink holds (32; perftest posts 512), the others the one receive of 56 octets of the comm
 * connection. ib_send_lat's server (-s 65536) posts the same receives as ib_send_bw's and answers
 * each Send of its test connection with one Send of 65536 octets of its buffer (run_iter_lat_send:
 * a receive completed, then one Send posted), never its payload. A message the flow does not
 * expect ends the connection, as perftest exits. A
 * connection the built-in DUT dialled (the initiator role) is perftest's client's instead
 * (ref_perftest_client.c), with the same buffer and keys.
 */
#include "ref_server_int.h"

#include <stdlib.h>
#include <string.h>

#include "iw_octets.h"
#include "iw_proto.h"
#include "perftest_msg.h"

#define PT_STAG 0x00b00001u
#define PT_BASE 0x00007f3a5c000000ull   /* looks like a process's mmap'd buffer */
#define PT_HALF IW_PERFTEST_SIZE
#define PT_RECVS 32

void rs_perftest_config(const rconn *c, iw_conn_config *cfg)
{
	/* The client (ref_perftest_client.c) posts receives on its comm connection only. */
	bool sends = c->o.perftest == IW_REF_PERFTEST_SEND || c->o.perftest == IW_REF_PERFTEST_SEND_LAT;
	if (sends && c->o.role != IW_ROLE_INITIATOR) {
		cfg->recv_buffers = PT_RECVS;
		cfg->recv_buffer_size = IW_PERFTEST_SIZE;
	} else {
		cfg->recv_buffers = 1;
		cfg->recv_buffer_size = IW_PERFTEST_RECV_LEN;
	}
}

int rs_perftest_register(iw_ref_server *s, rconn *c, iw_err *e)
{
	memset(&c->pt, 0, sizeof c->pt);
	if (!s->pt_mem)
		s->pt_mem = calloc(1, 2 * PT_HALF);
	if (!s->pt_mem)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	/* ib_send_bw's and ib_send_lat's buffer is registered for local write only: its STag names
	 * nothing the peer may reach. */
	unsigned acc = c->o.perftest == IW_REF_PERFTEST_WRITE  ? IW_ACCESS_REMOTE_WRITE
		       : c->o.perftest == IW_REF_PERFTEST_READ ? IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE
							       : 0;
	int rc = acc ? iw_conn_register(c->model, PT_STAG, PT_BASE, s->pt_mem, 2 * PT_HALF, acc, e) : IW_OK;
	if (rc == IW_OK && c->o.role == IW_ROLE_INITIATOR)
		rs_perftest_client_start(s, c);
	return rc;
}

void rs_perftest_own_keys(iw_perftest_keys *k)
{
	memset(k, 0, sizeof *k);
	k->out_reads = 16;
	k->qpn = 0x000101;
	k->psn = 0x00abcd;
	k->rkey = PT_STAG;
	k->vaddr = PT_BASE + PT_HALF;
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 };
	memcpy(k->gid, gid, sizeof gid);
}

/* The size of the client's message after `step` answered ones, by its version. */
static size_t next_len(const rs_perftest *p)
{
	unsigned step = p->step;
	if (step == 0)
		return IW_PERFTEST_VERSION_LEN;
	step--;
	if (p->rem_version >= 532) {
		if (step < 2)
			return IW_PERFTEST_INT_LEN;
		step -= 2;
	}
	if (p->rem_version >= 510) {
		if (step < 1)
			return p->rem_version >= 531 ? IW_PERFTEST_MTU_LEN : IW_PERFTEST_INT_LEN;
		step -= 1;
	}
	return IW_PERFTEST_KEYS_LEN;
}

static void fail(iw_ref_server *s, rconn *c, const char *why)
{
	rs_log(s, c, "perftest: %s: exiting", why);
	c->app_close = true;
}

static void answer(iw_ref_server *s, rconn *c, const uint8_t *msg, size_t n)
{
	rs_perftest *p = &c->pt;
	uint8_t out[IW_PERFTEST_KEYS_LEN];
	size_t nout = n;
	if (p->step == 0) {
		iw_perftest_version_encode(out, IW_PERFTEST_VERSION);
	} else if (n == IW_PERFTEST_KEYS_LEN && next_len(p) == IW_PERFTEST_KEYS_LEN) {
		iw_perftest_keys mine;
		rs_perftest_own_keys(&mine);
		iw_perftest_keys_encode(out, &mine);
	} else if (n == IW_PERFTEST_INT_LEN && p->rem_version >= 532 && p->step <= 2) {
		iw_put_be32(out, p->step == 1 ? IW_PERFTEST_CYCLE_BUFFER : IW_PERFTEST_CACHE_LINE);
	} else {
		memset(out, 0, sizeof out);
		iw_perftest_mtu_encode(out, 3);   /* IBV_MTU_1024, what an iWARP device on Ethernet reports */
	}
	(void)msg;
	iw_err e;
	if (iw_conn_send(c->model, IW_OP_SEND, out, nout, &e) != IW_OK)
		fail(s, c, e.msg);
	p->step++;
}

/* A Send delivered on a test connection: ib_send_lat's server answers it with one Send of -s
 * octets of its own buffer (whatever it holds: perftest never fills it); the bw servers answer
 * nothing. */
static void answer_test(iw_ref_server *s, rconn *c)
{
	iw_err e;
	if (c->o.perftest == IW_REF_PERFTEST_SEND_LAT &&
	    iw_conn_send(c->model, IW_OP_SEND, s->pt_mem, IW_PERFTEST_SIZE, &e) != IW_OK)
		fail(s, c, e.msg);
}

void rs_perftest_event(iw_ref_server *s, rconn *c, const iw_conn_event *ev)
{
	rs_perftest *p = &c->pt;
	if (c->o.role == IW_ROLE_INITIATOR) {
		rs_perftest_client_event(s, c, ev);
		return;
	}
	if (ev->kind != IW_EV_SEND || c->app_close)
		return;
	if (p->test) {
		answer_test(s, c);
		return;
	}
	if (!p->comm) {
		int v = ev->len == IW_PERFTEST_VERSION_LEN ? iw_perftest_version_parse(ev->data) : -1;
		if (v < 0) {
			p->test = true;     /* a test connection: its Sends are the client's test data */
			answer_test(s, c);
			return;
		}
		p->comm = true;
		p->rem_version = v;
		rs_log(s, c, "perftest: a comm connection, the client is version %d.%02d", v / 100, v % 100);
		answer(s, c, ev->data, ev->len);
		if (v < IW_PERFTEST_MIN_VERSION)
			fail(s, c, "a client older than 5.70 is refused");
		return;
	}
	if (ev->len != next_len(p)) {
		fail(s, c, "a message of a size the comm connection does not expect");
		return;
	}
	answer(s, c, ev->data, ev->len);
}
