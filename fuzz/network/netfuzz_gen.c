/*
 * netfuzz_gen.c - the network fuzzer's PRNG and its structure-aware program generator.
 *
 * A program is generated from (seed, run index) alone, so the same seed always yields the
 * same programs, whatever the DUT answered before. Most actions are what a conforming peer
 * sends next (so runs reach full operation, placement and delivery); a share of them carry one
 * or two mutated fields, and some are raw octets: garbage, truncated FPDUs that end inside a
 * header, repeated FPDUs. A-numbers refer to requirements.md §6.
 */
#include <stdio.h>
#include <string.h>

#include "iw_octets.h"
#include "iw_proto.h"
#include "netfuzz.h"

/* ---- PRNG ---- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void nf_rng_seed(nf_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t nf_rng_next(nf_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint32_t nf_rng_below(nf_rng *r, uint32_t n)
{
	return n ? (uint32_t)(((nf_rng_next(r) >> 32) * (uint64_t)n) >> 32) : 0;
}

bool nf_rng_pct(nf_rng *r, unsigned pct) { return nf_rng_below(r, 100) < pct; }

/* ---- program helpers ---- */

uint8_t nf_act_octet(const nf_prog *p, const nf_action *a, size_t i)
{
	if (a->pattern)
		return (uint8_t)(a->pat + i * 7 + (i >> 8));
	return p->pool[a->off + i];
}

static nf_action *add(nf_prog *p, enum nf_act_kind k)
{
	if (p->n == NF_MAX_ACTIONS)
		return NULL;
	nf_action *a = &p->a[p->n++];
	memset(a, 0, sizeof *a);
	a->kind = (uint8_t)k;
	a->off = (uint32_t)p->pool_len;
	return a;
}

/* Explicit octets at the pool's end; fewer when the pool is full. */
static void put_octets(nf_prog *p, nf_action *a, const uint8_t *b, size_t n)
{
	if (n > NF_POOL - p->pool_len)
		n = NF_POOL - p->pool_len;
	a->off = (uint32_t)p->pool_len;
	memcpy(p->pool + p->pool_len, b, n);
	p->pool_len += n;
	a->len = (uint32_t)n;
	a->pattern = false;
}

static void rand_octets(nf_prog *p, nf_action *a, nf_rng *r, size_t n)
{
	uint8_t b[512];
	if (n > sizeof b)
		n = sizeof b;
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)nf_rng_next(r);
	put_octets(p, a, b, n);
}

void nf_prog_keep(nf_prog *dst, const nf_prog *src, const bool *keep)
{
	nf_prog t;
	t.seed = src->seed;
	t.run = src->run;
	t.origin = src->origin;
	t.n = 0;
	t.pool_len = 0;
	for (size_t i = 0; i < src->n; i++) {
		if (!keep[i])
			continue;
		nf_action a = src->a[i];
		if (!a.pattern && a.len) {
			memcpy(t.pool + t.pool_len, src->pool + a.off, a.len);
			a.off = (uint32_t)t.pool_len;
			t.pool_len += a.len;
		} else {
			a.off = (uint32_t)t.pool_len;
		}
		t.a[t.n++] = a;
	}
	memcpy(dst, &t, offsetof(nf_prog, pool) + t.pool_len);
}

void nf_prog_keep_octets(nf_prog *dst, const nf_prog *src, size_t k, const bool *keep)
{
	nf_prog t;
	memcpy(&t, src, offsetof(nf_prog, pool));
	t.pool_len = 0;
	for (size_t i = 0; i < src->n; i++) {
		nf_action *a = &t.a[i];
		const nf_action *s = &src->a[i];
		size_t start = t.pool_len;
		if (i == k) {
			for (size_t j = 0; j < s->len && t.pool_len < NF_POOL; j++)
				if (keep[j])
					t.pool[t.pool_len++] = nf_act_octet(src, s, j);
			a->pattern = false;
		} else if (!s->pattern) {
			memcpy(t.pool + t.pool_len, src->pool + s->off, s->len);
			t.pool_len += s->len;
		}
		a->off = (uint32_t)start;
		if (i == k || !s->pattern)
			a->len = (uint32_t)(t.pool_len - start);
	}
	memcpy(dst, &t, offsetof(nf_prog, pool) + t.pool_len);
}

static const char *msg_word[NF_M_COUNT] = {"send", "send_se", "send_inv", "write", "read_req", "read_resp",
					   "terminate"};

