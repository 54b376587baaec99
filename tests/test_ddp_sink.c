/*
 * test_ddp_sink.c - the DDP data sink: every error number of D0/D2 §9.2 (requirements.md §2.2)
 * from a stimulus that triggers exactly it, validation before placement (DDP-10.1-01), silent
 * drop after an error (DDP-9.1-03), bounds edges, and in-order, exactly-once delivery of
 * untagged messages (DDP-7.3-06/07, DDP-7.4-01/02).
 */
#include "check.h"
#include "ddp_sink.h"

#define STREAM      7
#define PD          3
#define FILL        0xEE
#define UCAP        128         /* each posted untagged buffer */
#define NPOSTED     4           /* buffers posted on QN 0: MSN 1..4 */

#define STAG_RW     0x100u      /* base 0x1000, 64 octets, read/write */
#define STAG_OTHER_PD 0x200u
#define STAG_OTHER_STREAM 0x300u
#define STAG_TOP    0x400u      /* base 0xFFFFFFFFFFFFFFF0, 15 octets: ends at 2^64 - 1 */
#define STAG_RO     0x500u      /* read only */
#define STAG_WO     0x600u      /* write only */
#define STAG_DEAD   0x700u      /* invalidated */
#define BASE        0x1000u
#define TLEN        64u

typedef struct fx {
	iw_ddp_sink s;
	uint8_t tmem[6][TLEN];
	uint8_t umem[NPOSTED][UCAP];
	uint8_t q1mem[UCAP];
} fx;

static uint8_t pay[4096];

static void reg(fx *f, int i, uint32_t stag, uint64_t base, uint64_t len, uint32_t stream, uint32_t pd,
		unsigned access)
{
	iw_tagged_buf b;
	memset(&b, 0, sizeof b);
	b.stag = stag;
	b.base_to = base;
	b.length = len;
	b.stream = stream;
	b.pd = pd;
	b.access = access;
	b.mem = f->tmem[i];
	CHECK_EQ(iw_sink_register(&f->s, &b, NULL), IW_OK);
}

static void fx_init_profile(fx *f, const iw_profile *p)
{
	for (size_t i = 0; i < sizeof pay; i++)
		pay[i] = (uint8_t)(i * 7 + 1);
	memset(f, 0, sizeof *f);
	memset(f->tmem, FILL, sizeof f->tmem);
	memset(f->umem, FILL, sizeof f->umem);
	memset(f->q1mem, FILL, sizeof f->q1mem);
	iw_sink_init(&f->s, p, STREAM, PD);
	for (uint32_t q = 0; q < 3; q++)
		CHECK_EQ(iw_sink_enable_queue(&f->s, q, NULL), IW_OK);
	for (int i = 0; i < NPOSTED; i++)
		CHECK_EQ(iw_sink_post(&f->s, 0, f->umem[i], UCAP, NULL), IW_OK);
	CHECK_EQ(iw_sink_post(&f->s, 1, f->q1mem, UCAP, NULL), IW_OK);
	const unsigned rw = IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE;
	reg(f, 0, STAG_RW, BASE, TLEN, STREAM, PD, rw);
	reg(f, 1, STAG_OTHER_PD, BASE, TLEN, STREAM, PD + 1, rw);
	reg(f, 2, STAG_OTHER_STREAM, BASE, TLEN, STREAM + 1, PD, rw);
	reg(f, 3, STAG_TOP, 0xFFFFFFFFFFFFFFF0ull, 15, STREAM, PD, rw);
	reg(f, 4, STAG_RO, BASE, TLEN, STREAM, PD, IW_ACCESS_REMOTE_READ);
	reg(f, 5, STAG_WO, BASE, TLEN, STREAM, PD, IW_ACCESS_REMOTE_WRITE);
	reg(f, 5, STAG_DEAD, BASE, TLEN, STREAM, PD, rw);
	CHECK_EQ(iw_sink_invalidate(&f->s, STAG_DEAD, NULL), IW_OK);
}

static void fx_init(fx *f)
{
	fx_init_profile(f, iw_profile_get(IW_PROFILE_RFC5044));
}

static iw_ddp_hdr thdr(uint32_t stag, uint64_t to, bool last)
{
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = true;
	h.last = last;
	h.dv = IW_DDP_VERSION;
	h.rsvdulp[0] = 0x40;        /* RDMA Write, RV 1 */
	h.stag = stag;
	h.to = to;
	return h;
}

static iw_ddp_hdr uhdr(uint32_t qn, uint32_t msn, uint32_t mo, bool last)
{
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.last = last;
	h.dv = IW_DDP_VERSION;
	h.rsvdulp[0] = 0x43;        /* Send, RV 1 */
	h.qn = qn;
	h.msn = msn;
	h.mo = mo;
	return h;
}

