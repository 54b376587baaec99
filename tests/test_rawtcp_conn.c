/*
 * The raw segment path's connection and plans (suite/rawtcp/rawtcp.h), without root: the link is a
 * fake peer in memory, a small receiving TCP that answers ARP and the SYN, reassembles what it
 * is sent, records the segments in arrival order, and ACKs cumulatively (a duplicate ACK for
 * each segment that does not advance it, as Linux does). The live counterpart against a
 * kernel's TCP is tests/cli/rawtcp.sh.
 */
#include <time.h>

#include <stdlib.h>

#include "check.h"
#include "pcap_read.h"
#include "raw_hdr.h"
#include "rawtcp.h"
#include "report.h"
#include "report_fixture.h"
#include "result.h"

#define PEER_PORT 4791
#define QMAX 64
#define STREAM_MAX 4096

typedef struct fake_peer {
	uint8_t mac[6], ip[4];
	uint8_t h_mac[6], h_ip[4];
	uint16_t h_port;
	uint32_t h_base;            /* the harness's sequence number of stream octet 0 */
	uint32_t iss;               /* ours */
	uint16_t mss;               /* in our SYN-ACK */
	bool refuse;                /* answer the SYN with RST */
	uint8_t stream[STREAM_MAX], have[STREAM_MAX];
	size_t acked;               /* octets received in order */
	struct {
		size_t off, len;
	} arr[128];                 /* data segments as they arrived */
	size_t narr;
	long lose_off;              /* the first segment starting here is lost (-1: none) */
	long stall_off;             /* after ACKing the first segment starting here, the link's send
	                             * sleeps stall_ms (-1: none): the harness descheduled by a
	                             * loaded machine with the ACK already waiting for it */
	int stall_ms;
	bool fin_rcvd, rst_rcvd;
	uint8_t q[QMAX][IW_RAW_FRAME_MAX];
	size_t qlen[QMAX], qh, qt;
} fake_peer;

static void peer_queue(fake_peer *p, const uint8_t *f, size_t n)
{
	if (p->qt - p->qh >= QMAX || n == 0)
		return;
	memcpy(p->q[p->qt % QMAX], f, n);
	p->qlen[p->qt % QMAX] = n;
	p->qt++;
}

static void peer_tcp(fake_peer *p, uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *data, size_t len)
{
	iw_raw_seg s;
	memset(&s, 0, sizeof s);
	memcpy(s.src_mac, p->mac, 6);
	memcpy(s.dst_mac, p->h_mac, 6);
	memcpy(s.src_ip, p->ip, 4);
	memcpy(s.dst_ip, p->h_ip, 4);
	s.src_port = PEER_PORT;
	s.dst_port = p->h_port;
	s.seq = seq;
	s.ack = ack;
	s.flags = flags;
	s.window = 65535;
	s.mss = (flags & IW_RAW_SYN) ? p->mss : 0;
	s.data = data;
	s.len = len;
	uint8_t f[IW_RAW_FRAME_MAX];
	peer_queue(p, f, iw_raw_build_tcp(f, sizeof f, &s));
}

static void peer_ack(fake_peer *p)
{
	peer_tcp(p, p->iss + 1, p->h_base + (uint32_t)p->acked + (p->fin_rcvd ? 1 : 0), IW_RAW_ACK, NULL, 0);
}