void nf_action_describe(const nf_prog *p, const nf_action *a, char *buf, size_t cap)
{
	(void)p;
	switch (a->kind) {
	case NF_A_FRAME: {
		const nf_frame *f = &a->fr;
		snprintf(buf, cap, "startup frame%s%s m=%d c=%d r=%d res=%d rev=%d pd_length=%d, %u octets of PD",
			 f->other_key ? " (other key)" : "", f->key_octet >= 0 ? " (key octet corrupted)" : "", f->m, f->c,
			 f->r, f->res, f->rev, f->pd_length, a->len);
		break;
	}
	case NF_A_FPDU: {
		const nf_fpdu *x = &a->fp;
		const iw_fpdu_mods *m = &x->mods;
		snprintf(buf, cap,
			 "%s: T=%d L=%d DV=%u RV=%u opcode 0x%x %s%s QN=%u MSN=%u MO=%u STag=0x%x%s TO=0x%llx, %u payload "
			 "octets%s%s%s%s%s%s%s",
			 msg_word[x->msg], x->tagged, x->last, x->dv, x->rv, x->opcode, x->rsvd ? "rsvd " : "",
			 x->rsvdulp_set ? "rsvdulp " : "", x->qn, x->msn, x->mo, x->stag, x->stag_adv ? " (advertised)" : "",
			 (unsigned long long)x->to, a->len, x->mulpdu ? ", segmented" : "", x->norder ? " out of order" : "",
			 m->set_length ? ", ULPDU_Length lies" : "",
			 m->crc_xor || m->set_crc || m->crc_big_endian || m->corrupt ? ", bad CRC" : "",
			 m->pad_fill ? ", pad set" : "", m->marker_reserved || m->fpduptr_or || m->fpduptr_delta ? ", marker mod" : "",
			 m->no_markers ? ", no markers" : "");
		break;
	}
	case NF_A_RAW: snprintf(buf, cap, "%u raw octets", a->len); break;
	case NF_A_SPLIT: snprintf(buf, cap, "split every=%u", a->split_every); break;
	case NF_A_SLEEP: snprintf(buf, cap, "sleep %u us", a->sleep_us); break;
	case NF_A_RESET: snprintf(buf, cap, "reset"); break;
	default: snprintf(buf, cap, "?"); break;
	}
}

uint64_t nf_prog_hash(const nf_prog *p)
{
	uint64_t h = 0xcbf29ce484222325ull;
#define MIX(ptr, n)                                                                                                    \
	do {                                                                                                           \
		const uint8_t *q_ = (const uint8_t *)(ptr);                                                            \
		for (size_t i_ = 0; i_ < (n); i_++)                                                                    \
			h = (h ^ q_[i_]) * 0x100000001b3ull;                                                           \
	} while (0)
	for (size_t i = 0; i < p->n; i++) {
		nf_action a = p->a[i];
		a.off = 0;
		MIX(&a.kind, 1);
		MIX(&a.len, sizeof a.len);
		for (size_t j = 0; j < a.len; j++) {
			uint8_t o = nf_act_octet(p, &p->a[i], j);
			MIX(&o, 1);
		}
		/* Fields one by one: struct padding is not part of the meaning. */
		const nf_frame *f = &a.fr;
		int fv[] = {f->key_octet, f->key_xor, f->other_key, f->m, f->c, f->r, f->res, f->enhanced, f->rev,
			    f->pd_length, f->irdord, f->ird, f->ord};
		MIX(fv, sizeof fv);
		const nf_fpdu *x = &a.fp;
		uint64_t xv[] = {x->msg, x->tagged, x->last, x->dv, x->rsvd, x->rv, x->opcode, x->rsvdulp_set,
				 x->qn, x->msn, x->mo, x->mo_set, x->last_set, x->stag, x->stag_adv, x->to,
				 x->rr.sink_stag, x->rr.sink_to, x->rr.size, x->rr.src_stag, x->rr.src_to,
				 x->rr_src_adv, x->t_layer, x->t_etype, x->t_ecode, x->mulpdu, x->norder,
				 x->mods.set_length, x->mods.ulpdu_length, x->mods.set_crc, x->mods.crc_value,
				 x->mods.crc_big_endian, x->mods.crc_xor, x->mods.corrupt, x->mods.corrupt_at,
				 x->mods.pad_fill, x->mods.marker_reserved, x->mods.fpduptr_or,
				 (uint64_t)(int64_t)x->mods.fpduptr_delta, x->mods.no_markers, a.split_every, a.sleep_us,
				 a.pattern, a.pat};
		MIX(xv, sizeof xv);
		MIX(x->rsvdulp, 5);
		MIX(x->order, x->norder);
	}
#undef MIX
	return h;
}

