/*
 * ddp_sink.c - the DDP data sink: validation before placement, placement, in-order delivery
 * (D0/D2 §7.2-§7.4, §9, §10.3-§10.4). The check order and codes are documented in ddp_sink.h.
 */
#include "ddp_sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iw_proto.h"

/* ---- results ---- */

static void result_reset(iw_sink_result *r)
{
	memset(r, 0, sizeof *r);
	r->layer = r->etype = r->ecode = -1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static bool fail(iw_ddp_sink *s, iw_sink_result *r, int layer, int etype, int ecode, const char *req,
		 const char *fmt, ...)
{
	va_list ap;

	/* DDP-9.1-03: one error and the stream places nothing more. */
	if (s)
		s->failed = true;
	r->status = IW_SINK_ERROR;
	r->layer = layer;
	r->etype = etype;
	r->ecode = ecode;
	r->req = req;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof r->detail, fmt, ap);
	va_end(ap);
	return false;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* ---- setup ---- */

void iw_sink_init(iw_ddp_sink *s, const iw_profile *p, uint32_t stream, uint32_t pd)
{
	/* Everything but the queues' buffer slots (37 KiB of the 38): a slot is only read between
	 * a queue's head and head + count, and iw_sink_post clears a slot as it fills it. The
	 * network fuzzer makes two sinks a run (its model's and the built-in DUT's), and zeroing
	 * the slots was most of a model's set-up. */
	s->profile = p ? p : iw_profile_default();
	s->stream = stream;
	s->pd = pd;
	s->failed = false;
	s->nstags = 0;
	memset(s->stags, 0, sizeof s->stags);
	for (unsigned q = 0; q < IW_SINK_MAX_QUEUES; q++) {
		s->queues[q].valid = false;
		s->queues[q].next_msn = 1;      /* DDP-6.3-09 */
		s->queues[q].head = s->queues[q].count = 0;
	}
}

int iw_sink_enable_queue(iw_ddp_sink *s, uint32_t qn, iw_err *e)
{
	if (qn >= IW_SINK_MAX_QUEUES)
		return iw_errf(e, IW_EINVAL, "QN %u: this sink has queues 0..%u", qn, IW_SINK_MAX_QUEUES - 1);
	s->queues[qn].valid = true;
	return IW_OK;
}

int iw_sink_post(iw_ddp_sink *s, uint32_t qn, uint8_t *mem, uint32_t cap, iw_err *e)
{
	if (qn >= IW_SINK_MAX_QUEUES)
		return iw_errf(e, IW_EINVAL, "QN %u: this sink has queues 0..%u", qn, IW_SINK_MAX_QUEUES - 1);
	iw_untagged_queue *q = &s->queues[qn];
	if (!q->valid)
		return iw_errf(e, IW_ESTATE, "QN %u is not enabled: call iw_sink_enable_queue first", qn);
	if (!mem && cap > 0)
		return iw_errf(e, IW_EINVAL, "a %u-octet buffer with no memory", cap);
	if (q->count >= IW_SINK_MAX_POSTED)
		return iw_errf(e, IW_ENOSPC, "QN %u already has %u buffers posted", qn, IW_SINK_MAX_POSTED);

	iw_untagged_buf *b = &q->bufs[(q->head + q->count) % IW_SINK_MAX_POSTED];
	/* All but the placed ranges, of which only the first nranges are ever read (256 of the
	 * slot's 288 octets: a model posts 10 to 41 buffers as it is made). */
	memset(b, 0, offsetof(iw_untagged_buf, lo));
	b->last_seen = false;
	b->msg_len = 0;
	memset(b->rsvdulp, 0, sizeof b->rsvdulp);
	b->mem = mem;
	b->cap = cap;
	q->count++;
	return IW_OK;
}

static iw_tagged_buf *find_stag(iw_ddp_sink *s, uint32_t stag)
{
	for (size_t i = 0; i < s->nstags; i++)
		if (s->stags[i].stag == stag)
			return &s->stags[i];
	return NULL;
}

const iw_tagged_buf *iw_sink_find(const iw_ddp_sink *s, uint32_t stag)
{
	for (size_t i = 0; i < s->nstags; i++)
		if (s->stags[i].stag == stag)
			return &s->stags[i];
	return NULL;
}

int iw_sink_register(iw_ddp_sink *s, const iw_tagged_buf *b, iw_err *e)
{
	if (b->length > 0 && !b->mem)
		return iw_errf(e, IW_EINVAL, "STag 0x%08x: a %llu-octet buffer with no memory", b->stag,
			       (unsigned long long)b->length);
	/* Keeping base + length representable lets every bounds message name the end TO. */
	if (b->length > UINT64_MAX - b->base_to)
		return iw_errf(e, IW_EINVAL, "STag 0x%08x: base TO 0x%llx + length %llu passes 2^64 - 1",
			       b->stag, (unsigned long long)b->base_to, (unsigned long long)b->length);

	/* Registering a known STag again replaces it: that is how the ULP changes its range
	 * (DDP-10.4-01) or makes it valid again (DDP-10.4-02). */
	iw_tagged_buf *t = find_stag(s, b->stag);
	if (!t) {
		if (s->nstags >= IW_SINK_MAX_STAGS)
			return iw_errf(e, IW_ENOSPC, "STag table full (%d entries)", IW_SINK_MAX_STAGS);
		t = &s->stags[s->nstags++];
	}
	*t = *b;
	t->valid = true;
	return IW_OK;
}

int iw_sink_invalidate(iw_ddp_sink *s, uint32_t stag, iw_err *e)
{
	iw_tagged_buf *t = find_stag(s, stag);
	if (!t)
		return iw_errf(e, IW_EINVAL, "STag 0x%08x is not registered", stag);
	/* RFC 5040 §7.2 item 5: an STag of another stream (or PD) is one this stream cannot
	 * invalidate, not one it may revoke for its owner. */
	if (t->stream != s->stream || t->pd != s->pd)
		return iw_errf(e, IW_EINVAL, "STag 0x%08x is not associated with this stream", stag);
	t->valid = false;
	return IW_OK;
}

/* ---- tagged ---- */

static bool tagged_segment(iw_ddp_sink *s, const iw_ddp_hdr *h, const uint8_t *payload, size_t len,
			   unsigned access, iw_sink_result *r)
{
	if (len == 0) {
		/* DDP-7.2-09/10: only control and RsvdULP matter in a zero-length tagged segment. */
		r->status = IW_SINK_PLACED;
		r->req = "DDP-7.2-10";
		snprintf(r->detail, sizeof r->detail, "zero-length tagged segment: STag 0x%08x and TO 0x%llx "
			 "not checked", h->stag, (unsigned long long)h->to);
		r->tagged_last = h->last;
		return true;
	}

	iw_tagged_buf *b = find_stag(s, h->stag);
	if (!b)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG, "DDP-9.1-T1",
			    "STag 0x%08x is not registered on this stream", h->stag);
	if (!b->valid)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG, "DDP-9.1-T2",
			    "STag 0x%08x has been invalidated: no buffer allows placement", h->stag);
	if (b->pd != s->pd)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_STAG_NOT_ASSOC, "DDP-10.3-01",
			    "STag 0x%08x belongs to protection domain %u, this stream to %u", h->stag, b->pd, s->pd);
	if (b->stream != s->stream)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_STAG_NOT_ASSOC, "DDP-10.3-02",
			    "STag 0x%08x is bound to DDP stream %u, the segment arrived on stream %u", h->stag,
			    b->stream, s->stream);

	unsigned long long to = h->to, base = b->base_to, end = b->base_to + b->length;
	/* T5 before the bounds checks: a wrapped sum would otherwise pass for a small end (A28). */
	if ((uint64_t)len > UINT64_MAX - h->to)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_TO_WRAP, "DDP-9.1-T5",
			    "TO 0x%llx + %zu octets wraps past 2^64 (the 64-bit sum is 0x%llx)", to, len,
			    (unsigned long long)(h->to + (uint64_t)len));
	if (h->to < b->base_to)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS, "DDP-9.1-T3",
			    "TO 0x%llx is %llu octet%s below the base TO 0x%llx of STag 0x%08x", to, base - to,
			    plural(base - to), base, h->stag);
	if (h->to >= end)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS, "DDP-9.1-T3",
			    "TO 0x%llx is at or past the buffer end 0x%llx (base 0x%llx + %llu octets) of STag "
			    "0x%08x", to, end, base, (unsigned long long)b->length, h->stag);
	if (h->to + len > end)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS, "DDP-9.1-T4",
			    "TO 0x%llx+%zu octets ends %llu octet%s past the buffer end 0x%llx of STag 0x%08x",
			    to, len, to + len - end, plural(to + len - end), end, h->stag);
	if (access && (b->access & access) != access)
		return fail(s, r, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_ACCESS, "ARCH-2.2-F1",
			    "STag 0x%08x does not grant remote %s access", h->stag,
			    (access & ~b->access & IW_ACCESS_REMOTE_WRITE) ? "write" : "read");

	/* DDP-10.1-01: every check passed, only now does memory change. */
	memcpy(b->mem + (h->to - b->base_to), payload, len);
	r->status = IW_SINK_PLACED;
	r->req = "DDP-10.1-01";
	snprintf(r->detail, sizeof r->detail, "%zu octet%s placed at TO 0x%llx of STag 0x%08x", len,
		 plural(len), to, h->stag);
	r->tagged_last = h->last;
	return true;
}

