/*
 * pcap_read.c - the capture file: libpcap's records, their link, IP and TCP headers, handed
 * segment by segment to the connection table (tcp_conns.h); and the whole-file reader on top
 * (see pcap_read.h).
 */
#include "pcap_read.h"

#include "tcp_conns.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif
#define IW_PCAPNG_SHB 0x0A0D0D0Au     /* a pcapng Section Header Block's type */


bool iw_pcap_magic(const uint8_t *b, size_t len)
{
	if (len < 4)
		return false;
	uint32_t be = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	uint32_t le = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	static const uint32_t magics[] = {
		0xA1B2C3D4u,    /* pcap, microseconds */
		0xA1B23C4Du,    /* pcap, nanoseconds */
		0x0A0D0D0Au,    /* pcapng section header block (palindromic) */
	};
	for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
		if (be == magics[i] || le == magics[i])
			return true;
	return false;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t rd32le(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* A pcapng file of Section Header Blocks only (and blocks that need no interface): no
 * interface, so no packet. libpcap refuses it ("no Interface Description Blocks") where tshark
 * reads it as a capture with nothing in it, which is what it is. True only when the file starts
 * with a Section Header Block, every block is whole, and the file ends where the last does. */
static bool pcapng_without_interfaces(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	bool ok = true, le = false;
	size_t blocks = 0, n = 0;
	uint8_t h[12];
	while (ok && (n = fread(h, 1, sizeof h, f)) > 0) {
		if (n < sizeof h)
			break;
		uint32_t type = rd32(h);        /* a Section Header Block's type reads the same both ways */
		if (type == IW_PCAPNG_SHB)
			le = h[8] == 0x4D;      /* its byte-order magic 0x1A2B3C4D as written: each section's own */
		else if (blocks == 0)
			break;
		if (le)
			type = rd32le(h);
		uint32_t len = le ? rd32le(h + 4) : rd32(h + 4);
		/* An interface (1), a packet (2, 3, 6) or interface statistics (5) block: not empty. */
		ok = len >= sizeof h && len % 4 == 0 && type != 1 && type != 2 && type != 3 && type != 5 && type != 6 &&
		     fseek(f, (long)len - (long)sizeof h, SEEK_CUR) == 0;
		blocks++;
	}
	/* Every read above stopped at the file's end only if ok stayed true and nothing was left
	 * over; fseek past the end succeeds, so the end is compared too. */
	long at = ftell(f);
	ok = ok && blocks && feof(f) && n == 0 && fseek(f, 0, SEEK_END) == 0 && ftell(f) == at;
	fclose(f);
	return ok;
}

/* ---- parsing ---- */

static bool parse_tcp(const uint8_t *p, size_t caplen, size_t ip_payload, iw_tcp_pkt *k)
{
	if (caplen < 20 || ip_payload < 20)
		return false;
	size_t hl = (size_t)(p[12] >> 4) * 4;
	if (hl < 20 || hl > ip_payload || hl > caplen)
		return false;
	k->tcp = p;
	k->sport = rd16(p);
	k->dport = rd16(p + 2);
	k->seq = rd32(p + 4);
	k->flags = p[13];
	k->payload = p + hl;
	size_t want = ip_payload - hl, have = caplen - hl;
	k->len = (uint32_t)(have < want ? have : want);
	k->missing = (uint32_t)(want - k->len);
	return true;
}

static bool parse_ipv4(const uint8_t *p, size_t caplen, iw_tcp_pkt *k)
{
	if (caplen < 20 || (p[0] >> 4) != 4)
		return false;
	size_t ihl = (size_t)(p[0] & 0x0F) * 4;
	size_t total = rd16(p + 2);
	if (ihl < 20 || total < ihl || caplen < ihl)
		return false;
	if (p[9] != 6)
		return false;
	if ((rd16(p + 6) & 0x3FFF) != 0)
		return false;           /* a fragment: TCP streams over IP fragments are not reassembled */
	k->family = 4;
	k->ip = p;
	k->src = p + 12;
	k->dst = p + 16;
	/* Ethernet pads short frames: the IP total length, not the capture, bounds the payload. */
	size_t cap = caplen < total ? caplen : total;
	return parse_tcp(p + ihl, cap - ihl, total - ihl, k);
}

static bool parse_ipv6(const uint8_t *p, size_t caplen, iw_tcp_pkt *k)
{
	if (caplen < 40 || (p[0] >> 4) != 6)
		return false;
	size_t plen = rd16(p + 4);
	uint8_t nh = p[6];
	size_t off = 40;
	size_t end = 40 + plen;
	/* Extension headers before TCP: hop-by-hop, routing, destination options. */
	while (nh == 0 || nh == 43 || nh == 60) {
		if (caplen < off + 8)
			return false;
		size_t l = ((size_t)p[off + 1] + 1) * 8;
		nh = p[off];
		off += l;
	}
	if (nh != 6 || off > end || off > caplen)
		return false;           /* not TCP, or fragmented (44) */
	k->family = 6;
	k->ip = p;
	k->src = p + 8;
	k->dst = p + 24;
	size_t cap = caplen < end ? caplen : end;
	return parse_tcp(p + off, cap - off, end - off, k);
}

static bool parse_ip(const uint8_t *p, size_t caplen, iw_tcp_pkt *k)
{
	if (caplen < 1)
		return false;
	if ((p[0] >> 4) == 4)
		return parse_ipv4(p, caplen, k);
	if ((p[0] >> 4) == 6)
		return parse_ipv6(p, caplen, k);
	return false;
}

static bool parse_ethertype(uint16_t type, const uint8_t *p, size_t caplen, iw_tcp_pkt *k)
{
	if (type == 0x0800)
		return parse_ipv4(p, caplen, k);
	if (type == 0x86DD)
		return parse_ipv6(p, caplen, k);
	return false;
}

static bool parse_frame(int dlt, const uint8_t *p, size_t caplen, iw_tcp_pkt *k)
{
	switch (dlt) {
	case DLT_EN10MB: {
		if (caplen < 14)
			return false;
		size_t off = 12;
		uint16_t type = rd16(p + off);
		while ((type == 0x8100 || type == 0x88A8 || type == 0x9100) && caplen >= off + 6) {
			off += 4;       /* VLAN tags */
			type = rd16(p + off);
		}
		off += 2;
		return parse_ethertype(type, p + off, caplen - off, k);
	}
	case DLT_LINUX_SLL:
		return caplen >= 16 && parse_ethertype(rd16(p + 14), p + 16, caplen - 16, k);
	case DLT_LINUX_SLL2:
		return caplen >= 20 && parse_ethertype(rd16(p), p + 20, caplen - 20, k);
	case DLT_NULL:
	case DLT_LOOP:
		return caplen >= 4 && parse_ip(p + 4, caplen - 4, k);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return parse_ip(p, caplen, k);
	default:
		return false;
	}
}

static bool dlt_supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 || dlt == DLT_NULL ||
	       dlt == DLT_LOOP || dlt == DLT_RAW || dlt == DLT_IPV4 || dlt == DLT_IPV6;
}

/* ---- the file ---- */

void iw_pcap_limits_default(iw_pcap_limits *l)
{
	l->max_conns = IW_PCAP_MAX_CONNS_DEFAULT;
	l->max_held = IW_PCAP_MAX_HELD_DEFAULT;
	l->linger = IW_PCAP_LINGER_FRAMES;
}

int iw_pcap_each_conn(const char *path, const iw_pcap_limits *lim, const iw_pcap_sink *sink, iw_pcap_info *info,
		      char *msg, size_t msgcap)
{
	iw_pcap_info local;
	if (!info)
		info = &local;
	memset(info, 0, sizeof *info);
	char errbuf[PCAP_ERRBUF_SIZE];
	errbuf[0] = '\0';
	pcap_t *pc = pcap_open_offline(path, errbuf);
	if (!pc && pcapng_without_interfaces(path)) {
		/* A valid capture with nothing in it: no connection to hand out. */
		info->linktype = -1;
		info->linkname = "no interface";
		if (sink->start)
			sink->start(sink->ctx, info);
		return 0;
	}
	if (!pc) {
		snprintf(msg, msgcap, "cannot read '%s' as a capture: %s", path, errbuf[0] ? errbuf : "unknown error");
		return -1;
	}
	int dlt = pcap_datalink(pc);
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = 0;
	/* A link iwspec cannot read carries nothing to read when the file holds no packet: an empty
	 * capture is a capture, whatever its link type. */
	if (!dlt_supported(dlt) && (rc = pcap_next_ex(pc, &h, &data)) == PCAP_ERROR_BREAK) {
		info->linktype = dlt;
		info->linkname = pcap_datalink_val_to_name(dlt);
		if (sink->start)
			sink->start(sink->ctx, info);
		pcap_close(pc);
		return 0;
	}
	if (!dlt_supported(dlt)) {
		const char *name = pcap_datalink_val_to_name(dlt);
		snprintf(msg, msgcap,
			 "'%s' has link type %s (%d); iwspec reads Ethernet, raw IP, Linux cooked (SLL, SLL2) "
			 "and loopback captures",
			 path, name ? name : "unknown", dlt);
		pcap_close(pc);
		return -1;
	}
	info->linktype = dlt;
	info->linkname = pcap_datalink_val_to_name(dlt);
	iw_tcp_table *t = iw_tcp_table_new(lim, sink, info);
	if (!t) {
		snprintf(msg, msgcap, "out of memory reading '%s'", path);
		pcap_close(pc);
		return -1;
	}
	if (sink->start)
		sink->start(sink->ctx, info);
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		info->frames++;
		iw_tcp_pkt k;
		memset(&k, 0, sizeof k);
		if (!parse_frame(dlt, data, h->caplen, &k)) {
			info->non_tcp++;
			continue;
		}
		iw_tcp_table_packet(t, &k, info->frames);
		if (iw_tcp_table_nomem(t))
			break;
	}
	int ret = 0;
	if (iw_tcp_table_nomem(t)) {
		snprintf(msg, msgcap, "out of memory reading '%s' at frame %llu", path, (unsigned long long)info->frames);
		ret = -1;
	} else if (rc == PCAP_ERROR) {
		const char *why = pcap_geterr(pc);
		/* A capture stopped while writing ends in half a record: keep what came before. */
		if (strstr(why, "truncated") && info->frames > 0) {
			snprintf(info->warning, sizeof info->warning,
				 "the file ends inside record %llu (%s); frames after %llu are missing",
				 (unsigned long long)info->frames + 1, why, (unsigned long long)info->frames);
		} else {
			snprintf(msg, msgcap, "cannot read '%s' past frame %llu: %s", path,
				 (unsigned long long)info->frames, why);
			ret = -1;
		}
	}
	if (ret == 0)
		iw_tcp_table_end(t);
	iw_tcp_table_free(t);
	pcap_close(pc);
	return ret;
}

