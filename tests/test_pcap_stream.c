/*
 * test_pcap_stream.c - the streaming capture reader's parts: one direction reassembled in place
 * (tcp_reasm.h) against a brute-force reading of the same segments, its memory budget and
 * limits; the connection table (tcp_conns.h) handing connections out when they end, after the
 * linger, when evicted for max_conns or max_held, and counting the late segments of those it
 * handed out.
 */
#include <stdlib.h>

#include "check.h"
#include "tcp_conns.h"
#include "tcp_reasm.h"

enum { FIN = 0x01, SYN = 0x02, RST = 0x04, ACK = 0x10 };

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

typedef struct tseg {
	uint32_t off, len;
	uint64_t frame;
} tseg;

/* Segments covering [0, n) in chunks, some repeated, some overlapping, shuffled a little. */
static size_t make_segments(uint64_t *st, size_t n, tseg *g, size_t cap)
{
	size_t k = 0;
	for (uint32_t off = 0; off < n && k < cap;) {
		uint32_t len = 1 + rnd(st) % 300;
		if (off + len > n)
			len = (uint32_t)(n - off);
		g[k++] = (tseg){off, len, 0};
		if (rnd(st) % 4 == 0 && k < cap)        /* a retransmission */
			g[k++] = (tseg){off, len, 0};
		if (rnd(st) % 5 == 0 && k < cap && off > 10) /* an overlap reaching back */
			g[k++] = (tseg){off - 10, len + 10 > n - (off - 10) ? (uint32_t)(n - (off - 10)) : len + 10, 0};
		off += len;
	}
	for (size_t i = 0; i + 1 < k; i++)             /* reorder within a window of 6 */
		if (rnd(st) % 3 == 0) {
			size_t j = i + 1 + rnd(st) % 5;
			if (j < k) {
				tseg t = g[i];
				g[i] = g[j];
				g[j] = t;
			}
		}
	for (size_t i = 0; i < k; i++)
		g[i].frame = 10 + i;
	return k;
}

/* Every octet comes from the first segment, in capture order, that carried it. */
static uint64_t first_frame_of(const tseg *g, size_t k, uint32_t off)
{
	for (size_t i = 0; i < k; i++)
		if (off >= g[i].off && off < g[i].off + g[i].len)
			return g[i].frame;
	return 0;
}

TEST(reasm_matches_brute_force)
{
	uint64_t st = 42;
	static tseg g[200];
	static uint8_t data[6000];
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rnd(&st) % sizeof data;
		for (size_t i = 0; i < n; i++)
			data[i] = (uint8_t)rnd(&st);
		size_t k = make_segments(&st, n, g, sizeof g / sizeof g[0]);
		bool syn = round % 2 == 0;
		uint32_t isn = 0xFFFFFFFFu - rnd(&st) % 4000;    /* sequence numbers wrap */
		iw_reasm_budget b = {0};
		iw_tcp_reasm r;
		iw_reasm_init(&r, &b);
		if (syn)
			iw_reasm_add(&r, SYN, isn, NULL, 0, 0, 1);
		for (size_t i = 0; i < k; i++)
			iw_reasm_add(&r, ACK, isn + 1 + g[i].off, data + g[i].off, g[i].len, 0, g[i].frame);
		iw_reasm_finish(&r);
		/* Without a SYN the stream starts at the lowest octet seen: octet 0 is always sent. */
		CHECK_EQ(r.s.len, n);
		CHECK(!r.s.hole && !r.s.cut);
		CHECK_EQ(r.s.conflicts, 0);
		if (r.s.len == n && memcmp(r.s.data, data, n))
			CHECK(!"the stream differs from what was sent");
		size_t bad = 0;
		for (uint32_t off = 0; off < n; off++)
			bad += iw_pcap_frame_of(&r.s, off) != first_frame_of(g, k, off);
		CHECK_EQ(bad, 0);
		for (size_t i = 1; i < r.s.npieces; i++)
			CHECK(r.s.pieces[i - 1].off < r.s.pieces[i].off);
		CHECK_EQ(b.held, r.held);
		iw_reasm_free(&r);
		CHECK_EQ(b.held, 0);
		if (bad)
			break;
	}
}