/* ---- untagged ---- */

/* Merges [lo, hi) into b's placed ranges. Fails (changing nothing) when the result would need
 * more than IW_SINK_MAX_RANGES disjoint ranges. */
static bool ranges_add(iw_untagged_buf *b, uint32_t lo, uint32_t hi)
{
	uint32_t nlo[IW_SINK_MAX_RANGES + 1], nhi[IW_SINK_MAX_RANGES + 1];
	uint32_t n = 0, i = 0;

	if (lo == hi)
		return true;
	while (i < b->nranges && b->hi[i] < lo) {
		nlo[n] = b->lo[i];
		nhi[n++] = b->hi[i++];
	}
	/* Touching ranges merge too ([0,10) + [10,20) = [0,20)), so completeness is one range. */
	while (i < b->nranges && b->lo[i] <= hi) {
		if (b->lo[i] < lo)
			lo = b->lo[i];
		if (b->hi[i] > hi)
			hi = b->hi[i];
		i++;
	}
	nlo[n] = lo;
	nhi[n++] = hi;
	while (i < b->nranges) {
		if (n >= IW_SINK_MAX_RANGES)
			return false;
		nlo[n] = b->lo[i];
		nhi[n++] = b->hi[i++];
	}
	if (n > IW_SINK_MAX_RANGES)
		return false;
	memcpy(b->lo, nlo, n * sizeof nlo[0]);
	memcpy(b->hi, nhi, n * sizeof nhi[0]);
	b->nranges = n;
	return true;
}

