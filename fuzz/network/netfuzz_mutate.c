/*
 * netfuzz_mutate.c - a new program from the programs kernel-coverage feedback kept: one kept
 * program (the parent) changed by one to three of
 *
 *   replace    an action becomes the like action of a program freshly generated for this run
 *              (its startup frame for the startup frame, an FPDU, raw octets, a cut or a pause
 *              for the others)
 *   delete     an action after the startup frame goes
 *   duplicate  an action after the startup frame is sent twice
 *   insert     an action of the fresh program goes in after the startup frame
 *   splice     the parent up to an action, then another kept program from one of its actions
 *   tweak      one field: an MSN, MO, TO, STag, opcode, a length (ULPDU_Length, payload, Read
 *              size), L, a frame flag, pd_length or Rev, a write cut, a pause, a raw octet
 *
 * so a run that reached new kernel code is explored around where it got. The startup frame stays
 * where the parent has it (first, or after a cut): the renderer and the case writer expect the
 * stream to begin with it, and moving it only makes runs the DUT rejects at once.
 *
 * Programs stay valid for rendering: at most NF_MAX_ACTIONS actions, their octets copied into
 * the new program's own pool (nf_prog.pool), and no more payload than the generator allows one
 * program (so a DUT's echoes stay under its queues); a mutation that would break that is tried
 * again, and after eight tries the parent is run as it is. Every choice comes from a PRNG seeded
 * by (seed, run), applied to the corpus's entries in their order: the same seed and corpus give
 * the same programs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netfuzz.h"


/* An action and the program whose pool holds its octets. */
typedef struct ref {
	const nf_prog *src;
	nf_action a;
} ref;

typedef struct mut {
	nf_rng *r;
	ref v[NF_MAX_ACTIONS];
	size_t n;
	nf_prog *own;               /* octets made here (a tweaked raw octet) */
	const nf_prog *donor;       /* the fresh program of this run */
	uint64_t with;
	char how[120];
} mut;

static void say(mut *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(mut *m, const char *fmt, ...)
{
	size_t l = strlen(m->how);
	if (l && l < sizeof m->how - 2)
		l += (size_t)snprintf(m->how + l, sizeof m->how - l, "; ");
	if (l >= sizeof m->how - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->how + l, sizeof m->how - l, fmt, ap);
	va_end(ap);
}

/* The startup frame's index, or -1: nothing may be moved before or over it. */
static long frame_at(const mut *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].a.kind == NF_A_FRAME)
			return (long)i;
	return -1;
}

/* An action of the donor that is not a startup frame (false: it has none). */
static bool donor_action(mut *m, ref *out)
{
	size_t cand[NF_MAX_ACTIONS], k = 0;
	for (size_t i = 0; i < m->donor->n; i++)
		if (m->donor->a[i].kind != NF_A_FRAME)
			cand[k++] = i;
	if (!k)
		return false;
	out->src = m->donor;
	out->a = m->donor->a[cand[nf_rng_below(m->r, (uint32_t)k)]];
	return true;
}

static void insert_at(mut *m, size_t at, const ref *x)
{
	memmove(&m->v[at + 1], &m->v[at], (m->n - at) * sizeof m->v[0]);
	m->v[at] = *x;
	m->n++;
}

static bool op_replace(mut *m)
{
	if (!m->n)
		return false;
	/* Nothing but the cuts before it goes before the startup frame. */
	long f0 = frame_at(m);
	size_t lo = f0 < 0 ? 0 : (size_t)f0;
	size_t i = lo + nf_rng_below(m->r, (uint32_t)(m->n - lo));
	ref x;
	if (m->v[i].a.kind == NF_A_FRAME) {
		long f = -1;
		for (size_t j = 0; j < m->donor->n && f < 0; j++)
			if (m->donor->a[j].kind == NF_A_FRAME)
				f = (long)j;
		if (f < 0)
			return false;
		x.src = m->donor;
		x.a = m->donor->a[f];
	} else if (i < m->donor->n && m->donor->a[i].kind != NF_A_FRAME) {
		x.src = m->donor;
		x.a = m->donor->a[i]; /* the corresponding action */
	} else if (!donor_action(m, &x)) {
		return false;
	}
	m->v[i] = x;
	say(m, "replace action %zu", i + 1);
	return true;
}

