/*
 * tcp_conns.c - connection tracking for the capture reader: a hash of open connections, the
 * order of their activity, the ended ones waiting out their linger, and tombstones (see
 * tcp_conns.h).
 */
#include "tcp_conns.h"

#include <stdlib.h>
#include <string.h>

#include "tcp_reasm.h"

enum { TH_SYN = 0x02, TH_RST = 0x04, TH_ACK = 0x10 };

typedef struct conn {
	uint64_t number;
	int family;
	uint8_t addr[2][16];        /* [0] the client */
	uint16_t port[2];
	bool handshake;
	uint64_t first_frame;
	iw_tcp_reasm rx[2];         /* [0] client to server */
	bool ended;
	uint64_t end_frame;
	struct conn *hnext;         /* hash chain */
	struct conn *prev, *next;   /* by activity, least recent first */
	struct conn *eprev, *enext; /* ended, in the order they ended */
} conn;

typedef struct tomb {
	int family;
	uint8_t addr[2][16];
	uint16_t port[2];
	struct tomb *hnext;
	struct tomb *prev, *next;   /* oldest first */
} tomb;

struct iw_tcp_table {
	iw_pcap_limits lim;
	iw_pcap_sink sink;
	iw_pcap_info *info;
	iw_reasm_budget budget;
	conn **bucket;
	size_t nbucket, nopen;
	conn *lru_head, *lru_tail;
	conn *end_head, *end_tail;
	tomb **tbucket;
	size_t ntbucket, ntomb;
	tomb *tomb_head, *tomb_tail;
	conn *cur;                  /* the current packet's connection: never handed out for room */
	uint64_t frame;             /* the frame being read */
	bool nomem;
};

static size_t alen(int family)
{
	return family == 6 ? 16 : 4;
}

/* Symmetric in the two ends, so both directions find the same chain. */
static size_t tuple_hash(int family, const uint8_t *a, uint16_t pa, const uint8_t *b, uint16_t pb)
{
	uint64_t h1 = 1469598103934665603ull, h2 = 1469598103934665603ull;
	for (size_t i = 0; i < alen(family); i++) {
		h1 = (h1 ^ a[i]) * 1099511628211ull;
		h2 = (h2 ^ b[i]) * 1099511628211ull;
	}
	h1 = (h1 ^ pa) * 1099511628211ull;
	h2 = (h2 ^ pb) * 1099511628211ull;
	uint64_t h = h1 ^ h2 ^ (uint64_t)family;
	return (size_t)(h ^ h >> 29);
}

static size_t pkt_hash(const iw_tcp_pkt *k)
{
	return tuple_hash(k->family, k->src, k->sport, k->dst, k->dport);
}

static bool same_end(int family, const uint8_t addr[16], uint16_t port, const uint8_t *a, uint16_t p)
{
	return port == p && !memcmp(addr, a, alen(family));
}

/* The side of the connection (0 client, 1 server) that sent k, or -1 when k is another tuple's. */
static int side_of(int family, const uint8_t addr[2][16], const uint16_t port[2], const iw_tcp_pkt *k)
{
	if (family != k->family)
		return -1;
	if (same_end(family, addr[0], port[0], k->src, k->sport) && same_end(family, addr[1], port[1], k->dst, k->dport))
		return 0;
	if (same_end(family, addr[1], port[1], k->src, k->sport) && same_end(family, addr[0], port[0], k->dst, k->dport))
		return 1;
	return -1;
}

/* ---- open connections ---- */

static conn *find_conn(const iw_tcp_table *t, const iw_tcp_pkt *k)
{
	for (conn *c = t->bucket[pkt_hash(k) & (t->nbucket - 1)]; c; c = c->hnext)
		if (side_of(c->family, c->addr, c->port, k) >= 0)
			return c;
	return NULL;
}

static size_t conn_hash(const conn *c)
{
	return tuple_hash(c->family, c->addr[0], c->port[0], c->addr[1], c->port[1]);
}

/* Doubles the chains when there are more connections than chains; keeps the old ones when
 * memory is short (the chains just get longer). */