/* Writes len octets of pay[off..] at TO. */
static iw_sink_result put_t(fx *f, uint32_t stag, uint64_t to, size_t len, bool last, unsigned access)
{
	iw_sink_result r;
	iw_ddp_hdr h = thdr(stag, to, last);
	iw_sink_segment(&f->s, &h, pay, len, access, &r);
	return r;
}

/* Sends len octets of pay[mo..] at MO: the message's octet i is always pay[i]. */
static iw_sink_result put_u(fx *f, uint32_t qn, uint32_t msn, uint32_t mo, size_t len, bool last)
{
	iw_sink_result r;
	iw_ddp_hdr h = uhdr(qn, msn, mo, last);
	iw_sink_segment(&f->s, &h, pay + (mo < sizeof pay ? mo : 0), len, 0, &r);
	return r;
}

static bool all_fill(const uint8_t *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i] != FILL)
			return false;
	return true;
}

static bool memory_untouched(const fx *f)
{
	return all_fill(&f->tmem[0][0], sizeof f->tmem) && all_fill(&f->umem[0][0], sizeof f->umem) &&
	       all_fill(f->q1mem, sizeof f->q1mem);
}

#define CHECK_ERR(r, L, T, C, REQ)                                                 \
	do {                                                                       \
		CHECK_EQ((r).status, IW_SINK_ERROR);                               \
		CHECK_EQ((r).layer, L);                                            \
		CHECK_EQ((r).etype, T);                                            \
		CHECK_EQ((r).ecode, C);                                            \
		CHECK_STR((r).req, REQ);                                           \
	} while (0)

#define CHECK_PLACED(r)                                                            \
	do {                                                                       \
		if ((r).status != IW_SINK_PLACED)                                  \
			check_fail(__FILE__, __LINE__, "not placed: %s %s", (r).req ? (r).req : "", (r).detail); \
	} while (0)

/* DDP-9.1-03: after the error valid segments of both models are dropped, nothing placed,
 * nothing delivered. */
static void check_dropped_after_error(fx *f)
{
	iw_sink_delivery d;
	CHECK(f->s.failed);
	iw_sink_result r = put_t(f, STAG_RW, BASE, 8, true, IW_ACCESS_REMOTE_WRITE);
	CHECK_EQ(r.status, IW_SINK_DROPPED);
	CHECK_STR(r.req, "DDP-9.1-03");
	r = put_u(f, 0, 1, 0, 8, true);
	CHECK_EQ(r.status, IW_SINK_DROPPED);
	r = put_u(f, 0, 1, 0, 0, true);
	CHECK_EQ(r.status, IW_SINK_DROPPED);
	CHECK(!iw_sink_deliver(&f->s, 0, &d));
	CHECK(memory_untouched(f));
}

/* One stimulus for every row of the §9.2 table (and the RDMAP access code the sink reports). */
typedef struct stim {
	const char *name;
	bool tagged;
	uint32_t stag;
	uint64_t to;
	uint32_t qn, msn, mo;
	size_t len;
	uint8_t dv;
	unsigned access;
	int layer, etype, ecode;
	const char *req;
	const char *detail;         /* a substring the detail must contain */
} stim;