static bool op_delete(mut *m)
{
	size_t lo = (size_t)(frame_at(m) + 1);
	if (m->n <= lo)
		return false;
	size_t i = lo + nf_rng_below(m->r, (uint32_t)(m->n - lo));
	memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof m->v[0]);
	m->n--;
	say(m, "delete action %zu", i + 1);
	return true;
}

static bool op_duplicate(mut *m)
{
	size_t lo = (size_t)(frame_at(m) + 1);
	if (m->n <= lo || m->n == NF_MAX_ACTIONS)
		return false;
	size_t i = lo + nf_rng_below(m->r, (uint32_t)(m->n - lo));
	ref x = m->v[i];
	insert_at(m, i + 1, &x);
	say(m, "duplicate action %zu", i + 1);
	return true;
}

static bool op_insert(mut *m)
{
	size_t lo = (size_t)(frame_at(m) + 1);
	ref x;
	if (m->n == NF_MAX_ACTIONS || !donor_action(m, &x))
		return false;
	size_t at = lo + nf_rng_below(m->r, (uint32_t)(m->n - lo + 1));
	insert_at(m, at, &x);
	say(m, "insert a fresh action as action %zu", at + 1);
	return true;
}

static bool op_splice(mut *m, const nf_corpus *c)
{
	if (c->n < 2)
		return false;
	const nf_kept *o = &c->e[nf_rng_below(m->r, (uint32_t)c->n)];
	size_t lo = (size_t)(frame_at(m) + 1);
	size_t cut = lo + nf_rng_below(m->r, (uint32_t)(m->n - lo + 1));
	size_t olo = 0;
	for (size_t j = 0; j < o->p->n; j++)
		if (o->p->a[j].kind == NF_A_FRAME)
			olo = j + 1;
	if (olo >= o->p->n)
		return false;
	size_t from = olo + nf_rng_below(m->r, (uint32_t)(o->p->n - olo));
	m->n = cut;
	for (size_t j = from; j < o->p->n && m->n < NF_MAX_ACTIONS; j++)
		m->v[m->n++] = (ref){.src = o->p, .a = o->p->a[j]};
	m->with = o->id;
	if (cut)
		say(m, "splice: actions 1-%zu, then entry %llu's from its action %zu", cut, (unsigned long long)o->id,
		    from + 1);
	else
		say(m, "splice: entry %llu's actions from its action %zu", (unsigned long long)o->id, from + 1);
	return true;
}

static uint32_t pick(nf_rng *r, const uint32_t *v, size_t n) { return v[nf_rng_below(r, (uint32_t)n)]; }

