/*
 * raw_conn.c - the connection around the stream: ARP, the handshake, what comes from the DUT
 * (ACKs, its data in order, FIN, RST), the wait loop with its deadline, and the end.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>

#include "raw_conn_int.h"

#define RAW_ARP_RETRY_MS 250
#define RAW_SYN_RETRY_MS 1000
#define RAW_RTO_MAX_MS   2000
#define RAW_STOP_SLICE_MS 100   /* the longest wait between two questions to iw_raw_opts.stop */
#define RAW_DUT_MSS_DEFAULT 536   /* RFC 9293 §3.7.1: without the option */

uint64_t raw_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t wall_usec(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

void iw_raw_opts_default(iw_raw_opts *o)
{
	memset(o, 0, sizeof *o);
	memcpy(o->local_ip, (uint8_t[4]){ 10, 214, 0, 2 }, 4);
	memcpy(o->local_mac, (uint8_t[6]){ 0x02, 0x69, 0x77, 0x72, 0x61, 0x02 }, 6);
	memcpy(o->dut_ip, (uint8_t[4]){ 10, 214, 0, 1 }, 4);
}

static int link_send(iw_raw_conn *c, const uint8_t *frame, size_t len, iw_err *e)
{
	if (c->o.on_frame)
		c->o.on_frame(c->o.frame_ctx, IW_RAW_TX, frame, len, wall_usec());
	return c->link.send(c->link.ctx, frame, len, e);
}

/* What we can still take, as the window we advertise. */
static uint16_t rcv_window(const iw_raw_conn *c)
{
	return c->rx_len >= c->o.window ? 0 : (uint16_t)(c->o.window - c->rx_len);
}

int raw_xmit(iw_raw_conn *c, uint32_t seq, const uint8_t *data, size_t len, uint8_t flags, iw_err *e)
{
	uint8_t frame[IW_RAW_FRAME_MAX];
	iw_raw_seg s;
	memset(&s, 0, sizeof s);
	memcpy(s.src_mac, c->o.local_mac, 6);
	memcpy(s.dst_mac, c->dut_mac, 6);
	memcpy(s.src_ip, c->o.local_ip, 4);
	memcpy(s.dst_ip, c->o.dut_ip, 4);
	s.src_port = c->o.local_port;
	s.dst_port = c->o.dut_port;
	s.seq = seq;
	s.flags = flags;
	if (c->state != RAW_SYN_SENT) {
		s.flags |= IW_RAW_ACK;
		s.ack = c->rcv_nxt;
	}
	if (flags & IW_RAW_SYN)
		s.mss = c->o.mss;
	s.window = rcv_window(c);
	s.ip_id = c->ip_id++;
	s.data = data;
	s.len = len;
	size_t n = iw_raw_build_tcp(frame, sizeof frame, &s);
	if (n == 0)
		return iw_errf(e, IW_EINVAL, "a %zu-octet segment does not fit a 1500-octet MTU", len);
	return link_send(c, frame, n, e);
}

static int send_ack(iw_raw_conn *c, iw_err *e)
{
	return raw_xmit(c, c->fin_sent ? c->fin_seq + 1 : c->snd_max, NULL, 0, 0, e);
}

static int on_arp(iw_raw_conn *c, const iw_raw_arp *a, iw_err *e)
{
	/* The DUT's kernel ARPs for us before its first reply, and again when its entry ages. */
	if (memcmp(a->spa, c->o.dut_ip, 4) == 0) {
		memcpy(c->dut_mac, a->sha, 6);
		c->have_dut_mac = true;
	}
	if (a->oper != IW_RAW_ARP_REQUEST || memcmp(a->tpa, c->o.local_ip, 4) != 0)
		return IW_OK;
	iw_raw_arp r;
	memset(&r, 0, sizeof r);
	memcpy(r.eth_dst, a->sha, 6);
	memcpy(r.eth_src, c->o.local_mac, 6);
	r.oper = IW_RAW_ARP_REPLY;
	memcpy(r.sha, c->o.local_mac, 6);
	memcpy(r.spa, c->o.local_ip, 4);
	memcpy(r.tha, a->sha, 6);
	memcpy(r.tpa, a->spa, 4);
	uint8_t frame[64];
	return link_send(c, frame, iw_raw_build_arp(frame, sizeof frame, &r), e);
}

static bool ours(const iw_raw_conn *c, const iw_raw_seg *s)
{
	return memcmp(s->src_ip, c->o.dut_ip, 4) == 0 && memcmp(s->dst_ip, c->o.local_ip, 4) == 0 &&
	       s->src_port == c->o.dut_port && s->dst_port == c->o.local_port;
}

static int take_data(iw_raw_conn *c, const iw_raw_seg *s, iw_err *e)
{
	uint32_t end = s->seq + (uint32_t)s->len;
	if (iw_raw_seq_lt(c->rcv_nxt, s->seq)) {
		/* Out of order from the DUT: not buffered; the re-ACK makes its TCP resend. */
		c->st.ooo_dropped++;
		return IW_OK;
	}
	if (!iw_raw_seq_lt(c->rcv_nxt, end))
		return IW_OK;   /* all of it taken before: only the ACK again */
	size_t skip = c->rcv_nxt - s->seq, n = s->len - skip;
	if (c->rx_len + n > c->rx_cap) {
		size_t cap = c->rx_cap ? c->rx_cap : 65536;
		while (cap < c->rx_len + n)
			cap *= 2;
		uint8_t *p = realloc(c->rx, cap);
		if (!p)
			return iw_errf(e, IW_ENOSPC, "no memory for %zu octets of the DUT's stream", cap);
		c->rx = p;
		c->rx_cap = cap;
	}
	memcpy(c->rx + c->rx_len, s->data + skip, n);
	c->rx_len += n;
	c->rcv_nxt += (uint32_t)n;
	c->st.octets_received += n;
	return IW_OK;
}

int raw_on_tcp(iw_raw_conn *c, const iw_raw_seg *s, iw_err *e)
{
	if (!ours(c, s) || c->state == RAW_RESET)
		return IW_OK;
	if (s->flags & IW_RAW_RST) {
		/* In SYN-SENT a RST counts only when it acknowledges our SYN (RFC 9293 §3.10.7.3). */
		if (c->state == RAW_SYN_SENT && (!(s->flags & IW_RAW_ACK) || s->ack != c->iss + 1))
			return IW_OK;
		c->state = RAW_RESET;
		return IW_OK;
	}
	if (c->state == RAW_SYN_SENT) {
		if ((s->flags & (IW_RAW_SYN | IW_RAW_ACK)) != (IW_RAW_SYN | IW_RAW_ACK) || s->ack != c->iss + 1)
			return IW_OK;
		c->rcv_nxt = s->seq + 1;
		c->snd_una = c->snd_max = c->stream_end = c->tx_seq = c->iss + 1;
		c->snd_wnd = s->window;
		c->dut_mss = s->mss ? s->mss : RAW_DUT_MSS_DEFAULT;
		c->state = RAW_ESTABLISHED;
		return send_ack(c, e);
	}
	if (s->flags & IW_RAW_SYN)
		return send_ack(c, e);   /* the SYN-ACK again: our ACK of it was lost */
	if (s->flags & IW_RAW_ACK) {
		uint32_t top = c->fin_sent ? c->fin_seq + 1 : c->snd_max;
		if (iw_raw_seq_lt(c->snd_una, s->ack) && iw_raw_seq_le(s->ack, top)) {
			raw_acked(c, s->ack);
			c->snd_wnd = s->window;
		} else if (s->ack == c->snd_una) {
			bool outstanding = c->snd_una != c->snd_max || (c->fin_sent && !c->fin_acked);
			if (s->len == 0 && !(s->flags & IW_RAW_FIN) && outstanding) {
				c->dupacks++;
				c->st.dupacks++;
			}
			c->snd_wnd = s->window;
		}
	}
	bool ack_it = false;
	if (s->len) {
		int rc = take_data(c, s, e);
		if (rc != IW_OK)
			return rc;
		ack_it = true;
	}
	if (s->flags & IW_RAW_FIN) {
		if (!c->dut_fin && s->seq + (uint32_t)s->len == c->rcv_nxt) {
			c->rcv_nxt++;
			c->dut_fin = true;
		}
		ack_it = true;
	}
	return ack_it ? send_ack(c, e) : IW_OK;
}

/* Waits at most timeout_ms for one frame and processes it. */
static int pump_frame(iw_raw_conn *c, int timeout_ms, bool *got_one, iw_err *e)
{
	size_t got = 0;
	*got_one = false;
	int rc = c->link.recv(c->link.ctx, c->frame, sizeof c->frame, &got, timeout_ms, e);
	if (rc != IW_OK || got == 0)
		return rc;
	*got_one = true;
	if (c->o.on_frame)
		c->o.on_frame(c->o.frame_ctx, IW_RAW_RX, c->frame, got, wall_usec());
	iw_raw_frame f;
	iw_err pe;
	if (iw_raw_parse(c->frame, got, &f, &pe) != IW_OK) {
		c->st.bad_frames++;
		return IW_OK;
	}
	if (f.kind == IW_RAW_FRAME_ARP)
		return on_arp(c, &f.arp, e);
	if (f.kind == IW_RAW_FRAME_TCP)
		return raw_on_tcp(c, &f.tcp, e);
	return IW_OK;
}

int raw_pump(iw_raw_conn *c, uint64_t deadline_ms, iw_err *e)
{
	uint64_t now = raw_now_ms();
	if (c->rto_at_ms && now >= c->rto_at_ms) {
		/* The timer stands for the DUT's silence, not ours: frames already on the link came
		 * while this process was not running (a loaded machine, a slow callback) and are taken
		 * before the timer is believed. An ACK among them restarts or stops it (raw_acked, at
		 * a time after now), and the caller looks at its state again; retransmitting first
		 * would resend octets the DUT has already acknowledged. */
		uint64_t armed = c->rto_at_ms;
		int rc = raw_drain(c, e);
		if (rc != IW_OK)
			return rc;
		if (c->rto_at_ms != armed)
			return IW_OK;
	}
	if (c->rto_at_ms && now >= c->rto_at_ms) {
		int rc = raw_retransmit(c, e);
		if (rc != IW_OK)
			return rc;
		c->rto_ms = c->rto_ms * 2 > RAW_RTO_MAX_MS ? RAW_RTO_MAX_MS : c->rto_ms * 2;
		c->rto_at_ms = now + c->rto_ms;
	}
	if (now >= deadline_ms)
		return iw_errf(e, IW_RAW_ETIMEDOUT, "deadline passed");
	if (c->o.stop && c->o.stop(c->o.stop_ctx))
		return iw_errf(e, IW_RAW_ESTOPPED, "stopped while waiting for the DUT");
	uint64_t until = deadline_ms;
	if (c->rto_at_ms && c->rto_at_ms < until)
		until = c->rto_at_ms;
	if (c->o.stop && now + RAW_STOP_SLICE_MS < until)
		until = now + RAW_STOP_SLICE_MS;
	bool got;
	return pump_frame(c, (int)(until - now), &got, e);
}

int raw_drain(iw_raw_conn *c, iw_err *e)
{
	bool got = true;
	int rc = IW_OK;
	while (rc == IW_OK && got)
		rc = pump_frame(c, 0, &got, e);
	return rc;
}

static int resolve_dut(iw_raw_conn *c, uint64_t deadline, iw_err *e)
{
	uint64_t next = 0;
	while (!c->have_dut_mac) {
		uint64_t now = raw_now_ms();
		if (now >= next) {
			iw_raw_arp a;
			memset(&a, 0, sizeof a);
			memset(a.eth_dst, 0xFF, 6);
			memcpy(a.eth_src, c->o.local_mac, 6);
			a.oper = IW_RAW_ARP_REQUEST;
			memcpy(a.sha, c->o.local_mac, 6);
			memcpy(a.spa, c->o.local_ip, 4);
			memcpy(a.tpa, c->o.dut_ip, 4);
			uint8_t frame[64];
			int rc = link_send(c, frame, iw_raw_build_arp(frame, sizeof frame, &a), e);
			if (rc != IW_OK)
				return rc;
			next = now + RAW_ARP_RETRY_MS;
		}
		int rc = raw_pump(c, deadline < next ? deadline : next, e);
		if (rc == IW_RAW_ETIMEDOUT && raw_now_ms() < deadline)
			continue;
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc, "no ARP reply for the DUT's address %u.%u.%u.%u on the link: is the device up, "
				       "with that address on the namespace's side?", c->o.dut_ip[0], c->o.dut_ip[1],
				       c->o.dut_ip[2], c->o.dut_ip[3]);
		if (rc != IW_OK)
			return rc;
	}
	return IW_OK;
}