TEST(reasm_conflict_hole_and_fin)
{
	uint8_t a[30], x[10];
	for (int i = 0; i < 30; i++)
		a[i] = (uint8_t)i;
	memset(x, 0xEE, sizeof x);
	iw_tcp_reasm r;
	iw_reasm_init(&r, NULL);
	iw_reasm_add(&r, SYN, 99, NULL, 0, 0, 1);
	iw_reasm_add(&r, ACK, 100, a, 10, 0, 2);            /* [0,10) */
	iw_reasm_add(&r, ACK, 125, x, 5, 0, 3);             /* [25,30) waits past the gap */
	iw_reasm_add(&r, ACK, 120, a + 20, 10, 0, 4);       /* [20,30): 25..29 differ from frame 3's */
	iw_reasm_add(&r, ACK, 105, a + 5, 10, 0, 5);        /* [5,15): partly new, then a hole at 15 */
	iw_reasm_add(&r, ACK | FIN, 130, NULL, 0, 0, 6);
	iw_reasm_finish(&r);
	CHECK_EQ(r.s.len, 15);
	CHECK_MEM(r.s.data, a, 15);
	CHECK(r.s.hole);
	CHECK_EQ(r.s.hole_len, 5);
	CHECK_EQ(r.s.hole_frame, 4);
	CHECK_EQ(r.s.beyond, 10);
	CHECK_EQ(r.s.conflicts, 1);
	CHECK_EQ(r.s.conflict_off, 25);
	CHECK_EQ(r.s.conflict_frame, 4);
	CHECK(r.s.fin);
	CHECK_EQ(r.s.fin_off, 30);
	CHECK_EQ(r.s.out_of_order, 1);
	CHECK_EQ(iw_pcap_frame_of(&r.s, 12), 5);
	iw_reasm_free(&r);
}

/* A budget that refuses: the direction stops where it is, says so, and counts the rest. */
TEST(reasm_budget_cuts_and_is_given_back)
{
	static uint8_t d[10000];
	iw_reasm_budget b = {.limit = 4096};
	iw_tcp_reasm r;
	iw_reasm_init(&r, &b);
	iw_reasm_add(&r, SYN, 0, NULL, 0, 0, 1);
	for (int i = 0; i < 10; i++)
		iw_reasm_add(&r, ACK, 1 + 1000u * (uint32_t)i, d, 1000, 0, 2 + (uint64_t)i);
	iw_reasm_finish(&r);
	CHECK_EQ(r.s.cut, IW_PCAP_CUT_BUDGET);
	CHECK(!r.s.hole);
	CHECK(r.s.len >= 1000 && r.s.len < 4096);
	CHECK_EQ(r.s.len + r.s.beyond, 10000);
	CHECK(b.peak <= 4096);
	CHECK_EQ(b.held, r.held);
	iw_reasm_free(&r);
	CHECK_EQ(b.held, 0);

	/* Out-of-order octets are charged too: past a gap they cannot grow without bound. The
	 * direction stops at the first octet refused; once the gap fills, it runs up to there. */
	iw_reasm_init(&r, &b);
	b.limit = 6200;
	b.peak = 0;
	iw_reasm_add(&r, SYN, 0, NULL, 0, 0, 1);
	for (int i = 0; i < 9; i++)
		iw_reasm_add(&r, ACK, 101 + 1000u * (uint32_t)i, d, 1000, 0, 2 + (uint64_t)i);
	CHECK(b.peak <= 6200);
	CHECK_EQ(r.stop, 5100);                             /* the sixth fragment did not fit */
	iw_reasm_add(&r, ACK, 1, d, 100, 0, 20);            /* the gap fills */
	iw_reasm_finish(&r);
	CHECK_EQ(r.s.cut, IW_PCAP_CUT_BUDGET);
	CHECK_EQ(r.s.len, 5100);
	CHECK_EQ(r.s.beyond, 4000);
	CHECK_EQ(iw_pcap_frame_of(&r.s, 50), 20);
	CHECK_EQ(iw_pcap_frame_of(&r.s, 5099), 6);
	iw_reasm_free(&r);
	CHECK_EQ(b.held, 0);

	/* The gap never fills: that is the hole, and the limit past it does not matter. */
	iw_reasm_init(&r, &b);
	iw_reasm_add(&r, SYN, 0, NULL, 0, 0, 1);
	for (int i = 0; i < 9; i++)
		iw_reasm_add(&r, ACK, 101 + 1000u * (uint32_t)i, d, 1000, 0, 2 + (uint64_t)i);
	iw_reasm_finish(&r);
	CHECK_EQ(r.s.cut, IW_PCAP_CUT_NONE);
	CHECK(r.s.hole);
	CHECK_EQ(r.s.len, 0);
	CHECK_EQ(r.s.hole_len, 100);
	CHECK_EQ(r.s.hole_frame, 2);
	CHECK_EQ(r.s.beyond, 9000);
	iw_reasm_free(&r);
	CHECK_EQ(b.held, 0);
}