static bool tweak_fpdu(mut *m, nf_action *a, size_t i)
{
	nf_rng *r = m->r;
	nf_fpdu *x = &a->fp;
	switch (nf_rng_below(r, 9)) {
	case 0: {
		uint32_t v[] = {0, x->msn + 1, x->msn - 1, x->msn + 2, 0x80000000u, 0xffffffffu};
		x->msn = pick(r, v, 6);
		say(m, "MSN of action %zu", i + 1);
		break;
	}
	case 1: {
		static const uint32_t v[] = {0, 1, 4, 65535, 65536, 0xfffffff0u};
		x->mo_set = true;
		x->mo = pick(r, v, 6);
		say(m, "MO of action %zu", i + 1);
		break;
	}
	case 2: {
		static const uint64_t v[] = {0, 1, 1024, 65535, 65536, 0xfffffffffffffff8ull};
		x->to = v[nf_rng_below(r, 6)];
		say(m, "TO of action %zu", i + 1);
		break;
	}
	case 3: {
		static const uint32_t v[] = {0, 1, 0x100, 0xffffffff};
		x->stag_adv = !x->stag_adv;
		if (!x->stag_adv)
			x->stag = pick(r, v, 4);
		say(m, "STag of action %zu", i + 1);
		break;
	}
	case 4:
		x->opcode = (uint8_t)nf_rng_below(r, 16);
		say(m, "opcode of action %zu", i + 1);
		break;
	case 5:
		x->mods.set_length = true;
		x->mods.ulpdu_length = (uint16_t)(a->len + 18 + nf_rng_below(r, 9) - 4);
		say(m, "ULPDU_Length of action %zu", i + 1);
		break;
	case 6:
		if (x->msg == NF_M_READ_REQ) {
			static const uint32_t v[] = {0, 1, 4096, 65536, 0xffffffffu};
			x->rr.size = pick(r, v, 5);
			say(m, "Read size of action %zu", i + 1);
		} else if (a->pattern || !a->len) {
			/* A generated payload: any length; an explicit one can only shrink. */
			a->pattern = true;
			a->len = nf_rng_below(r, 2048);
			say(m, "payload length of action %zu", i + 1);
		} else {
			a->len = nf_rng_below(r, a->len);
			say(m, "payload length of action %zu", i + 1);
		}
		break;
	case 7:
		x->last_set = true;
		x->last = !x->last;
		say(m, "L of action %zu", i + 1);
		break;
	default:
		x->mulpdu = x->mulpdu ? 0 : (uint16_t)(24 + nf_rng_below(r, 40));
		x->norder = 0;
		say(m, "segmentation of action %zu", i + 1);
		break;
	}
	return true;
}

static bool tweak_frame(mut *m, nf_action *a, size_t i)
{
	nf_rng *r = m->r;
	nf_frame *f = &a->fr;
	switch (nf_rng_below(r, 6)) {
	case 0: f->m = f->m == 1 ? 0 : 1; say(m, "M of the startup frame (action %zu)", i + 1); break;
	case 1: f->c = f->c == 0 ? 1 : 0; say(m, "C of the startup frame (action %zu)", i + 1); break;
	case 2: f->r = f->r == 1 ? 0 : 1; say(m, "R of the startup frame (action %zu)", i + 1); break;
	case 3: {
		static const uint32_t v[] = {0, 1, 2, 3, 0xff};
		f->rev = (int)pick(r, v, 5);
		say(m, "Rev of the startup frame (action %zu)", i + 1);
		break;
	}
	case 4: {
		uint32_t v[] = {a->len + 1, a->len ? a->len - 1 : 1, 512, 513, 65535};
		f->pd_length = (int)pick(r, v, 5);
		say(m, "pd_length of the startup frame (action %zu)", i + 1);
		break;
	}
	default: f->res = (int)(1 + nf_rng_below(r, 15)); say(m, "Res of the startup frame (action %zu)", i + 1); break;
	}
	return true;
}

static bool op_tweak(mut *m)
{
	if (!m->n)
		return false;
	size_t i = nf_rng_below(m->r, (uint32_t)m->n);
	ref *x = &m->v[i];
	nf_action *a = &x->a;
	switch (a->kind) {
	case NF_A_FPDU: return tweak_fpdu(m, a, i);
	case NF_A_FRAME: return tweak_frame(m, a, i);
	case NF_A_SPLIT:
		a->split_every = nf_rng_pct(m->r, 30) ? 0 : 1 + nf_rng_below(m->r, 64);
		say(m, "write cut of action %zu", i + 1);
		return true;
	case NF_A_SLEEP:
		a->sleep_us = 200 + nf_rng_below(m->r, 1800);
		say(m, "pause of action %zu", i + 1);
		return true;
	case NF_A_RAW: {
		if (!a->len || m->own->pool_len + a->len > NF_POOL)
			return false;
		/* Its octets move to this program's own pool, one of them changed. */
		uint32_t off = (uint32_t)m->own->pool_len;
		for (size_t j = 0; j < a->len; j++)
			m->own->pool[off + j] = nf_act_octet(x->src, a, j);
		m->own->pool[off + nf_rng_below(m->r, a->len)] ^= (uint8_t)(1 + nf_rng_below(m->r, 255));
		m->own->pool_len += a->len;
		x->src = m->own;
		a->off = off;
		a->pattern = false;
		say(m, "an octet of action %zu", i + 1);
		return true;
	}
	default: return false;
	}
}