static const stim error_rows[] = {
	{ "unknown STag", true, 0xDEAD, BASE, 0, 0, 0, 8, 1, 0, 1, 0x1, 0x00, "DDP-9.1-T1", "not registered" },
	{ "invalidated STag", true, STAG_DEAD, BASE, 0, 0, 0, 8, 1, 0, 1, 0x1, 0x00, "DDP-9.1-T2", "invalidated" },
	{ "TO = base - 1", true, STAG_RW, BASE - 1, 0, 0, 0, 1, 1, 0, 1, 0x1, 0x01, "DDP-9.1-T3",
	  "1 octet below the base TO 0x1000" },
	{ "TO = base + len", true, STAG_RW, BASE + TLEN, 0, 0, 0, 1, 1, 0, 1, 0x1, 0x01, "DDP-9.1-T3",
	  "at or past the buffer end 0x1040" },
	{ "TO + len = end + 1", true, STAG_RW, BASE + TLEN - 10, 0, 0, 0, 11, 1, 0, 1, 0x1, 0x01, "DDP-9.1-T4",
	  "TO 0x1036+11 octets ends 1 octet past the buffer end 0x1040" },
	{ "STag of another PD", true, STAG_OTHER_PD, BASE, 0, 0, 0, 8, 1, 0, 1, 0x1, 0x02, "DDP-10.3-01",
	  "protection domain 4" },
	{ "STag of another stream", true, STAG_OTHER_STREAM, BASE, 0, 0, 0, 8, 1, 0, 1, 0x1, 0x02, "DDP-10.3-02",
	  "stream 8" },
	{ "TO wrap", true, STAG_TOP, 0xFFFFFFFFFFFFFFF8ull, 0, 0, 0, 16, 1, 0, 1, 0x1, 0x03, "DDP-9.1-T5",
	  "wraps past 2^64" },
	{ "tagged DV 0", true, STAG_RW, BASE, 0, 0, 0, 8, 0, 0, 1, 0x1, 0x04, "DDP-6.1-10", "DV 0" },
	{ "tagged DV 2", true, STAG_RW, BASE, 0, 0, 0, 8, 2, 0, 1, 0x1, 0x04, "DDP-6.1-10", "DV 2" },
	{ "tagged DV 3", true, STAG_RW, BASE, 0, 0, 0, 8, 3, 0, 1, 0x1, 0x04, "DDP-6.1-10", "DV 3" },
	{ "zero-length Write DV 2", true, 0xFFFFFFFF, UINT64_MAX, 0, 0, 0, 0, 2, 0, 1, 0x1, 0x04, "DDP-6.1-10", "DV 2" },
	{ "write to a read-only STag", true, STAG_RO, BASE, 0, 0, 0, 8, 1, IW_ACCESS_REMOTE_WRITE, 0, 0x1, 0x02,
	  "ARCH-2.2-F1", "remote write" },
	{ "QN 3", false, 0, 0, 3, 1, 0, 8, 1, 0, 1, 0x2, 0x01, "DDP-9.1-U1", "QN 3 is not valid on this stream (valid: 0, 1, 2)" },
	{ "QN 0xFFFFFFFF", false, 0, 0, 0xFFFFFFFF, 1, 0, 8, 1, 0, 1, 0x2, 0x01, "DDP-9.1-U1", "QN 4294967295" },
	{ "MSN past the posted buffers", false, 0, 0, 0, NPOSTED + 1, 0, 8, 1, 0, 1, 0x2, 0x02, "DDP-9.1-U2",
	  "4 posted for MSN 1..4" },
	{ "MSN far ahead", false, 0, 0, 0, 1000, 0, 8, 1, 0, 1, 0x2, 0x02, "DDP-9.1-U2", "MSN 1000" },
	{ "no buffer posted on QN 2", false, 0, 0, 2, 1, 0, 8, 1, 0, 1, 0x2, 0x02, "DDP-9.1-U2", "no buffer is posted" },
	{ "MSN 0, below the first MSN", false, 0, 0, 0, 0, 0, 8, 1, 0, 1, 0x2, 0x03, "DDP-9.1-U5", "already completed" },
	{ "MO = buffer size", false, 0, 0, 0, 1, UCAP, 1, 1, 0, 1, 0x2, 0x04, "DDP-9.1-U3", "MO 128 is at or past" },
	{ "MO 0xFFFFFFF0", false, 0, 0, 0, 1, 0xFFFFFFF0u, 8, 1, 0, 1, 0x2, 0x04, "DDP-9.1-U3", "MO 4294967280" },
	{ "buffer too small by one octet", false, 0, 0, 0, 1, 0, UCAP + 1, 1, 0, 1, 0x2, 0x05, "DDP-9.1-U4",
	  "ends 1 octet past the end of the 128-octet buffer" },
	{ "segment crosses the end", false, 0, 0, 0, 2, UCAP - 5, 6, 1, 0, 1, 0x2, 0x05, "DDP-9.1-U4", "MO 123 + 6 octets" },
	{ "untagged DV 0", false, 0, 0, 0, 1, 0, 8, 0, 0, 1, 0x2, 0x06, "DDP-6.1-10", "untagged segment with DV 0" },
	{ "untagged DV 2", false, 0, 0, 0, 1, 0, 8, 2, 0, 1, 0x2, 0x06, "DDP-6.1-10", "DV 2" },
	{ "untagged DV 3", false, 0, 0, 0, 1, 0, 8, 3, 0, 1, 0x2, 0x06, "DDP-6.1-10", "DV 3" },
	{ "zero-length Send DV 0", false, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0x2, 0x06, "DDP-6.1-10", "DV 0" },
};

TEST(ddp_sink_every_error_number)
{
	for (size_t i = 0; i < sizeof error_rows / sizeof error_rows[0]; i++) {
		const stim *t = &error_rows[i];
		fx f;
		iw_ddp_hdr h;
		iw_sink_result r;

		fx_init(&f);
		h = t->tagged ? thdr(t->stag, t->to, true) : uhdr(t->qn, t->msn, t->mo, true);
		h.dv = t->dv;
		iw_sink_segment(&f.s, &h, pay, t->len, t->access, &r);
		if (r.status != IW_SINK_ERROR || r.layer != t->layer || r.etype != t->etype || r.ecode != t->ecode ||
		    !r.req || strcmp(r.req, t->req) != 0 || !strstr(r.detail, t->detail))
			check_fail(__FILE__, __LINE__, "%s: got status %d %d/0x%x/0x%02x %s \"%s\", want %d/0x%x/0x%02x %s \"%s\"",
				   t->name, (int)r.status, r.layer, r.etype, r.ecode, r.req ? r.req : "(null)", r.detail,
				   t->layer, t->etype, t->ecode, t->req, t->detail);
		/* DDP-10.1-01 / DDP-9.1-01: not one octet placed, not even those that would fit. */
		if (!memory_untouched(&f))
			check_fail(__FILE__, __LINE__, "%s: memory changed on error", t->name);
		check_dropped_after_error(&f);
	}
}