static void describe_valid_qns(const iw_ddp_sink *s, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned q = 0; q < IW_SINK_MAX_QUEUES && o < cap; q++)
		if (s->queues[q].valid) {
			int w = snprintf(buf + o, cap - o, "%s%u", o ? ", " : "", q);
			if (w < 0)
				break;
			o += (size_t)w;
		}
	if (o == 0)
		snprintf(buf, cap, "none");
}

static bool untagged_segment(iw_ddp_sink *s, const iw_ddp_hdr *h, const uint8_t *payload, size_t len,
			     iw_sink_result *r)
{
	/* §9.1 validates only non-empty segments. A zero-length one still has to find its buffer
	 * to consume it (A27), so it gets the QN and MSN checks too: with a bad QN or MSN the
	 * outcome is implementation-defined, and this model reports the same codes. */
	const char *zl = len == 0 ? " (zero-length segment)" : "";

	if (h->qn >= IW_SINK_MAX_QUEUES || !s->queues[h->qn].valid) {
		char qns[32];
		describe_valid_qns(s, qns, sizeof qns);
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_QN, "DDP-9.1-U1",
			    "QN %u is not valid on this stream (valid: %s)%s", h->qn, qns, zl);
	}
	iw_untagged_queue *q = &s->queues[h->qn];
	uint32_t k = h->msn - q->next_msn;      /* mod 2^32: MSNs wrap (DDP-6.3-10) */
	if (k >= q->count) {
		/* Serial-number arithmetic splits the MSN space in half: behind the window start
		 * means completed (U5, 0x03), ahead of it means no buffer posted yet (U2, 0x02). */
		if ((int32_t)k < 0)
			return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_MSN_RANGE, "DDP-9.1-U5",
				    "MSN %u on QN %u was already completed: the window starts at MSN %u%s", h->msn,
				    h->qn, q->next_msn, zl);
		if (q->count == 0)
			return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_MSN_NO_BUFFER, "DDP-9.1-U2",
				    "MSN %u on QN %u: no buffer is posted (the next MSN would be %u)%s", h->msn,
				    h->qn, q->next_msn, zl);
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_MSN_NO_BUFFER, "DDP-9.1-U2",
			    "MSN %u on QN %u is past the last posted buffer: %u posted for MSN %u..%u%s", h->msn,
			    h->qn, q->count, q->next_msn, q->next_msn + q->count - 1, zl);
	}
	iw_untagged_buf *b = &q->bufs[(q->head + k) % IW_SINK_MAX_POSTED];

	if (len == 0) {
		/* No octet is placed, but an L segment's MO becomes the message length (DDP-7.4-02),
		 * which must still fit the buffer. */
		if (h->mo > b->cap)
			return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_MO, "DDP-9.1-U3",
				    "MO %u is past the end of the %u-octet buffer for QN %u MSN %u%s", h->mo, b->cap,
				    h->qn, h->msn, zl);
	} else {
		if (h->mo >= b->cap)
			return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_INVALID_MO, "DDP-9.1-U3",
				    "MO %u is at or past the end of the %u-octet buffer for QN %u MSN %u", h->mo,
				    b->cap, h->qn, h->msn);
		if ((uint64_t)h->mo + len > b->cap) {
			unsigned long long over = (uint64_t)h->mo + len - b->cap;
			return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_TOO_LONG, "DDP-9.1-U4",
				    "MO %u + %zu octets ends %llu octet%s past the end of the %u-octet buffer for "
				    "QN %u MSN %u", h->mo, len, over, plural(over), b->cap, h->qn, h->msn);
		}
		if (!ranges_add(b, h->mo, h->mo + (uint32_t)len))
			return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_CATASTROPHIC, IW_DDP_EC_CATASTROPHIC, "DDP-9.2-01",
				    "sink bookkeeping exhausted: MO %u..%u of QN %u MSN %u would make more than %d "
				    "disjoint placed ranges in its buffer", h->mo, h->mo + (uint32_t)len, h->qn,
				    h->msn, IW_SINK_MAX_RANGES);
		/* DDP-10.1-01: placed only after every check, including the bookkeeping one. */
		memcpy(b->mem + h->mo, payload, len);
	}

	if (h->last) {
		/* A repeated L segment carries the same MO and length; if a broken source sends a
		 * different one, the latest wins (A27: any length, never outside the buffer). */
		b->last_seen = true;
		b->msg_len = h->mo + (uint32_t)len;
		memcpy(b->rsvdulp, h->rsvdulp, sizeof b->rsvdulp);
	}
	r->status = IW_SINK_PLACED;
	if (len == 0) {
		r->req = "DDP-7.2-08";
		snprintf(r->detail, sizeof r->detail, "zero-length untagged segment for QN %u MSN %u%s", h->qn,
			 h->msn, h->last ? ": the message ends here (A27)" : ": nothing to place");
	} else {
		r->req = "DDP-10.1-01";
		snprintf(r->detail, sizeof r->detail, "%zu octet%s placed at MO %u of QN %u MSN %u", len,
			 plural(len), h->mo, h->qn, h->msn);
	}
	return true;
}