/* Payload the program asks the DUT to echo or read, counted as the generator counts it. */
static size_t payload(const nf_prog *p)
{
	size_t sum = 0;
	for (size_t i = 0; i < p->n; i++) {
		const nf_action *a = &p->a[i];
		if (a->kind != NF_A_FPDU)
			continue;
		if (a->fp.msg == NF_M_READ_REQ)
			sum += a->fp.rr.size < 65536 ? a->fp.rr.size : 0;
		else if (a->fp.msg != NF_M_TERMINATE)
			sum += a->len < 65536 ? a->len : 0;
	}
	return sum;
}

/* The actions into out, each with its octets copied into out's pool. */
static void assemble(nf_prog *out, const mut *m)
{
	out->n = 0;
	out->pool_len = 0;
	for (size_t i = 0; i < m->n; i++) {
		nf_action a = m->v[i].a;
		if (!a.pattern && a.len) {
			if (a.len > NF_POOL - out->pool_len)
				a.len = (uint32_t)(NF_POOL - out->pool_len);
			memcpy(out->pool + out->pool_len, m->v[i].src->pool + a.off, a.len);
		}
		a.off = (uint32_t)out->pool_len;
		if (!a.pattern)
			out->pool_len += a.len;
		out->a[out->n++] = a;
	}
}

void nf_mutate(nf_prog *out, const nf_corpus *c, const nf_dutinfo *d, uint64_t seed, uint64_t run)
{
	nf_rng r;
	nf_rng_seed(&r, seed ^ (run * 0x9E3779B97F4A7C15ull) ^ 0x6d75746174650000ull);
	const nf_kept *parent = &c->e[nf_rng_below(&r, (uint32_t)c->n)];
	nf_prog *donor = malloc(sizeof *donor), *own = malloc(sizeof *own);
	bool done = false;
	mut m;
	for (int attempt = 0; attempt < 8 && donor && own && !done; attempt++) {
		/* A fresh program of a run no generated run has: its actions are new ones. */
		nf_generate(donor, d, seed ^ 0x5bd1e995u, run * 8 + (uint64_t)attempt);
		memset(&m, 0, sizeof m);
		m.r = &r;
		m.donor = donor;
		m.own = own;
		own->pool_len = 0;
		for (size_t i = 0; i < parent->p->n; i++)
			m.v[m.n++] = (ref){.src = parent->p, .a = parent->p->a[i]};
		unsigned ops = 1 + nf_rng_below(&r, 3), made = 0;
		for (unsigned k = 0; k < ops * 4 && made < ops; k++) {
			bool ok;
			switch (nf_rng_below(&r, 12)) {
			case 0:
			case 1: ok = op_replace(&m); break;
			case 2: ok = op_delete(&m); break;
			case 3: ok = op_duplicate(&m); break;
			case 4:
			case 5: ok = op_insert(&m); break;
			case 6: ok = op_splice(&m, c); break;
			default: ok = op_tweak(&m); break;
			}
			made += ok;
		}
		assemble(out, &m);
		done = made > 0 && payload(out) <= (payload(parent->p) > NF_PROG_PAYLOAD_BUDGET ? payload(parent->p) : NF_PROG_PAYLOAD_BUDGET);
	}
	if (!done) {
		memcpy(out, parent->p, offsetof(nf_prog, pool) + parent->p->pool_len);
		memset(&m, 0, sizeof m);
		snprintf(m.how, sizeof m.how, "none (every mutation tried broke the payload bound): the entry as it is");
	}
	out->seed = seed;
	out->run = run;
	memset(&out->origin, 0, sizeof out->origin);
	out->origin.from = parent->id;
	out->origin.with = m.with;
	snprintf(out->origin.how, sizeof out->origin.how, "%s", m.how);
	free(donor);
	free(own);
}