static int handshake(iw_raw_conn *c, uint64_t deadline, iw_err *e)
{
	uint64_t next = 0;
	while (c->state == RAW_SYN_SENT) {
		uint64_t now = raw_now_ms();
		if (now >= next) {
			int rc = raw_xmit(c, c->iss, NULL, 0, IW_RAW_SYN, e);
			if (rc != IW_OK)
				return rc;
			next = now + RAW_SYN_RETRY_MS;
		}
		int rc = raw_pump(c, deadline < next ? deadline : next, e);
		if (rc == IW_RAW_ETIMEDOUT && raw_now_ms() < deadline)
			continue;
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc, "no SYN-ACK from %u.%u.%u.%u:%u", c->o.dut_ip[0], c->o.dut_ip[1], c->o.dut_ip[2],
				       c->o.dut_ip[3], c->o.dut_port);
		if (rc != IW_OK)
			return rc;
	}
	if (c->state == RAW_RESET)
		return iw_errf(e, IW_RAW_ERESET, "the DUT answered the SYN with RST: nothing listens on %u.%u.%u.%u:%u",
			       c->o.dut_ip[0], c->o.dut_ip[1], c->o.dut_ip[2], c->o.dut_ip[3], c->o.dut_port);
	return IW_OK;
}

int iw_raw_connect(iw_raw_conn **out, const iw_raw_link *link, const iw_raw_opts *o, int timeout_ms, iw_err *e)
{
	*out = NULL;
	if (!o->dut_port) {
		link->close(link->ctx);
		return iw_errf(e, IW_EINVAL, "no DUT port: set dut_port");
	}
	iw_raw_conn *c = calloc(1, sizeof *c);
	if (!c) {
		link->close(link->ctx);
		return iw_errf(e, IW_ENOSPC, "no memory for a raw connection");
	}
	c->link = *link;
	c->o = *o;
	if (!c->o.mss)
		c->o.mss = 1460;
	if (!c->o.window)
		c->o.window = 65535;
	if (!c->o.rto_ms)
		c->o.rto_ms = 200;
	/* Port and ISN at random: a second connection must not look like the first one's old
	 * segments to the DUT's kernel, which may still hold it in TIME-WAIT. */
	uint32_t rnd[2] = { 0, 0 };
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint32_t mix = (uint32_t)ts.tv_nsec * 2654435761u;
		rnd[0] = mix;
		rnd[1] = (uint32_t)ts.tv_sec ^ (mix >> 7);
	}
	if (!c->o.local_port)
		c->o.local_port = (uint16_t)(40000 + rnd[0] % 20000);
	c->iss = rnd[1];
	c->rto_ms = c->o.rto_ms;
	c->state = RAW_SYN_SENT;
	c->st.local_port = c->o.local_port;
	uint64_t deadline = raw_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	int rc = resolve_dut(c, deadline, e);
	if (rc == IW_OK)
		rc = handshake(c, deadline, e);
	if (rc != IW_OK) {
		iw_raw_free(c);
		return rc;
	}
	c->st.dut_mss = c->dut_mss;
	*out = c;
	return IW_OK;
}