/* The whole-file reader: every connection kept, with its streams. */
typedef struct collect {
	iw_pcap_conn *v;
	size_t n, cap;
	bool nomem;
} collect;

static void collect_conn(void *ctx, iw_pcap_conn *c, const iw_pcap_end *end)
{
	collect *k = ctx;
	(void)end;
	if (k->nomem)
		return;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 16;
		iw_pcap_conn *v = realloc(k->v, cap * sizeof *v);
		if (!v) {
			k->nomem = true;
			return;
		}
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n++] = *c;
	for (int d = 0; d < 2; d++) {
		c->dir[d].data = NULL;
		c->dir[d].pieces = NULL;
	}
}

static int conn_by_number(const void *a, const void *b)
{
	const iw_pcap_conn *x = a, *y = b;
	return x->number < y->number ? -1 : x->number > y->number;
}

void iw_pcap_capture_free(iw_pcap_capture *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nconns; i++)
		for (int d = 0; d < 2; d++) {
			free(c->conns[i].dir[d].data);
			free(c->conns[i].dir[d].pieces);
		}
	free(c->conns);
	free(c);
}

int iw_pcap_read(const char *path, iw_pcap_capture **out, char *msg, size_t msgcap)
{
	*out = NULL;
	iw_pcap_capture *cap = calloc(1, sizeof *cap);
	if (!cap) {
		snprintf(msg, msgcap, "out of memory reading '%s'", path);
		return -1;
	}
	/* No limits: the caller asked for the whole capture. */
	iw_pcap_limits lim = {.max_conns = 0, .max_held = 0, .linger = UINT64_MAX};
	collect k;
	memset(&k, 0, sizeof k);
	iw_pcap_sink sink = {.ctx = &k, .conn = collect_conn};
	iw_pcap_info info;
	int rc = iw_pcap_each_conn(path, &lim, &sink, &info, msg, msgcap);
	cap->conns = k.v;
	cap->nconns = k.n;
	if (rc == 0 && k.nomem) {
		snprintf(msg, msgcap, "out of memory reading '%s'", path);
		rc = -1;
	}
	if (rc) {
		iw_pcap_capture_free(cap);
		return -1;
	}
	if (cap->nconns) /* qsort's base may not be NULL, even for no elements */
		qsort(cap->conns, cap->nconns, sizeof *cap->conns, conn_by_number);
	cap->linktype = info.linktype;
	cap->linkname = info.linkname;
	cap->frames = info.frames;
	cap->non_tcp = info.non_tcp;
	memcpy(cap->warning, info.warning, sizeof cap->warning);
	*out = cap;
	return 0;
}