static void peer_on_tcp(fake_peer *p, const iw_raw_seg *s)
{
	memcpy(p->h_mac, s->src_mac, 6);
	if (s->flags & IW_RAW_RST) {
		p->rst_rcvd = true;
		return;
	}
	if (s->flags & IW_RAW_SYN) {
		p->h_port = s->src_port;
		p->h_base = s->seq + 1;
		if (p->refuse)
			peer_tcp(p, 0, s->seq + 1, IW_RAW_RST | IW_RAW_ACK, NULL, 0);
		else
			peer_tcp(p, p->iss, s->seq + 1, IW_RAW_SYN | IW_RAW_ACK, NULL, 0);
		return;
	}
	size_t off = s->seq - p->h_base;
	if (s->len) {
		if ((long)off == p->lose_off) {
			p->lose_off = -1;
			return;
		}
		p->arr[p->narr].off = off;
		p->arr[p->narr].len = s->len;
		if (p->narr + 1 < sizeof p->arr / sizeof p->arr[0])
			p->narr++;
		for (size_t i = 0; i < s->len && off + i < STREAM_MAX; i++) {
			p->stream[off + i] = s->data[i];
			p->have[off + i] = 1;
		}
		while (p->acked < STREAM_MAX && p->have[p->acked])
			p->acked++;
	}
	if ((s->flags & IW_RAW_FIN) && off + s->len == p->acked && !p->fin_rcvd) {
		p->fin_rcvd = true;
		peer_ack(p);
		peer_tcp(p, p->iss + 1, p->h_base + (uint32_t)p->acked + 1, IW_RAW_FIN | IW_RAW_ACK, NULL, 0);
		return;
	}
	if (s->len || (s->flags & IW_RAW_FIN))
		peer_ack(p);
	if (s->len && (long)off == p->stall_off) {
		p->stall_off = -1;
		struct timespec ts = { p->stall_ms / 1000, (long)(p->stall_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static int peer_send(void *ctx, const uint8_t *frame, size_t len, iw_err *e)
{
	fake_peer *p = ctx;
	iw_raw_frame f;
	if (iw_raw_parse(frame, len, &f, e) != IW_OK)
		return IW_EPROTO;   /* the harness sent a broken frame: fail the test loudly */
	if (f.kind == IW_RAW_FRAME_ARP && f.arp.oper == IW_RAW_ARP_REQUEST && memcmp(f.arp.tpa, p->ip, 4) == 0) {
		memcpy(p->h_ip, f.arp.spa, 4);
		iw_raw_arp r;
		memset(&r, 0, sizeof r);
		memcpy(r.eth_dst, f.arp.sha, 6);
		memcpy(r.eth_src, p->mac, 6);
		r.oper = IW_RAW_ARP_REPLY;
		memcpy(r.sha, p->mac, 6);
		memcpy(r.spa, p->ip, 4);
		memcpy(r.tha, f.arp.sha, 6);
		memcpy(r.tpa, f.arp.spa, 4);
		uint8_t b[64];
		peer_queue(p, b, iw_raw_build_arp(b, sizeof b, &r));
	} else if (f.kind == IW_RAW_FRAME_TCP) {
		peer_on_tcp(p, &f.tcp);
	}
	return IW_OK;
}

static int peer_recv(void *ctx, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e)
{
	fake_peer *p = ctx;
	(void)e;
	*got = 0;
	if (p->qh == p->qt) {
		/* Nothing will come until the harness sends: sleep a little of the wait, not all of it. */
		struct timespec ts = { 0, (timeout_ms > 2 ? 2 : timeout_ms) * 1000000L };
		nanosleep(&ts, NULL);
		return IW_OK;
	}
	size_t n = p->qlen[p->qh % QMAX];
	if (n > cap)
		n = cap;
	memcpy(buf, p->q[p->qh % QMAX], n);
	p->qh++;
	*got = n;
	return IW_OK;
}

static void peer_close(void *ctx)
{
	(void)ctx;
}

static fake_peer peer;
static bool (*fake_stop)(void *ctx); /* iw_raw_opts.stop for the next connect_fake */

static iw_raw_conn *connect_fake(uint16_t mss)
{
	memset(&peer, 0, sizeof peer);
	memcpy(peer.mac, (uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, 6);
	memcpy(peer.ip, (uint8_t[4]){ 10, 214, 0, 1 }, 4);
	peer.iss = 0xfffffff0u;   /* the peer's sequence numbers wrap during the test */
	peer.mss = mss;
	peer.lose_off = -1;
	peer.stall_off = -1;
	iw_raw_link l = { peer_send, peer_recv, peer_close, &peer };
	iw_raw_opts o;
	iw_raw_opts_default(&o);
	o.dut_port = PEER_PORT;
	o.rto_ms = 20;
	o.stop = fake_stop;
	iw_raw_conn *c = NULL;
	iw_err e = { "" };
	int rc = iw_raw_connect(&c, &l, &o, 2000, &e);
	if (rc != IW_OK)
		check_fail(__FILE__, __LINE__, "connect: %s", e.msg);
	return c;
}

static void fill(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 13 + 1);
}

TEST(rawtcp_conn_handshake_and_mss)
{
	iw_raw_conn *c = connect_fake(100);
	if (!c)
		return;
	iw_raw_stats st;
	iw_raw_stats_get(c, &st);
	CHECK_EQ(st.dut_mss, 100);
	/* A segment above the DUT's MSS is refused before anything is sent. */
	uint8_t d[200];
	fill(d, sizeof d);
	iw_raw_step big[] = { { IW_RAW_SEND, 0, 200, 0 } };
	iw_err e;
	CHECK_EQ(iw_raw_send_plan(c, d, 200, big, 1, 500, &e), IW_EINVAL);
	CHECK_EQ(peer.narr, 0);
	iw_raw_free(c);
}

TEST(rawtcp_conn_refused)
{
	memset(&peer, 0, sizeof peer);
	memcpy(peer.ip, (uint8_t[4]){ 10, 214, 0, 1 }, 4);
	peer.refuse = true;
	peer.lose_off = -1;
	peer.stall_off = -1;
	iw_raw_link l = { peer_send, peer_recv, peer_close, &peer };
	iw_raw_opts o;
	iw_raw_opts_default(&o);
	o.dut_port = PEER_PORT;
	iw_raw_conn *c = (iw_raw_conn *)&peer;
	iw_err e;
	CHECK_EQ(iw_raw_connect(&c, &l, &o, 2000, &e), IW_RAW_ERESET);
	CHECK(c == NULL);
	CHECK(strstr(e.msg, "nothing listens") != NULL);
}

TEST(rawtcp_plan_reverse_arrives_reversed_and_whole)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	uint8_t d[300];
	fill(d, sizeof d);
	iw_raw_step s[8];
	size_t k;
	iw_err e = { "" };
	CHECK_EQ(iw_raw_plan_reverse(s, 8, &k, 300, 100, &e), IW_OK);
	CHECK_EQ(iw_raw_send_plan(c, d, 300, s, k, 2000, &e), IW_OK);
	CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
	CHECK_EQ(peer.narr, 3);
	CHECK_EQ(peer.arr[0].off, 200);
	CHECK_EQ(peer.arr[1].off, 100);
	CHECK_EQ(peer.arr[2].off, 0);
	CHECK_EQ(peer.acked, 300);
	CHECK_MEM(peer.stream, d, 300);
	iw_raw_stats st;
	iw_raw_stats_get(c, &st);
	CHECK_EQ(st.dupacks, 2);   /* the first two left the ACK at octet 0 with data outstanding */
	CHECK_EQ(st.retransmits, 0);
	/* A second plan continues the stream where the first ended. */
	CHECK_EQ(iw_raw_send(c, d, 50, 2000, &e), IW_OK);
	CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
	CHECK_EQ(peer.acked, 350);
	CHECK_MEM(peer.stream + 300, d, 50);
	CHECK_EQ(iw_raw_close(c, 2000, &e), IW_OK);
	CHECK(peer.fin_rcvd);
	iw_raw_free(c);
}

TEST(rawtcp_plan_duplicate_after_delivery)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	uint8_t d[100];
	fill(d, sizeof d);
	iw_raw_step s[] = { { IW_RAW_SEND, 0, 60, 0 }, { IW_RAW_SEND, 60, 40, 0 }, { IW_RAW_SEND, 0, 60, 0 },
			    { IW_RAW_SEND, 30, 50, 0 } };
	iw_err e = { "" };
	CHECK_EQ(iw_raw_send_plan(c, d, 100, s, 4, 2000, &e), IW_OK);
	CHECK_EQ(peer.narr, 4);
	/* The duplicates went out although the peer had acknowledged those octets. */
	CHECK_EQ(peer.arr[2].off, 0);
	CHECK_EQ(peer.arr[3].off, 30);
	CHECK_EQ(peer.arr[3].len, 50);
	CHECK_EQ(peer.acked, 100);
	CHECK_MEM(peer.stream, d, 100);
	iw_raw_free(c);
}

TEST(rawtcp_plan_hold_released_in_a_later_plan)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	uint8_t d[90];
	fill(d, sizeof d);
	iw_raw_step s1[] = { { IW_RAW_HOLD, 0, 30, 0 }, { IW_RAW_SEND, 30, 60, 0 } };
	iw_err e = { "" };
	CHECK_EQ(iw_raw_send_plan(c, d, 90, s1, 2, 2000, &e), IW_OK);
	CHECK_EQ(peer.acked, 0);
	CHECK_EQ(iw_raw_wait_acked(c, 100, &e), IW_ESTATE);
	CHECK_EQ(iw_raw_close(c, 100, &e), IW_ESTATE);
	CHECK(strstr(e.msg, "held") != NULL);
	/* Longer than the retransmission timer: the hole is the plan's, the timer leaves it. */
	struct timespec ts = { 0, 80 * 1000000L };
	nanosleep(&ts, NULL);
	iw_raw_step s2[] = { { IW_RAW_RELEASE, 0, 0, 0 } };
	CHECK_EQ(iw_raw_send_plan(c, NULL, 0, s2, 1, 2000, &e), IW_OK);
	CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
	CHECK_EQ(peer.arr[peer.narr - 1].off, 0);
	CHECK_EQ(peer.acked, 90);
	CHECK_MEM(peer.stream, d, 90);
	for (size_t i = 0; i + 1 < peer.narr; i++)
		CHECK(peer.arr[i].off != 0);   /* no timer retransmission filled the hole first */
	iw_raw_free(c);
}

TEST(rawtcp_plan_drop_fast_retransmit)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	uint8_t d[60];
	fill(d, sizeof d);
	iw_raw_step s[] = { { IW_RAW_SEND, 0, 10, 0 },  { IW_RAW_DROP, 10, 10, 3 }, { IW_RAW_DROP, 20, 10, 3 },
			    { IW_RAW_SEND, 30, 10, 0 }, { IW_RAW_SEND, 40, 10, 0 }, { IW_RAW_SEND, 50, 10, 0 } };
	iw_err e = { "" };
	CHECK_EQ(iw_raw_send_plan(c, d, 60, s, 6, 2000, &e), IW_OK);
	CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
	CHECK_EQ(peer.narr, 6);
	/* The drops leave after the plan's other segments, in order, the second on the partial ACK. */
	CHECK_EQ(peer.arr[4].off, 10);
	CHECK_EQ(peer.arr[5].off, 20);
	CHECK_MEM(peer.stream, d, 60);
	iw_raw_stats st;
	iw_raw_stats_get(c, &st);
	CHECK_EQ(st.drops_resent, 2);
	CHECK(st.dupacks >= 3);
	iw_raw_free(c);
}