/* DDP-6.1-10 (A4). Checked on every segment, zero-length ones included: D0 §7.2 keeps the
 * control field of a zero-length tagged segment valid while exempting STag and TO. */
static bool dv_ok(iw_ddp_sink *s, const iw_ddp_hdr *h, iw_sink_result *r)
{
	if (h->dv == s->profile->ddp_version)
		return true;
	if (h->tagged)
		return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_T_VERSION, "DDP-6.1-10",
			    "tagged segment with DV %u, the stream uses DV %u (profile %s)", h->dv,
			    s->profile->ddp_version, s->profile->name);
	return fail(s, r, IW_LAYER_DDP, IW_DDP_ET_UNTAGGED, IW_DDP_EC_U_VERSION, "DDP-6.1-10",
		    "untagged segment with DV %u, the stream uses DV %u (profile %s)", h->dv,
		    s->profile->ddp_version, s->profile->name);
}

void iw_sink_segment(iw_ddp_sink *s, const iw_ddp_hdr *h, const uint8_t *payload, size_t len,
		     unsigned access, iw_sink_result *r)
{
	result_reset(r);
	if (s->failed) {
		r->status = IW_SINK_DROPPED;
		r->req = "DDP-9.1-03";
		snprintf(r->detail, sizeof r->detail, "the stream already failed: segment of %zu octet%s dropped",
			 len, plural(len));
		return;
	}
	if (!dv_ok(s, h, r))
		return;
	if (h->tagged)
		tagged_segment(s, h, payload, len, access, r);
	else
		untagged_segment(s, h, payload, len, r);
}