TEST(reasm_waiting_pieces_are_bounded)
{
	uint8_t o = 7;
	iw_tcp_reasm r;
	iw_reasm_init(&r, NULL);
	iw_reasm_add(&r, SYN, 0, NULL, 0, 0, 1);
	iw_reasm_add(&r, ACK, 1, &o, 1, 0, 2);
	/* A gap at octet 1, then single octets: each one waits on its own. */
	for (uint32_t i = 0; i <= IW_REASM_PIECES_MAX + 10; i++)
		iw_reasm_add(&r, ACK, 3 + i, &o, 1, 0, 3 + i);
	CHECK(r.nfrag <= IW_REASM_PIECES_MAX);
	iw_reasm_add(&r, ACK, 2, &o, 1, 0, 99999);         /* the gap at 1 fills */
	iw_reasm_finish(&r);
	CHECK_EQ(r.s.cut, IW_PCAP_CUT_PIECES);
	CHECK_EQ(r.s.len, 2 + IW_REASM_PIECES_MAX);
	CHECK_EQ(r.s.beyond, 11);
	iw_reasm_free(&r);
}

/* ---- the connection table ---- */

typedef struct got {
	uint64_t number[16];
	enum iw_pcap_why why[16];
	uint64_t end_frame[16];
	size_t len0[16];
	uint64_t last0[16];
	size_t n;
} got;

static void got_conn(void *ctx, iw_pcap_conn *c, const iw_pcap_end *end)
{
	got *g = ctx;
	if (g->n < 16) {
		g->number[g->n] = c->number;
		g->why[g->n] = end->why;
		g->end_frame[g->n] = end->frame;
		g->len0[g->n] = c->dir[0].len;
		g->last0[g->n] = c->dir[0].last_frame;
	}
	g->n++;
}

static const uint8_t server[4] = {10, 0, 0, 2};
static uint8_t clients[8][4];

/* A segment between client k (port 1000 + k) and the server (port 4791). */
static void put(iw_tcp_table *t, int k, bool from_server, uint32_t seq, uint8_t flags, const uint8_t *p,
		uint32_t len, uint64_t frame)
{
	clients[k][0] = 10;
	clients[k][1] = 1;
	clients[k][3] = (uint8_t)k;
	iw_tcp_pkt pk = {.family = 4, .seq = seq, .flags = flags, .payload = p, .len = len};
	pk.src = from_server ? server : clients[k];
	pk.dst = from_server ? clients[k] : server;
	pk.sport = from_server ? 4791 : (uint16_t)(1000 + k);
	pk.dport = from_server ? (uint16_t)(1000 + k) : 4791;
	iw_tcp_table_packet(t, &pk, frame);
}

TEST(table_evicts_past_max_conns_and_counts_late_segments)
{
	got g = {0};
	iw_pcap_info info;
	memset(&info, 0, sizeof info);
	iw_pcap_limits lim = {.max_conns = 2, .max_held = 0, .linger = 0};
	iw_pcap_sink sink = {.ctx = &g, .conn = got_conn};
	iw_tcp_table *t = iw_tcp_table_new(&lim, &sink, &info);
	uint8_t d[4] = {1, 2, 3, 4};
	put(t, 0, false, 100, SYN, NULL, 0, 1);
	put(t, 1, false, 200, SYN, NULL, 0, 2);
	put(t, 0, false, 101, ACK, d, 4, 3);        /* connection 1 is now the most recent */
	put(t, 2, false, 300, SYN, NULL, 0, 4);     /* a third: connection 2 goes */
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.number[0], 2);
	CHECK_EQ(g.why[0], IW_PCAP_END_EVICTED);
	CHECK_EQ(g.end_frame[0], 4);
	put(t, 1, false, 201, ACK, d, 4, 5);        /* the rest of connection 2: late, no new connection */
	CHECK_EQ(info.late, 1);
	CHECK_EQ(info.conns, 3);
	put(t, 1, false, 900, SYN, NULL, 0, 6);     /* a new SYN on its ports is a new connection */
	CHECK_EQ(info.conns, 4);
	CHECK_EQ(g.n, 2);                           /* which evicted connection 1 (the least recent) */
	CHECK_EQ(g.number[1], 1);
	CHECK_EQ(g.len0[1], 4);
	iw_tcp_table_end(t);
	CHECK_EQ(g.n, 4);
	CHECK_EQ(g.number[2], 3);                   /* the rest in the order they started */
	CHECK_EQ(g.number[3], 4);
	CHECK_EQ(g.why[3], IW_PCAP_END_CAPTURE);
	CHECK_EQ(info.evicted, 2);
	CHECK_EQ(info.peak_open, 2);
	iw_tcp_table_free(t);
}

