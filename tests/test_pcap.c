/*
 * test_pcap.c - the capture writer and reader: a written connection reads back as the same
 * streams, with valid checksums and sequence/acknowledgment numbers; reassembly of
 * retransmissions, overlaps, reordering and holes; link types; robustness against bad files;
 * and `iwspec decode` judging captures of harness-like traffic and of traffic between a
 * harness-like initiator and the built-in DUT over a real loopback connection.
 */
#include <fcntl.h>
#include <jansson.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "decode_pcap.h"
#include "iw_conn.h"
#include "net.h"
#include "pcap_read.h"
#include "pcap_write.h"
#include "ref_server.h"

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, sizeof buf[0], "/tmp/iwspec-test-pcap-%d-%s", (int)getpid(), name);
	return b;
}

static uint8_t *pattern(size_t n, uint8_t seed)
{
	uint8_t *b = malloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + seed);
	return b;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

static uint32_t sum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += rd16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

TEST(pcap_write_read_roundtrip)
{
	uint8_t *a = pattern(5000, 1), *b = pattern(300, 2), *c = pattern(20, 3);
	iw_pcap_chunk ch[] = {{IW_PCAP_C2S, c, 20}, {IW_PCAP_S2C, b, 20}, {IW_PCAP_C2S, a, 5000},
			      {IW_PCAP_S2C, b + 20, 280}, {IW_PCAP_C2S, c, 0}};
	iw_err e;
	const char *path = tmp_path("rt.pcap");
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, ch, 5, &e), 0);
	iw_pcap_capture *cap;
	char msg[256];
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), 0);
	if (!cap)
		goto out;
	CHECK_EQ(cap->nconns, 1);
	CHECK_STR(cap->warning, "");
	const iw_pcap_conn *cn = &cap->conns[0];
	CHECK(cn->handshake);
	CHECK_EQ(cn->port[0], 40001);
	CHECK_EQ(cn->port[1], 4791);
	/* Client: 20 + 5000 octets; 5000 becomes 4 segments of at most 1460. */
	CHECK_EQ(cn->dir[0].len, 5020);
	CHECK_MEM(cn->dir[0].data, c, 20);
	CHECK_MEM(cn->dir[0].data + 20, a, 5000);
	CHECK_EQ(cn->dir[0].segments, 5);
	CHECK_EQ(cn->dir[1].len, 300);
	CHECK_MEM(cn->dir[1].data, b, 300);
	CHECK(cn->dir[0].fin && cn->dir[1].fin);
	CHECK(!cn->dir[0].hole && !cn->dir[1].hole);
	CHECK_EQ(cn->dir[0].retransmitted, 0);
	/* 3 handshake + 1 + 1 + 4 + 1 data + 4 closing frames. */
	CHECK_EQ(cap->frames, 14);
	CHECK_EQ(iw_pcap_frame_of(&cn->dir[0], 0), 4);
	CHECK_EQ(iw_pcap_frame_of(&cn->dir[1], 0), 5);
	CHECK_EQ(iw_pcap_frame_of(&cn->dir[0], 20), 6);
	CHECK_EQ(iw_pcap_frame_of(&cn->dir[0], 20 + 1460), 7);
	CHECK_EQ(iw_pcap_frame_of(&cn->dir[0], 5019), 9);
	CHECK_EQ(iw_pcap_frame_of(&cn->dir[0], 5020), 0);
	iw_pcap_capture_free(cap);
out:
	unlink(path);
	free(a);
	free(b);
	free(c);
}