static void grow_buckets(iw_tcp_table *t)
{
	if (t->nopen <= t->nbucket)
		return;
	size_t n = t->nbucket * 2;
	conn **b = calloc(n, sizeof *b);
	if (!b)
		return;
	for (size_t i = 0; i < t->nbucket; i++)
		for (conn *c = t->bucket[i], *next; c; c = next) {
			next = c->hnext;
			size_t j = conn_hash(c) & (n - 1);
			c->hnext = b[j];
			b[j] = c;
		}
	free(t->bucket);
	t->bucket = b;
	t->nbucket = n;
}

static void hash_remove(iw_tcp_table *t, conn *c)
{
	conn **pp = &t->bucket[conn_hash(c) & (t->nbucket - 1)];
	while (*pp && *pp != c)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = c->hnext;
}

static void lru_remove(iw_tcp_table *t, conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		t->lru_head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		t->lru_tail = c->prev;
	c->prev = c->next = NULL;
}

static void lru_append(iw_tcp_table *t, conn *c)
{
	c->prev = t->lru_tail;
	c->next = NULL;
	if (t->lru_tail)
		t->lru_tail->next = c;
	else
		t->lru_head = c;
	t->lru_tail = c;
}

static void ended_remove(iw_tcp_table *t, conn *c)
{
	if (c->eprev)
		c->eprev->enext = c->enext;
	else
		t->end_head = c->enext;
	if (c->enext)
		c->enext->eprev = c->eprev;
	else
		t->end_tail = c->eprev;
	c->eprev = c->enext = NULL;
}

static void ended_append(iw_tcp_table *t, conn *c)
{
	c->eprev = t->end_tail;
	c->enext = NULL;
	if (t->end_tail)
		t->end_tail->enext = c;
	else
		t->end_head = c;
	t->end_tail = c;
}

/* ---- tombstones ---- */

static size_t tomb_hash(const tomb *b)
{
	return tuple_hash(b->family, b->addr[0], b->port[0], b->addr[1], b->port[1]);
}

static tomb *find_tomb(const iw_tcp_table *t, const iw_tcp_pkt *k)
{
	if (!t->ntbucket)
		return NULL;
	for (tomb *b = t->tbucket[pkt_hash(k) & (t->ntbucket - 1)]; b; b = b->hnext)
		if (side_of(b->family, b->addr, b->port, k) >= 0)
			return b;
	return NULL;
}

static void tomb_unlink(iw_tcp_table *t, tomb *b)
{
	tomb **pp = &t->tbucket[tomb_hash(b) & (t->ntbucket - 1)];
	while (*pp && *pp != b)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = b->hnext;
	if (b->prev)
		b->prev->next = b->next;
	else
		t->tomb_head = b->next;
	if (b->next)
		b->next->prev = b->prev;
	else
		t->tomb_tail = b->prev;
	t->ntomb--;
	free(b);
}

static void grow_tbuckets(iw_tcp_table *t)
{
	if (t->ntbucket && t->ntomb <= t->ntbucket)
		return;
	size_t n = t->ntbucket ? t->ntbucket * 2 : 256;
	tomb **b = calloc(n, sizeof *b);
	if (!b)
		return;
	for (size_t i = 0; i < t->ntbucket; i++)
		for (tomb *x = t->tbucket[i], *next; x; x = next) {
			next = x->hnext;
			size_t j = tomb_hash(x) & (n - 1);
			x->hnext = b[j];
			b[j] = x;
		}
	free(t->tbucket);
	t->tbucket = b;
	t->ntbucket = n;
}

static void add_tomb(iw_tcp_table *t, const conn *c)
{
	if (t->lim.max_conns && t->ntomb >= t->lim.max_conns && t->tomb_head)
		tomb_unlink(t, t->tomb_head);
	grow_tbuckets(t);
	tomb *b = t->ntbucket ? calloc(1, sizeof *b) : NULL;
	if (!b)
		return;         /* without it, later segments start a connection: reported, not lost */
	b->family = c->family;
	memcpy(b->addr, c->addr, sizeof b->addr);
	memcpy(b->port, c->port, sizeof b->port);
	size_t j = tomb_hash(b) & (t->ntbucket - 1);
	b->hnext = t->tbucket[j];
	t->tbucket[j] = b;
	b->prev = t->tomb_tail;
	if (t->tomb_tail)
		t->tomb_tail->next = b;
	else
		t->tomb_head = b;
	t->tomb_tail = b;
	t->ntomb++;
}

