/*
 * test_pcap_write.c - the capture writer: a written connection reads back as the same streams,
 * and every frame it writes carries valid IPv4 and TCP checksums and consistent sequence and
 * acknowledgment numbers (read here by libpcap and by hand, not by our reader).
 */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <unistd.h>

#include "pcap_fixture.h"
#include "pcap_read.h"
#include "pcap_write.h"

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

TEST(pcap_write_read_roundtrip)
{
	uint8_t *a = pf_pattern(5000, 1), *b = pf_pattern(300, 2), *c = pf_pattern(20, 3);
	iw_pcap_chunk ch[] = {{IW_PCAP_C2S, c, 20}, {IW_PCAP_S2C, b, 20}, {IW_PCAP_C2S, a, 5000},
			      {IW_PCAP_S2C, b + 20, 280}, {IW_PCAP_C2S, c, 0}};
	iw_err e;
	const char *path = pf_tmp_path("rt.pcap");
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
	uint8_t *d = pf_pattern(333, 9);
	CHECK_EQ(iw_pcap_tcp_data(t, IW_PCAP_C2S, d, 333, &e), 0);
	CHECK_EQ(iw_pcap_tcp_data(t, IW_PCAP_S2C, d, 7, &e), 0);
	CHECK_EQ(iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e), 0);
	CHECK_EQ(iw_pcap_tcp_rst(t, IW_PCAP_S2C, &e), 0);
	CHECK(iw_pcap_tcp_data(t, IW_PCAP_S2C, d, 1, &e) != 0);    /* nothing after an RST */
	CHECK(strstr(e.msg, "reset") != NULL);
	CHECK_EQ(iw_pcap_writer_frames(w), 3 + 4 + 1 + 2 + 1);
	const char *path = pf_tmp_path("ck.pcap");
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
		CHECK_EQ(pf_rd16(f + 12), 0x0800);
		const uint8_t *ip = f + 14;
		CHECK_EQ(pf_fold(pf_sum16(ip, 20)), 0xFFFF);
		size_t tot = pf_rd16(ip + 2);
		CHECK_EQ(tot + 14, h->caplen);
		const uint8_t *tcp = ip + 20;
		size_t tl = tot - 20;
		uint8_t ph[12];
		memcpy(ph, ip + 12, 8);
		ph[8] = 0;
		ph[9] = 6;
		ph[10] = (uint8_t)(tl >> 8);
		ph[11] = (uint8_t)tl;
		CHECK_EQ(pf_fold(pf_sum16(ph, 12) + pf_sum16(tcp, tl)), 0xFFFF);
		int dir = pf_rd16(tcp) == 40001 ? 0 : 1;
		uint32_t seq = rd32(tcp + 4), ack = rd32(tcp + 8);
		uint8_t fl = tcp[13];
		size_t hl = (size_t)(tcp[12] >> 4) * 4, pl = tl - hl;
		if (fl & 0x02) {
			next[dir] = seq + 1;
			CHECK_EQ(seq, dir ? 5000u : 0xFFFFFFF0u);
			CHECK_EQ(hl, 24);       /* the MSS option */
			CHECK_EQ(pf_rd16(tcp + 22), 100);
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