/* ---- the generator ---- */

/* What a conforming sender would use next. */
typedef struct gen {
	nf_rng *r;
	nf_prog *p;
	const nf_dutinfo *d;
	uint32_t msn[3];
	size_t budget;              /* payload octets left: keeps echoes well under the DUT's queues */
} gen;

static uint32_t pick(nf_rng *r, const uint32_t *v, size_t n) { return v[nf_rng_below(r, (uint32_t)n)]; }

static size_t payload_len(gen *g)
{
	size_t n;
	unsigned c = nf_rng_below(g->r, 100);
	if (c < 30)
		n = nf_rng_below(g->r, 8);
	else if (c < 80)
		n = 8 + nf_rng_below(g->r, 120);
	else if (c < 97)
		n = 128 + nf_rng_below(g->r, 1900);
	else
		n = 2048 + nf_rng_below(g->r, NF_PAYLOAD_MAX - 2048); /* past a receive buffer (DDP-9.1-U4) */
	if (n > g->budget && n < 65536)
		n = g->budget;
	if (n < 65536)
		g->budget -= n;
	return n;
}

static void set_payload(gen *g, nf_action *a, size_t n)
{
	if (n > 256 || nf_rng_pct(g->r, 50)) {
		a->pattern = true;
		a->pat = (uint8_t)nf_rng_next(g->r);
		a->len = (uint32_t)n;
		a->off = (uint32_t)g->p->pool_len;
	} else {
		rand_octets(g->p, a, g->r, n);
	}
}

static void gen_frame(gen *g)
{
	nf_action *a = add(g->p, NF_A_FRAME);
	if (!a)
		return;
	nf_frame *f = &a->fr;
	f->key_octet = f->key_xor = -1;
	f->m = f->c = f->r = f->res = f->enhanced = f->rev = f->pd_length = f->irdord = f->ird = f->ord = -1;
	nf_rng *r = g->r;
	const iw_profile *pr = g->d->profile;
	/* Private data: usually none or a little (never "REJECTME": the reflector refuses that
	 * on purpose, MPA-6.1-R2c, which the model does not do). */
	size_t pd = 0;
	if (nf_rng_pct(r, 25))
		pd = nf_rng_below(r, 40);
	else if (nf_rng_pct(r, 2))
		pd = 40 + nf_rng_below(r, pr->pd_max > 600 ? 600 : pr->pd_max);
	if (pd > 400)
		pd = 400;
	rand_octets(g->p, a, r, pd);
	if (a->len == 8 && !memcmp(g->p->pool + a->off, "REJECTME", 8))
		g->p->pool[a->off] ^= 1;
	if (nf_rng_pct(r, 18))
		f->m = 1;           /* ask the DUT for markers (MPA-6.1.1-M2) */
	if (!nf_rng_pct(r, 30))
		return;
	int nmut = 1 + (int)nf_rng_below(r, 2);
	for (int i = 0; i < nmut; i++) {
		switch (nf_rng_below(r, 11)) {
		case 0:
			f->key_octet = (int)nf_rng_below(r, 16);
			f->key_xor = (int)(1 + nf_rng_below(r, 255));
			break;
		case 1: f->other_key = true; break;
		case 2: f->c = 0; break;
		case 3: f->r = 1; break;
		case 4: f->res = (int)(1 + nf_rng_below(r, pr->enhanced ? 15 : 31)); break;
		case 5: {
			static const uint32_t revs[] = {0, 1, 2, 3, 0x80, 0xff};
			f->rev = (int)pick(r, revs, 6);
			break;
		}
		case 6: {
			uint32_t lies[] = {(uint32_t)a->len + 1, (uint32_t)a->len + 4, a->len ? (uint32_t)a->len - 1 : 1,
					   pr->pd_max, pr->pd_max + 1, 65535};
			f->pd_length = (int)pick(r, lies, 6);
			break;
		}
		case 7: f->enhanced = (int)nf_rng_below(r, 2); break;
		case 8: f->irdord = (int)nf_rng_below(r, 2); break;
		case 9:
			f->ird = (int)nf_rng_below(r, 0x4000);
			f->ord = (int)nf_rng_below(r, 0x4000);
			break;
		default: f->m = 1; break;
		}
	}
}