/* Every frame of a written capture: Ethernet, IPv4 checksum, TCP checksum, seq and ack. */
TEST(pcap_write_checksums_and_numbers)
{
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
	CHECK(w != NULL);
	if (!w)
		return;
	iw_pcap_tcp_params pr;
	iw_pcap_tcp_params_default(&pr);
	pr.client_isn = 0xFFFFFFF0u;    /* the sequence space wraps during the data */
	pr.mss = 100;
	iw_pcap_tcp *t = iw_pcap_tcp_open(w, &pr, &e);
	uint8_t *d = pattern(333, 9);
	CHECK_EQ(iw_pcap_tcp_data(t, IW_PCAP_C2S, d, 333, &e), 0);
	CHECK_EQ(iw_pcap_tcp_data(t, IW_PCAP_S2C, d, 7, &e), 0);
	CHECK_EQ(iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e), 0);
	CHECK_EQ(iw_pcap_tcp_rst(t, IW_PCAP_S2C, &e), 0);
	CHECK(iw_pcap_tcp_data(t, IW_PCAP_S2C, d, 1, &e) != 0);    /* nothing after an RST */
	CHECK(strstr(e.msg, "reset") != NULL);
	CHECK_EQ(iw_pcap_writer_frames(w), 3 + 4 + 1 + 2 + 1);
	const char *path = tmp_path("ck.pcap");
	CHECK_EQ(iw_pcap_writer_commit(w, path, &e), 0);
	char eb[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, eb);
	CHECK(pc != NULL);
	if (!pc)
		goto out;
	CHECK_EQ(pcap_datalink(pc), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *f;
	uint32_t next[2] = {0, 0};
	int n = 0, data_segs = 0;
	while (pcap_next_ex(pc, &h, &f) == 1) {
		n++;
		CHECK_EQ(rd16(f + 12), 0x0800);
		const uint8_t *ip = f + 14;
		CHECK_EQ(fold(sum16(ip, 20)), 0xFFFF);
		size_t tot = rd16(ip + 2);
		CHECK_EQ(tot + 14, h->caplen);
		const uint8_t *tcp = ip + 20;
		size_t tl = tot - 20;
		uint8_t ph[12];
		memcpy(ph, ip + 12, 8);
		ph[8] = 0;
		ph[9] = 6;
		ph[10] = (uint8_t)(tl >> 8);
		ph[11] = (uint8_t)tl;
		CHECK_EQ(fold(sum16(ph, 12) + sum16(tcp, tl)), 0xFFFF);
		int dir = rd16(tcp) == 40001 ? 0 : 1;
		uint32_t seq = rd32(tcp + 4), ack = rd32(tcp + 8);
		uint8_t fl = tcp[13];
		size_t hl = (size_t)(tcp[12] >> 4) * 4, pl = tl - hl;
		if (fl & 0x02) {
			next[dir] = seq + 1;
			CHECK_EQ(seq, dir ? 5000u : 0xFFFFFFF0u);
			CHECK_EQ(hl, 24);       /* the MSS option */
			CHECK_EQ(rd16(tcp + 22), 100);
		} else {
			CHECK_EQ(seq, next[dir]);
			CHECK_EQ(ack, next[!dir]);
			CHECK(pl <= 100);
			next[dir] += (uint32_t)pl + ((fl & 0x01) ? 1 : 0);
			data_segs += pl > 0;
		}
	}
	CHECK_EQ(n, 11);
	CHECK_EQ(data_segs, 5);
	CHECK_EQ(next[0], 0xFFFFFFF0u + 1 + 333 + 1);
	pcap_close(pc);
	iw_pcap_capture *cap;
	char msg[256];
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), 0);
	if (cap) {
		CHECK_EQ(cap->conns[0].dir[0].len, 333);
		CHECK_MEM(cap->conns[0].dir[0].data, d, 333);
		CHECK(cap->conns[0].dir[1].rst);
		CHECK_EQ(cap->conns[0].dir[1].rst_frame, 11);
		iw_pcap_capture_free(cap);
	}
out:
	unlink(path);
	free(d);
}

/* ---- hand-made captures, for what the writer never produces ---- */

typedef struct hand {
	pcap_t *dead;
	pcap_dumper_t *d;
	int link;
	uint32_t ts;
} hand;

static bool hand_open(hand *h, int link, const char *path)
{
	memset(h, 0, sizeof *h);
	h->link = link;
	h->dead = pcap_open_dead(link, 65535);
	h->d = h->dead ? pcap_dump_open(h->dead, path) : NULL;
	return h->d != NULL;
}

static void hand_close(hand *h)
{
	if (h->d)
		pcap_dump_close(h->d);
	if (h->dead)
		pcap_close(h->dead);
}

/* A TCP segment from a (port pa) to b (port pb); v6 selects IPv6; cut drops that many
 * trailing octets from the capture (snap length). Checksums are left zero: the reader does
 * not check them (offloading makes real captures carry wrong ones). */