/* The race the loaded make test hit in rawtcp_plan_drop_fast_retransmit: the harness sent a
 * DROP's retransmission, the peer's ACK of it was already waiting, and the harness was not
 * scheduled again until after the retransmission timer (armed by the plan's earlier segments)
 * was due. The timer then resent the octets the waiting ACK covers: a seventh segment, a
 * duplicate the plan never asked for. The stall makes that order certain: a sleep of five
 * RTOs is at least five RTOs, however loaded the machine. The waiting ACK must count first:
 * stalled after either drop, the peer sees the plan's six segments and no more. */
TEST(rawtcp_timer_waits_for_acks_already_come)
{
	const long stall_at[] = { 10, 20 };   /* the first drop (then the pump in finish_drops), the
	                                       * second (then the pump in wait_acked) */
	for (size_t k = 0; k < sizeof stall_at / sizeof stall_at[0]; k++) {
		iw_raw_conn *c = connect_fake(1460);
		if (!c)
			return;
		peer.stall_off = stall_at[k];
		peer.stall_ms = 100;   /* the RTO is 20 ms */
		uint8_t d[60];
		fill(d, sizeof d);
		iw_raw_step s[] = { { IW_RAW_SEND, 0, 10, 0 },  { IW_RAW_DROP, 10, 10, 3 }, { IW_RAW_DROP, 20, 10, 3 },
				    { IW_RAW_SEND, 30, 10, 0 }, { IW_RAW_SEND, 40, 10, 0 }, { IW_RAW_SEND, 50, 10, 0 } };
		iw_err e = { "" };
		CHECK_EQ(iw_raw_send_plan(c, d, 60, s, 6, 2000, &e), IW_OK);
		CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
		CHECK_EQ(peer.stall_off, -1);   /* the stall happened */
		CHECK_EQ(peer.narr, 6);
		CHECK_EQ(peer.arr[4].off, 10);
		CHECK_EQ(peer.arr[5].off, 20);
		CHECK_MEM(peer.stream, d, 60);
		iw_raw_stats st;
		iw_raw_stats_get(c, &st);
		CHECK_EQ(st.retransmits, 0);
		CHECK_EQ(st.drops_resent, 2);
		iw_raw_free(c);
	}
}