uint64_t iw_pcap_frame_of(const iw_pcap_stream *s, uint64_t off)
{
	if (!s->npieces || off >= s->len)
		return 0;
	size_t lo = 0, hi = s->npieces;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->pieces[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return s->pieces[lo].frame;
}

void iw_pcap_endpoint(const iw_pcap_conn *c, int side, char *buf, size_t cap)
{
	const uint8_t *a = c->addr[side];
	if (c->family == 4) {
		snprintf(buf, cap, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3], c->port[side]);
		return;
	}
	char t[48];
	size_t n = 0;
	for (int i = 0; i < 16; i += 2)
		n += (size_t)snprintf(t + n, sizeof t - n, "%s%x", i ? ":" : "", (unsigned)(a[i] << 8 | a[i + 1]));
	snprintf(buf, cap, "[%s]:%u", t, c->port[side]);
}

int iw_pcap_each_record(const char *path, int *linktype, int (*fn)(void *ctx, const iw_pcap_record *r),
			void *ctx, char *msg, size_t msgcap)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	errbuf[0] = '\0';
	pcap_t *pc = pcap_open_offline(path, errbuf);
	if (!pc) {
		snprintf(msg, msgcap, "cannot read '%s' as a capture: %s", path, errbuf[0] ? errbuf : "unknown error");
		return -1;
	}
	int dlt = pcap_datalink(pc);
	*linktype = dlt;
	if (!dlt_supported(dlt)) {
		const char *name = pcap_datalink_val_to_name(dlt);
		snprintf(msg, msgcap, "'%s' has link type %s (%d), which iwspec does not read", path,
			 name ? name : "unknown", dlt);
		pcap_close(pc);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc, ret = 0;
	uint64_t frame = 0;
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		iw_pcap_record r;
		memset(&r, 0, sizeof r);
		r.frame = ++frame;
		r.ts_usec = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
		r.data = data;
		r.caplen = h->caplen;
		r.len = h->len;
		iw_tcp_pkt k;
		memset(&k, 0, sizeof k);
		if (parse_frame(dlt, data, h->caplen, &k)) {
			r.family = k.family;
			r.ip_off = (size_t)(k.ip - data);
			r.tcp_off = (size_t)(k.tcp - data);
		}
		if ((ret = fn(ctx, &r)) != 0)
			break;
	}
	if (ret == 0 && rc == PCAP_ERROR) {
		const char *why = pcap_geterr(pc);
		if (strstr(why, "truncated"))
			snprintf(msg, msgcap, "'%s' ends inside record %llu (%s)", path, (unsigned long long)frame + 1, why);
		else
			snprintf(msg, msgcap, "cannot read '%s' past frame %llu: %s", path, (unsigned long long)frame, why);
		ret = -1;
	}
	pcap_close(pc);
	return ret;
}
