/*
 * test_pcap_combine.c - captures combined for one tshark (pcap_combine.h): each keeps its
 * connections, streams, frames and timestamps in a network of its own with valid checksums, and
 * what cannot be copied whole (not TCP over IPv4, a record cut short, two link types) is refused
 * by name, with nothing written.
 */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcap_combine.h"
#include "pcap_fixture.h"
#include "pcap_read.h"
#include "pcap_write.h"

static void path_of(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s", pf_tmp_path(name));
}

/* A connection from client to server carrying payload each way, at timestamp start (usec). */
static int write_conn(const char *path, const uint8_t client[4], const uint8_t server[4], size_t payload,
		      uint64_t start)
{
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
	if (!w)
		return -1;
	iw_pcap_writer_time(w, start, 1000);
	iw_pcap_tcp_params p;
	iw_pcap_tcp_params_default(&p);
	memcpy(p.client_ip, client, 4);
	memcpy(p.server_ip, server, 4);
	uint8_t *d = pf_pattern(payload, (uint8_t)payload);
	iw_pcap_tcp *t = iw_pcap_tcp_open(w, &p, &e);
	int rc = !t || iw_pcap_tcp_data(t, IW_PCAP_C2S, d, payload, &e) || iw_pcap_tcp_data(t, IW_PCAP_S2C, d, 7, &e) ||
		 iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e) || iw_pcap_tcp_fin(t, IW_PCAP_S2C, &e);
	free(d);
	if (rc) {
		iw_pcap_writer_free(w);
		return -1;
	}
	return iw_pcap_writer_commit(w, path, &e);
}

typedef struct seen {
	uint64_t frames, ts[64];
	int bad_ip_sum, bad_tcp_sum;
} seen;

static int look(void *ctx, const iw_pcap_record *r)
{
	seen *s = ctx;
	if (s->frames < 64)
		s->ts[s->frames] = r->ts_usec;
	s->frames++;
	const uint8_t *ip = r->data + r->ip_off, *tcp = r->data + r->tcp_off;
	size_t tl = pf_rd16(ip + 2) - (r->tcp_off - r->ip_off);
	uint8_t ph[12] = {0};
	memcpy(ph, ip + 12, 8);
	ph[9] = 6;
	ph[10] = (uint8_t)(tl >> 8);
	ph[11] = (uint8_t)tl;
	s->bad_ip_sum += pf_fold(pf_sum16(ip, 20)) != 0xFFFF;
	s->bad_tcp_sum += pf_fold(pf_sum16(ph, 12) + pf_sum16(tcp, tl)) != 0xFFFF;
	return 0;
}

