/*
 * fuzz_ddp_sink.c - the DDP data sink (suite/engine/ddp_sink.h; D0/D2 §7-§10) run by a script of
 * operations against registered tagged buffers and posted untagged queues, next to a plain
 * model of what the sink must do.
 *
 * Input: [profile][stream][pd][queue mask: bit q enables QN q] then operations until the
 * input ends (at most 256), each [op] + arguments:
 *   0-2 segment     [control][rdmap ctrl][sel][a (4)][b (2)][len (2)][access] + payload
 *   3   register    [stag][flags: 1 other stream, 2 other PD, 4 read, 8 write, 16 high base][base (4)][len (2)]
 *   4   invalidate  [stag]
 *   5   post        [qn][cap (2)]
 *   6   deliver     [qn]
 *   7   check_read  [stag][sel][a (4)][b (2)][len (2)]
 * STags are 0x100 + (octet % 10), so some are never registered.
 *
 * Every buffer sits between guard octets, and a shadow copy holds what it must contain.
 * Invariants, after every operation:
 *  - no guard octet changed: the sink never placed outside a buffer;
 *  - every buffer equals its shadow: a placed segment changed exactly [TO - base, + len) of
 *    its STag's buffer or [MO, + len) of the buffer its MSN selects, and nothing else changed;
 *    a rejected or dropped segment changed nothing (DDP-10.1-01, DDP-9.1-03);
 *  - status and error number are the model's: the checks in the order ddp_sink.h documents
 *    (DV, then T1/T2, stream/PD, T5, T3/T4, access; QN, U5, U2, U3, U4, range bookkeeping);
 *  - after the first error every segment is dropped and nothing is delivered;
 *  - deliveries come in MSN order, once each, only when the L segment is in and every octet
 *    below MO_last + len_last is placed, with that length and the L segment's RsvdULP;
 *  - iw_sink_check_read agrees with the model and never changes the sink.
 */
#include <string.h>

#include "ddp_sink.h"
#include "fuzz.h"
#include "iw_proto.h"

#define GUARD 32
#define GUARD_BYTE 0xA5
#define MAX_BUFS 64
#define MAX_OPS 256
#define MAX_CAP 520
#define NSTAG_VALUES 10

typedef struct fbuf {
	uint8_t *slab;          /* GUARD | cap octets | GUARD */
	uint8_t *mem;
	uint32_t cap;
	uint8_t *shadow;
	uint8_t *placed;        /* 1 per octet placed (untagged) */
	bool last_seen;
	uint32_t msg_len;
	uint8_t rsvdulp[5];
} fbuf;

typedef struct mstag {
	bool known, valid;
	int buf;                /* index into bufs */
	uint64_t base, length;
	uint32_t stream, pd;
	unsigned access;
} mstag;

typedef struct mqueue {
	bool valid;
	uint32_t next_msn;
	int fifo[IW_SINK_MAX_POSTED];
	unsigned head, count;
} mqueue;

typedef struct model {
	fbuf bufs[MAX_BUFS];
	int nbufs;
	mstag stags[NSTAG_VALUES];
	int nknown;
	mqueue q[IW_SINK_MAX_QUEUES];
	bool failed;
	uint32_t stream, pd;
	uint8_t ddp_version;
} model;

static iw_ddp_sink sink;
static model M;

static int new_buf(uint32_t cap)
{
	if (M.nbufs >= MAX_BUFS)
		return -1;
	fbuf *b = &M.bufs[M.nbufs];
	memset(b, 0, sizeof *b);
	b->slab = malloc(cap + 2 * GUARD);
	b->shadow = malloc(cap ? cap : 1);
	b->placed = calloc(cap ? cap : 1, 1);
	FZ_CHECK(b->slab && b->shadow && b->placed, "out of memory");
	memset(b->slab, GUARD_BYTE, cap + 2 * GUARD);
	b->mem = b->slab + GUARD;
	b->cap = cap;
	for (uint32_t i = 0; i < cap; i++)
		b->mem[i] = (uint8_t)(0x5A ^ i ^ (uint32_t)M.nbufs);
	memcpy(b->shadow, b->mem, cap);
	return M.nbufs++;
}

/* After every operation, every buffer of the script: a memcmp each first, the octet by octet
 * reading (for the message) only when one differs. Octet by octet always, through up to 64
 * buffers after each of up to 256 operations, was more than half of this target's time. */