static void seg(hand *h, bool v6, uint16_t pa, uint16_t pb, uint32_t seq, uint8_t flags, const uint8_t *p, size_t n,
		size_t cut)
{
	uint8_t f[2000];
	size_t o = 0;
	if (h->link == DLT_EN10MB) {
		memset(f, 0, 12);
		f[12] = 0x81;           /* an 802.1Q tag, VLAN 5, then the real type */
		f[13] = 0x00;
		f[14] = 0x00;
		f[15] = 0x05;
		f[16] = v6 ? 0x86 : 0x08;
		f[17] = v6 ? 0xDD : 0x00;
		o = 18;
	} else if (h->link == DLT_LINUX_SLL) {
		memset(f, 0, 16);
		f[14] = v6 ? 0x86 : 0x08;
		f[15] = v6 ? 0xDD : 0x00;
		o = 16;
	}
	uint8_t *ip = f + o;
	size_t iphl = v6 ? 40 : 20;
	memset(ip, 0, iphl);
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((20 + n) >> 8);
		ip[5] = (uint8_t)(20 + n);
		ip[6] = 6;
		ip[7] = 64;
		ip[23] = pa == 1111 ? 1 : 2;    /* ::1 and ::2 */
		ip[39] = pa == 1111 ? 2 : 1;
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((40 + n) >> 8);
		ip[3] = (uint8_t)(40 + n);
		ip[8] = 64;
		ip[9] = 6;
		ip[12] = 192;
		ip[15] = pa == 1111 ? 1 : 2;
		ip[16] = 192;
		ip[19] = pa == 1111 ? 2 : 1;
	}
	uint8_t *t = ip + iphl;
	memset(t, 0, 20);
	t[0] = (uint8_t)(pa >> 8);
	t[1] = (uint8_t)pa;
	t[2] = (uint8_t)(pb >> 8);
	t[3] = (uint8_t)pb;
	t[4] = (uint8_t)(seq >> 24);
	t[5] = (uint8_t)(seq >> 16);
	t[6] = (uint8_t)(seq >> 8);
	t[7] = (uint8_t)seq;
	t[12] = 0x50;
	t[13] = flags;
	if (n)
		memcpy(t + 20, p, n);
	struct pcap_pkthdr ph;
	memset(&ph, 0, sizeof ph);
	ph.ts.tv_sec = ++h->ts;
	ph.len = (bpf_u_int32)(o + iphl + 20 + n);
	ph.caplen = ph.len - (bpf_u_int32)cut;
	pcap_dump((u_char *)h->d, &ph, f);
}

enum { SYN = 0x02, ACK = 0x10, FIN = 0x01, RST = 0x04 };

static iw_pcap_capture *read_back(const char *path)
{
	iw_pcap_capture *cap = NULL;
	char msg[256];
	int rc = iw_pcap_read(path, &cap, msg, sizeof msg);
	CHECK_EQ(rc, 0);
	if (rc)
		fprintf(stderr, "    %s\n", msg);
	return cap;
}

TEST(pcap_read_reorder_retransmit_overlap)
{
	const char *path = tmp_path("ro.pcap");
	uint8_t *d = pattern(40, 5);
	hand h;
	CHECK(hand_open(&h, DLT_EN10MB, path));
	seg(&h, false, 1111, 2222, 100, SYN, NULL, 0, 0);
	seg(&h, false, 2222, 1111, 900, SYN | ACK, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 101, ACK, d, 10, 0);          /* [0,10) */
	seg(&h, false, 1111, 2222, 121, ACK, d + 20, 10, 0);     /* [20,30) early */
	seg(&h, false, 1111, 2222, 111, ACK, d + 10, 10, 0);     /* [10,20) fills the hole */
	seg(&h, false, 1111, 2222, 106, ACK, d + 5, 10, 0);      /* [5,15) overlap, same octets */
	seg(&h, false, 1111, 2222, 101, ACK, d, 10, 0);          /* [0,10) again */
	seg(&h, false, 1111, 2222, 126, ACK | FIN, d + 25, 15, 0); /* [25,40) partly new, then FIN */
	hand_close(&h);
	iw_pcap_capture *cap = read_back(path);
	if (cap) {
		CHECK_EQ(cap->nconns, 1);
		const iw_pcap_stream *s = &cap->conns[0].dir[0];
		CHECK_EQ(s->len, 40);
		CHECK_MEM(s->data, d, 40);
		CHECK(!s->hole);
		CHECK_EQ(s->retransmitted, 2);
		CHECK(s->out_of_order >= 1);
		CHECK_EQ(s->conflicts, 0);
		CHECK(s->fin);
		CHECK_EQ(s->fin_frame, 8);
		CHECK_EQ(s->fin_off, 40);
		CHECK(cap->conns[0].handshake);
		CHECK_EQ(iw_pcap_frame_of(s, 12), 5);   /* octet 12 came first in frame 5 */
		CHECK_EQ(iw_pcap_frame_of(s, 25), 4);
		CHECK_EQ(iw_pcap_frame_of(s, 35), 8);
		iw_pcap_capture_free(cap);
	}
	unlink(path);
	free(d);
}