TEST(pcap_combine_keeps_captures_apart)
{
	static const uint8_t a1[4] = {10, 0, 0, 1}, a2[4] = {10, 0, 0, 2};
	/* The second capture's client has the higher address: it stays the higher one. */
	static const uint8_t b1[4] = {192, 168, 7, 9}, b2[4] = {172, 16, 0, 3};
	char in1[256], in2[256], out[256];
	path_of(in1, sizeof in1, "cmb-in1.pcap");
	path_of(in2, sizeof in2, "cmb-in2.pcap");
	path_of(out, sizeof out, "cmb-out.pcap");
	CHECK_EQ(write_conn(in1, a1, a2, 3000, 1000000), 0);    /* 3 + 3 + 1 + 4 frames */
	CHECK_EQ(write_conn(in2, b1, b2, 20, 500), 0);          /* 3 + 1 + 1 + 4 frames */
	const char *in[] = {in1, in2, in1};
	iw_pcap_part parts[3];
	iw_err e;
	CHECK_EQ(iw_pcap_combine(out, in, 3, parts, &e), 0);
	CHECK_EQ(parts[0].first_frame, 1);
	CHECK_EQ(parts[0].frames, 11);
	CHECK_EQ(parts[1].first_frame, 12);
	CHECK_EQ(parts[1].frames, 9);
	CHECK_EQ(parts[2].first_frame, 21);
	CHECK_EQ(parts[2].frames, 11);

	iw_pcap_capture *cap = NULL, *one = NULL;
	char msg[256];
	CHECK_EQ(iw_pcap_read(out, &cap, msg, sizeof msg), 0);
	CHECK_EQ(iw_pcap_read(in1, &one, msg, sizeof msg), 0);
	if (!cap || !one)
		goto out;
	CHECK_EQ(cap->frames, 31);
	/* Three connections where the same ports and sequence numbers would have made one. */
	CHECK_EQ(cap->nconns, 3);
	if (cap->nconns != 3)
		goto out;
	char ep[64];
	iw_pcap_endpoint(&cap->conns[0], 0, ep, sizeof ep);
	CHECK_STR(ep, "10.0.0.1:40001");
	iw_pcap_endpoint(&cap->conns[0], 1, ep, sizeof ep);
	CHECK_STR(ep, "10.0.0.2:4791");
	iw_pcap_endpoint(&cap->conns[1], 0, ep, sizeof ep);
	CHECK_STR(ep, "10.0.1.2:40001");
	iw_pcap_endpoint(&cap->conns[1], 1, ep, sizeof ep);
	CHECK_STR(ep, "10.0.1.1:4791");
	iw_pcap_endpoint(&cap->conns[2], 0, ep, sizeof ep);
	CHECK_STR(ep, "10.0.2.1:40001");
	for (size_t i = 0; i < 3; i += 2)
		for (int d = 0; d < 2; d++) {
			const iw_pcap_stream *s = &cap->conns[i].dir[d], *o = &one->conns[0].dir[d];
			CHECK_EQ(s->len, o->len);
			CHECK(s->len == o->len && !memcmp(s->data, o->data, o->len));
			CHECK_EQ(s->isn, o->isn);
			CHECK_EQ(s->first_frame, o->first_frame + parts[i].first_frame - 1);
			CHECK(s->fin && !s->hole);
		}
	CHECK_EQ(cap->conns[1].dir[0].len, 20);

	seen s;
	memset(&s, 0, sizeof s);
	int link = 0;
	CHECK_EQ(iw_pcap_each_record(out, &link, look, &s, msg, sizeof msg), 0);
	CHECK_EQ(link, DLT_EN10MB);
	CHECK_EQ(s.frames, 31);
	CHECK_EQ(s.bad_ip_sum, 0);
	CHECK_EQ(s.bad_tcp_sum, 0);
	CHECK_EQ(s.ts[0], 1000000);             /* each capture's own timestamps */
	CHECK_EQ(s.ts[10], 1010000);
	CHECK_EQ(s.ts[11], 500);
	CHECK_EQ(s.ts[20], 1000000);
out:
	iw_pcap_capture_free(cap);
	iw_pcap_capture_free(one);
	unlink(in1);
	unlink(in2);
	unlink(out);
}