TEST(table_hands_out_after_the_linger)
{
	got g = {0};
	iw_pcap_info info;
	memset(&info, 0, sizeof info);
	iw_pcap_limits lim = {.max_conns = 100, .max_held = 0, .linger = 3};
	iw_pcap_sink sink = {.ctx = &g, .conn = got_conn};
	iw_tcp_table *t = iw_tcp_table_new(&lim, &sink, &info);
	uint8_t d[8] = {0};
	put(t, 0, false, 100, SYN, NULL, 0, 1);
	put(t, 0, true, 500, SYN | ACK, NULL, 0, 2);
	put(t, 0, false, 101, ACK, d, 8, 3);
	put(t, 0, false, 109, FIN | ACK, NULL, 0, 4);
	put(t, 0, true, 501, FIN | ACK, NULL, 0, 5);    /* ended */
	put(t, 0, false, 110, ACK, NULL, 0, 6);         /* the last ACK: still this connection's */
	put(t, 1, false, 700, SYN, NULL, 0, 7);
	CHECK_EQ(g.n, 0);
	put(t, 1, false, 701, ACK, NULL, 0, 8);         /* three frames after the end */
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.why[0], IW_PCAP_END_CLOSED);
	CHECK_EQ(g.end_frame[0], 5);
	CHECK_EQ(g.last0[0], 6);
	CHECK_EQ(g.len0[0], 8);
	put(t, 0, false, 110, ACK, NULL, 0, 9);         /* a straggler after that: late */
	CHECK_EQ(info.late, 1);
	CHECK_EQ(info.conns, 2);
	/* An RST ends a connection at once (linger 3 still applies). */
	put(t, 1, true, 0, RST, NULL, 0, 10);
	put(t, 2, false, 1, SYN, NULL, 0, 13);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.end_frame[1], 10);
	iw_tcp_table_end(t);
	CHECK_EQ(g.n, 3);
	iw_tcp_table_free(t);
}

/* Over max_held the least recently active other connection goes; one that alone fills the
 * budget is cut instead. */
TEST(table_keeps_the_octets_held_under_max_held)
{
	static uint8_t d[3000];
	got g = {0};
	iw_pcap_info info;
	memset(&info, 0, sizeof info);
	iw_pcap_limits lim = {.max_conns = 100, .max_held = 3000, .linger = 0};
	iw_pcap_sink sink = {.ctx = &g, .conn = got_conn};
	iw_tcp_table *t = iw_tcp_table_new(&lim, &sink, &info);
	put(t, 0, false, 100, SYN, NULL, 0, 1);
	put(t, 0, false, 101, ACK, d, 1500, 2);
	put(t, 1, false, 200, SYN, NULL, 0, 3);
	put(t, 1, false, 201, ACK, d, 1500, 4);     /* no room for both: connection 1 goes */
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.number[0], 1);
	CHECK_EQ(g.why[0], IW_PCAP_END_OVER_HELD);
	CHECK_EQ(g.len0[0], 1500);
	put(t, 1, false, 1701, ACK, d, 3000, 5);    /* alone over the budget: cut */
	iw_tcp_table_end(t);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.len0[1], 1500);
	CHECK(info.peak_held <= 3000);
	CHECK_EQ(info.evicted, 1);
	iw_tcp_table_free(t);
}