/* 0x0/0x00: the sink's own limit on placed-range bookkeeping. */
TEST(ddp_sink_range_overflow_is_local_catastrophic)
{
	fx f;
	iw_sink_result r;
	fx_init(&f);
	/* 32 disjoint one-octet ranges at MO 0, 2, ..., 62 of MSN 1. */
	for (uint32_t k = 0; k < IW_SINK_MAX_RANGES; k++) {
		r = put_u(&f, 0, 1, 2 * k, 1, false);
		CHECK_PLACED(r);
	}
	CHECK_EQ(f.s.queues[0].bufs[0].nranges, IW_SINK_MAX_RANGES);
	/* Filling a gap merges two ranges into one: still fine. */
	r = put_u(&f, 0, 1, 1, 1, false);
	CHECK_PLACED(r);
	CHECK_EQ(f.s.queues[0].bufs[0].nranges, IW_SINK_MAX_RANGES - 2 + 1);
	/* Two more disjoint ranges: the second is the 33rd. */
	r = put_u(&f, 0, 1, 100, 1, false);
	CHECK_PLACED(r);
	CHECK_EQ(f.umem[0][101], FILL);
	r = put_u(&f, 0, 1, 104, 2, false);
	CHECK_ERR(r, 1, 0x0, 0x00, "DDP-9.2-01");
	CHECK(strstr(r.detail, "more than 32 disjoint") != NULL);
	CHECK_EQ(f.umem[0][104], FILL);
	CHECK_EQ(f.umem[0][105], FILL);
	CHECK_EQ(f.umem[0][100], pay[100]);
	CHECK(f.s.failed);
}

/* DDP-9.1-T3/T4 edges: the first and last octet, and TO + len = end exactly. */
TEST(ddp_sink_tagged_edges_accepted)
{
	fx f;
	iw_sink_result r;
	fx_init(&f);
	r = put_t(&f, STAG_RW, BASE, TLEN, true, IW_ACCESS_REMOTE_WRITE);
	CHECK_PLACED(r);
	CHECK(r.tagged_last);
	CHECK_STR(r.req, "DDP-10.1-01");
	CHECK_MEM(f.tmem[0], pay, TLEN);
	r = put_t(&f, STAG_RW, BASE + TLEN - 1, 1, false, IW_ACCESS_REMOTE_WRITE);
	CHECK_PLACED(r);
	CHECK(!r.tagged_last);
	CHECK_EQ(f.tmem[0][TLEN - 1], pay[0]);
	/* DDP-6.2-09: a message may start anywhere inside the buffer. */
	r = put_t(&f, STAG_RW, BASE + 3, 10, true, IW_ACCESS_REMOTE_WRITE);
	CHECK_PLACED(r);
	CHECK_MEM(f.tmem[0] + 3, pay, 10);
	/* A buffer ending at 2^64 - 1 takes a segment that ends exactly there. */
	r = put_t(&f, STAG_TOP, 0xFFFFFFFFFFFFFFF0ull, 15, true, 0);
	CHECK_PLACED(r);
	CHECK_MEM(f.tmem[3], pay, 15);
	CHECK(!f.s.failed);
}

/* DDP-9.1-T5 against a large buffer, so that only the wrap can be the error (A28 strict). */
TEST(ddp_sink_to_wrap_reports_wrap_not_bounds)
{
	fx f;
	iw_sink_result r;
	fx_init(&f);
	r = put_t(&f, STAG_TOP, 0xFFFFFFFFFFFFFFF8ull, 16, true, 0);
	CHECK_ERR(r, 1, 0x1, 0x03, "DDP-9.1-T5");
	CHECK(strstr(r.detail, "TO 0xfffffffffffffff8 + 16 octets wraps past 2^64 (the 64-bit sum is 0x8)") != NULL);
	/* 7 octets end exactly at the buffer end, 2^64 - 1: no wrap. */
	fx_init(&f);
	r = put_t(&f, STAG_TOP, 0xFFFFFFFFFFFFFFF8ull, 7, true, 0);
	CHECK_PLACED(r);
	/* 8 octets make the 64-bit sum exactly 2^64, which is 0: that is a wrap too. */
	r = put_t(&f, STAG_TOP, 0xFFFFFFFFFFFFFFF8ull, 8, true, 0);
	CHECK_ERR(r, 1, 0x1, 0x03, "DDP-9.1-T5");
}