TEST(pcap_read_conflicting_overlap_keeps_first)
{
	const char *path = tmp_path("cf.pcap");
	uint8_t *d = pattern(20, 7), x[10];
	memset(x, 0xEE, sizeof x);
	hand h;
	CHECK(hand_open(&h, DLT_EN10MB, path));
	seg(&h, false, 1111, 2222, 0, SYN, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 1, ACK, d, 20, 0);
	seg(&h, false, 1111, 2222, 6, ACK, x, 10, 0);            /* differs from octets 5..14 */
	hand_close(&h);
	iw_pcap_capture *cap = read_back(path);
	if (cap) {
		const iw_pcap_stream *s = &cap->conns[0].dir[0];
		CHECK_EQ(s->len, 20);
		CHECK_MEM(s->data, d, 20);
		CHECK_EQ(s->conflicts, 1);
		CHECK_EQ(s->conflict_off, 5);
		CHECK_EQ(s->conflict_frame, 3);
		iw_pcap_capture_free(cap);
	}
	unlink(path);
	free(d);
}

TEST(pcap_read_hole_is_reported_not_guessed)
{
	const char *path = tmp_path("gap.pcap");
	uint8_t *d = pattern(30, 3);
	hand h;
	CHECK(hand_open(&h, DLT_EN10MB, path));
	seg(&h, false, 1111, 2222, 0, SYN, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 1, ACK, d, 10, 0);
	seg(&h, false, 1111, 2222, 21, ACK, d + 20, 10, 0);
	/* the other direction: a segment cut by the snap length, last in its stream */
	seg(&h, false, 2222, 1111, 0, SYN | ACK, NULL, 0, 0);
	seg(&h, false, 2222, 1111, 1, ACK, d, 30, 12);
	hand_close(&h);
	iw_pcap_capture *cap = read_back(path);
	if (cap) {
		const iw_pcap_stream *s = &cap->conns[0].dir[0];
		CHECK_EQ(s->len, 10);
		CHECK(s->hole);
		CHECK_EQ(s->hole_len, 10);
		CHECK_EQ(s->hole_frame, 3);
		CHECK_EQ(s->beyond, 10);
		const iw_pcap_stream *r = &cap->conns[0].dir[1];
		CHECK_EQ(r->len, 18);
		CHECK(r->hole);
		CHECK_EQ(r->hole_len, 12);
		CHECK_EQ(r->hole_frame, 5);
		iw_pcap_capture_free(cap);
	}
	unlink(path);
	free(d);
}

TEST(pcap_read_without_syn_and_with_wrap)
{
	const char *path = tmp_path("nosyn.pcap");
	uint8_t *d = pattern(60, 1);
	hand h;
	CHECK(hand_open(&h, DLT_EN10MB, path));
	/* Mid-connection, sequence numbers wrapping 2^32, first segment not the lowest. */
	seg(&h, false, 1111, 2222, 0xFFFFFFF0u + 20, ACK, d + 20, 40, 0);
	seg(&h, false, 1111, 2222, 0xFFFFFFF0u, ACK, d, 20, 0);
	hand_close(&h);
	iw_pcap_capture *cap = read_back(path);
	if (cap) {
		CHECK(!cap->conns[0].handshake);
		const iw_pcap_stream *s = &cap->conns[0].dir[0];
		CHECK(!s->syn);
		CHECK_EQ(s->len, 60);
		CHECK_MEM(s->data, d, 60);
		CHECK_EQ(s->isn, 0xFFFFFFF0u);
		iw_pcap_capture_free(cap);
	}
	unlink(path);
	free(d);
}

