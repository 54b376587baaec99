/*
 * pcap_read.c - link, IP and TCP parsing, connection tracking and per-direction reassembly
 * (see pcap_read.h).
 */
#include "pcap_read.h"

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

enum { TH_FIN = 0x01, TH_SYN = 0x02, TH_RST = 0x04, TH_ACK = 0x10 };

typedef struct seg {
	uint32_t seq;           /* of the first payload octet */
	uint32_t len;           /* payload octets captured */
	uint32_t missing;       /* payload octets the snap length cut off */
	uint64_t frame;
	uint64_t off;           /* stream offset, set during reassembly */
	uint8_t *data;
} seg;

typedef struct dir_log {
	seg *s;
	size_t n, cap;
	bool syn;
	uint32_t isn;
	bool have_seq;
	uint32_t first_seq;     /* of the first segment seen, when there was no SYN */
	bool fin, rst;
	uint32_t fin_seq;
	uint64_t fin_frame, rst_frame;
	uint64_t first_frame, last_frame;
} dir_log;

typedef struct conn_rec {
	iw_pcap_conn pub;
	dir_log log[2];
	bool ended;             /* RST, or FIN both ways: a new SYN starts a new connection */
} conn_rec;

typedef struct reader {
	conn_rec *c;
	size_t n, cap;
	/* open addressing: index + 1 of the newest connection of a 4-tuple, 0 = empty */
	size_t *slot;
	size_t nslot;
	uint64_t non_tcp;
	bool oom;
} reader;

typedef struct pkt {
	int family;
	const uint8_t *src, *dst;   /* 4 or 16 octets */
	uint16_t sport, dport;
	uint32_t seq;
	uint8_t flags;
	const uint8_t *payload;
	uint32_t len, missing;
} pkt;

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

/* ---- parsing ---- */

static bool parse_tcp(const uint8_t *p, size_t caplen, size_t ip_payload, pkt *k)
{
	if (caplen < 20 || ip_payload < 20)
		return false;
	size_t hl = (size_t)(p[12] >> 4) * 4;
	if (hl < 20 || hl > ip_payload || hl > caplen)
		return false;
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

static bool parse_ipv4(const uint8_t *p, size_t caplen, pkt *k)
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
	k->src = p + 12;
	k->dst = p + 16;
	/* Ethernet pads short frames: the IP total length, not the capture, bounds the payload. */
	size_t cap = caplen < total ? caplen : total;
	return parse_tcp(p + ihl, cap - ihl, total - ihl, k);
}

static bool parse_ipv6(const uint8_t *p, size_t caplen, pkt *k)
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
	k->src = p + 8;
	k->dst = p + 24;
	size_t cap = caplen < end ? caplen : end;
	return parse_tcp(p + off, cap - off, end - off, k);
}

static bool parse_ip(const uint8_t *p, size_t caplen, pkt *k)
{
	if (caplen < 1)
		return false;
	if ((p[0] >> 4) == 4)
		return parse_ipv4(p, caplen, k);
	if ((p[0] >> 4) == 6)
		return parse_ipv6(p, caplen, k);
	return false;
}

static bool parse_ethertype(uint16_t type, const uint8_t *p, size_t caplen, pkt *k)
{
	if (type == 0x0800)
		return parse_ipv4(p, caplen, k);
	if (type == 0x86DD)
		return parse_ipv6(p, caplen, k);
	return false;
}

static bool parse_frame(int dlt, const uint8_t *p, size_t caplen, pkt *k)
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

/* ---- connections ---- */

static size_t alen(int family)
{
	return family == 6 ? 16 : 4;
}

static bool same_end(const iw_pcap_conn *c, int side, int family, const uint8_t *a, uint16_t port)
{
	return c->family == family && c->port[side] == port && !memcmp(c->addr[side], a, alen(family));
}

static uint64_t tuple_hash(const pkt *k)
{
	/* Symmetric in the two ends, so both directions find the same slot chain. */
	uint64_t h1 = 1469598103934665603ull, h2 = 1469598103934665603ull;
	for (size_t i = 0; i < alen(k->family); i++) {
		h1 = (h1 ^ k->src[i]) * 1099511628211ull;
		h2 = (h2 ^ k->dst[i]) * 1099511628211ull;
	}
	h1 = (h1 ^ k->sport) * 1099511628211ull;
	h2 = (h2 ^ k->dport) * 1099511628211ull;
	return h1 ^ h2 ^ (uint64_t)k->family;
}