/* A capture of hand-made records (link dlt), each of len octets with caplen of them kept. */
static int write_records(const char *path, int dlt, const uint8_t *const *frames, const size_t *len,
			 const size_t *caplen, size_t n)
{
	pcap_t *dead = pcap_open_dead(dlt, 262144);     /* libpcap's largest: a record may be long */
	pcap_dumper_t *d = dead ? pcap_dump_open(dead, path) : NULL;
	if (!d) {
		if (dead)
			pcap_close(dead);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct pcap_pkthdr h;
		memset(&h, 0, sizeof h);
		h.len = (bpf_u_int32)len[i];
		h.caplen = (bpf_u_int32)caplen[i];
		pcap_dump((u_char *)d, &h, frames[i]);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

TEST(pcap_combine_refuses_what_it_cannot_copy)
{
	static const uint8_t a1[4] = {10, 0, 0, 1}, a2[4] = {10, 0, 0, 2};
	char good[256], bad[256], out[256];
	path_of(good, sizeof good, "cmb-good.pcap");
	path_of(bad, sizeof bad, "cmb-bad.pcap");
	path_of(out, sizeof out, "cmb-refused.pcap");
	CHECK_EQ(write_conn(good, a1, a2, 100, 0), 0);
	iw_pcap_capture *cap = NULL;
	char msg[256];
	CHECK_EQ(iw_pcap_read(good, &cap, msg, sizeof msg), 0);
	iw_pcap_capture_free(cap);
	/* The good capture's first frame, to make the others of. */
	uint8_t syn[128];
	size_t synlen = 0;
	{
		char eb[PCAP_ERRBUF_SIZE];
		pcap_t *pc = pcap_open_offline(good, eb);
		struct pcap_pkthdr *h;
		const u_char *f;
		if (pc && pcap_next_ex(pc, &h, &f) == 1 && h->caplen <= sizeof syn) {
			memcpy(syn, f, h->caplen);
			synlen = h->caplen;
		}
		if (pc)
			pcap_close(pc);
	}
	CHECK(synlen > 54);
	if (synlen <= 54)
		goto out;
	const char *in[] = {good, bad};
	iw_pcap_part parts[2];
	iw_err e;

	/* An ARP frame after a TCP segment. */
	uint8_t arp[60];
	memcpy(arp, syn, sizeof arp);
	arp[12] = 0x08;
	arp[13] = 0x06;
	const uint8_t *fr[] = {syn, arp};
	size_t len[] = {synlen, sizeof arp};
	CHECK_EQ(write_records(bad, DLT_EN10MB, fr, len, len, 2), 0);
	CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
	CHECK(strstr(e.msg, "frame 2 of '") && strstr(e.msg, "cmb-bad.pcap' is not a TCP segment over IPv4"));
	CHECK(!exists(out));

	/* An IPv6 segment is not IPv4 either. */
	uint8_t v6[14 + 40 + 20];
	memset(v6, 0, sizeof v6);
	v6[12] = 0x86;
	v6[13] = 0xDD;
	v6[14] = 0x60;
	v6[14 + 5] = 20;        /* payload length */
	v6[14 + 6] = 6;         /* TCP */
	v6[14 + 40 + 12] = 0x50;
	fr[0] = v6;
	len[0] = sizeof v6;
	CHECK_EQ(write_records(bad, DLT_EN10MB, fr, len, len, 1), 0);
	CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
	CHECK(strstr(e.msg, "frame 1 of '") && strstr(e.msg, "is not a TCP segment over IPv4"));
	CHECK(!exists(out));

	/* A record the snap length cut. */
	fr[0] = syn;
	len[0] = synlen;
	size_t cut[] = {synlen - 2};
	CHECK_EQ(write_records(bad, DLT_EN10MB, fr, len, cut, 1), 0);
	CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
	CHECK(strstr(e.msg, "frame 1 of '") && strstr(e.msg, "is cut short"));
	CHECK(!exists(out));

	/* A record longer than the writer takes (a crafted file: libpcap reads up to 262144). */
	{
		size_t biglen = 70000;
		uint8_t *big = calloc(1, biglen);
		CHECK(big != NULL);
		if (big) {
			memcpy(big, syn, synlen);
			fr[0] = big;
			len[0] = biglen;
			CHECK_EQ(write_records(bad, DLT_EN10MB, fr, len, len, 1), 0);
			CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
			CHECK(strstr(e.msg, "frame 1 of '") && strstr(e.msg, "is 70000 octets long"));
			CHECK(!exists(out));
			free(big);
		}
		fr[0] = syn;
		len[0] = synlen;
	}

	/* A file that ends inside its second record. */
	fr[1] = syn;
	len[1] = synlen;
	CHECK_EQ(write_records(bad, DLT_EN10MB, fr, len, len, 2), 0);
	CHECK_EQ(truncate(bad, (off_t)(24 + 16 + synlen + 16 + 10)), 0);
	CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
	CHECK(strstr(e.msg, "cmb-bad.pcap' ends inside record 2"));
	CHECK(!exists(out));

	/* Raw IP after Ethernet: one file holds one link type. */
	fr[0] = syn + 14;
	len[0] = synlen - 14;
	CHECK_EQ(write_records(bad, DLT_RAW, fr, len, len, 1), 0);
	CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
	CHECK(strstr(e.msg, "one file holds one link type"));
	CHECK(!exists(out));

	/* Not a capture at all. */
	FILE *f = fopen(bad, "w");
	if (f) {
		fputs("not a capture\n", f);
		fclose(f);
	}
	CHECK_EQ(iw_pcap_combine(out, in, 2, parts, &e), -1);
	CHECK(strstr(e.msg, "cannot read '") != NULL);
	CHECK(!exists(out));
out:
	unlink(good);
	unlink(bad);
}
