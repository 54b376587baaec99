/*
 * req_level.c - a requirement's verdict level from its catalog keyword (req_level.h).
 */
#include "req_level.h"

#include <string.h>

#include "req_catalog.h"

enum iw_level iw_req_level_of_keyword(const char *kw)
{
	if (!kw)
		return IW_LEVEL_INFO;
	/* "MAY / MUST": a row that binds at its strongest keyword. */
	if (strstr(kw, "MUST") || !strncmp(kw, "must(lc)", 8) || !strncmp(kw, "required(lc)", 12) ||
	    !strncmp(kw, "FACT (normative", 15))
		return IW_LEVEL_MUST;
	if (strstr(kw, "SHOULD") || !strncmp(kw, "should(lc)", 10))
		return IW_LEVEL_SHOULD;
	if (strstr(kw, "MAY") || strstr(kw, "OPTIONAL") || strstr(kw, "NOT REQUIRED") || !strncmp(kw, "may(lc)", 7))
		return IW_LEVEL_MAY;
	return IW_LEVEL_INFO;
}

bool iw_req_level(const char *id, enum iw_level *lvl, const char **kw)
{
	const iw_req_info *q = iw_req_find(id);
	if (!q)
		return false;
	*lvl = iw_req_level_of_keyword(q->kw);
	if (kw)
		*kw = q->kw;
	return true;
}