/* A plan whose drop waits for 3 duplicate ACKs the fake peer never sends enough of: only the
 * deadline (or a stop) ends it. */
static int send_unfinishable_plan(iw_raw_conn *c, int timeout_ms, iw_err *e)
{
	uint8_t d[30];
	fill(d, sizeof d);
	iw_raw_step s[] = { { IW_RAW_DROP, 0, 10, 3 }, { IW_RAW_SEND, 10, 20, 0 } };
	return iw_raw_send_plan(c, d, sizeof d, s, 2, timeout_ms, e);
}

TEST(rawtcp_plan_drop_without_enough_dupacks_times_out)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	iw_err e = { "" };
	time_t t0 = time(NULL);
	CHECK_EQ(send_unfinishable_plan(c, 300, &e), IW_RAW_ETIMEDOUT);
	CHECK(strstr(e.msg, "duplicate ACKs") != NULL);
	CHECK(time(NULL) - t0 < 30);   /* a hang guard, not a timing assertion */
	iw_raw_free(c);
}

TEST(rawtcp_plan_wait_dupacks_then_recut)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	uint8_t d[40];
	fill(d, sizeof d);
	iw_raw_step s[] = { { IW_RAW_SEND, 20, 10, 0 }, { IW_RAW_SEND, 30, 10, 0 }, { IW_RAW_WAIT_DUPACKS, 0, 0, 2 },
			    { IW_RAW_SEND, 0, 7, 0 },   { IW_RAW_SEND, 7, 13, 0 } };
	iw_err e = { "" };
	CHECK_EQ(iw_raw_send_plan(c, d, 40, s, 5, 2000, &e), IW_OK);
	CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
	CHECK_EQ(peer.narr, 4);
	CHECK_EQ(peer.arr[2].off, 0);
	CHECK_EQ(peer.arr[2].len, 7);
	CHECK_MEM(peer.stream, d, 40);
	iw_raw_free(c);
}

