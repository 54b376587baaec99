/*
 * tcp_reasm.c - one direction of a TCP connection, reassembled in place as segments come
 * (see tcp_reasm.h).
 */
#include "tcp_reasm.h"

#include <stdlib.h>
#include <string.h>

enum { TH_FIN = 0x01, TH_SYN = 0x02, TH_RST = 0x04 };

void iw_reasm_init(iw_tcp_reasm *r, iw_reasm_budget *budget)
{
	memset(r, 0, sizeof *r);
	r->budget = budget;
	r->stop = UINT64_MAX;
}

/* Takes n octets from the budget (asking it to make room when full). */
static enum iw_pcap_cut charge(iw_tcp_reasm *r, size_t n)
{
	iw_reasm_budget *b = r->budget;
	if (b) {
		bool over = b->limit && (n > b->limit || b->held > b->limit - n);
		if (over && !(b->make_room && b->make_room(b->ctx, n)))
			return IW_PCAP_CUT_BUDGET;
		b->held += n;
		if (b->held > b->peak)
			b->peak = b->held;
	}
	r->held += n;
	return IW_PCAP_CUT_NONE;
}

static void uncharge(iw_tcp_reasm *r, size_t n)
{
	if (r->budget)
		r->budget->held -= n;
	r->held -= n;
}

/* Nothing from offset off on is kept (frame: the segment that brought it); the octets waiting
 * there go at the end of iw_reasm_add (trim), not here, since the caller may be walking them. */
static void stop_at(iw_tcp_reasm *r, uint64_t off, uint64_t frame, enum iw_pcap_cut why)
{
	if (off >= r->stop)
		return;
	r->stop = off;
	r->stop_frame = frame;
	r->s.cut = why;
}

static void free_frag(iw_tcp_reasm *r, iw_reasm_frag *f)
{
	free(f->data);
	uncharge(r, f->len);
	f->data = NULL;
}

/* Drops the waiting octets at or past stop, counting them as beyond. */
static void trim(iw_tcp_reasm *r)
{
	if (r->stop == UINT64_MAX)
		return;
	while (r->nfrag && r->frag[r->nfrag - 1].off >= r->stop) {
		r->nfrag--;
		r->s.beyond += r->frag[r->nfrag].len;
		free_frag(r, &r->frag[r->nfrag]);
	}
}

static enum iw_pcap_cut grow_data(iw_tcp_reasm *r, size_t need)
{
	if (need <= r->data_cap)
		return IW_PCAP_CUT_NONE;
	size_t cap = r->data_cap ? r->data_cap : 64;
	while (cap < need && cap <= SIZE_MAX / 2)
		cap *= 2;
	if (cap < need)
		cap = need;
	/* Doubling may ask more than the budget has while the octets themselves would fit. */
	if (charge(r, cap - r->data_cap)) {
		cap = need;
		if (charge(r, cap - r->data_cap))
			return IW_PCAP_CUT_BUDGET;
	}
	uint8_t *d = realloc(r->s.data, cap);
	if (!d) {
		uncharge(r, cap - r->data_cap);
		return IW_PCAP_CUT_NOMEM;
	}
	r->s.data = d;
	r->data_cap = cap;
	return IW_PCAP_CUT_NONE;
}

/* The frame that adds octets at the current end; one piece per run of the same frame. */
static enum iw_pcap_cut push_piece(iw_tcp_reasm *r, uint64_t frame)
{
	iw_pcap_stream *s = &r->s;
	if (s->npieces && s->pieces[s->npieces - 1].frame == frame)
		return IW_PCAP_CUT_NONE;
	if (s->npieces == r->pieces_cap) {
		size_t cap = r->pieces_cap ? r->pieces_cap * 2 : 4;
		if (charge(r, (cap - r->pieces_cap) * sizeof *s->pieces))
			return IW_PCAP_CUT_BUDGET;
		iw_pcap_piece *p = realloc(s->pieces, cap * sizeof *p);
		if (!p) {
			uncharge(r, (cap - r->pieces_cap) * sizeof *s->pieces);
			return IW_PCAP_CUT_NOMEM;
		}
		s->pieces = p;
		r->pieces_cap = cap;
	}
	s->pieces[s->npieces].off = s->len;
	s->pieces[s->npieces].frame = frame;
	s->npieces++;
	return IW_PCAP_CUT_NONE;
}