/* ---- handing out ---- */

static void hand_out(iw_tcp_table *t, conn *c, enum iw_pcap_why why, bool leave_tomb)
{
	hash_remove(t, c);
	lru_remove(t, c);
	if (c->ended)
		ended_remove(t, c);
	t->nopen--;
	iw_pcap_conn pub;
	memset(&pub, 0, sizeof pub);
	pub.number = c->number;
	pub.family = c->family;
	memcpy(pub.addr, c->addr, sizeof pub.addr);
	memcpy(pub.port, c->port, sizeof pub.port);
	pub.handshake = c->handshake;
	pub.first_frame = c->first_frame;
	for (int d = 0; d < 2; d++) {
		iw_reasm_finish(&c->rx[d]);
		pub.dir[d] = c->rx[d].s;
	}
	iw_pcap_end end = {.why = why, .frame = why == IW_PCAP_END_CLOSED ? c->end_frame : t->frame};
	if (why == IW_PCAP_END_EVICTED)
		end.limit = t->lim.max_conns;
	if (why == IW_PCAP_END_OVER_HELD)
		end.limit = t->lim.max_held;
	if (why == IW_PCAP_END_EVICTED || why == IW_PCAP_END_OVER_HELD)
		t->info->evicted++;
	if (t->sink.conn)
		t->sink.conn(t->sink.ctx, &pub, &end);
	for (int d = 0; d < 2; d++) {
		c->rx[d].s.data = pub.dir[d].data;      /* NULL when the sink took them */
		c->rx[d].s.pieces = pub.dir[d].pieces;
		iw_reasm_free(&c->rx[d]);
	}
	if (leave_tomb)
		add_tomb(t, c);
	free(c);
}

/* The connection to hand out for room: an ended one first, else the least recently active;
 * never the current packet's. */
static conn *victim(const iw_tcp_table *t)
{
	for (conn *c = t->end_head; c; c = c->enext)
		if (c != t->cur)
			return c;
	for (conn *c = t->lru_head; c; c = c->next)
		if (c != t->cur)
			return c;
	return NULL;
}

static void evict(iw_tcp_table *t, conn *c, enum iw_pcap_why why)
{
	hand_out(t, c, c->ended ? IW_PCAP_END_CLOSED : why, true);
}

static bool make_room(void *ctx, size_t n)
{
	iw_tcp_table *t = ctx;
	iw_reasm_budget *b = &t->budget;
	while (n > b->limit || b->held > b->limit - n) {
		conn *c = victim(t);
		if (!c)
			return false;
		evict(t, c, IW_PCAP_END_OVER_HELD);
	}
	return true;
}

/* ---- the table ---- */

iw_tcp_table *iw_tcp_table_new(const iw_pcap_limits *lim, const iw_pcap_sink *sink, iw_pcap_info *info)
{
	iw_tcp_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->lim = *lim;
	t->sink = *sink;
	t->info = info;
	t->nbucket = 256;
	t->bucket = calloc(t->nbucket, sizeof *t->bucket);
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	t->budget.limit = lim->max_held;
	t->budget.make_room = make_room;
	t->budget.ctx = t;
	return t;
}

static conn *new_conn(iw_tcp_table *t, const iw_tcp_pkt *k, uint64_t frame)
{
	conn *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	/* The client sent the SYN; a SYN-ACK comes from the server; otherwise the first sender. */
	int cs = (k->flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK) ? 1 : 0;
	c->number = ++t->info->conns;
	c->family = k->family;
	memcpy(c->addr[cs], k->src, alen(k->family));
	memcpy(c->addr[!cs], k->dst, alen(k->family));
	c->port[cs] = k->sport;
	c->port[!cs] = k->dport;
	c->first_frame = frame;
	for (int d = 0; d < 2; d++)
		iw_reasm_init(&c->rx[d], &t->budget);
	t->nopen++;
	if (t->nopen > t->info->peak_open)
		t->info->peak_open = t->nopen;
	grow_buckets(t);
	size_t j = conn_hash(c) & (t->nbucket - 1);
	c->hnext = t->bucket[j];
	t->bucket[j] = c;
	lru_append(t, c);
	return c;
}