TEST(pcap_read_link_types_ipv6_sll_raw)
{
	const char *path = tmp_path("sll.pcap");
	uint8_t *d = pattern(16, 2);
	hand h;
	CHECK(hand_open(&h, DLT_LINUX_SLL, path));
	seg(&h, true, 1111, 2222, 7, SYN, NULL, 0, 0);
	seg(&h, true, 1111, 2222, 8, ACK, d, 16, 0);
	hand_close(&h);
	iw_pcap_capture *cap = read_back(path);
	if (cap) {
		CHECK_EQ(cap->nconns, 1);
		CHECK_EQ(cap->conns[0].family, 6);
		CHECK_EQ(cap->conns[0].dir[0].len, 16);
		CHECK_MEM(cap->conns[0].dir[0].data, d, 16);
		char ep[64];
		iw_pcap_endpoint(&cap->conns[0], 0, ep, sizeof ep);
		CHECK_STR(ep, "[0:0:0:0:0:0:0:1]:1111");
		iw_pcap_capture_free(cap);
	}
	CHECK(hand_open(&h, DLT_RAW, path));
	seg(&h, false, 1111, 2222, 7, SYN, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 8, ACK, d, 16, 0);
	seg(&h, false, 3333, 2222, 1, ACK, d, 4, 0);             /* a second connection */
	hand_close(&h);
	cap = read_back(path);
	if (cap) {
		CHECK_EQ(cap->nconns, 2);
		CHECK_EQ(cap->conns[0].dir[0].len, 16);
		CHECK_EQ(cap->conns[1].dir[0].len, 4);
		char ep[64];
		iw_pcap_endpoint(&cap->conns[0], 1, ep, sizeof ep);
		CHECK_STR(ep, "192.0.0.2:2222");
		iw_pcap_capture_free(cap);
	}
	unlink(path);
	free(d);
}

TEST(pcap_read_port_reuse_starts_a_new_connection)
{
	const char *path = tmp_path("reuse.pcap");
	uint8_t *d = pattern(8, 4);
	hand h;
	CHECK(hand_open(&h, DLT_EN10MB, path));
	seg(&h, false, 1111, 2222, 10, SYN, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 11, ACK, d, 8, 0);
	seg(&h, false, 1111, 2222, 19, RST, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 5000, SYN, NULL, 0, 0);
	seg(&h, false, 1111, 2222, 5001, ACK, d, 4, 0);
	hand_close(&h);
	iw_pcap_capture *cap = read_back(path);
	if (cap) {
		CHECK_EQ(cap->nconns, 2);
		CHECK(cap->conns[0].dir[0].rst);
		CHECK_EQ(cap->conns[0].dir[0].len, 8);
		CHECK_EQ(cap->conns[1].dir[0].len, 4);
		CHECK_EQ(cap->conns[1].first_frame, 4);
		iw_pcap_capture_free(cap);
	}
	unlink(path);
	free(d);
}

static void write_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(b, 1, n, f);
		fclose(f);
	}
}

TEST(pcap_read_bad_files_give_clean_errors)
{
	const char *path = tmp_path("bad.pcap");
	iw_pcap_capture *cap = (iw_pcap_capture *)1;
	char msg[256];
	CHECK_EQ(iw_pcap_read(tmp_path("does-not-exist"), &cap, msg, sizeof msg), -1);
	CHECK(cap == NULL);
	CHECK(strstr(msg, "does-not-exist") != NULL);

	write_file(path, "", 0);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), -1);
	CHECK(strstr(msg, "cannot read") != NULL);

	static const char junk[] = "this is not a capture, just some text\n";
	write_file(path, junk, sizeof junk);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), -1);

	/* A pcap magic number, then garbage. */
	uint8_t g[200];
	for (size_t i = 0; i < sizeof g; i++)
		g[i] = (uint8_t)(i * 97 + 13);
	memcpy(g, "\xd4\xc3\xb2\xa1", 4);
	write_file(path, g, sizeof g);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), -1);
	CHECK(cap == NULL);
	CHECK(msg[0] != '\0');

	/* A real capture cut inside its file header, then inside a record. */
	uint8_t *img;
	size_t len;
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
	iw_pcap_tcp *t = iw_pcap_tcp_open(w, NULL, &e);
	uint8_t *d = pattern(100, 1);
	iw_pcap_tcp_data(t, IW_PCAP_C2S, d, 100, &e);
	CHECK_EQ(iw_pcap_writer_take(w, &img, &len, &e), 0);
	write_file(path, img, 10);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), -1);
	CHECK(strstr(msg, "truncated") != NULL || strstr(msg, "header") != NULL);
	write_file(path, img, len - 30);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), 0);
	if (cap) {
		CHECK(strstr(cap->warning, "ends inside record 4") != NULL);
		CHECK_EQ(cap->frames, 3);
		iw_pcap_capture_free(cap);
	}
	/* Every truncation point: never a crash, an error or a capture. */
	for (size_t n = 0; n <= len; n += 7) {
		write_file(path, img, n);
		cap = NULL;
		int rc = iw_pcap_read(path, &cap, msg, sizeof msg);
		CHECK(rc == 0 || rc == -1);
		CHECK((rc == 0) == (cap != NULL));
		iw_pcap_capture_free(cap);
	}
	/* An unsupported link type is named. */
	hand h;
	CHECK(hand_open(&h, DLT_IEEE802_11, path));
	hand_close(&h);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), -1);
	CHECK(strstr(msg, "link type") != NULL);
	free(img);
	free(d);
	unlink(path);
}

