/*
 * raw_plan.c - checking segment plans before anything is sent, and the common ones built.
 */
#include <stdlib.h>

#include "rawtcp.h"

static const char *op_name(enum iw_raw_step_op op)
{
	switch (op) {
	case IW_RAW_SEND: return "SEND";
	case IW_RAW_HOLD: return "HOLD";
	case IW_RAW_RELEASE: return "RELEASE";
	case IW_RAW_DROP: return "DROP";
	case IW_RAW_WAIT_DUPACKS: return "WAIT_DUPACKS";
	}
	return "?";
}

/* Marks [off, off+len) covered; the array is a per-octet map (plans are small). */
static void cover(uint8_t *map, size_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		map[off + i] = 1;
}

int iw_raw_plan_check(const iw_raw_step *steps, size_t nsteps, size_t n, size_t mss, size_t held_before,
		      iw_err *e)
{
	if (nsteps > 0 && !steps)
		return iw_errf(e, IW_EINVAL, "plan of %zu steps given no step array", nsteps);
	size_t held = held_before;
	uint8_t *map = n ? calloc(n, 1) : NULL;
	if (n && !map)
		return iw_errf(e, IW_ENOSPC, "no memory for a plan of %zu octets", n);
	int rc = IW_OK;
	for (size_t i = 0; i < nsteps && rc == IW_OK; i++) {
		const iw_raw_step *s = &steps[i];
		switch (s->op) {
		case IW_RAW_SEND:
		case IW_RAW_HOLD:
		case IW_RAW_DROP:
			if (s->len == 0)
				rc = iw_errf(e, IW_EINVAL, "step %zu (%s at %zu): an empty segment; give it at least one octet",
					     i + 1, op_name(s->op), s->off);
			else if (s->off >= n || s->len > n - s->off)
				rc = iw_errf(e, IW_EINVAL,
					     "step %zu (%s [%zu, %zu)): past the end of the plan's %zu octets", i + 1,
					     op_name(s->op), s->off, s->off + s->len, n);
			else if (mss && s->len > mss)
				rc = iw_errf(e, IW_EINVAL,
					     "step %zu (%s [%zu, %zu)): %zu octets, more than the DUT's MSS of %zu; cut it in two",
					     i + 1, op_name(s->op), s->off, s->off + s->len, s->len, mss);
			else {
				cover(map, s->off, s->len);
				if (s->op == IW_RAW_HOLD)
					held++;
			}
			break;
		case IW_RAW_RELEASE:
			if (held == 0)
				rc = iw_errf(e, IW_EINVAL, "step %zu (RELEASE): no segment is held at that point; HOLD one first",
					     i + 1);
			else
				held--;
			break;
		case IW_RAW_WAIT_DUPACKS:
			if (s->dupacks == 0)
				rc = iw_errf(e, IW_EINVAL, "step %zu (WAIT_DUPACKS): wait for at least one duplicate ACK", i + 1);
			break;
		default:
			rc = iw_errf(e, IW_EINVAL, "step %zu: unknown operation %d", i + 1, (int)s->op);
		}
	}
	for (size_t i = 0; rc == IW_OK && i < n; i++) {
		if (map[i])
			continue;
		size_t j = i;
		while (j < n && !map[j])
			j++;
		rc = iw_errf(e, IW_EINVAL,
			     "octets [%zu, %zu) of the plan's %zu are in no SEND, HOLD or DROP: the DUT would wait for them forever",
			     i, j, n);
	}
	free(map);
	return rc;
}

static int plan_cut(iw_raw_step *steps, size_t cap, size_t *nsteps, size_t n, size_t seg, bool reverse, iw_err *e)
{
	if (seg == 0)
		return iw_errf(e, IW_EINVAL, "segment size 0: give the octets per segment");
	size_t k = (n + seg - 1) / seg;
	if (k > cap)
		return iw_errf(e, IW_ENOSPC, "%zu octets in %zu-octet segments need %zu steps, room for %zu", n, seg, k, cap);
	for (size_t i = 0; i < k; i++) {
		size_t piece = reverse ? k - 1 - i : i;
		size_t off = piece * seg;
		steps[i] = (iw_raw_step){ IW_RAW_SEND, off, n - off < seg ? n - off : seg, 0 };
	}
	*nsteps = k;
	return IW_OK;
}

int iw_raw_plan_in_order(iw_raw_step *steps, size_t cap, size_t *nsteps, size_t n, size_t seg, iw_err *e)
{
	return plan_cut(steps, cap, nsteps, n, seg, false, e);
}

int iw_raw_plan_reverse(iw_raw_step *steps, size_t cap, size_t *nsteps, size_t n, size_t seg, iw_err *e)
{
	return plan_cut(steps, cap, nsteps, n, seg, true, e);
}