static void verify_all(const char *after)
{
	static uint8_t guard[GUARD];
	if (guard[0] != GUARD_BYTE)
		memset(guard, GUARD_BYTE, sizeof guard);
	for (int i = 0; i < M.nbufs; i++) {
		const fbuf *b = &M.bufs[i];
		if (!memcmp(b->slab, guard, GUARD) && !memcmp(b->slab + GUARD + b->cap, guard, GUARD) &&
		    !memcmp(b->mem, b->shadow, b->cap))
			continue;
		for (size_t g = 0; g < GUARD; g++) {
			FZ_CHECK(b->slab[g] == GUARD_BYTE, "after %s: guard octet %zu before buffer %d overwritten", after,
				 GUARD - g, i);
			FZ_CHECK(b->slab[GUARD + b->cap + g] == GUARD_BYTE,
				 "after %s: guard octet %zu after buffer %d (%u octets) overwritten", after, g, i, b->cap);
		}
		for (uint32_t k = 0; k < b->cap; k++)
			FZ_CHECK(b->mem[k] == b->shadow[k], "after %s: buffer %d octet %u is 0x%02x, expected 0x%02x", after,
				 i, k, b->mem[k], b->shadow[k]);
	}
}

static void free_all(void)
{
	for (int i = 0; i < M.nbufs; i++) {
		free(M.bufs[i].slab);
		free(M.bufs[i].shadow);
		free(M.bufs[i].placed);
	}
	M.nbufs = 0;
}

/* The expected outcome of a segment: status, and the code on error. */
typedef struct outcome {
	enum iw_sink_status st;
	int layer, etype, ecode;
	int buf;                /* buffer written (PLACED with len > 0), -1 none */
	size_t at;
} outcome;

static outcome err(int layer, int etype, int ecode)
{
	outcome o = { IW_SINK_ERROR, layer, etype, ecode, -1, 0 };
	return o;
}

/* Disjoint runs of placed octets if [lo, hi) were placed too (touching runs merge). */
static unsigned runs_with(const fbuf *b, uint32_t lo, uint32_t hi)
{
	unsigned n = 0;
	bool in = false;
	for (uint32_t i = 0; i < b->cap; i++) {
		bool p = b->placed[i] || (i >= lo && i < hi);
		if (p && !in)
			n++;
		in = p;
	}
	return n;
}

static outcome expect_segment(const iw_ddp_hdr *h, size_t len, unsigned access)
{
	outcome ok = { IW_SINK_PLACED, -1, -1, -1, -1, 0 };
	if (M.failed) {
		ok.st = IW_SINK_DROPPED;
		return ok;
	}
	if (h->dv != M.ddp_version)
		return h->tagged ? err(IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_T_VERSION)
				 : err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_U_VERSION);
	if (h->tagged) {
		if (len == 0)
			return ok;
		int64_t si = (int64_t)h->stag - 0x100;   /* an STag from 0x80000000 up overflowed an int */
		const mstag *t = si >= 0 && si < NSTAG_VALUES ? &M.stags[si] : NULL;
		if (!t || !t->known || !t->valid)
			return err(IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG);
		if (t->pd != M.pd || t->stream != M.stream)
			return err(IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_STAG_NOT_ASSOC);
		if (h->to + (uint64_t)len < h->to)
			return err(IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_TO_WRAP);
		if (h->to < t->base || h->to - t->base >= t->length || h->to - t->base + len > t->length)
			return err(IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS);
		if (access && (t->access & access) != access)
			return err(IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_ACCESS);
		ok.buf = t->buf;
		ok.at = (size_t)(h->to - t->base);
		return ok;
	}
	if (h->qn >= IW_SINK_MAX_QUEUES || !M.q[h->qn].valid)
		return err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN);
	const mqueue *q = &M.q[h->qn];
	uint32_t k = h->msn - q->next_msn;
	if (k >= q->count)
		return (int32_t)k < 0 ? err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_MSN_RANGE)
				      : err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_MSN_NO_BUFFER);
	int bi = q->fifo[(q->head + k) % IW_SINK_MAX_POSTED];
	const fbuf *b = &M.bufs[bi];
	if (len == 0) {
		if (h->mo > b->cap)
			return err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_MO);
	} else {
		if (h->mo >= b->cap)
			return err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_MO);
		if ((uint64_t)h->mo + len > b->cap)
			return err(IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_TOO_LONG);
		if (runs_with(b, h->mo, h->mo + (uint32_t)len) > IW_SINK_MAX_RANGES)
			return err(IW_LAYER_DDP, IW_DDP_ET_CATASTROPHIC, IW_DDP_EC_CATASTROPHIC);
	}
	ok.buf = bi;
	ok.at = h->mo;
	return ok;
}