TEST(pcap_magic)
{
	CHECK(iw_pcap_magic((const uint8_t *)"\xd4\xc3\xb2\xa1", 4));
	CHECK(iw_pcap_magic((const uint8_t *)"\xa1\xb2\xc3\xd4", 4));
	CHECK(iw_pcap_magic((const uint8_t *)"\x4d\x3c\xb2\xa1", 4));
	CHECK(iw_pcap_magic((const uint8_t *)"\x0a\x0d\x0d\x0a", 4));
	CHECK(!iw_pcap_magic((const uint8_t *)"MPA ID Req Frame", 16));
	CHECK(!iw_pcap_magic((const uint8_t *)"\xd4\xc3", 2));
}

/* ---- decoding captures ---- */

/* Runs `iwspec decode` on a capture with its output in a file; returns the exit status and
 * the output (malloc'd). */
static int decode_capture(const char *pcap, bool json, char **out)
{
	const char *opath = tmp_path("decode.out");
	fflush(stdout);
	int saved = dup(1);
	int fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	o.json = json;
	o.details = true;
	int rc = iw_decode_capture(pcap, &o);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	FILE *f = fopen(opath, "rb");
	*out = calloc(1, 1 << 20);
	if (f) {
		size_t n = fread(*out, 1, (1 << 20) - 1, f);
		(*out)[n] = '\0';
		fclose(f);
	}
	unlink(opath);
	return rc;
}

/* Two connection models pumped against each other, every piece recorded as a chunk. */
typedef struct recorder {
	iw_pcap_chunk ch[64];
	uint8_t *mem[64];
	size_t n;
	int pieces_a;               /* pieces the initiator sent so far */
} recorder;

static void pump(iw_conn *a, iw_conn *b, recorder *r, int flip_piece_of_a)
{
	iw_conn *c[2] = {a, b};
	bool progress = true;
	while (progress && r->n < 64) {
		progress = false;
		for (int s = 0; s < 2; s++) {
			size_t n;
			const uint8_t *o = iw_conn_output_peek(c[s], &n);
			if (!n)
				continue;
			uint8_t *copy = malloc(n);
			memcpy(copy, o, n);
			iw_conn_output_consume(c[s], n);
			if (s == 0 && r->pieces_a++ == flip_piece_of_a && n > 10)
				copy[n - 6] ^= 0x40;    /* a ULPDU octet of that FPDU: a CRC error */
			r->mem[r->n] = copy;
			r->ch[r->n].dir = s == 0 ? IW_PCAP_C2S : IW_PCAP_S2C;
			r->ch[r->n].data = copy;
			r->ch[r->n].len = n;
			r->n++;
			iw_conn_input(c[!s], copy, n);
			iw_conn_event ev;
			while (iw_conn_next_event(c[!s], &ev))
				if (ev.kind == IW_EV_SEND && s == 0)
					iw_conn_send(c[1], IW_OP_SEND, ev.data, ev.len, NULL);     /* reflector */
			while (iw_conn_next_event(c[s], &ev))
				;
			progress = true;
		}
	}
}

