/*
 * req_lookup.c - finding rows of the generated requirements catalog (req_catalog.h).
 */
#include "req_catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_schema.h"

const iw_req_info *iw_req_find(const char *id)
{
	if (!id || !*id)
		return NULL;
	for (size_t i = 0; i < iw_req_catalog_n; i++)
		if (!strcmp(iw_req_catalog[i].id, id))
			return &iw_req_catalog[i];
	return NULL;
}

const char *iw_req_where(const char *id, char *buf, size_t cap)
{
	const iw_req_info *q = iw_req_find(id);
	if (cap)
		snprintf(buf, cap, "%s%s%s", q ? q->kw : "", q && q->source[0] ? ", " : "", q ? q->source : "");
	return buf;
}

const iw_req_retired_info *iw_req_find_retired(const char *id)
{
	if (!id || !*id)
		return NULL;
	for (size_t i = 0; i < iw_req_retired_n; i++)
		if (!strcmp(iw_req_retired[i].id, id))
			return &iw_req_retired[i];
	return NULL;
}

const char *iw_req_family(const char *id, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	const char *dash = id ? strrchr(id, '-') : NULL;
	/* "MPA-6.1-R5" -> "MPA-6.1"; an id with one dash ("MPA-4") is its own family's root. */
	if (dash && dash != strchr(id, '-'))
		snprintf(buf, cap, "%.*s", (int)(dash - id), id);
	else
		snprintf(buf, cap, "%s", id ? id : "");
	return buf;
}

/* Edit distance of two IDs (case_schema.h), capped at 99 so the ranks below cannot overflow. */
static unsigned edits(const char *a, const char *b)
{
	size_t d = iw_edit_distance(a, strlen(a), b, strlen(b));
	return d > 99 ? 99 : (unsigned)d;
}

/* The number after an ID's last '-' when it is all digits ("RFC5040-4.8-3" -> 3), else -1. */
static long row_number(const char *id)
{
	const char *d = strrchr(id, '-');
	if (!d || !d[1] || strspn(d + 1, "0123456789") != strlen(d + 1) || strlen(d + 1) > 6)
		return -1;
	return strtol(d + 1, NULL, 10);
}

/* Lower is closer: the rows of the section an ID names ("RFC5040-4.8" -> "RFC5040-4.8-NN") come
 * first, in catalog order; then the rows of its family, the one of the same number first
 * ("RFC5040-4.8-3" -> "RFC5040-4.8-03"), then other rows, each by the fewest edits. */
static unsigned closeness(const char *id, const iw_req_info *q)
{
	size_t n = strlen(id);
	if (!strncmp(q->id, id, n) && q->id[n] == '-')
		return 0;
	char fa[40], fb[40];
	iw_req_family(id, fa, sizeof fa);
	iw_req_family(q->id, fb, sizeof fb);
	if (strchr(id, '-') != strrchr(id, '-') && !strcmp(fa, fb))
		return row_number(id) >= 0 && row_number(id) == row_number(q->id) ? 1 : 2 + edits(id, q->id);
	return 3 + edits(id, q->id);
}

const char *iw_req_closest(const char *id, size_t max, char *out, size_t cap)
{
	if (!cap)
		return out;
	out[0] = '\0';
	if (!id || !max)
		return out;
	/* A near miss is a few edits away; beyond a third of the ID's length it is another ID. */
	unsigned limit = 3 + (unsigned)(strlen(id) / 3 > 2 ? strlen(id) / 3 : 2);
	size_t used = 0, shown = 0;
	unsigned floor = 0;
	while (shown < max) {
		/* The next best score above those already shown, in catalog order within a score. */
		unsigned best = 1000;
		for (size_t i = 0; i < iw_req_catalog_n; i++) {
			unsigned s = closeness(id, &iw_req_catalog[i]);
			if (s >= floor && s < best)
				best = s;
		}
		if (best > limit)
			break;
		for (size_t i = 0; i < iw_req_catalog_n && shown < max; i++) {
			if (closeness(id, &iw_req_catalog[i]) != best)
				continue;
			int w = snprintf(out + used, cap - used, "%s%s", shown ? ", " : "", iw_req_catalog[i].id);
			if (w < 0 || (size_t)w >= cap - used) {
				out[used] = '\0';
				return out;
			}
			used += (size_t)w;
			shown++;
		}
		floor = best + 1;
	}
	return out;
}