/* DDP-7.2-09/10: a zero-length Write is not checked for STag or TO. */
TEST(ddp_sink_zero_length_write_with_garbage_accepted)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_t(&f, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFFull, 0, true, IW_ACCESS_REMOTE_WRITE);
	CHECK_PLACED(r);
	CHECK(r.tagged_last);
	CHECK_STR(r.req, "DDP-7.2-10");
	r = put_t(&f, STAG_DEAD, 0, 0, true, IW_ACCESS_REMOTE_WRITE);
	CHECK_PLACED(r);
	CHECK(!f.s.failed);
	CHECK(memory_untouched(&f));
	/* The next Send is still taken. */
	r = put_u(&f, 0, 1, 0, 5, true);
	CHECK_PLACED(r);
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.len, 5);
}

/* An RDMA Read Response needs no access right at the sink: access 0 skips the check. */
TEST(ddp_sink_access_zero_skips_the_check)
{
	fx f;
	iw_sink_result r;
	fx_init(&f);
	r = put_t(&f, STAG_RO, BASE, 4, true, 0);
	CHECK_PLACED(r);
	CHECK_MEM(f.tmem[4], pay, 4);
	r = put_t(&f, STAG_WO, BASE, 4, true, IW_ACCESS_REMOTE_WRITE);
	CHECK_PLACED(r);
}

/* seed-exact expects the dumps' DV 0 (A2): there DV 1 is the wrong version. */
TEST(ddp_sink_dv_follows_the_profile)
{
	fx f;
	iw_sink_result r;
	iw_ddp_hdr h = uhdr(0, 1, 0, true);
	fx_init_profile(&f, iw_profile_get(IW_PROFILE_SEED_EXACT));
	h.dv = 0;
	iw_sink_segment(&f.s, &h, pay, 4, 0, &r);
	CHECK_PLACED(r);
	h.dv = 1;
	h.msn = 2;
	iw_sink_segment(&f.s, &h, pay, 4, 0, &r);
	CHECK_ERR(r, 1, 0x2, 0x06, "DDP-6.1-10");
	CHECK(strstr(r.detail, "seed-exact") != NULL);
}

/* DDP-7.3-04, DDP-7.4-01/02: segments in any MO order; delivered once complete, not before. */
TEST(ddp_sink_out_of_order_mo_delivered_once_complete)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_u(&f, 0, 1, 80, 20, true);
	CHECK_PLACED(r);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
	r = put_u(&f, 0, 1, 0, 40, false);
	CHECK_PLACED(r);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));           /* hole [40, 80) */
	r = put_u(&f, 0, 1, 60, 20, false);
	CHECK_PLACED(r);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));           /* hole [40, 60) */
	r = put_u(&f, 0, 1, 40, 20, false);
	CHECK_PLACED(r);
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.qn, 0);
	CHECK_EQ(d.msn, 1);
	CHECK_EQ(d.len, 100);
	CHECK(d.data == f.umem[0]);
	CHECK_MEM(d.data, pay, 100);
	CHECK_EQ(d.rsvdulp[0], 0x43);
	CHECK_EQ(f.umem[0][100], FILL);                 /* DDP-3.2-F1: a partly filled buffer */
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
}

/* DDP-7.4-01: without its L segment a message is never delivered, however much arrived. */
TEST(ddp_sink_no_last_segment_no_delivery)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_u(&f, 0, 1, 0, UCAP, false);
	CHECK_PLACED(r);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
	r = put_u(&f, 0, 1, 0, 0, true);                /* an empty L segment at MO 0 ends it at 0 */
	CHECK_PLACED(r);
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.len, 0);
}

/* DDP-7.3-05/06, A29: repeated segments may be placed again; the message is delivered once. */
TEST(ddp_sink_duplicates_delivered_once)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	for (int rep = 0; rep < 3; rep++) {
		r = put_u(&f, 0, 1, 0, 30, false);
		CHECK_PLACED(r);
		r = put_u(&f, 0, 1, 30, 30, true);
		CHECK_PLACED(r);
		r = put_u(&f, 0, 1, 10, 30, false);     /* overlapping both */
		CHECK_PLACED(r);
	}
	CHECK_EQ(f.s.queues[0].bufs[0].nranges, 1);
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.msn, 1);
	CHECK_EQ(d.len, 60);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
	/* Once delivered, its MSN is below the window: a late copy is U5 (A28 strict 0x03). */
	r = put_u(&f, 0, 1, 0, 30, false);
	CHECK_ERR(r, 1, 0x2, 0x03, "DDP-9.1-U5");
}