TEST(rawtcp_timer_retransmits_a_lost_segment)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	peer.lose_off = 0;   /* the link loses the first transmission of octet 0 */
	uint8_t d[50];
	fill(d, sizeof d);
	iw_err e = { "" };
	CHECK_EQ(iw_raw_send(c, d, 50, 2000, &e), IW_OK);
	CHECK_EQ(iw_raw_wait_acked(c, 5000, &e), IW_OK);
	CHECK_EQ(peer.acked, 50);
	CHECK_MEM(peer.stream, d, 50);
	iw_raw_stats st;
	iw_raw_stats_get(c, &st);
	CHECK(st.retransmits >= 1);
	iw_raw_free(c);
}

TEST(rawtcp_recv_in_order_ooo_dropped_fin)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	const uint8_t *msg = (const uint8_t *)"hello, raw world";
	/* The second half first: dropped and re-ACKed; then both halves in order. */
	peer_tcp(&peer, peer.iss + 1 + 8, peer.h_base, IW_RAW_ACK, msg + 8, 8);
	peer_tcp(&peer, peer.iss + 1, peer.h_base, IW_RAW_ACK, msg, 8);
	peer_tcp(&peer, peer.iss + 1 + 8, peer.h_base, IW_RAW_ACK | IW_RAW_FIN, msg + 8, 8);
	uint8_t buf[64];
	size_t got = 0, total = 0;
	iw_err e = { "" };
	while (total < 16 && iw_raw_recv(c, buf + total, sizeof buf - total, &got, 2000, &e) == IW_OK && got)
		total += got;
	CHECK_EQ(total, 16);
	CHECK_MEM(buf, msg, 16);
	CHECK_EQ(iw_raw_recv(c, buf, sizeof buf, &got, 2000, &e), IW_OK);
	CHECK_EQ(got, 0);   /* the FIN */
	iw_raw_stats st;
	iw_raw_stats_get(c, &st);
	CHECK_EQ(st.ooo_dropped, 1);
	CHECK_EQ(st.octets_received, 16);
	iw_raw_free(c);
}