/* n octets at the current end. False when none could be kept. */
static bool append(iw_tcp_reasm *r, const uint8_t *src, size_t n, uint64_t frame)
{
	iw_pcap_stream *s = &r->s;
	if (n == 0)
		return false;
	if (s->len >= r->stop) {
		s->beyond += n;
		return false;
	}
	if (n > r->stop - s->len) {
		s->beyond += n - (r->stop - s->len);
		n = (size_t)(r->stop - s->len);
	}
	enum iw_pcap_cut why = grow_data(r, s->len + n);
	if (!why)
		why = push_piece(r, frame);
	if (why) {
		stop_at(r, s->len, frame, why);
		s->beyond += n;
		return false;
	}
	memcpy(s->data + s->len, src, n);
	s->len += n;
	return true;
}

/* A later copy of octets already held: counted once per segment when it differs. */
static void compare(iw_tcp_reasm *r, const uint8_t *held, const uint8_t *copy, size_t n, uint64_t off,
		    uint64_t frame, bool *conflict)
{
	if (*conflict || !memcmp(held, copy, n))
		return;
	*conflict = true;
	if (r->s.conflicts)
		return;
	size_t i = 0;
	while (held[i] == copy[i])
		i++;
	r->s.conflict_off = off + i;
	r->s.conflict_frame = frame;
}

