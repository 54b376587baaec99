/*
 * buffer_use.c - the octets of the DUT's advertised buffer a case writes and reads
 * (buffer_use.h).
 */
#include "buffer_use.h"

#include <string.h>

static void add(iw_range *r, size_t *n, uint64_t lo, uint64_t len)
{
	if (!len || lo + len < lo)  /* nothing moves, or a wrapping TO: sent as written */
		return;
	uint64_t hi = lo + len;
	for (size_t k = 0; k < *n; k++)
		if (lo <= r[k].hi && r[k].lo <= hi) {
			r[k].lo = lo < r[k].lo ? lo : r[k].lo;
			r[k].hi = hi > r[k].hi ? hi : r[k].hi;
			return;
		}
	if (*n == IW_BUFFER_USE_MAX) {
		iw_range *last = &r[*n - 1];
		last->lo = lo < last->lo ? lo : last->lo;
		last->hi = hi > last->hi ? hi : last->hi;
		return;
	}
	r[(*n)++] = (iw_range){lo, hi};
}

static uint64_t int_arg(const iw_step *s, const char *name, bool *given)
{
	const iw_arg *a = iw_step_arg(s, name);
	*given = a && a->type == IW_ARG_INT && !a->is_pattern_any;
	return *given ? (uint64_t)a->i : 0;
}

/* An offset into the advertised buffer; `end-N` as N back from IW_BUFFER_USE_END. */
static uint64_t offset_arg(const iw_step *s, const char *name)
{
	bool given;
	uint64_t v = int_arg(s, name, &given);
	const iw_arg *a = iw_step_arg(s, name);
	if (a && a->from_end)
		return v > IW_BUFFER_USE_END ? 0 : IW_BUFFER_USE_END - v;
	return v;
}

void iw_buffer_use_of(const iw_case *c, iw_buffer_use *u)
{
	memset(u, 0, sizeof *u);
	for (size_t i = 0; i < c->nsteps; i++) {
		const iw_step *s = &c->steps[i];
		if (s->kind != IW_STEP_SEND_FPDU)
			continue;
		bool given;
		if (!strcmp(s->word, "write")) {
			uint64_t tagged = int_arg(s, "tagged", &given);
			if (iw_step_arg(s, "stag") || (given && !tagged))
				continue;   /* an STag of the harness's choosing, or an untagged "write" */
			uint64_t to = offset_arg(s, "to");
			const iw_arg *data = iw_step_arg(s, "data");
			uint64_t len = int_arg(s, "size", &given);
			if (!given && data)
				len = data->nbytes;
			add(u->writes, &u->nwrites, to, len);
		} else if (!strcmp(s->word, "read_req")) {
			if (iw_step_arg(s, "src_stag"))
				continue;
			uint64_t to = offset_arg(s, "src_to");
			add(u->reads, &u->nreads, to, int_arg(s, "rsize", &given));
		}
	}
}

static bool overlap(const iw_range *a, size_t na, const iw_range *b, size_t nb)
{
	for (size_t i = 0; i < na; i++)
		for (size_t k = 0; k < nb; k++)
			if (a[i].lo < b[k].hi && b[k].lo < a[i].hi)
				return true;
	return false;
}

bool iw_buffer_use_conflict(const iw_buffer_use *a, const iw_buffer_use *b)
{
	return overlap(a->writes, a->nwrites, b->writes, b->nwrites) ||
	       overlap(a->writes, a->nwrites, b->reads, b->nreads) ||
	       overlap(b->writes, b->nwrites, a->reads, a->nreads);
}
