/*
 * ref_perftest.c - the built-in DUT as perftest's server (ib_send_bw, ib_write_bw, ib_read_bw
 * run with -R), written from suite/engine/perftest_msg.h's description of its wire protocol.
 *
 * perftest's server accepts one TCP connection on its port, its control channel, closes its
 * listener and then listens there through rdma_cm. The built-in DUT keeps one listener: a
 * connection whose first octet is a digit (the version's, "6.06") is taken as a control channel
 * (an MPA Request's is 'M', or whatever a case puts there, never a digit in the cases), answered message by message as perftest's server answers (the version, from 5.32 the
 * cycle buffer and cache line size, from 5.1 the MTU, then its keys to each of the client's),
 * and every other connection is an MPA connection of the test. Since the control channel and
 * the MPA connection cannot be paired, the keys name one buffer for all of them: one memory of
 * 2 x 65536 octets registered under one STag on every connection (a perftest run has one MR),
 * with the access of the mode, vaddr at its second half as perftest gives it. ib_send_bw's
 * server keeps receives of 65536 octets posted: as many as the engine's sink holds (32; perftest
 * posts 512).
 */
#include "ref_server_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net.h"
#include "perftest_msg.h"

#define PT_STAG 0x00b00001u
#define PT_BASE 0x00007f3a5c000000ull   /* looks like a process's mmap'd buffer */
#define PT_HALF IW_PERFTEST_SIZE
#define PT_RECVS 32

void rs_perftest_config(const rconn *c, iw_conn_config *cfg)
{
	if (c->o.perftest == IW_REF_PERFTEST_SEND) {
		cfg->recv_buffers = PT_RECVS;
		cfg->recv_buffer_size = IW_PERFTEST_SIZE;
	}
}

int rs_perftest_register(iw_ref_server *s, rconn *c, iw_err *e)
{
	if (!s->pt_mem)
		s->pt_mem = calloc(1, 2 * PT_HALF);
	if (!s->pt_mem)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	/* ib_send_bw's buffer is registered for local write only: its STag names nothing the peer
	 * may reach. */
	unsigned acc = c->o.perftest == IW_REF_PERFTEST_WRITE  ? IW_ACCESS_REMOTE_WRITE
		       : c->o.perftest == IW_REF_PERFTEST_READ ? IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE
							       : 0;
	if (!acc)
		return IW_OK;
	return iw_conn_register(c->model, PT_STAG, PT_BASE, s->pt_mem, 2 * PT_HALF, acc, e);
}

/* The size of the next message the client sends, by what has been answered and its version. */
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

static void put(rconn *c, const void *b, size_t n)
{
	if (iw_txbuf_room(&c->tx) < n) {
		c->app_close = true;    /* a client that reads none of our answers */
		return;
	}
	memcpy(iw_txbuf_tail(&c->tx), b, n);
	c->tx.len += n;
}

/* The server's answer to the message in p->buf. */
static void answer(iw_ref_server *s, rconn *c)
{
	rs_perftest *p = &c->pt;
	size_t n = p->len;
	uint8_t out[IW_PERFTEST_KEYS_LEN];
	if (p->step == 0) {
		p->rem_version = iw_perftest_version_parse(p->buf);
		rs_log(s, c, "perftest: the client is version %d.%02d", p->rem_version / 100, p->rem_version % 100);
		iw_perftest_version_encode(out, IW_PERFTEST_VERSION);
		put(c, out, IW_PERFTEST_VERSION_LEN);
		if (p->rem_version < IW_PERFTEST_MIN_VERSION) {
			rs_log(s, c, "perftest: a client older than 5.70 is refused, as perftest refuses it");
			c->app_close = true;
		}
	} else if (n == IW_PERFTEST_KEYS_LEN) {
		iw_perftest_keys k;
		if (!iw_perftest_keys_parse(p->buf, &k)) {
			rs_log(s, c, "perftest: the client's keys do not parse: closing");
			c->app_close = true;
			return;
		}
		iw_perftest_keys mine = {
			.out_reads = 16, .qpn = 0x000101, .psn = 0x00abcd, .rkey = PT_STAG, .vaddr = PT_BASE + PT_HALF,
			.gid = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 },
		};
		iw_perftest_keys_encode(out, &mine);
		put(c, out, IW_PERFTEST_KEYS_LEN);
	} else if (n == IW_PERFTEST_INT_LEN && p->rem_version >= 532 && p->step <= 2) {
		uint32_t v = p->step == 1 ? IW_PERFTEST_CYCLE_BUFFER : IW_PERFTEST_CACHE_LINE;
		uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
		put(c, b, sizeof b);
	} else {
		uint8_t m[IW_PERFTEST_INT_LEN] = { 0 };
		iw_perftest_mtu_encode(m, 3);   /* IBV_MTU_1024, what an iWARP device on Ethernet reports */
		put(c, m, n);
	}
	p->step++;
}

bool rs_perftest_input(iw_ref_server *s, rconn *c, const uint8_t *data, size_t n)
{
	rs_perftest *p = &c->pt;
	if (!c->o.perftest || c->o.role != IW_ROLE_RESPONDER || p->kind == RS_PT_MPA || n == 0)
		return false;
	if (p->kind == RS_PT_UNDECIDED) {
		p->kind = data[0] >= '0' && data[0] <= '9' ? RS_PT_CONTROL : RS_PT_MPA;
		if (p->kind == RS_PT_MPA)
			return false;
		rs_log(s, c, "perftest: a control channel");
	}
	for (size_t i = 0; i < n && !c->app_close; i++) {
		p->buf[p->len++] = data[i];
		if (p->len == next_len(p)) {
			answer(s, c);
			p->len = 0;
		}
	}
	return true;
}

bool rs_perftest_step(iw_ref_server *s, rconn *c, int64_t now)
{
	if (!rs_flush(s, c, now))
		return false;
	if ((c->peer_eof || c->app_close) && c->tx.len == 0) {
		rs_log(s, c, "perftest: the control channel ends");
		shutdown(c->fd, SHUT_WR);
		return false;
	}
	return true;
}