static uint8_t payload[MAX_CAP + 200];

static void op_segment(fz *f)
{
	uint8_t c = fz_u8(f);
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = c & IW_DDP_T;
	h.last = c & IW_DDP_L;
	h.rsvd = (uint8_t)((c & IW_DDP_RSVD_MASK) >> 2);
	h.dv = c & IW_DDP_DV_MASK;
	h.rsvdulp[0] = fz_u8(f);
	uint8_t sel = fz_u8(f);
	uint32_t a = fz_u32(f);
	uint16_t b = fz_u16(f);
	size_t len = fz_u16(f) % (MAX_CAP + 100);
	uint8_t acc = fz_u8(f);
	unsigned access = acc & (IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE);
	size_t got;
	const uint8_t *src = fz_take(f, len, &got);
	memcpy(payload, src, got);
	for (size_t i = got; i < len; i++)
		payload[i] = (uint8_t)(i * 7 + 1);
	if (h.tagged) {
		int si = sel % NSTAG_VALUES;
		h.stag = 0x100u + (uint32_t)si;
		uint64_t base = M.stags[si].known ? M.stags[si].base : 0;
		switch ((sel >> 4) & 3) {
		case 0: h.to = base + b; break;
		case 1: h.to = base - (b & 0xFF); break;
		case 2: h.to = UINT64_MAX - b; break;
		default: h.to = (uint64_t)a << 32 | b; break;
		}
		if (sel & 0x80)
			h.stag = a;     /* any STag at all */
	} else {
		h.qn = sel % (IW_SINK_MAX_QUEUES + 1);
		uint32_t next = h.qn < IW_SINK_MAX_QUEUES ? M.q[h.qn].next_msn : 1;
		h.msn = (sel & 0x80) ? a : next + (uint32_t)(int32_t)(int8_t)(a & 0xFF);
		h.mo = (sel & 0x40) ? a : b % (MAX_CAP + 40);
		memcpy(h.rsvdulp + 1, &a, 4);
	}
	outcome want = expect_segment(&h, len, access);
	iw_sink_result r;
	iw_sink_segment(&sink, &h, payload, len, access, &r);
	FZ_CHECK(r.status == want.st, "segment (T=%d QN %u MSN %u MO %u STag 0x%x TO 0x%llx len %zu): status %d, "
		 "model %d (%s: %s)", h.tagged, h.qn, h.msn, h.mo, h.stag, (unsigned long long)h.to, len, r.status,
		 want.st, r.req ? r.req : "-", r.detail);
	if (r.status == IW_SINK_ERROR) {
		FZ_CHECK(r.layer == want.layer && r.etype == want.etype && r.ecode == want.ecode,
			 "error %d/%d/0x%02x (%s), model %d/%d/0x%02x", r.layer, r.etype, r.ecode, r.req, want.layer,
			 want.etype, want.ecode);
		FZ_CHECK(r.req && r.req[0] && r.detail[0], "error without requirement or detail");
		M.failed = true;
	} else if (r.status == IW_SINK_PLACED) {
		FZ_CHECK(r.tagged_last == (h.tagged && h.last), "tagged_last %d", r.tagged_last);
		if (want.buf >= 0) {
			fbuf *fb = &M.bufs[want.buf];
			if (len)
				memcpy(fb->shadow + want.at, payload, len);
			if (!h.tagged) {
				memset(fb->placed + want.at, 1, len);
				if (h.last) {
					fb->last_seen = true;
					fb->msg_len = h.mo + (uint32_t)len;
					memcpy(fb->rsvdulp, h.rsvdulp, 5);
				}
			}
		}
	}
	verify_all("a segment");
}