/* Header fields of a conforming message of kind m. */
static void conforming(gen *g, nf_fpdu *x, enum nf_msg m)
{
	static const uint8_t ops[NF_M_COUNT] = {IW_OP_SEND, IW_OP_SEND_SE, IW_OP_SEND_INV, IW_OP_WRITE,
						IW_OP_READ_REQ, IW_OP_READ_RESP, IW_OP_TERMINATE};
	const iw_profile *pr = g->d->profile;
	memset(x, 0, sizeof *x);
	x->msg = (uint8_t)m;
	x->opcode = ops[m];
	x->tagged = m == NF_M_WRITE || m == NF_M_READ_RESP;
	x->last = true;
	x->dv = pr->ddp_version;
	x->rv = pr->rdmap_version;
	int qn = m == NF_M_READ_REQ ? IW_QN_READ_REQ : m == NF_M_TERMINATE ? IW_QN_TERMINATE : IW_QN_SEND;
	if (!x->tagged) {
		x->qn = (uint32_t)qn;
		x->msn = g->msn[qn]++;
	}
}

static void mutate_fpdu(gen *g, nf_action *a)
{
	nf_rng *r = g->r;
	nf_fpdu *x = &a->fp;
	iw_fpdu_mods *m = &x->mods;
	switch (nf_rng_below(r, 24)) {
	case 0: {
		static const uint32_t lens[] = {0, 1, 2, 13, 17, 27, 65535};
		m->set_length = true;
		m->ulpdu_length = (uint16_t)(nf_rng_pct(r, 50) ? pick(r, lens, 7) : nf_rng_below(r, 200));
		break;
	}
	case 1: m->crc_xor = (uint32_t)(1u << nf_rng_below(r, 32)); break;
	case 2: m->crc_big_endian = true; break;
	case 3:
		m->corrupt = true;
		m->corrupt_at = nf_rng_below(r, 18 + (a->len < 64 ? a->len : 64));
		break;
	case 4: m->pad_fill = (uint8_t)(1 + nf_rng_below(r, 255)); break;
	case 5: m->marker_reserved = (uint16_t)(1 + nf_rng_below(r, 0xffff)); break;
	case 6: m->fpduptr_or = (uint16_t)(1 + nf_rng_below(r, 3)); break;
	case 7: m->fpduptr_delta = nf_rng_pct(r, 50) ? 4 : -4; break;
	case 8: m->no_markers = true; break;
	case 9: x->dv = (uint8_t)((x->dv + 1 + nf_rng_below(r, 3)) & 3); break;
	case 10: x->rsvd = (uint8_t)(1 + nf_rng_below(r, 15)); break;
	case 11: x->rv = (uint8_t)((x->rv + 1 + nf_rng_below(r, 3)) & 3); break;
	case 12: x->opcode = (uint8_t)nf_rng_below(r, 16); break;
	case 13: x->tagged = !x->tagged; break;
	case 14: {
		static const uint32_t qns[] = {0, 1, 2, 3, 4, 0xffffffff};
		x->qn = pick(r, qns, 6);
		break;
	}
	case 15: {
		uint32_t msns[] = {0, x->msn + 1, x->msn + 8, x->msn + 40, x->msn - 1, 0x80000000u, 0xffffffffu};
		x->msn = pick(r, msns, 7);
		break;
	}
	case 16: {
		static const uint32_t mos[] = {1, 4, 65535, 65536, 65530, 0xfffffff0u};
		x->mo_set = true;
		x->mo = nf_rng_pct(r, 60) ? pick(r, mos, 6) : nf_rng_next(r) & 0xffff;
		break;
	}
	case 17:
		x->last_set = true;
		x->last = false;
		break;
	case 18:
		x->rsvdulp_set = true;
		for (int i = 1; i < 5; i++)
			x->rsvdulp[i] = (uint8_t)nf_rng_next(r);
		break;
	case 19: {
		static const uint64_t tos[] = {1, 65535, 65536, 65520, 0xfffffffffffffff8ull, 0x8000000000000000ull};
		x->to = tos[nf_rng_below(r, 6)];
		break;
	}
	case 20: {
		/* Another STag: unknown, its neighbour (another connection's at the ref DUT), zero. */
		static const uint32_t stags[] = {0, 1, 0xffffffff, 0x100, 0x2000, 0xdead0000};
		x->stag_adv = false;
		x->stag = nf_rng_pct(r, 50) ? pick(r, stags, 6) : (uint32_t)nf_rng_next(r);
		break;
	}
	case 21: m->set_crc = true, m->crc_value = (uint32_t)nf_rng_next(r); break;
	case 22:
		x->mulpdu = (uint16_t)(24 + nf_rng_below(r, 40));
		break;
	default:
		x->msg = NF_M_TERMINATE;
		x->t_layer = (uint8_t)nf_rng_below(r, 4);
		x->t_etype = (uint8_t)nf_rng_below(r, 4);
		x->t_ecode = (uint8_t)nf_rng_below(r, 16);
		break;
	}
}