int iw_raw_recv(iw_raw_conn *c, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e)
{
	*got = 0;
	uint64_t deadline = raw_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	while (c->rx_len == 0 && !c->dut_fin && c->state == RAW_ESTABLISHED) {
		int rc = raw_pump(c, deadline, e);
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc, "nothing from the DUT within %d ms (%llu octets taken so far)", timeout_ms,
				       (unsigned long long)c->st.octets_received);
		if (rc != IW_OK)
			return rc;
	}
	if (c->rx_len == 0 && c->state == RAW_RESET)
		return iw_errf(e, IW_RAW_ERESET, "the DUT reset the connection");
	if (c->rx_len == 0)
		return IW_OK;   /* FIN: the end of the DUT's stream */
	bool was_tight = c->rx_len >= c->o.window / 2;
	size_t n = c->rx_len < cap ? c->rx_len : cap;
	memcpy(buf, c->rx, n);
	memmove(c->rx, c->rx + n, c->rx_len - n);
	c->rx_len -= n;
	*got = n;
	/* A window we shrank is opened again at once, or the DUT would wait for its probe timer. */
	if (was_tight && c->state == RAW_ESTABLISHED)
		return send_ack(c, e);
	return IW_OK;
}

int iw_raw_close(iw_raw_conn *c, int timeout_ms, iw_err *e)
{
	if (c->state == RAW_RESET)
		return iw_errf(e, IW_RAW_ERESET, "the connection was reset before the close");
	if (c->nheld)
		return iw_errf(e, IW_ESTATE, "%zu held segment(s) never released: RELEASE them before the close",
			       c->nheld);
	uint64_t deadline = raw_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	if (!c->fin_sent) {
		c->fin_seq = c->stream_end;
		c->fin_sent = true;
		int rc = raw_xmit(c, c->fin_seq, NULL, 0, IW_RAW_FIN, e);
		if (rc != IW_OK)
			return rc;
		if (!c->rto_at_ms)
			c->rto_at_ms = raw_now_ms() + c->rto_ms;
	}
	while (!(c->fin_acked && c->dut_fin) && c->state == RAW_ESTABLISHED) {
		int rc = raw_pump(c, deadline, e);
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc, "close: %s within %d ms",
				       !c->fin_acked ? "the DUT did not acknowledge our FIN" : "the DUT did not send its FIN",
				       timeout_ms);
		if (rc != IW_OK)
			return rc;
	}
	if (c->state == RAW_RESET)
		return iw_errf(e, IW_RAW_ERESET, "the DUT reset the connection during the close");
	return IW_OK;
}

int iw_raw_reset(iw_raw_conn *c, iw_err *e)
{
	if (c->state == RAW_RESET)
		return IW_OK;
	c->state = RAW_RESET;
	c->rto_at_ms = 0;
	return raw_xmit(c, c->fin_sent ? c->fin_seq + 1 : c->snd_max, NULL, 0, IW_RAW_RST, e);
}

void iw_raw_free(iw_raw_conn *c)
{
	if (!c)
		return;
	if (c->link.close)
		c->link.close(c->link.ctx);
	free(c->tx);
	free(c->tx_sent);
	free(c->rx);
	free(c->held);
	free(c->drops);
	free(c);
}

void iw_raw_stats_get(const iw_raw_conn *c, iw_raw_stats *s)
{
	*s = c->st;
}