/* DDP-7.3-07, DDP-6.1-07: MSN 2 complete before MSN 1 waits for it. */
TEST(ddp_sink_delivery_in_msn_order)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_u(&f, 0, 3, 0, 3, true);
	CHECK_PLACED(r);
	r = put_u(&f, 0, 2, 0, 2, true);
	CHECK_PLACED(r);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
	r = put_u(&f, 0, 1, 0, 1, true);
	CHECK_PLACED(r);
	for (uint32_t msn = 1; msn <= 3; msn++) {
		CHECK(iw_sink_deliver(&f.s, 0, &d));
		CHECK_EQ(d.msn, msn);
		CHECK_EQ(d.len, msn);
		CHECK(d.data == f.umem[msn - 1]);
	}
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
	/* Queues are independent: QN 1 has its own MSN 1 (DDP-6.3-08). */
	r = put_u(&f, 1, 1, 0, 28, true);
	CHECK_PLACED(r);
	CHECK(iw_sink_deliver(&f.s, 1, &d));
	CHECK_EQ(d.qn, 1);
	CHECK_EQ(d.msn, 1);
}

/* DDP-9.1-U5, A28: after MSN 1..3 completed, MSN 2 again is 0x2/0x03. */
TEST(ddp_sink_msn_already_completed)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	for (uint32_t msn = 1; msn <= 3; msn++) {
		r = put_u(&f, 0, msn, 0, 4, true);
		CHECK_PLACED(r);
		CHECK(iw_sink_deliver(&f.s, 0, &d));
	}
	CHECK_EQ(f.umem[3][0], FILL);
	r = put_u(&f, 0, 2, 0, 4, true);
	CHECK_ERR(r, 1, 0x2, 0x03, "DDP-9.1-U5");
	CHECK(strstr(r.detail, "MSN 2 on QN 0 was already completed: the window starts at MSN 4") != NULL);
	CHECK_EQ(f.umem[3][0], FILL);
	CHECK(f.s.failed);
}

/* DDP-6.3-10: MSN arithmetic across 2^32. */
TEST(ddp_sink_msn_wraps)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	f.s.queues[0].next_msn = 0xFFFFFFFEu;           /* as if 2^32 - 3 messages had gone by */
	const uint32_t msns[NPOSTED] = { 0xFFFFFFFEu, 0xFFFFFFFFu, 0, 1 };
	for (int i = NPOSTED - 1; i >= 0; i--) {
		r = put_u(&f, 0, msns[i], 0, (size_t)i + 1, true);
		CHECK_PLACED(r);
	}
	for (int i = 0; i < NPOSTED; i++) {
		CHECK(iw_sink_deliver(&f.s, 0, &d));
		CHECK_EQ(d.msn, msns[i]);
		CHECK_EQ(d.len, i + 1);
	}
	CHECK_EQ(f.s.queues[0].next_msn, 2);
	r = put_u(&f, 0, 0xFFFFFFFFu, 0, 1, true);      /* behind the window across the wrap */
	CHECK_ERR(r, 1, 0x2, 0x03, "DDP-9.1-U5");

	fx_init(&f);
	f.s.queues[0].next_msn = 0xFFFFFFFEu;
	r = put_u(&f, 0, 2, 0, 1, true);                /* 4 ahead: one past MSN 1, the last posted */
	CHECK_ERR(r, 1, 0x2, 0x02, "DDP-9.1-U2");
	CHECK(strstr(r.detail, "MSN 4294967294..1") != NULL);
}

/* D2 §7.2, A27: a zero-length Send consumes its buffer and is delivered with length 0. */
TEST(ddp_sink_zero_length_send_consumes_a_buffer)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_u(&f, 0, 1, 0, 0, true);
	CHECK_PLACED(r);
	CHECK_STR(r.req, "DDP-7.2-08");
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.msn, 1);
	CHECK_EQ(d.len, 0);
	CHECK(d.data == f.umem[0]);
	r = put_u(&f, 0, 2, 0, 9, true);
	CHECK_PLACED(r);
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.msn, 2);
	CHECK(d.data == f.umem[1]);
	CHECK_EQ(d.len, 9);
	CHECK_EQ(f.umem[0][0], FILL);
	/* A zero-length segment without L places nothing and completes nothing. */
	r = put_u(&f, 0, 3, 0, 0, false);
	CHECK_PLACED(r);
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
}

/* A27, our position for the implementation-defined cases: a zero-length untagged segment
 * gets the QN and MSN checks, and its MO may not pass the buffer end. */