static bool conn_matches(const conn_rec *r, const pkt *k)
{
	const iw_pcap_conn *c = &r->pub;
	return (same_end(c, 0, k->family, k->src, k->sport) && same_end(c, 1, k->family, k->dst, k->dport)) ||
	       (same_end(c, 1, k->family, k->src, k->sport) && same_end(c, 0, k->family, k->dst, k->dport));
}

static bool rehash(reader *r)
{
	size_t n = r->nslot ? r->nslot * 2 : 64;
	size_t *s = calloc(n, sizeof *s);
	if (!s)
		return false;
	free(r->slot);
	r->slot = s;
	r->nslot = n;
	/* Oldest first, so the newest connection of a tuple ends up in its slot. */
	for (size_t i = 0; i < r->n; i++) {
		pkt k;
		memset(&k, 0, sizeof k);
		k.family = r->c[i].pub.family;
		k.src = r->c[i].pub.addr[0];
		k.dst = r->c[i].pub.addr[1];
		k.sport = r->c[i].pub.port[0];
		k.dport = r->c[i].pub.port[1];
		size_t j = (size_t)tuple_hash(&k) & (n - 1);
		while (s[j] && !conn_matches(&r->c[s[j] - 1], &k))
			j = (j + 1) & (n - 1);
		s[j] = i + 1;
	}
	return true;
}

static size_t *find_slot(reader *r, const pkt *k)
{
	size_t j = (size_t)tuple_hash(k) & (r->nslot - 1);
	while (r->slot[j] && !conn_matches(&r->c[r->slot[j] - 1], k))
		j = (j + 1) & (r->nslot - 1);
	return &r->slot[j];
}

static conn_rec *new_conn(reader *r, const pkt *k, uint64_t frame)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		conn_rec *c = realloc(r->c, cap * sizeof *c);
		if (!c)
			return NULL;
		r->c = c;
		r->cap = cap;
	}
	if ((r->n + 1) * 2 > r->nslot && !rehash(r))
		return NULL;
	conn_rec *c = &r->c[r->n];
	memset(c, 0, sizeof *c);
	/* The client sent the SYN; a SYN-ACK comes from the server; otherwise the first sender. */
	bool from_server = (k->flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK);
	int cs = from_server ? 1 : 0;
	c->pub.family = k->family;
	memcpy(c->pub.addr[cs], k->src, alen(k->family));
	memcpy(c->pub.addr[!cs], k->dst, alen(k->family));
	c->pub.port[cs] = k->sport;
	c->pub.port[!cs] = k->dport;
	c->pub.first_frame = frame;
	*find_slot(r, k) = r->n + 1;    /* replaces an older connection of the same tuple */
	r->n++;
	return c;
}

static bool log_seg(dir_log *d, const pkt *k, uint64_t frame)
{
	uint32_t seq = k->seq + ((k->flags & TH_SYN) ? 1u : 0u);
	if (!d->first_frame)
		d->first_frame = frame;
	d->last_frame = frame;
	if (k->flags & TH_SYN) {
		d->syn = true;
		d->isn = k->seq;
	}
	if ((k->flags & TH_FIN) && !d->fin) {
		d->fin = true;
		d->fin_seq = seq + k->len + k->missing;
		d->fin_frame = frame;
	}
	if ((k->flags & TH_RST) && !d->rst) {
		d->rst = true;
		d->rst_frame = frame;
	}
	if (k->len == 0 && k->missing == 0)
		return true;
	if (!d->have_seq) {
		d->have_seq = true;
		d->first_seq = seq;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		seg *s = realloc(d->s, cap * sizeof *s);
		if (!s)
			return false;
		d->s = s;
		d->cap = cap;
	}
	seg *s = &d->s[d->n];
	memset(s, 0, sizeof *s);
	s->seq = seq;
	s->len = k->len;
	s->missing = k->missing;
	s->frame = frame;
	if (k->len) {
		s->data = malloc(k->len);
		if (!s->data)
			return false;
		memcpy(s->data, k->payload, k->len);
	}
	d->n++;
	return true;
}