bool iw_sink_deliver(iw_ddp_sink *s, uint32_t qn, iw_sink_delivery *d)
{
	if (s->failed || qn >= IW_SINK_MAX_QUEUES)
		return false;
	iw_untagged_queue *q = &s->queues[qn];
	if (!q->valid || q->count == 0)
		return false;

	/* DDP-7.4-01, DDP-7.3-07: only the oldest message may go, and only once complete. */
	iw_untagged_buf *b = &q->bufs[q->head];
	if (!b->last_seen)
		return false;
	if (b->msg_len > 0 && (b->nranges == 0 || b->lo[0] != 0 || b->hi[0] < b->msg_len))
		return false;

	d->qn = qn;
	d->msn = q->next_msn;
	d->data = b->mem;
	d->len = b->msg_len;        /* DDP-7.4-02 */
	memcpy(d->rsvdulp, b->rsvdulp, sizeof d->rsvdulp);
	/* DDP-7.3-06: the slot is freed and the window moves on, so it cannot be delivered twice. */
	q->head = (q->head + 1) % IW_SINK_MAX_POSTED;
	q->count--;
	q->next_msn++;
	return true;
}

/* RDMAP codes: RFC 5040 section references (from the RFC's layout; the RFC text was not
 * available here), not catalog IDs. ARCH-2.2-F1 is the catalog's access-rights item. */
#define REQ_RFC5040_READ "RFC5040-5.2-04"   /* spec/rfc-rows.md: the source range is validated */

bool iw_sink_check_read(const iw_ddp_sink *s, uint32_t stag, uint64_t to, uint32_t len, iw_sink_result *r)
{
	result_reset(r);
	if (len == 0) {
		/* A zero-length Read moves no data, as a zero-length tagged message (DDP-7.2-10)
		 * and the RFC 6581 zero-length Read RTR assume. */
		r->status = IW_SINK_PLACED;
		r->req = "DDP-7.2-10";
		snprintf(r->detail, sizeof r->detail, "zero-length RDMA Read: STag 0x%08x and TO 0x%llx not "
			 "checked", stag, (unsigned long long)to);
		return true;
	}

	const iw_tagged_buf *b = iw_sink_find(s, stag);
	if (!b || !b->valid) {
		fail(NULL, r, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_INVALID_STAG, REQ_RFC5040_READ,
		     "RDMA Read source STag 0x%08x is %s", stag, b ? "invalidated" : "not registered");
		return false;
	}
	if (b->pd != s->pd || b->stream != s->stream) {
		fail(NULL, r, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_STAG_NOT_ASSOC, REQ_RFC5040_READ,
		     "RDMA Read source STag 0x%08x belongs to stream %u PD %u, the request came on stream %u PD %u",
		     stag, b->stream, b->pd, s->stream, s->pd);
		return false;
	}
	unsigned long long end = b->base_to + b->length;
	if ((uint64_t)len > UINT64_MAX - to) {
		fail(NULL, r, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_TO_WRAP, REQ_RFC5040_READ,
		     "RDMA Read of TO 0x%llx + %u octets wraps 2^64", (unsigned long long)to, len);
		return false;
	}
	if (to < b->base_to || to >= end || to + len > end) {
		fail(NULL, r, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_BASE_BOUNDS, REQ_RFC5040_READ,
		     "RDMA Read of TO 0x%llx + %u octets is outside STag 0x%08x's range 0x%llx..0x%llx",
		     (unsigned long long)to, len, stag, (unsigned long long)b->base_to, end);
		return false;
	}
	if (!(b->access & IW_ACCESS_REMOTE_READ)) {
		fail(NULL, r, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_ACCESS, "ARCH-2.2-F1",
		     "STag 0x%08x does not grant remote read access", stag);
		return false;
	}
	r->status = IW_SINK_PLACED;
	r->req = REQ_RFC5040_READ;
	snprintf(r->detail, sizeof r->detail, "RDMA Read of TO 0x%llx + %u octets from STag 0x%08x allowed",
		 (unsigned long long)to, len, stag);
	return true;
}
