/*
 * req_lookup.c - finding rows of the generated requirements catalog (req_catalog.h).
 */
#include "req_catalog.h"

#include <stdio.h>
#include <string.h>

const iw_req_info *iw_req_find(const char *id)
{
	if (!id || !*id)
		return NULL;
	for (size_t i = 0; i < iw_req_catalog_n; i++)
		if (!strcmp(iw_req_catalog[i].id, id))
			return &iw_req_catalog[i];
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
