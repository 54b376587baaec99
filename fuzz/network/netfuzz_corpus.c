/*
 * netfuzz_corpus.c - the programs kernel-coverage feedback keeps, and the union of every kernel
 * arc seen (docs/fuzzing-network.md, "Steered by kernel coverage").
 *
 * A program is kept when the run (or batch of runs) it belonged to set arcs the union did not
 * have. The corpus is bounded (NF_CORPUS_MAX): a new program always gets in, since it reached
 * something nothing kept had; it replaces the entry whose run brought the fewest new arcs, the
 * oldest of those, because an entry that opened many arcs at once is likelier to lead further
 * than one that added a single arc next to many others. Entries keep their places, so the
 * order a mutation picks from depends only on what was kept, in what order.
 */
#include <stdlib.h>
#include <string.h>

#include "netfuzz.h"

void nf_corpus_init(nf_corpus *c)
{
	memset(c, 0, sizeof *c);
	c->next_id = 1;
}

void nf_corpus_free(nf_corpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].p);
		free(c->e[i].reach);
	}
	free(c->arcs);
	nf_corpus_init(c);
}

int nf_corpus_keep(nf_corpus *c, const nf_prog *p, uint64_t gain, uint64_t *id, iw_err *e)
{
	return nf_corpus_keep_reach(c, p, gain, NULL, 0, id, e);
}

int nf_corpus_keep_reach(nf_corpus *c, const nf_prog *p, uint64_t gain, const uint32_t *reach, uint32_t nreach,
			 uint64_t *id, iw_err *e)
{
	uint32_t *copy = NULL;
	if (nreach) {
		if (!(copy = malloc(nreach * sizeof *copy)))
			return iw_errf(e, IW_ENOSPC, "out of memory keeping a program's arcs");
		memcpy(copy, reach, nreach * sizeof *copy);
	}
	size_t slot = c->n;
	if (c->n == NF_CORPUS_MAX) {
		slot = 0;
		for (size_t i = 1; i < c->n; i++)
			if (c->e[i].gain < c->e[slot].gain || (c->e[i].gain == c->e[slot].gain && c->e[i].id < c->e[slot].id))
				slot = i;
		c->evicted++;
	} else {
		c->e[slot].p = malloc(sizeof *p);
		if (!c->e[slot].p) {
			free(copy);
			return iw_errf(e, IW_ENOSPC, "out of memory keeping a program");
		}
		c->e[slot].reach = NULL;
		c->n++;
	}
	free(c->e[slot].reach);
	c->e[slot].reach = copy;
	c->e[slot].nreach = nreach;
	memcpy(c->e[slot].p, p, offsetof(nf_prog, pool) + p->pool_len);
	c->e[slot].id = c->next_id++;
	c->e[slot].gain = gain;
	if (id)
		*id = c->e[slot].id;
	return IW_OK;
}

const nf_kept *nf_corpus_find(const nf_corpus *c, uint64_t id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].id == id)
			return &c->e[i];
	return NULL;
}

int nf_corpus_merge(nf_corpus *c, const uint8_t *bits, uint64_t total, uint64_t *fresh, bool *restarted, iw_err *e)
{
	return nf_corpus_merge_list(c, bits, total, fresh, restarted, NULL, NULL, e);
}

int nf_corpus_merge_list(nf_corpus *c, const uint8_t *bits, uint64_t total, uint64_t *fresh, bool *restarted,
			 uint32_t **added, uint32_t *nadded, iw_err *e)
{
	*fresh = 0;
	*restarted = false;
	if (added) {
		*added = NULL;
		*nadded = 0;
	}
	size_t octets = (size_t)((total + 7) / 8);
	if (total != c->total || !c->arcs) {
		uint8_t *u = calloc(octets ? octets : 1, 1);
		if (!u)
			return iw_errf(e, IW_ENOSPC, "out of memory for a union of %llu arcs", (unsigned long long)total);
		*restarted = c->arcs != NULL;
		free(c->arcs);
		c->arcs = u;
		c->total = total;
		c->hit = 0;
	}
	for (size_t i = 0; i < octets; i++) {
		uint8_t add = (uint8_t)(bits[i] & ~c->arcs[i]);
		if (i == octets - 1 && total % 8)
			add &= (uint8_t)((1u << (total % 8)) - 1); /* no arc past TOTAL */
		if (add) {
			*fresh += (uint64_t)__builtin_popcount(add);
			c->arcs[i] |= add;
			if (added && total <= UINT32_MAX) {
				uint32_t *more = realloc(*added, (*nadded + 8) * sizeof **added);
				if (!more)
					return iw_errf(e, IW_ENOSPC, "out of memory listing new arcs");
				*added = more;
				for (unsigned b = 0; b < 8; b++)
					if (add & (1u << b))
						(*added)[(*nadded)++] = (uint32_t)(i * 8 + b);
			}
		}
	}
	c->hit += *fresh;
	return IW_OK;
}