static void gen_fpdu(gen *g)
{
	nf_rng *r = g->r;
	nf_action *a = add(g->p, NF_A_FPDU);
	if (!a)
		return;
	nf_fpdu *x = &a->fp;
	unsigned c = nf_rng_below(r, 100);
	enum nf_msg m = c < 55 ? NF_M_SEND : c < 60 ? NF_M_SEND_SE : c < 63 ? NF_M_SEND_INV : c < 78 ? NF_M_WRITE
		      : c < 88 ? NF_M_READ_REQ : c < 92 ? NF_M_READ_RESP : NF_M_TERMINATE;
	conforming(g, x, m);
	size_t n = 0;
	switch (m) {
	case NF_M_WRITE:
	case NF_M_READ_RESP:
		n = payload_len(g);
		x->stag_adv = nf_rng_pct(r, 80);
		x->to = nf_rng_pct(r, 70) ? nf_rng_below(r, 1024) : nf_rng_below(r, 65536);
		break;
	case NF_M_READ_REQ:
		x->rr.sink_stag = (uint32_t)nf_rng_next(r);
		x->rr.sink_to = nf_rng_below(r, 4096);
		x->rr_src_adv = nf_rng_pct(r, 80);
		x->rr.src_stag = (uint32_t)nf_rng_next(r);
		x->rr.src_to = nf_rng_pct(r, 80) ? nf_rng_below(r, 1024) : (nf_rng_pct(r, 50) ? 65530 : nf_rng_next(r));
		x->rr.size = nf_rng_pct(r, 85) ? nf_rng_below(r, 200) : (nf_rng_pct(r, 50) ? 65537 : (uint32_t)nf_rng_next(r));
		if (x->rr.size > 1 && x->rr.size < 65536 && x->rr.size > g->budget)
			x->rr.size = (uint32_t)g->budget;
		if (x->rr.size < 65536)
			g->budget -= x->rr.size < g->budget ? x->rr.size : g->budget;
		break;
	case NF_M_TERMINATE:
		x->t_layer = (uint8_t)nf_rng_below(r, 3);
		x->t_etype = (uint8_t)nf_rng_below(r, 3);
		x->t_ecode = (uint8_t)nf_rng_below(r, 8);
		break;
	case NF_M_SEND_INV:
		/* Invalidates the advertised STag (its own stream's), or an unknown one. */
		x->rsvdulp_set = true;
		x->stag_adv = nf_rng_pct(r, 70);
		for (int i = 1; i < 5; i++)
			x->rsvdulp[i] = (uint8_t)nf_rng_next(r);
		n = payload_len(g);
		break;
	default:
		n = payload_len(g);
		break;
	}
	if (m != NF_M_READ_REQ && m != NF_M_TERMINATE)
		set_payload(g, a, n);
	/* Several segments, sometimes out of order (DDP-7.4-01: delivered once all are placed). */
	if (n > 40 && nf_rng_pct(r, 12)) {
		x->mulpdu = (uint16_t)((x->tagged ? 14 : 18) + 8 + nf_rng_below(r, (uint32_t)(n / 2 + 1)));
		size_t hl = x->tagged ? 14 : 18;
		size_t nseg = (n + (x->mulpdu - hl) - 1) / (x->mulpdu - hl);
		if (nseg <= 8 && nf_rng_pct(r, 60)) {
			x->norder = (uint8_t)nseg;
			for (size_t i = 0; i < nseg; i++)
				x->order[i] = (uint8_t)i;
			for (size_t i = nseg; i > 1; i--) {
				size_t j = nf_rng_below(r, (uint32_t)i);
				uint8_t t = x->order[i - 1];
				x->order[i - 1] = x->order[j];
				x->order[j] = t;
			}
			if (nf_rng_pct(r, 15) && nseg > 1)
				x->norder = (uint8_t)(nseg - 1); /* one segment never sent: no delivery */
		} else if (nseg > 64) {
			x->mulpdu = 0;
		}
	}
	if (nf_rng_pct(r, 35)) {
		int nmut = 1 + (nf_rng_pct(r, 25) ? 1 : 0);
		for (int i = 0; i < nmut; i++)
			mutate_fpdu(g, a);
	}
}

