/*
 * test_pcap_read.c - the capture reader on hand-made captures, for what the writer never
 * produces: reassembly of retransmissions, overlaps (a conflicting one keeps the first octets),
 * reordering and holes (reported, not guessed); no SYN and sequence wrap; IPv6, Linux cooked and
 * raw link types; port reuse; and clean errors for bad or truncated files.
 */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <unistd.h>

#include "pcap_fixture.h"
#include "pcap_read.h"
#include "pcap_write.h"

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
	const char *path = pf_tmp_path("ro.pcap");
	uint8_t *d = pf_pattern(40, 5);
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
	const char *path = pf_tmp_path("cf.pcap");
	uint8_t *d = pf_pattern(20, 7), x[10];
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
	const char *path = pf_tmp_path("gap.pcap");
	uint8_t *d = pf_pattern(30, 3);
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
	const char *path = pf_tmp_path("nosyn.pcap");
	uint8_t *d = pf_pattern(60, 1);
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
	const char *path = pf_tmp_path("sll.pcap");
	uint8_t *d = pf_pattern(16, 2);
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
	const char *path = pf_tmp_path("reuse.pcap");
	uint8_t *d = pf_pattern(8, 4);
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
	const char *path = pf_tmp_path("bad.pcap");
	iw_pcap_capture *cap = (iw_pcap_capture *)1;
	char msg[256];
	CHECK_EQ(iw_pcap_read(pf_tmp_path("does-not-exist"), &cap, msg, sizeof msg), -1);
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
	uint8_t *d = pf_pattern(100, 1);
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
	/* An unsupported link type is named once there is a packet to read; without one the
	 * capture is read as what it is, empty (finding 14). */
	hand h;
	CHECK(hand_open(&h, DLT_IEEE802_11, path));
	hand_close(&h);
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), 0);
	CHECK(cap && cap->nconns == 0 && cap->frames == 0);
	iw_pcap_capture_free(cap);
	CHECK(hand_open(&h, DLT_IEEE802_11, path));
	seg(&h, false, 1111, 2222, 0, SYN, NULL, 0, 0);
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