static void op_register(fz *f)
{
	int si = fz_u8(f) % NSTAG_VALUES;
	uint8_t fl = fz_u8(f);
	uint32_t base32 = fz_u32(f);
	uint32_t len = fz_u16(f) % MAX_CAP;
	iw_tagged_buf tb;
	memset(&tb, 0, sizeof tb);
	tb.stag = 0x100u + (uint32_t)si;
	tb.base_to = (fl & 16) ? UINT64_MAX - base32 : base32;
	tb.length = len;
	tb.stream = M.stream + ((fl & 1) ? 1 : 0);
	tb.pd = M.pd + ((fl & 2) ? 1 : 0);
	tb.access = ((fl & 4) ? IW_ACCESS_REMOTE_READ : 0) | ((fl & 8) ? IW_ACCESS_REMOTE_WRITE : 0);
	bool wraps = tb.length > UINT64_MAX - tb.base_to;
	bool full = !M.stags[si].known && M.nknown >= IW_SINK_MAX_STAGS;
	int bi = wraps || full ? -1 : new_buf(len);
	if (bi < 0 && !wraps && !full)
		return;         /* out of script buffers: skip */
	tb.mem = bi >= 0 ? M.bufs[bi].mem : NULL;
	if (wraps) {
		uint8_t dummy;
		tb.mem = &dummy;    /* never used: the registration must fail */
	}
	iw_err e;
	int rc = iw_sink_register(&sink, &tb, &e);
	if (wraps) {
		FZ_CHECK(rc == IW_EINVAL, "registration wrapping 2^64 accepted");
		return;
	}
	if (full) {
		FZ_CHECK(rc == IW_ENOSPC, "registration into a full table: rc %d", rc);
		return;
	}
	FZ_CHECK(rc == IW_OK, "registration rejected: %s", e.msg);
	mstag *t = &M.stags[si];
	if (!t->known)
		M.nknown++;
	t->known = t->valid = true;
	t->buf = bi;
	t->base = tb.base_to;
	t->length = tb.length;
	t->stream = tb.stream;
	t->pd = tb.pd;
	t->access = tb.access;
	const iw_tagged_buf *fb = iw_sink_find(&sink, tb.stag);
	FZ_CHECK(fb && fb->mem == tb.mem && fb->valid && fb->length == tb.length, "find after register");
}

static void op_invalidate(fz *f)
{
	int si = fz_u8(f) % NSTAG_VALUES;
	int rc = iw_sink_invalidate(&sink, 0x100u + (uint32_t)si, NULL);
	/* Only an STag of this stream and PD can be invalidated here (RFC 5040 §7.2 item 5). */
	const mstag *t = &M.stags[si];
	bool ours = t->known && t->stream == M.stream && t->pd == M.pd;
	FZ_CHECK((rc == IW_OK) == ours, "invalidate of STag 0x%x: rc %d, known %d, of this stream and PD %d", 0x100 + si,
		 rc, t->known, ours);
	if (ours)
		M.stags[si].valid = false;
	verify_all("invalidate");
}

static void op_post(fz *f)
{
	uint32_t qn = fz_u8(f) % (IW_SINK_MAX_QUEUES + 1);
	uint32_t cap = fz_u16(f) % MAX_CAP;
	if (M.nbufs >= MAX_BUFS)
		return;
	bool valid = qn < IW_SINK_MAX_QUEUES && M.q[qn].valid;
	bool full = valid && M.q[qn].count >= IW_SINK_MAX_POSTED;
	int bi = new_buf(cap);
	int rc = iw_sink_post(&sink, qn, M.bufs[bi].mem, cap, NULL);
	if (qn >= IW_SINK_MAX_QUEUES) {
		FZ_CHECK(rc == IW_EINVAL, "post on QN %u: rc %d", qn, rc);
	} else if (!valid) {
		FZ_CHECK(rc == IW_ESTATE, "post on disabled QN %u: rc %d", qn, rc);
	} else if (full) {
		FZ_CHECK(rc == IW_ENOSPC, "post on a full QN %u: rc %d", qn, rc);
	} else {
		FZ_CHECK(rc == IW_OK, "post on QN %u: rc %d", qn, rc);
		mqueue *q = &M.q[qn];
		q->fifo[(q->head + q->count) % IW_SINK_MAX_POSTED] = bi;
		q->count++;
	}
}