static void expire(iw_tcp_table *t)
{
	if (t->lim.linger == UINT64_MAX)
		return;
	while (t->end_head && t->frame - t->end_head->end_frame >= t->lim.linger)
		hand_out(t, t->end_head, IW_PCAP_END_CLOSED, true);
}

void iw_tcp_table_packet(iw_tcp_table *t, const iw_tcp_pkt *k, uint64_t frame)
{
	t->frame = frame;
	conn *c = find_conn(t, k);
	bool pure_syn = (k->flags & (TH_SYN | TH_ACK)) == TH_SYN;
	if (c && pure_syn) {
		/* A new SYN after the connection ended, or with another ISN once data flowed: a new
		 * connection on a reused port pair. A repeated SYN is a retransmission. */
		const iw_tcp_reasm *cl = &c->rx[side_of(c->family, c->addr, c->port, k)];
		bool flowed = iw_reasm_has_data(&c->rx[0]) || iw_reasm_has_data(&c->rx[1]);
		if (c->ended || (cl->s.syn ? iw_reasm_syn_differs(cl, k->seq) : flowed)) {
			hand_out(t, c, c->ended ? IW_PCAP_END_CLOSED : IW_PCAP_END_REUSED, false);
			c = NULL;
		}
	}
	if (!c) {
		tomb *b = find_tomb(t, k);
		if (b && !pure_syn) {
			t->info->late++;
			expire(t);
			return;
		}
		if (b)
			tomb_unlink(t, b);
		if (t->lim.max_conns && t->nopen >= t->lim.max_conns) {
			conn *v = victim(t);
			if (v)
				evict(t, v, IW_PCAP_END_EVICTED);
		}
		c = new_conn(t, k, frame);
		if (!c) {
			t->nomem = true;
			return;
		}
	}
	int side = side_of(c->family, c->addr, c->port, k);
	if (pure_syn && side == 0)
		c->handshake = true;
	t->cur = c;
	iw_reasm_add(&c->rx[side], k->flags, k->seq, k->payload, k->len, k->missing, frame);
	t->cur = NULL;
	lru_remove(t, c);
	lru_append(t, c);
	if (!c->ended && ((k->flags & TH_RST) || (c->rx[0].s.fin && c->rx[1].s.fin))) {
		c->ended = true;
		c->end_frame = frame;
		ended_append(t, c);
	}
	if (t->budget.peak > t->info->peak_held)
		t->info->peak_held = t->budget.peak;
	expire(t);
}

bool iw_tcp_table_nomem(const iw_tcp_table *t)
{
	return t->nomem;
}

static int by_number(const void *a, const void *b)
{
	const conn *x = *(const conn *const *)a, *y = *(const conn *const *)b;
	return x->number < y->number ? -1 : x->number > y->number;
}

void iw_tcp_table_end(iw_tcp_table *t)
{
	size_t n = t->nopen, k = 0;
	conn **all = malloc((n ? n : 1) * sizeof *all);
	if (all) {
		for (conn *c = t->lru_head; c; c = c->next)
			all[k++] = c;
		qsort(all, k, sizeof *all, by_number);
		for (size_t i = 0; i < k; i++)
			hand_out(t, all[i], all[i]->ended ? IW_PCAP_END_CLOSED : IW_PCAP_END_CAPTURE, false);
		free(all);
	}
	/* Without room to sort: in the order of their activity. */
	while (t->lru_head)
		hand_out(t, t->lru_head, t->lru_head->ended ? IW_PCAP_END_CLOSED : IW_PCAP_END_CAPTURE, false);
	if (t->budget.peak > t->info->peak_held)
		t->info->peak_held = t->budget.peak;
}

void iw_tcp_table_free(iw_tcp_table *t)
{
	if (!t)
		return;
	for (conn *c = t->lru_head, *next; c; c = next) {
		next = c->next;
		for (int d = 0; d < 2; d++)
			iw_reasm_free(&c->rx[d]);
		free(c);
	}
	for (tomb *b = t->tomb_head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t->tbucket);
	free(t->bucket);
	free(t);
}