static void harness_like(const iw_profile *p, int flip, const char *path)
{
	iw_conn_config ci, cr;
	iw_conn_config_default(&ci, p, IW_ROLE_INITIATOR);
	iw_conn_config_default(&cr, p, IW_ROLE_RESPONDER);
	cr.want_markers = true;
	iw_conn *a = NULL, *b = NULL;
	iw_err e;
	CHECK_EQ(iw_conn_new(&a, &ci, &e), IW_OK);
	CHECK_EQ(iw_conn_new(&b, &cr, &e), IW_OK);
	static uint8_t buf[4096];
	CHECK_EQ(iw_conn_register(b, 0x1000, 0, buf, sizeof buf, IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, &e),
		 IW_OK);
	recorder r;
	memset(&r, 0, sizeof r);
	iw_conn_start(a, &e);
	pump(a, b, &r, flip);
	static const uint8_t hello[] = "hello, responder";
	iw_conn_send(a, IW_OP_SEND, hello, sizeof hello, &e);
	pump(a, b, &r, flip);
	iw_conn_write(a, 0x1000, 0, buf, 700, &e);
	pump(a, b, &r, flip);
	iw_conn_send(a, IW_OP_SEND, hello, sizeof hello, &e);
	pump(a, b, &r, flip);
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, r.ch, r.n, &e), 0);
	for (size_t i = 0; i < r.n; i++)
		free(r.mem[i]);
	iw_conn_free(a);
	iw_conn_free(b);
}

TEST(pcap_decode_harness_like_conversation)
{
	const char *path = tmp_path("conv.pcap");
	char *out = NULL;
	harness_like(iw_profile_get(IW_PROFILE_RFC5044), -1, path);
	CHECK_EQ(decode_capture(path, false, &out), 0);
	CHECK(strstr(out, "profile rfc5044") != NULL);
	CHECK(strstr(out, "MPA Request frame") != NULL);
	CHECK(strstr(out, "MPA Reply frame") != NULL);
	CHECK(strstr(out, "markers on") != NULL);        /* the initiator sends markers: M=1 in the Reply */
	CHECK(strstr(out, "RDMA Write") != NULL);
	CHECK(strstr(out, "the capture conforms") != NULL);
	free(out);

	harness_like(iw_profile_get(IW_PROFILE_RFC6581), 2, path);
	CHECK_EQ(decode_capture(path, false, &out), 1);
	CHECK(strstr(out, "profile rfc6581") != NULL);
	CHECK(strstr(out, "VIOLATION MPA-5.2-14") != NULL);
	CHECK(strstr(out, "(frame ") != NULL);
	CHECK(strstr(out, "LLP/0x0/0x02") != NULL);
	CHECK(strstr(out, "Terminate LLP/0x0/0x02") != NULL);   /* the responder's answer, decoded */
	free(out);

	CHECK_EQ(decode_capture(path, true, &out), 1);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	CHECK(j != NULL);
	if (j) {
		CHECK(json_is_false(json_object_get(j, "conforms")));
		json_t *dirs = json_object_get(json_array_get(json_object_get(j, "connections"), 0), "directions");
		CHECK_EQ(json_array_size(dirs), 2);
		json_t *v = json_array_get(json_object_get(json_array_get(dirs, 0), "violations"), 0);
		CHECK_STR(json_string_value(json_object_get(v, "requirement")), "MPA-5.2-14");
		CHECK(json_integer_value(json_object_get(v, "frame")) > 3);
		json_decref(j);
	}
	free(out);
	unlink(path);
}

/* A capture whose responder speaks before it received an FPDU, and whose initiator sends
 * FPDUs after a rejecting Reply: the rules across the two directions. */
TEST(pcap_decode_startup_order_rules)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t req[64], rep[64], fp[128];
	size_t rql, rpl, fl;
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	iw_mpa_frame_encode(&f, req, sizeof req, &rql, NULL);
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	iw_mpa_frame_encode(&f, rep, sizeof rep, &rpl, NULL);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	uint8_t h[18] = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
	iw_mpa_tx_fpdu(&tx, h, sizeof h, (const uint8_t *)"hi", 2, NULL, fp, sizeof fp, &fl, NULL);
	const char *path = tmp_path("order.pcap");
	iw_pcap_chunk early[] = {{IW_PCAP_C2S, req, rql}, {IW_PCAP_S2C, rep, rpl}, {IW_PCAP_S2C, fp, fl},
				 {IW_PCAP_C2S, fp, fl}};
	iw_err e;
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_RAW, NULL, early, 4, &e), 0);
	char *out;
	CHECK_EQ(decode_capture(path, false, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R4") != NULL);
	free(out);

	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.r = true;
	iw_mpa_frame_encode(&f, rep, sizeof rep, &rpl, NULL);
	iw_pcap_chunk rej[] = {{IW_PCAP_C2S, req, rql}, {IW_PCAP_S2C, rep, rpl}, {IW_PCAP_C2S, fp, fl}};
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, rej, 3, &e), 0);
	CHECK_EQ(decode_capture(path, false, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R3c") != NULL);
	free(out);

	/* No MPA at all: status 3. */
	iw_pcap_chunk http[] = {{IW_PCAP_C2S, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18}};
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, http, 1, &e), 0);
	CHECK_EQ(decode_capture(path, false, &out), 3);
	CHECK(strstr(out, "not MPA") != NULL);
	free(out);
	unlink(path);
}