static void op_deliver(fz *f)
{
	uint32_t qn = fz_u8(f) % (IW_SINK_MAX_QUEUES + 1);
	bool want = false;
	int bi = -1;
	if (!M.failed && qn < IW_SINK_MAX_QUEUES && M.q[qn].valid && M.q[qn].count) {
		bi = M.q[qn].fifo[M.q[qn].head];
		const fbuf *b = &M.bufs[bi];
		want = b->last_seen;
		for (uint32_t i = 0; want && i < b->msg_len; i++)
			want = b->placed[i];
	}
	iw_sink_delivery d;
	bool got = iw_sink_deliver(&sink, qn, &d);
	FZ_CHECK(got == want, "deliver on QN %u: %d, model %d", qn, got, want);
	if (got) {
		mqueue *q = &M.q[qn];
		const fbuf *b = &M.bufs[bi];
		FZ_CHECK(d.qn == qn && d.msn == q->next_msn, "delivered QN %u MSN %u, expected MSN %u", d.qn, d.msn,
			 q->next_msn);
		FZ_CHECK(d.data == b->mem && d.len == b->msg_len && d.len <= b->cap, "delivered %u octets at %p",
			 d.len, (const void *)d.data);
		FZ_CHECK(memcmp(d.rsvdulp, b->rsvdulp, 5) == 0, "delivered RsvdULP is not the L segment's");
		q->head = (q->head + 1) % IW_SINK_MAX_POSTED;
		q->count--;
		q->next_msn++;
	}
	verify_all("deliver");
}

static void op_check_read(fz *f)
{
	int si = fz_u8(f) % NSTAG_VALUES;
	uint8_t sel = fz_u8(f);
	uint32_t a = fz_u32(f);
	uint16_t b = fz_u16(f);
	uint32_t len = fz_u16(f) % (MAX_CAP + 100);
	if (sel & 0x80)
		len = a;
	const mstag *t = &M.stags[si];
	uint64_t base = t->known ? t->base : 0;
	uint64_t to = (sel & 1) ? UINT64_MAX - b : (sel & 2) ? base - (b & 0xFF) : base + b;
	int ecode = -1;
	if (len == 0)
		ecode = -1;
	else if (!t->known || !t->valid)
		ecode = IW_RDMAP_EC_INVALID_STAG;
	else if (t->pd != M.pd || t->stream != M.stream)
		ecode = IW_RDMAP_EC_STAG_NOT_ASSOC;
	else if (to + len < to)
		ecode = IW_RDMAP_EC_TO_WRAP;
	else if (to < t->base || to - t->base >= t->length || to - t->base + len > t->length)
		ecode = IW_RDMAP_EC_BASE_BOUNDS;
	else if (!(t->access & IW_ACCESS_REMOTE_READ))
		ecode = IW_RDMAP_EC_ACCESS;
	iw_sink_result r;
	bool ok = iw_sink_check_read(&sink, 0x100u + (uint32_t)si, to, len, &r);
	FZ_CHECK(ok == (ecode < 0), "check_read STag 0x%x TO 0x%llx len %u: %d, model code %d (%s)", 0x100 + si,
		 (unsigned long long)to, len, ok, ecode, r.detail);
	if (!ok)
		FZ_CHECK(r.layer == IW_LAYER_RDMAP && r.etype == IW_RDMAP_ET_PROTECTION && r.ecode == ecode,
			 "check_read code %d/%d/0x%02x, model 0/1/0x%02x", r.layer, r.etype, r.ecode, ecode);
	FZ_CHECK(sink.failed == M.failed, "check_read changed the sink's failed state");
}

int iw_fuzz_ddp_sink(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	const iw_profile *p = fz_profile(&f);
	memset(&M, 0, sizeof M);
	M.stream = fz_u8(&f);
	M.pd = fz_u8(&f);
	M.ddp_version = p->ddp_version;
	iw_sink_init(&sink, p, M.stream, M.pd);
	uint8_t qmask = fz_u8(&f);
	for (uint32_t q = 0; q < IW_SINK_MAX_QUEUES; q++) {
		M.q[q].next_msn = 1;    /* DDP-6.3-09 */
		if (qmask & (1u << q)) {
			FZ_CHECK(iw_sink_enable_queue(&sink, q, NULL) == IW_OK, "enable QN %u", q);
			M.q[q].valid = true;
		}
	}
	FZ_CHECK(iw_sink_enable_queue(&sink, IW_SINK_MAX_QUEUES, NULL) == IW_EINVAL, "QN %d enabled",
		 IW_SINK_MAX_QUEUES);
	for (int n = 0; f.n && n < MAX_OPS; n++) {
		switch (fz_u8(&f) % 8) {
		case 0: case 1: case 2: op_segment(&f); break;
		case 3: op_register(&f); break;
		case 4: op_invalidate(&f); break;
		case 5: op_post(&f); break;
		case 6: op_deliver(&f); break;
		default: op_check_read(&f); break;
		}
		FZ_CHECK(sink.failed == M.failed, "sink failed %d, model %d", sink.failed, M.failed);
	}
	verify_all("the script");
	free_all();
	return 0;
}