static void gen_raw(gen *g)
{
	nf_rng *r = g->r;
	nf_action *a = add(g->p, NF_A_RAW);
	if (!a)
		return;
	unsigned c = nf_rng_below(r, 100);
	if (c < 45) {
		/* The start of a plausible FPDU: a ULPDU_Length and part of a DDP header (a stream that
		 * ends inside a header must leave a conforming DUT waiting, MPA-5.4-04). */
		uint8_t b[40];
		size_t n = 1 + nf_rng_below(r, 20);
		uint16_t ul = (uint16_t)(18 + nf_rng_below(r, 64));
		iw_put_be16(b, ul);
		b[2] = (uint8_t)(g->d->profile->ddp_version | (nf_rng_pct(r, 50) ? IW_DDP_L : 0));
		b[3] = iw_rdmap_ctrl(g->d->profile->rdmap_version, IW_OP_SEND);
		for (size_t i = 4; i < sizeof b; i++)
			b[i] = 0;
		b[9] = 0;
		b[13] = 1;
		put_octets(g->p, a, b, n);
	} else if (c < 60) {
		/* Octets that keep the 4-octet FPDU alignment. */
		rand_octets(g->p, a, r, 4 * (1 + nf_rng_below(r, 8)));
	} else {
		rand_octets(g->p, a, r, 1 + nf_rng_below(r, 48));
	}
}

void nf_generate(nf_prog *p, const nf_dutinfo *d, uint64_t seed, uint64_t run)
{
	nf_rng r;
	nf_rng_seed(&r, seed ^ (run * 0xD1B54A32D192ED03ull));
	p->seed = seed;
	p->run = run;
	memset(&p->origin, 0, sizeof p->origin);
	p->n = 0;
	p->pool_len = 0;
	gen g = {.r = &r, .p = p, .d = d, .msn = {1, 1, 1}, .budget = NF_PROG_PAYLOAD_BUDGET};
	bool frames = d->profile->startup_frames;
	/* Write cuts cost a syscall each (and the DUT a read each): a few programs have them. */
	if (nf_rng_pct(&r, 2)) {
		nf_action *s = add(p, NF_A_SPLIT);
		s->split_every = 1 + nf_rng_below(&r, 7);
	}
	if (frames) {
		if (nf_rng_pct(&r, 93))
			gen_frame(&g);
		else
			gen_raw(&g);
	}
	size_t nmsg = nf_rng_below(&r, 3) + (nf_rng_pct(&r, 40) ? nf_rng_below(&r, 8) : 0);
	if (nf_rng_pct(&r, 8))
		nmsg = 0;
	for (size_t i = 0; i < nmsg; i++) {
		unsigned c = nf_rng_below(&r, 100);
		if (c < 86) {
			gen_fpdu(&g);
		} else if (c < 97) {
			gen_raw(&g);
		} else if (c < 99) {
			/* Cuts through the next FPDUs' headers, markers and CRCs (MPA-5.4.1-01). */
			nf_action *s = add(p, NF_A_SPLIT);
			if (s)
				s->split_every = nf_rng_pct(&r, 25) ? 0 : nf_rng_pct(&r, 50) ? 1 + nf_rng_below(&r, 9)
											: 10 + nf_rng_below(&r, 60);
		} else if (nf_rng_pct(&r, 30)) {
			nf_action *s = add(p, NF_A_SLEEP);
			if (s)
				s->sleep_us = 200 + nf_rng_below(&r, 1800);
		}
	}
	/* A stream that ends inside a message: the DUT must wait, then close on our FIN. */
	if (nf_rng_pct(&r, 6))
		gen_raw(&g);
	if (nf_rng_pct(&r, 2))
		add(p, NF_A_RESET);
}