TEST(rawtcp_recv_rst_and_bad_checksum)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	/* A frame with a broken checksum is counted and ignored. */
	peer_tcp(&peer, peer.iss + 1, peer.h_base, IW_RAW_ACK, (const uint8_t *)"xy", 2);
	peer.q[(peer.qt - 1) % QMAX][peer.qlen[(peer.qt - 1) % QMAX] - 1] ^= 0x40;
	peer_tcp(&peer, peer.iss + 1, peer.h_base, IW_RAW_RST | IW_RAW_ACK, NULL, 0);
	uint8_t buf[8];
	size_t got;
	iw_err e = { "" };
	CHECK_EQ(iw_raw_recv(c, buf, sizeof buf, &got, 2000, &e), IW_RAW_ERESET);
	iw_raw_stats st;
	iw_raw_stats_get(c, &st);
	CHECK_EQ(st.bad_frames, 1);
	CHECK_EQ(st.octets_received, 0);
	CHECK_EQ(iw_raw_send(c, buf, 1, 100, &e), IW_RAW_ERESET);
	iw_raw_free(c);
}

TEST(rawtcp_reset_sends_rst)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	iw_err e = { "" };
	CHECK_EQ(iw_raw_reset(c, &e), IW_OK);
	CHECK(peer.rst_rcvd);
	iw_raw_free(c);
}

TEST(rawtcp_recv_deadline)
{
	iw_raw_conn *c = connect_fake(1460);
	if (!c)
		return;
	uint8_t buf[8];
	size_t got;
	iw_err e = { "" };
	time_t t0 = time(NULL);
	CHECK_EQ(iw_raw_recv(c, buf, sizeof buf, &got, 50, &e), IW_RAW_ETIMEDOUT);
	CHECK(time(NULL) - t0 < 30);
	CHECK(strstr(e.msg, "nothing from the DUT") != NULL);
	iw_raw_free(c);
}

/* Ctrl-C during a wait on the raw path: the stop callback ends the wait (IW_RAW_ESTOPPED), however
 * far the deadline is (it was the whole case timeout), and the connection stays usable. */
static bool stop_armed;
static int stop_calls;
static bool stop_after_three(void *ctx)
{
	(void)ctx;
	return stop_armed && ++stop_calls > 3;
}

TEST(rawtcp_stop_ends_every_wait)
{
	fake_stop = stop_after_three;
	stop_armed = false;
	iw_raw_conn *c = connect_fake(1460);
	fake_stop = NULL;
	if (!c)
		return;
	iw_err e = { "" };
	time_t t0 = time(NULL);
	stop_armed = true;
	stop_calls = 0;
	CHECK_EQ(send_unfinishable_plan(c, 60000, &e), IW_RAW_ESTOPPED);
	CHECK(strstr(e.msg, "stopped") != NULL);
	uint8_t buf[8];
	size_t got;
	stop_calls = 0;
	CHECK_EQ(iw_raw_recv(c, buf, sizeof buf, &got, 60000, &e), IW_RAW_ESTOPPED);
	CHECK(time(NULL) - t0 < 30);   /* a hang guard, not a timing assertion */
	/* Not stopped: the same wait ends at its deadline, as before. */
	stop_armed = false;
	CHECK_EQ(iw_raw_recv(c, buf, sizeof buf, &got, 50, &e), IW_RAW_ETIMEDOUT);
	iw_raw_free(c);
}

