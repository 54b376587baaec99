/*
 * pcap_write.c - a synthetic IPv4 TCP connection, written by libpcap (see pcap_write.h).
 */
#include "pcap_write.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

#define ETH_LEN 14
#define IP_LEN 20
#define TCP_LEN 20
#define TCP_OPT_MSS 4
#define FRAME_MAX (ETH_LEN + IP_LEN + TCP_LEN + TCP_OPT_MSS + 65535)

enum { F_FIN = 0x01, F_SYN = 0x02, F_RST = 0x04, F_PSH = 0x08, F_ACK = 0x10 };

struct iw_pcap_tcp {
	iw_pcap_writer *w;
	iw_pcap_tcp_params p;
	uint32_t next_seq[2];       /* sequence number of the next octet each side sends */
	bool fin[2];                /* that side has sent its FIN */
	bool reset;
	uint16_t ip_id[2];
	iw_pcap_tcp *next;          /* the writer's list */
};

struct iw_pcap_writer {
	enum iw_pcap_link link;
	pcap_t *dead;
	pcap_dumper_t *dump;
	char *img;                  /* open_memstream's buffer */
	size_t img_len;
	uint64_t ts_usec;
	uint32_t step_usec;
	uint64_t frames;
	uint8_t *frame;             /* FRAME_MAX octets, reused */
	iw_pcap_tcp *conns;
};

void iw_pcap_tcp_params_default(iw_pcap_tcp_params *p)
{
	memset(p, 0, sizeof *p);
	static const uint8_t c[4] = {10, 0, 0, 1}, s[4] = {10, 0, 0, 2};
	memcpy(p->client_ip, c, 4);
	memcpy(p->server_ip, s, 4);
	p->client_port = 40001;
	p->server_port = 4791;
	p->client_isn = 1000;
	p->server_isn = 5000;
	p->mss = IW_PCAP_MSS_DEFAULT;
	p->window = 65535;
}

iw_pcap_writer *iw_pcap_writer_new(enum iw_pcap_link link, iw_err *e)
{
	iw_pcap_writer *w = calloc(1, sizeof *w);
	if (!w) {
		iw_errf(e, -1, "out of memory for a capture");
		return NULL;
	}
	w->link = link;
	w->ts_usec = IW_PCAP_EPOCH_DEFAULT * 1000000ull;
	w->step_usec = 1000;
	w->frame = malloc(FRAME_MAX);
	w->dead = pcap_open_dead(link == IW_PCAP_LINK_RAW ? DLT_RAW : DLT_EN10MB, 65535);
	FILE *mem = w->frame && w->dead ? open_memstream(&w->img, &w->img_len) : NULL;
	if (!mem) {
		iw_errf(e, -1, "cannot set up a capture in memory: %s", strerror(errno ? errno : ENOMEM));
		iw_pcap_writer_free(w);
		return NULL;
	}
	/* pcap_dump_fopen takes the stream; pcap_dump_close closes it. */
	w->dump = pcap_dump_fopen(w->dead, mem);
	if (!w->dump) {
		iw_errf(e, -1, "libpcap cannot start a capture: %s", pcap_geterr(w->dead));
		fclose(mem);
		iw_pcap_writer_free(w);
		return NULL;
	}
	return w;
}

void iw_pcap_writer_time(iw_pcap_writer *w, uint64_t usec, uint32_t step_usec)
{
	w->ts_usec = usec;
	if (step_usec)
		w->step_usec = step_usec;
}

uint64_t iw_pcap_writer_frames(const iw_pcap_writer *w)
{
	return w->frames;
}

void iw_pcap_writer_free(iw_pcap_writer *w)
{
	if (!w)
		return;
	if (w->dump)
		pcap_dump_close(w->dump);
	if (w->dead)
		pcap_close(w->dead);
	free(w->img);
	free(w->frame);
	for (iw_pcap_tcp *t = w->conns; t;) {
		iw_pcap_tcp *n = t->next;
		free(t);
		t = n;
	}
	free(w);
}

int iw_pcap_writer_frame(iw_pcap_writer *w, const uint8_t *frame, size_t len, iw_err *e)
{
	if (!w->dump)
		return iw_errf(e, -1, "the capture is already finished");
	if (!frame || !len || len > 65535)
		return iw_errf(e, -1, "a frame of %zu octets cannot be captured (1 to 65535)", len);
	struct pcap_pkthdr h;
	memset(&h, 0, sizeof h);
	h.ts.tv_sec = (time_t)(w->ts_usec / 1000000u);
	h.ts.tv_usec = (suseconds_t)(w->ts_usec % 1000000u);
	h.caplen = h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)w->dump, &h, frame);
	w->ts_usec += w->step_usec;
	w->frames++;
	return 0;
}