static void add_packet(reader *r, const pkt *k, uint64_t frame)
{
	if (!r->nslot && !rehash(r)) {
		r->oom = true;
		return;
	}
	size_t *slot = find_slot(r, k);
	conn_rec *c = *slot ? &r->c[*slot - 1] : NULL;
	bool pure_syn = (k->flags & (TH_SYN | TH_ACK)) == TH_SYN;
	if (c && pure_syn) {
		/* A new SYN after the connection ended, or with another ISN once data flowed: a new
		 * connection on a reused port pair. A repeated SYN is a retransmission. */
		dir_log *cl = &c->log[same_end(&c->pub, 0, k->family, k->src, k->sport) ? 0 : 1];
		if (c->ended || ((cl->syn && cl->isn != k->seq) || (!cl->syn && (c->log[0].n || c->log[1].n))))
			c = NULL;
	}
	if (!c && !(c = new_conn(r, k, frame))) {
		r->oom = true;
		return;
	}
	int side = same_end(&c->pub, 0, k->family, k->src, k->sport) ? 0 : 1;
	if (pure_syn && side == 0)
		c->pub.handshake = true;
	if (!log_seg(&c->log[side], k, frame))
		r->oom = true;
	if (k->flags & TH_RST)
		c->ended = true;
	if (c->log[0].fin && c->log[1].fin)
		c->ended = true;
}

/* ---- reassembly ---- */