/* The index of the first waiting fragment that ends after off. */
static size_t frag_after(const iw_tcp_reasm *r, uint64_t off)
{
	size_t lo = 0, hi = r->nfrag;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->frag[mid].off + r->frag[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool frag_insert(iw_tcp_reasm *r, size_t at, uint64_t off, const uint8_t *src, size_t n, uint64_t frame)
{
	if (r->nfrag >= IW_REASM_PIECES_MAX) {
		stop_at(r, off, frame, IW_PCAP_CUT_PIECES);
		return false;
	}
	enum iw_pcap_cut why = IW_PCAP_CUT_NONE;
	if (r->nfrag == r->frag_cap) {
		size_t cap = r->frag_cap ? r->frag_cap * 2 : 4;
		why = charge(r, (cap - r->frag_cap) * sizeof *r->frag);
		if (!why) {
			iw_reasm_frag *f = realloc(r->frag, cap * sizeof *f);
			if (f) {
				r->frag = f;
				r->frag_cap = cap;
			} else {
				uncharge(r, (cap - r->frag_cap) * sizeof *r->frag);
				why = IW_PCAP_CUT_NOMEM;
			}
		}
	}
	uint8_t *d = NULL;
	if (!why)
		why = charge(r, n);
	if (!why && !(d = malloc(n))) {
		uncharge(r, n);
		why = IW_PCAP_CUT_NOMEM;
	}
	if (why) {
		stop_at(r, off, frame, why);
		return false;
	}
	memcpy(d, src, n);
	memmove(r->frag + at + 1, r->frag + at, (r->nfrag - at) * sizeof *r->frag);
	r->frag[at] = (iw_reasm_frag){.off = off, .frame = frame, .len = (uint32_t)n, .data = d};
	r->nfrag++;
	return true;
}

/* Octets [a, a + n) past the current end wait, trimmed to what no earlier segment carried. */
static void wait_past_gap(iw_tcp_reasm *r, uint64_t a, const uint8_t *src, size_t n, uint64_t frame, bool *fresh,
			  bool *conflict)
{
	uint64_t b = a + n;
	size_t i = frag_after(r, a);
	for (uint64_t cur = a; cur < b;) {
		if (cur >= r->stop) {
			r->s.beyond += b - cur;
			return;
		}
		if (i < r->nfrag && r->frag[i].off <= cur) {
			const iw_reasm_frag *f = &r->frag[i];
			uint64_t e = f->off + f->len < b ? f->off + f->len : b;
			compare(r, f->data + (cur - f->off), src + (cur - a), (size_t)(e - cur), cur, frame, conflict);
			cur = e;
			i++;
			continue;
		}
		uint64_t e = i < r->nfrag && r->frag[i].off < b ? r->frag[i].off : b;
		if (e > r->stop)
			e = r->stop;
		if (!frag_insert(r, i, cur, src + (cur - a), (size_t)(e - cur), frame)) {
			r->s.beyond += b - cur;
			return;
		}
		*fresh = true;
		i++;
		cur = e;
	}
}

/* Appends the waiting fragments the end has reached. A fragment's octets move into the stream:
 * the budget counts them once (given back before the stream grows), so a full budget does not
 * refuse the very octets it already holds. */
static void drain(iw_tcp_reasm *r)
{
	size_t k = 0;
	while (k < r->nfrag && r->frag[k].off <= r->s.len && r->s.len < r->stop) {
		iw_reasm_frag *f = &r->frag[k];
		uint64_t skip = r->s.len - f->off;
		uncharge(r, f->len);
		if (skip < f->len)
			append(r, f->data + skip, (size_t)(f->len - skip), f->frame);
		free(f->data);
		f->data = NULL;
		k++;
	}
	if (k) {
		memmove(r->frag, r->frag + k, (r->nfrag - k) * sizeof *r->frag);
		r->nfrag -= k;
	}
}

/* Octets [a, a + n) of one segment, in capture order. */
static void place(iw_tcp_reasm *r, uint64_t a, const uint8_t *src, size_t n, uint64_t frame)
{
	iw_pcap_stream *s = &r->s;
	bool fresh = false, conflict = false;
	uint64_t b = a + n;
	if (a < s->len) {
		uint64_t e = b < s->len ? b : s->len;
		compare(r, s->data + a, src, (size_t)(e - a), a, frame, &conflict);
		src += e - a;
		a = e;
	}
	if (a < b && a == s->len) {
		/* Up to the first waiting fragment: those octets came first and are compared below. */
		uint64_t e = r->nfrag && r->frag[0].off < b ? r->frag[0].off : b;
		fresh |= append(r, src, (size_t)(e - a), frame);
		if (s->len < e) {
			s->beyond += b - e;     /* stopped: append counted its part */
			a = b;
		} else {
			src += e - a;
			a = e;
		}
	}
	if (a < b)
		wait_past_gap(r, a, src, (size_t)(b - a), frame, &fresh, &conflict);
	drain(r);
	if (conflict)
		s->conflicts++;
	if (!fresh)
		s->retransmitted++;
}

static size_t waiting_octets(const iw_tcp_reasm *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nfrag; i++)
		n += r->frag[i].len;
	return n;
}

/* Offset 0 moves delta octets earlier: what is kept becomes fragments (one per piece, so each
 * octet keeps its frame) delta further on, and the new first octets fill in before them. Only
 * while little is held, so a capture cannot make it quadratic. */
static bool rebase(iw_tcp_reasm *r, uint32_t delta)
{
	iw_pcap_stream *s = &r->s;
	if (r->stop != UINT64_MAX || s->len + waiting_octets(r) + delta > IW_REASM_REBASE_MAX ||
	    r->nfrag + s->npieces > IW_REASM_PIECES_MAX)
		return false;
	size_t n = r->nfrag + s->npieces, k = 0, octets = 0;
	iw_reasm_frag *f = malloc((n ? n : 1) * sizeof *f);
	if (!f)
		return false;
	for (size_t i = 0; i < s->npieces; i++) {
		uint64_t off = s->pieces[i].off, end = i + 1 < s->npieces ? s->pieces[i + 1].off : s->len;
		if (end == off)
			continue;
		uint8_t *d = malloc((size_t)(end - off));
		if (!d) {
			while (k)
				free(f[--k].data);
			free(f);
			return false;
		}
		memcpy(d, s->data + off, (size_t)(end - off));
		f[k++] = (iw_reasm_frag){.off = off + delta, .frame = s->pieces[i].frame, .len = (uint32_t)(end - off),
					 .data = d};
		octets += (size_t)(end - off);
	}
	for (size_t i = 0; i < r->nfrag; i++) {
		f[k] = r->frag[i];
		f[k++].off += delta;
	}
	/* Under IW_REASM_REBASE_MAX: charged without asking the budget for room. */
	uncharge(r, r->frag_cap * sizeof *r->frag);
	free(r->frag);
	r->frag = f;
	r->nfrag = k;
	r->frag_cap = n ? n : 1;
	size_t more = r->frag_cap * sizeof *f + octets;
	r->held += more;
	if (r->budget) {
		r->budget->held += more;
		if (r->budget->held > r->budget->peak)
			r->budget->peak = r->budget->held;
	}
	s->len = 0;
	s->npieces = 0;
	r->base -= delta;
	r->hi += delta;
	if (r->expect_end)
		r->expect_end += delta;
	if (s->conflicts)
		s->conflict_off += delta;
	return true;
}

/* The stream offset of seq, unwrapped around the highest end so far. */
static int64_t offset_of(const iw_tcp_reasm *r, uint32_t seq)
{
	return (int64_t)r->hi + (int32_t)(seq - r->base - (uint32_t)r->hi);
}

void iw_reasm_add(iw_tcp_reasm *r, uint8_t flags, uint32_t seq, const uint8_t *payload, uint32_t len,
		  uint32_t missing, uint64_t frame)
{
	iw_pcap_stream *s = &r->s;
	if (!s->first_frame)
		s->first_frame = frame;
	s->last_frame = frame;
	uint32_t dseq = seq + ((flags & TH_SYN) ? 1u : 0u);
	if (flags & TH_SYN) {
		/* A SYN seen after data of the same direction moves offset 0 to follow it. */
		if (r->have_base && !s->syn && (int32_t)(r->base - dseq) > 0)
			rebase(r, r->base - dseq);
		else if (!r->have_base)
			r->base = dseq;
		r->have_base = true;
		s->syn = true;
		s->isn = seq;
	}
	if ((flags & TH_FIN) && !s->fin) {
		s->fin = true;
		r->fin_seq = dseq + len + missing;
		s->fin_frame = frame;
	}
	if ((flags & TH_RST) && !s->rst) {
		s->rst = true;
		s->rst_frame = frame;
	}
	if (len == 0 && missing == 0)
		return;
	s->segments++;
	if (!r->have_base) {
		r->have_base = true;
		r->base = dseq;
	}
	int64_t off = offset_of(r, dseq);
	if (off < 0 && (s->syn || !rebase(r, (uint32_t)-off)))
		return;         /* before the stream's start */
	if (off < 0)
		off = 0;
	if ((uint64_t)off > r->hi)
		s->out_of_order++;      /* octets before it had not arrived yet */
	uint64_t end = (uint64_t)off + len + missing;
	if (end > r->hi)
		r->hi = end;
	if (end > r->expect_end) {
		r->expect_end = end;
		r->expect_frame = frame;
	}
	if (len)
		place(r, (uint64_t)off, payload, len, frame);
	trim(r);
}

bool iw_reasm_has_data(const iw_tcp_reasm *r)
{
	return r->s.segments > 0;
}

bool iw_reasm_syn_differs(const iw_tcp_reasm *r, uint32_t seq)
{
	return r->s.syn && r->s.isn != seq;
}

void iw_reasm_finish(iw_tcp_reasm *r)
{
	iw_pcap_stream *s = &r->s;
	if (!s->syn)
		s->isn = r->base;
	if (s->fin) {
		int64_t fo = r->have_base ? offset_of(r, r->fin_seq) : 0;
		s->fin_off = fo > 0 ? (uint64_t)fo : 0;
		if (r->have_base && s->fin_off > r->expect_end) {
			r->expect_end = s->fin_off;
			r->expect_frame = s->fin_frame;
		}
	}
	s->beyond += waiting_octets(r);
	if (s->cut && s->len >= r->stop) {
		s->hole = false;        /* the stream reached where the reader stopped keeping it */
	} else if (r->nfrag) {
		s->cut = IW_PCAP_CUT_NONE;      /* a hole comes first: nothing past it is judged anyway */
		s->hole = true;
		s->hole_len = r->frag[0].off - s->len;
		s->hole_frame = r->frag[0].frame;
	} else if (s->cut) {
		s->cut = IW_PCAP_CUT_NONE;
		s->hole = true;
		s->hole_len = r->stop - s->len;
		s->hole_frame = r->stop_frame;
	} else if (r->expect_end > s->len) {
		/* Octets announced (by the snap length cut or by the FIN's position) never captured. */
		s->hole = true;
		s->hole_len = r->expect_end - s->len;
		s->hole_frame = r->expect_frame;
	}
	for (size_t i = 0; i < r->nfrag; i++)
		free_frag(r, &r->frag[i]);
	r->nfrag = 0;
}

void iw_reasm_free(iw_tcp_reasm *r)
{
	for (size_t i = 0; i < r->nfrag; i++)
		free(r->frag[i].data);
	free(r->frag);
	free(r->s.data);
	free(r->s.pieces);
	if (r->budget)
		r->budget->held -= r->held;
	memset(r, 0, sizeof *r);
}