/* The executor keeps every frame of the raw path in the case's capture (IW_TCP_FRAME, as
 * suite/run/exec_conn_raw.c does): the per-case pcap is those frames in the order they went, so a
 * reader sees the reversed segments out of order and still reassembles the stream whole. */
static void keep_frame(void *ctx, enum iw_raw_dir dir, const uint8_t *frame, size_t len, uint64_t usec)
{
	(void)usec;
	iw_case_result *r = ctx;
	iw_result_tcp(r, IW_TCP_FRAME, dir == IW_RAW_TX ? IW_TO_DUT : IW_FROM_DUT, 1, (int64_t)r->ntcp * 10, frame, len);
}

TEST(rawtcp_frames_make_the_case_pcap)
{
	char *dir = rp_scratch_dir();
	iw_case_result *r = calloc(1, sizeof *r);
	if (!dir || !r) {
		free(r);
		return;
	}
	snprintf(r->id, sizeof r->id, "tcp.x");
	snprintf(r->dut_role, sizeof r->dut_role, "responder");
	memset(&peer, 0, sizeof peer);
	memcpy(peer.mac, (uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, 6);
	memcpy(peer.ip, (uint8_t[4]){ 10, 214, 0, 1 }, 4);
	peer.iss = 1000;
	peer.mss = 1460;
	peer.lose_off = -1;
	peer.stall_off = -1;
	iw_raw_link l = { peer_send, peer_recv, peer_close, &peer };
	iw_raw_opts o;
	iw_raw_opts_default(&o);
	o.dut_port = PEER_PORT;
	o.on_frame = keep_frame;
	o.frame_ctx = r;
	iw_raw_conn *c = NULL;
	iw_err e = { "" };
	CHECK_EQ(iw_raw_connect(&c, &l, &o, 2000, &e), IW_OK);
	uint8_t d[300];
	fill(d, sizeof d);
	iw_raw_step st[8];
	size_t k;
	CHECK_EQ(iw_raw_plan_reverse(st, 8, &k, 300, 100, &e), IW_OK);
	if (c) {
		CHECK_EQ(iw_raw_send_plan(c, d, 300, st, k, 2000, &e), IW_OK);
		CHECK_EQ(iw_raw_wait_acked(c, 2000, &e), IW_OK);
		CHECK_EQ(iw_raw_close(c, 2000, &e), IW_OK);
		iw_raw_free(c);
	}
	size_t frames = r->ntcp;
	CHECK(frames >= 8);   /* ARP both ways, SYN, SYN-ACK, ACK, 3 data segments, ACKs, FINs */
	/* A synthesized chunk too: a case with frames is written from its frames alone. */
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 5, d, 10);
	char path[512];
	snprintf(path, sizeof path, "%s/tcp.x.pcap", dir);
	CHECK_EQ(iw_report_pcap_case(r, path, &e), 0);
	iw_pcap_capture *cap = NULL;
	char msg[256];
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), 0);
	if (cap) {
		CHECK_EQ(cap->frames, frames);
		CHECK_EQ(cap->nconns, 1);
		if (cap->nconns == 1) {
			const iw_pcap_stream *h = &cap->conns[0].dir[0];   /* the harness sent the SYN */
			CHECK(cap->conns[0].handshake);
			CHECK_EQ(h->len, 300);
			CHECK_MEM(h->data, d, 300);
			CHECK_EQ(h->segments, 3);
			CHECK(h->out_of_order >= 1);
		}
		iw_pcap_capture_free(cap);
	}
	for (size_t i = 0; i < r->ntcp; i++)
		free(r->tcp[i].bytes);
	free(r->tcp);
	free(r);
	rp_rm_rf(dir);
}