/* Closes the dumper so the image is complete; the writer keeps the image. */
static int finish(iw_pcap_writer *w, iw_err *e)
{
	pcap_dump_close(w->dump);    /* flushes and fcloses the memory stream */
	w->dump = NULL;
	if (!w->img)
		return iw_errf(e, -1, "libpcap wrote no capture");
	return 0;
}

int iw_pcap_writer_take(iw_pcap_writer *w, uint8_t **out, size_t *len, iw_err *e)
{
	int rc = finish(w, e);
	if (rc == 0) {
		*out = (uint8_t *)w->img;
		*len = w->img_len;
		w->img = NULL;
	}
	iw_pcap_writer_free(w);
	return rc;
}

int iw_pcap_writer_commit(iw_pcap_writer *w, const char *path, iw_err *e)
{
	int rc = finish(w, e);
	if (rc == 0)
		rc = iw_write_atomic(path, w->img, w->img_len, e);
	iw_pcap_writer_free(w);
	return rc;
}

int iw_pcap_writer_commit_batch(iw_pcap_writer *w, const char *path, iw_err *e)
{
	int rc = finish(w, e);
	if (rc == 0)
		rc = iw_write_atomic_batch(path, w->img, w->img_len, e);
	iw_pcap_writer_free(w);
	return rc;
}

/* ---- frames ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The Internet checksum's running sum (RFC 1071), folded by csum_fold. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

static void mac_of(uint8_t mac[6], const uint8_t ip[4])
{
	/* Locally administered, derived from the address so each host keeps one MAC. */
	mac[0] = 0x02;
	mac[1] = 0x00;
	memcpy(mac + 2, ip, 4);
}

static int emit(iw_pcap_tcp *t, enum iw_pcap_dir dir, uint8_t flags, const uint8_t *data, size_t len, iw_err *e)
{
	iw_pcap_writer *w = t->w;
	const iw_pcap_tcp_params *p = &t->p;
	const uint8_t *src = dir == IW_PCAP_C2S ? p->client_ip : p->server_ip;
	const uint8_t *dst = dir == IW_PCAP_C2S ? p->server_ip : p->client_ip;
	uint16_t sport = dir == IW_PCAP_C2S ? p->client_port : p->server_port;
	uint16_t dport = dir == IW_PCAP_C2S ? p->server_port : p->client_port;
	size_t opt = (flags & F_SYN) ? TCP_OPT_MSS : 0;
	size_t tcp_len = TCP_LEN + opt;
	size_t ip_total = IP_LEN + tcp_len + len;
	if (!w->dump)
		return iw_errf(e, -1, "the capture was already written");
	if (ip_total > 65535)
		return iw_errf(e, -1, "a segment of %zu octets does not fit an IPv4 packet", len);

	uint8_t *f = w->frame;
	size_t off = 0;
	if (w->link == IW_PCAP_LINK_ETHERNET) {
		mac_of(f, dst);
		mac_of(f + 6, src);
		put16(f + 12, 0x0800);
		off = ETH_LEN;
	}
	uint8_t *ip = f + off;
	memset(ip, 0, IP_LEN);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)ip_total);
	put16(ip + 4, t->ip_id[dir]++);
	put16(ip + 6, 0x4000);      /* DF */
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	put16(ip + 10, csum_fold(csum_add(0, ip, IP_LEN)));

	uint8_t *tcp = ip + IP_LEN;
	memset(tcp, 0, tcp_len);
	put16(tcp, sport);
	put16(tcp + 2, dport);
	put32(tcp + 4, t->next_seq[dir]);
	/* Before the peer's SYN is seen there is nothing to acknowledge. */
	bool ack = flags & F_ACK;
	put32(tcp + 8, ack ? t->next_seq[!dir] : 0);
	tcp[12] = (uint8_t)((tcp_len / 4) << 4);
	tcp[13] = flags;
	put16(tcp + 14, p->window ? p->window : 65535);
	if (opt) {
		tcp[20] = 2;            /* MSS */
		tcp[21] = 4;
		put16(tcp + 22, p->mss ? p->mss : IW_PCAP_MSS_DEFAULT);
	}
	if (len)
		memcpy(tcp + tcp_len, data, len);
	/* Pseudo-header: addresses, protocol, TCP length. */
	uint8_t ph[12];
	memcpy(ph, src, 4);
	memcpy(ph + 4, dst, 4);
	ph[8] = 0;
	ph[9] = 6;
	put16(ph + 10, (uint16_t)(tcp_len + len));
	put16(tcp + 16, csum_fold(csum_add(csum_add(0, ph, sizeof ph), tcp, tcp_len + len)));

	struct pcap_pkthdr h;
	memset(&h, 0, sizeof h);
	h.ts.tv_sec = (time_t)(w->ts_usec / 1000000u);
	h.ts.tv_usec = (suseconds_t)(w->ts_usec % 1000000u);
	h.caplen = h.len = (bpf_u_int32)(off + ip_total);
	pcap_dump((u_char *)w->dump, &h, f);
	w->ts_usec += w->step_usec;
	w->frames++;

	uint32_t adv = (uint32_t)len + ((flags & (F_SYN | F_FIN)) ? 1u : 0u);
	t->next_seq[dir] += adv;
	return 0;
}

