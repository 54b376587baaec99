/*
 * mpa_markers.c - how many markers an FPDU carries, and where (MR §5.1).
 */
#include "mpa_markers.h"

#include "iw_proto.h"

/* Markers starting in [start, start + len). */
static size_t markers_in_range(uint64_t start, uint64_t len)
{
	uint64_t first = iw_marker_next(start);
	if (len == 0 || first >= start + len)
		return 0;
	return (size_t)((start + len - 1 - first) / IW_MPA_MARKER_INTERVAL + 1);
}

/* The wire length depends on the marker count and the count on the wire length, so iterate
 * from "no markers" upward. The map is monotone, so this stops at the smallest fixed point,
 * which is the real layout: a marker exactly after the last body octet would make a larger
 * fixed point, but it belongs to the next FPDU (MPA-5.1-04). A marker at start is inside the
 * range, so it counts here. */
size_t iw_markers_in_fpdu(uint64_t start, size_t body)
{
	size_t n = 0;
	for (;;) {
		size_t m = markers_in_range(start, (uint64_t)body + 4 * (uint64_t)n);
		if (m == n)
			return n;
		n = m;
	}
}

size_t iw_markers_offsets(uint64_t start, size_t body, size_t *at, size_t cap, bool *ends_on_boundary)
{
	uint64_t pos = start;
	size_t k = 0, n = 0;
	for (;;) {
		if (iw_marker_at(pos) && k < body) {
			if (n < cap)
				at[n] = k;
			n++;
			pos += 4;
		}
		if (k >= body)
			break;
		size_t take = (size_t)(IW_MPA_MARKER_INTERVAL - pos % IW_MPA_MARKER_INTERVAL);
		if (take > body - k)
			take = body - k;
		pos += take;
		k += take;
	}
	*ends_on_boundary = iw_marker_at(pos);
	return n;
}