TEST(ddp_sink_zero_length_send_bad_fields)
{
	fx f;
	iw_sink_result r;
	fx_init(&f);
	r = put_u(&f, 9, 1, 0, 0, true);
	CHECK_ERR(r, 1, 0x2, 0x01, "DDP-9.1-U1");
	CHECK(strstr(r.detail, "zero-length") != NULL);
	fx_init(&f);
	r = put_u(&f, 0, 9, 0, 0, true);
	CHECK_ERR(r, 1, 0x2, 0x02, "DDP-9.1-U2");
	fx_init(&f);
	r = put_u(&f, 0, 1, UCAP, 0, true);             /* an empty tail at the end: fine */
	CHECK_PLACED(r);
	r = put_u(&f, 0, 2, UCAP + 1, 0, true);
	CHECK_ERR(r, 1, 0x2, 0x04, "DDP-9.1-U3");
}

/* A message that fills its buffer exactly is fine; one octet more is U4 (0x2/0x05). */
TEST(ddp_sink_untagged_exact_fit)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_u(&f, 0, 1, 0, UCAP - 1, false);
	CHECK_PLACED(r);
	r = put_u(&f, 0, 1, UCAP - 1, 1, true);
	CHECK_PLACED(r);
	CHECK(iw_sink_deliver(&f.s, 0, &d));
	CHECK_EQ(d.len, UCAP);
	CHECK_MEM(f.umem[0], pay, UCAP);
}

/* Buffers are a ring of IW_SINK_MAX_POSTED: post, fill and deliver past its end. */
TEST(ddp_sink_ring_reuse_and_reposting)
{
	static uint8_t mem[IW_SINK_MAX_POSTED][16];
	iw_ddp_sink s;
	iw_sink_result r;
	iw_sink_delivery d;
	iw_ddp_hdr h;
	iw_err e;

	iw_sink_init(&s, iw_profile_default(), 1, 1);
	CHECK_EQ(iw_sink_enable_queue(&s, 0, NULL), IW_OK);
	for (int i = 0; i < IW_SINK_MAX_POSTED; i++)
		CHECK_EQ(iw_sink_post(&s, 0, mem[i], 16, NULL), IW_OK);
	CHECK_EQ(iw_sink_post(&s, 0, mem[0], 16, &e), IW_ENOSPC);
	for (uint32_t msn = 1; msn <= 3 * IW_SINK_MAX_POSTED; msn++) {
		h = uhdr(0, msn, 0, true);
		h.rsvdulp[4] = (uint8_t)msn;
		iw_sink_segment(&s, &h, pay, msn % 16, 0, &r);
		CHECK_PLACED(r);
		CHECK(iw_sink_deliver(&s, 0, &d));
		CHECK_EQ(d.msn, msn);
		CHECK_EQ(d.len, msn % 16);
		CHECK_EQ(d.rsvdulp[4], (uint8_t)msn);
		CHECK(d.data == mem[(msn - 1) % IW_SINK_MAX_POSTED]);
		CHECK_EQ(iw_sink_post(&s, 0, mem[(msn - 1) % IW_SINK_MAX_POSTED], 16, NULL), IW_OK);
	}
}

/* Once the sink failed, even a message completed before the error is not delivered. */
TEST(ddp_sink_no_delivery_after_failure)
{
	fx f;
	iw_sink_result r;
	iw_sink_delivery d;
	fx_init(&f);
	r = put_u(&f, 0, 1, 0, 4, true);
	CHECK_PLACED(r);
	r = put_t(&f, 0xBAD, BASE, 1, true, 0);
	CHECK_ERR(r, 1, 0x1, 0x00, "DDP-9.1-T1");
	CHECK(!iw_sink_deliver(&f.s, 0, &d));
}

TEST(ddp_sink_setup_errors)
{
	fx f;
	iw_err e;
	iw_tagged_buf b;
	uint8_t m[8];

	fx_init(&f);
	CHECK_EQ(iw_sink_enable_queue(&f.s, IW_SINK_MAX_QUEUES, &e), IW_EINVAL);
	CHECK_EQ(iw_sink_post(&f.s, 3, m, sizeof m, &e), IW_ESTATE);
	CHECK(strstr(e.msg, "QN 3") != NULL);
	CHECK_EQ(iw_sink_post(&f.s, 7, m, sizeof m, &e), IW_EINVAL);
	CHECK_EQ(iw_sink_post(&f.s, 0, NULL, 4, &e), IW_EINVAL);
	CHECK_EQ(iw_sink_invalidate(&f.s, 0x999, &e), IW_EINVAL);
	CHECK(iw_sink_find(&f.s, 0x999) == NULL);

	memset(&b, 0, sizeof b);
	b.stream = STREAM;
	b.pd = PD;
	b.mem = m;
	b.length = 9;
	b.base_to = UINT64_MAX - 8;
	b.stag = 0x1234;
	CHECK_EQ(iw_sink_register(&f.s, &b, &e), IW_EINVAL);      /* would pass 2^64 - 1 */
	b.length = 8;
	b.base_to = UINT64_MAX - 8;
	CHECK_EQ(iw_sink_register(&f.s, &b, &e), IW_OK);
	b.mem = NULL;
	b.stag = 0x1235;
	CHECK_EQ(iw_sink_register(&f.s, &b, &e), IW_EINVAL);
	b.mem = m;
	for (uint32_t i = 0; f.s.nstags < IW_SINK_MAX_STAGS; i++) {
		b.stag = 0x9000 + i;
		CHECK_EQ(iw_sink_register(&f.s, &b, NULL), IW_OK);
	}
	b.stag = 0xA000;
	CHECK_EQ(iw_sink_register(&f.s, &b, &e), IW_ENOSPC);
	/* A known STag can still be registered again: it replaces the entry. */
	b.stag = 0x9000;
	CHECK_EQ(iw_sink_register(&f.s, &b, &e), IW_OK);
}