/* Traffic between a harness-like initiator and the built-in DUT, over a real loopback TCP
 * connection: what crossed the socket is written as a capture and judged. */
TEST(pcap_decode_traffic_with_the_builtin_dut)
{
	iw_ref_options ro;
	iw_ref_options_default(&ro);
	ro.markers = true;
	iw_ref_server *srv = NULL;
	iw_err e;
	if (iw_ref_server_new(&srv, &ro, &e) != IW_OK || iw_ref_server_start(srv, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "cannot start the built-in DUT: %s", e.msg);
		iw_ref_server_free(srv);
		return;
	}
	int fd = -1;
	CHECK_EQ(iw_net_connect("127.0.0.1", iw_ref_server_port(srv), 2000, 0, &fd, &e), IW_OK);
	iw_conn_config cc;
	iw_conn_config_default(&cc, ro.profile, IW_ROLE_INITIATOR);
	iw_conn *c = NULL;
	CHECK_EQ(iw_conn_new(&c, &cc, &e), IW_OK);
	recorder r;
	memset(&r, 0, sizeof r);
	iw_conn_start(c, &e);
	static const uint8_t msg[] = "echo me, built-in DUT";
	int sends = 0, echoes = 0;
	int64_t deadline = iw_net_now_ms() + 3000;
	bool full = false;
	while (fd >= 0 && c && iw_net_now_ms() < deadline && echoes < 2 && r.n < 60) {
		size_t n;
		const uint8_t *o = iw_conn_output_peek(c, &n);
		if (n) {
			uint8_t *copy = malloc(n);
			memcpy(copy, o, n);
			iw_conn_output_consume(c, n);
			r.mem[r.n] = copy;
			r.ch[r.n++] = (iw_pcap_chunk){IW_PCAP_C2S, copy, n};
			CHECK_EQ(iw_net_write_all(fd, copy, n, 1000, &e), IW_OK);
			continue;
		}
		uint8_t in[8192];
		size_t got = 0;
		int st = iw_net_read(fd, in, sizeof in, 200, &got, &e);
		if (st == IW_NET_DATA) {
			uint8_t *copy = malloc(got);
			memcpy(copy, in, got);
			r.mem[r.n] = copy;
			r.ch[r.n++] = (iw_pcap_chunk){IW_PCAP_S2C, copy, got};
			iw_conn_input(c, copy, got);
		} else if (st != IW_NET_TIMEOUT) {
			break;
		}
		iw_conn_event ev;
		while (iw_conn_next_event(c, &ev)) {
			full |= ev.kind == IW_EV_FULL_OPERATION;
			echoes += ev.kind == IW_EV_SEND;
		}
		if (full && sends < 2) {
			iw_conn_send(c, IW_OP_SEND, msg, sizeof msg, &e);
			sends++;
		}
	}
	CHECK_EQ(echoes, 2);
	if (fd >= 0)
		iw_net_close_fin(fd, 100);
	iw_conn_free(c);
	iw_ref_server_free(srv);
	const char *path = tmp_path("dut.pcap");
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, r.ch, r.n, &e), 0);
	for (size_t i = 0; i < r.n; i++)
		free(r.mem[i]);
	char *out;
	CHECK_EQ(decode_capture(path, false, &out), 0);
	CHECK(strstr(out, "the capture conforms: 1 MPA connection") != NULL);
	CHECK(strstr(out, "responder 10.0.0.2:4791") != NULL);
	CHECK(strstr(out, "marker@") != NULL);     /* the DUT asked for markers (M=1) */
	if (!strstr(out, "conforms"))
		fprintf(stderr, "%s\n", out);
	free(out);
	unlink(path);
}
