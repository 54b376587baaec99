/*
 * mpa_markers.c - how many markers an FPDU carries (MR §5.1).
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