iw_pcap_tcp *iw_pcap_tcp_open(iw_pcap_writer *w, const iw_pcap_tcp_params *p, iw_err *e)
{
	iw_pcap_tcp *t = calloc(1, sizeof *t);
	if (!t) {
		iw_errf(e, -1, "out of memory for a connection");
		return NULL;
	}
	t->w = w;
	if (p)
		t->p = *p;
	else
		iw_pcap_tcp_params_default(&t->p);
	t->next_seq[IW_PCAP_C2S] = t->p.client_isn;
	t->next_seq[IW_PCAP_S2C] = t->p.server_isn;
	t->ip_id[0] = 1;
	t->ip_id[1] = 1;
	t->next = w->conns;
	w->conns = t;
	if (emit(t, IW_PCAP_C2S, F_SYN, NULL, 0, e) || emit(t, IW_PCAP_S2C, F_SYN | F_ACK, NULL, 0, e) ||
	    emit(t, IW_PCAP_C2S, F_ACK, NULL, 0, e))
		return NULL;        /* t stays on the writer's list and is freed with it */
	return t;
}

static int closed(iw_pcap_tcp *t, enum iw_pcap_dir dir, iw_err *e)
{
	if (t->reset)
		return iw_errf(e, -1, "the connection was reset: nothing more can be sent on it");
	if (t->fin[dir])
		return iw_errf(e, -1, "the %s already sent its FIN", dir == IW_PCAP_C2S ? "client" : "server");
	return 0;
}

int iw_pcap_tcp_data(iw_pcap_tcp *t, enum iw_pcap_dir dir, const uint8_t *data, size_t len, iw_err *e)
{
	if (closed(t, dir, e))
		return -1;
	size_t mss = t->p.mss ? t->p.mss : IW_PCAP_MSS_DEFAULT;
	for (size_t off = 0; off < len;) {
		size_t n = len - off < mss ? len - off : mss;
		uint8_t flags = F_ACK | (off + n == len ? F_PSH : 0);
		if (emit(t, dir, flags, data + off, n, e))
			return -1;
		off += n;
	}
	return 0;
}

int iw_pcap_tcp_fin(iw_pcap_tcp *t, enum iw_pcap_dir dir, iw_err *e)
{
	if (closed(t, dir, e))
		return -1;
	if (emit(t, dir, F_FIN | F_ACK, NULL, 0, e))
		return -1;
	t->fin[dir] = true;
	return emit(t, !dir, F_ACK, NULL, 0, e);
}

int iw_pcap_tcp_rst(iw_pcap_tcp *t, enum iw_pcap_dir dir, iw_err *e)
{
	if (t->reset)
		return iw_errf(e, -1, "the connection was already reset");
	if (emit(t, dir, F_RST | F_ACK, NULL, 0, e))
		return -1;
	t->reset = true;
	return 0;
}

int iw_pcap_write_conn(const char *path, enum iw_pcap_link link, const iw_pcap_tcp_params *p,
		       const iw_pcap_chunk *chunks, size_t n, iw_err *e)
{
	iw_pcap_writer *w = iw_pcap_writer_new(link, e);
	if (!w)
		return -1;
	iw_pcap_tcp *t = iw_pcap_tcp_open(w, p, e);
	if (!t)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (iw_pcap_tcp_data(t, chunks[i].dir, chunks[i].data, chunks[i].len, e))
			goto fail;
	if (iw_pcap_tcp_fin(t, IW_PCAP_C2S, e) || iw_pcap_tcp_fin(t, IW_PCAP_S2C, e))
		goto fail;
	return iw_pcap_writer_commit(w, path, e);
fail:
	iw_pcap_writer_free(w);
	return -1;
}
