/*
 * exec_wire.c - the DUT's octets in the wire log, each once, in the order they came.
 *
 * Some expectations read the same octets more than once: each alternative of `expect one-of`
 * starts again from where the step began, and as-model reads a Terminate a second time as the
 * Terminate expectation. Logging at every read put one Terminate in report.html three times, two
 * of them after the FIN the DUT sent behind it: a retransmission, or data after FIN, to anyone
 * reading the log against a capture. The log is the wire's record, not the steps', so octets
 * already shown are not shown again; a failure on them points at the entry that showed them.
 */
#include "exec_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Keeps the entry that showed the DUT's octets up to `end` of `in`, dropping the oldest. */
static void recall(hconn *h, size_t end, size_t wire)
{
	if (h->nlogged == EX_WIRE_RECALL) {
		memmove(h->logged, h->logged + 1, (EX_WIRE_RECALL - 1) * sizeof h->logged[0]);
		h->nlogged--;
	}
	h->logged[h->nlogged].end = end;
	h->logged[h->nlogged].wire = wire;
	h->nlogged++;
}

/* The entry that showed octet `last` of `in`, or 0 when it is no longer recalled. */
static size_t entry_of(const hconn *h, size_t last)
{
	for (size_t i = 0; i < h->nlogged; i++)
		if (h->logged[i].end > last)
			return h->logged[i].wire;
	return 0;
}

void ex_wire_in(ctx *x, const char *what, const char *act, size_t from, size_t n, const char *fmt, ...)
{
	hconn *h = x->h;
	if (n && from + n <= h->in_logged) {
		x->reread_wire = entry_of(h, from + n - 1);
		x->reread_nwire = x->r->nwire;
		return;
	}
	char summary[sizeof x->r->wire[0].summary];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(summary, sizeof summary, fmt, ap);
	va_end(ap);
	size_t before = x->r->nwire;
	iw_result_wire(x->r, IW_FROM_DUT, h->no, ex_tcase(x), what, h->in + from, n, "%s", summary);
	/* A full log keeps no entry (its note of the cut is no place to point at). */
	size_t k = x->r->nwire > before && x->r->wire[x->r->nwire - 1].dir == IW_FROM_DUT ? x->r->nwire : 0;
	if (k && act)
		snprintf(x->r->wire[k - 1].act, sizeof x->r->wire[k - 1].act, "%s", act);
	x->reread_wire = 0;
	if (from + n > h->in_logged) {
		h->in_logged = from + n;
		recall(h, from + n, k);
	}
}

void ex_wire_shed(hconn *h, size_t by)
{
	h->in_logged = h->in_logged > by ? h->in_logged - by : 0;
	size_t keep = 0;
	for (size_t i = 0; i < h->nlogged; i++)
		if (h->logged[i].end > by) {
			h->logged[keep] = h->logged[i];
			h->logged[keep].end -= by;
			keep++;
		}
	h->nlogged = keep;
}

void ex_blame(ctx *x, const char *req)
{
	size_t k = 0;
	if (x->reread_wire) {
		/* Octets read again are what the failure judged while nothing newer reached the log
		 * (a FIN, or the harness's next send, would be the newest then, as ever). */
		bool newer = false;
		for (size_t i = x->reread_nwire; i < x->r->nwire && !newer; i++)
			newer = x->r->wire[i].dir != IW_NOTE;
		if (!newer)
			k = x->reread_wire;
	}
	iw_result_blame_at(x->r, req, k);
}