/* DDP-10.4-01/02: the ULP shrinks an STag's range, revokes it, and validates it again. */
TEST(ddp_sink_reregister_changes_range_and_validity)
{
	fx f;
	iw_sink_result r;
	iw_tagged_buf b;
	fx_init(&f);
	b = *iw_sink_find(&f.s, STAG_RW);
	CHECK(b.valid);
	b.length = 16;
	b.valid = false;                                 /* ignored: registering makes it valid */
	CHECK_EQ(iw_sink_register(&f.s, &b, NULL), IW_OK);
	CHECK(iw_sink_find(&f.s, STAG_RW)->valid);
	r = put_t(&f, STAG_RW, BASE, 16, true, 0);
	CHECK_PLACED(r);
	CHECK_EQ(iw_sink_invalidate(&f.s, STAG_RW, NULL), IW_OK);
	CHECK(!iw_sink_find(&f.s, STAG_RW)->valid);
	CHECK_EQ(iw_sink_register(&f.s, &b, NULL), IW_OK);
	r = put_t(&f, STAG_RW, BASE + 16, 1, true, 0);
	CHECK_ERR(r, 1, 0x1, 0x01, "DDP-9.1-T3");
}

/* RFC 5040 remote protection codes for the source side of an RDMA Read. */
TEST(ddp_sink_check_read_codes)
{
	static const struct { uint32_t stag; uint64_t to; uint32_t len; int ecode; const char *req; } rows[] = {
		{ STAG_RW, BASE, TLEN, -1, "RFC5040-5.2-04" },
		{ STAG_RO, BASE + 1, 2, -1, "RFC5040-5.2-04" },
		{ 0x9999, BASE, 4, 0x00, "RFC5040-5.2-04" },
		{ STAG_DEAD, BASE, 4, 0x00, "RFC5040-5.2-04" },
		{ STAG_RW, BASE - 1, 4, 0x01, "RFC5040-5.2-04" },
		{ STAG_RW, BASE + TLEN - 3, 4, 0x01, "RFC5040-5.2-04" },
		{ STAG_RW, BASE + TLEN, 1, 0x01, "RFC5040-5.2-04" },
		{ STAG_WO, BASE, 4, 0x02, "ARCH-2.2-F1" },
		{ STAG_OTHER_STREAM, BASE, 4, 0x03, "RFC5040-5.2-04" },
		{ STAG_OTHER_PD, BASE, 4, 0x03, "RFC5040-5.2-04" },
		{ STAG_TOP, 0xFFFFFFFFFFFFFFF8ull, 16, 0x04, "RFC5040-5.2-04" },
		{ 0xFFFFFFFF, UINT64_MAX, 0, -1, "DDP-7.2-10" },
	};
	fx f;
	fx_init(&f);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		iw_sink_result r;
		bool ok = iw_sink_check_read(&f.s, rows[i].stag, rows[i].to, rows[i].len, &r);
		CHECK_EQ(ok, rows[i].ecode < 0);
		CHECK_STR(r.req, rows[i].req);
		if (rows[i].ecode < 0) {
			CHECK_EQ(r.status, IW_SINK_PLACED);
			continue;
		}
		CHECK_EQ(r.status, IW_SINK_ERROR);
		CHECK_EQ(r.layer, IW_LAYER_RDMAP);
		CHECK_EQ(r.etype, IW_RDMAP_ET_PROTECTION);
		if (r.ecode != rows[i].ecode)
			check_fail(__FILE__, __LINE__, "row %zu: ecode 0x%02x, want 0x%02x (%s)", i, r.ecode,
				   rows[i].ecode, r.detail);
	}
	/* The source side reports; it does not fail the stream. */
	CHECK(!f.s.failed);
	iw_sink_result r = put_t(&f, STAG_RW, BASE, 4, true, 0);
	CHECK_PLACED(r);
}