static int seg_cmp(const void *a, const void *b)
{
	const seg *x = *(const seg *const *)a, *y = *(const seg *const *)b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int piece_cmp(const void *a, const void *b)
{
	const iw_pcap_piece *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool push_piece(iw_pcap_stream *s, size_t *cap, uint64_t off, uint64_t frame)
{
	if (s->npieces == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		iw_pcap_piece *p = realloc(s->pieces, n * sizeof *p);
		if (!p)
			return false;
		s->pieces = p;
		*cap = n;
	}
	s->pieces[s->npieces].off = off;
	s->pieces[s->npieces].frame = frame;
	s->npieces++;
	return true;
}

/* The octets written so far: sorted, disjoint, merged intervals [lo, hi). */
typedef struct ivset {
	struct iv {
		uint64_t lo, hi;
	} *v;
	size_t n, cap;
} ivset;

static bool iv_add(ivset *set, uint64_t lo, uint64_t hi)
{
	size_t j0 = 0;
	while (j0 < set->n && set->v[j0].hi < lo)
		j0++;
	size_t j1 = j0;
	while (j1 < set->n && set->v[j1].lo <= hi) {
		if (set->v[j1].lo < lo)
			lo = set->v[j1].lo;
		if (set->v[j1].hi > hi)
			hi = set->v[j1].hi;
		j1++;
	}
	/* Intervals j0..j1-1 merge into one. */
	if (j1 == j0) {
		if (set->n == set->cap) {
			size_t cap = set->cap ? set->cap * 2 : 16;
			struct iv *v = realloc(set->v, cap * sizeof *v);
			if (!v)
				return false;
			set->v = v;
			set->cap = cap;
		}
		memmove(set->v + j0 + 1, set->v + j0, (set->n - j0) * sizeof *set->v);
		set->n++;
	} else {
		memmove(set->v + j0 + 1, set->v + j1, (set->n - j1) * sizeof *set->v);
		set->n -= j1 - j0 - 1;
	}
	set->v[j0].lo = lo;
	set->v[j0].hi = hi;
	return true;
}

/* Takes each octet from the first segment that carried it, in capture order, as a receiving
 * TCP keeps the first copy; later copies are compared with it. */
static bool place(iw_pcap_stream *s, ivset *set, size_t *pcap, const seg *g, uint64_t limit)
{
	uint64_t a = g->off, b = g->off + g->len;
	if (b > limit)
		b = limit;
	if (a >= b)
		return true;
	bool fresh = false;
	size_t i = 0;
	while (i < set->n && set->v[i].hi <= a)
		i++;
	for (uint64_t cur = a; cur < b;) {
		if (i < set->n && set->v[i].lo <= cur) {
			uint64_t e = set->v[i].hi < b ? set->v[i].hi : b;
			if (memcmp(s->data + cur, g->data + (cur - g->off), (size_t)(e - cur))) {
				uint64_t o = cur;
				while (s->data[o] == g->data[o - g->off])
					o++;
				if (!s->conflicts) {
					s->conflict_off = o;
					s->conflict_frame = g->frame;
				}
				s->conflicts++;
			}
			cur = e;
			i++;
		} else {
			uint64_t e = i < set->n && set->v[i].lo < b ? set->v[i].lo : b;
			memcpy(s->data + cur, g->data + (cur - g->off), (size_t)(e - cur));
			if (!push_piece(s, pcap, cur, g->frame))
				return false;
			fresh = true;
			cur = e;
		}
	}
	if (!fresh)
		s->retransmitted++;
	return iv_add(set, a, b);
}

static bool reassemble(dir_log *d, iw_pcap_stream *s)
{
	memset(s, 0, sizeof *s);
	s->syn = d->syn;
	s->first_frame = d->first_frame;
	s->last_frame = d->last_frame;
	s->fin = d->fin;
	s->rst = d->rst;
	s->fin_frame = d->fin_frame;
	s->rst_frame = d->rst_frame;
	s->segments = d->n;
	uint32_t base;
	if (d->syn) {
		base = d->isn + 1;
	} else if (d->have_seq) {
		/* No SYN: the stream starts at the lowest sequence number seen. */
		int64_t lo = 0;
		for (size_t i = 0; i < d->n; i++) {
			int32_t delta = (int32_t)(d->s[i].seq - d->first_seq);
			if (delta < lo)
				lo = delta;
		}
		base = d->first_seq + (uint32_t)lo;
	} else {
		base = 0;
	}
	s->isn = d->syn ? d->isn : base;

	/* Offsets, unwrapping sequence numbers around the highest end so far (streams may pass
	 * 4 GiB); segments before the base are dropped. Capture order is kept. */
	uint64_t hi = 0, expect_end = 0, expect_frame = 0;
	size_t kept = 0;
	for (size_t i = 0; i < d->n; i++) {
		seg *g = &d->s[i];
		int64_t delta = (int32_t)(g->seq - base - (uint32_t)hi);
		int64_t off = (int64_t)hi + delta;
		if (off < 0) {
			free(g->data);
			continue;
		}
		g->off = (uint64_t)off;
		if (g->off > hi)
			s->out_of_order++;      /* octets before it had not arrived yet */
		uint64_t end = g->off + g->len + g->missing;
		if (end > hi)
			hi = end;
		if (end > expect_end) {
			expect_end = end;
			expect_frame = g->frame;
		}
		d->s[kept++] = *g;
	}
	d->n = kept;
	if (d->fin) {
		uint64_t fo = (uint64_t)(int64_t)(int32_t)(d->fin_seq - base - (uint32_t)hi) + hi;
		s->fin_off = fo;
		if (fo > expect_end) {
			expect_end = fo;
			expect_frame = d->fin_frame;
		}
	}

	/* The stream is the octets from 0 up to the first hole in the union of all segments. */
	seg **by_off = malloc((d->n ? d->n : 1) * sizeof *by_off);
	if (!by_off)
		return false;
	for (size_t i = 0; i < d->n; i++)
		by_off[i] = &d->s[i];
	qsort(by_off, d->n, sizeof *by_off, seg_cmp);
	uint64_t extent = 0;
	for (size_t i = 0; i < d->n; i++) {
		const seg *g = by_off[i];
		if (g->off > extent) {
			s->hole = true;
			s->hole_len = g->off - extent;
			s->hole_frame = g->frame;
			break;
		}
		if (g->off + g->len > extent)
			extent = g->off + g->len;
	}
	free(by_off);
	if (s->hole)
		for (size_t i = 0; i < d->n; i++)
			if (d->s[i].off + d->s[i].len > extent)
				s->beyond += d->s[i].off + d->s[i].len - (d->s[i].off > extent ? d->s[i].off : extent);
	if (!s->hole && extent < expect_end) {
		/* Octets announced (by the snap length cut or by the FIN's position) never captured. */
		s->hole = true;
		s->hole_len = expect_end - extent;
		s->hole_frame = expect_frame;
	}
	if (extent > SIZE_MAX / 2)
		return false;
	s->data = malloc(extent ? (size_t)extent : 1);
	if (!s->data)
		return false;
	s->len = (size_t)extent;

	ivset set = {0};
	size_t pcap = 0;
	bool ok = true;
	for (size_t i = 0; i < d->n && ok; i++)
		ok = place(s, &set, &pcap, &d->s[i], extent);
	free(set.v);
	if (s->npieces)
		qsort(s->pieces, s->npieces, sizeof *s->pieces, piece_cmp);
	return ok;
}

/* ---- the file ---- */

static void free_reader(reader *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (int d = 0; d < 2; d++) {
			for (size_t j = 0; j < r->c[i].log[d].n; j++)
				free(r->c[i].log[d].s[j].data);
			free(r->c[i].log[d].s);
		}
	free(r->c);
	free(r->slot);
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
	char errbuf[PCAP_ERRBUF_SIZE];
	errbuf[0] = '\0';
	pcap_t *pc = pcap_open_offline(path, errbuf);
	if (!pc) {
		snprintf(msg, msgcap, "cannot read '%s' as a capture: %s", path, errbuf[0] ? errbuf : "unknown error");
		return -1;
	}
	int dlt = pcap_datalink(pc);
	if (!dlt_supported(dlt)) {
		const char *name = pcap_datalink_val_to_name(dlt);
		snprintf(msg, msgcap,
			 "'%s' has link type %s (%d); iwspec reads Ethernet, raw IP, Linux cooked (SLL, SLL2) "
			 "and loopback captures",
			 path, name ? name : "unknown", dlt);
		pcap_close(pc);
		return -1;
	}
	iw_pcap_capture *cap = calloc(1, sizeof *cap);
	reader r;
	memset(&r, 0, sizeof r);
	if (!cap) {
		snprintf(msg, msgcap, "out of memory reading '%s'", path);
		pcap_close(pc);
		return -1;
	}
	cap->linktype = dlt;
	cap->linkname = pcap_datalink_val_to_name(dlt);
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		cap->frames++;
		pkt k;
		memset(&k, 0, sizeof k);
		if (!parse_frame(dlt, data, h->caplen, &k)) {
			r.non_tcp++;
			continue;
		}
		add_packet(&r, &k, cap->frames);
		if (r.oom)
			break;
	}
	if (rc == PCAP_ERROR) {
		const char *why = pcap_geterr(pc);
		/* A capture stopped while writing ends in half a record: keep what came before. */
		if (strstr(why, "truncated") && cap->frames > 0) {
			snprintf(cap->warning, sizeof cap->warning,
				 "the file ends inside record %llu (%s); frames after %llu are missing",
				 (unsigned long long)cap->frames + 1, why, (unsigned long long)cap->frames);
		} else {
			snprintf(msg, msgcap, "cannot read '%s' past frame %llu: %s", path,
				 (unsigned long long)cap->frames, why);
			goto fail;
		}
	}
	if (r.oom) {
		snprintf(msg, msgcap, "out of memory reading '%s' at frame %llu", path, (unsigned long long)cap->frames);
		goto fail;
	}
	cap->non_tcp = r.non_tcp;
	cap->conns = calloc(r.n ? r.n : 1, sizeof *cap->conns);
	if (!cap->conns) {
		snprintf(msg, msgcap, "out of memory reading '%s'", path);
		goto fail;
	}
	for (size_t i = 0; i < r.n; i++) {
		cap->conns[i] = r.c[i].pub;
		memset(cap->conns[i].dir, 0, sizeof cap->conns[i].dir);
		cap->nconns = i + 1;
		for (int d = 0; d < 2; d++)
			if (!reassemble(&r.c[i].log[d], &cap->conns[i].dir[d])) {
				snprintf(msg, msgcap, "out of memory reassembling '%s'", path);
				goto fail;
			}
	}
	free_reader(&r);
	pcap_close(pc);
	*out = cap;
	return 0;
fail:
	free_reader(&r);
	iw_pcap_capture_free(cap);
	pcap_close(pc);
	return -1;
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
