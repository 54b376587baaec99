/*
 * req_check.c - refusing requirement IDs that are not catalog rows (req_check.h).
 */
#include "req_check.h"

#include <stdio.h>

#include "req_catalog.h"
#include "req_level.h"

static int not_a_row(const iw_case *c, const iw_case_req *r, size_t more, iw_err *e)
{
	const iw_req_retired_info *old = iw_req_find_retired(r->id);
	if (old)
		return iw_errf(e, IW_EINVAL, "%.120s:%d: requirement: '%s' was retired from spec/rfc-rows.md: cite %.200s "
			       "instead (why: %.300s)", c->file, r->line, r->id, old->replaced_by, old->why);
	char near[160];
	iw_req_closest(r->id, 3, near, sizeof near);
	char tail[48] = "";
	if (more)
		snprintf(tail, sizeof tail, " (and %zu more ID%s not rows)", more, more == 1 ? "" : "s");
	return iw_errf(e, IW_EINVAL, "%.120s:%d: requirement: '%s' is not a row of the requirements catalog "
		       "(requirements.md or spec/rfc-rows.md); %s%s%s", c->file, r->line, r->id,
		       near[0] ? "closest: " : "no row is close to it", near, tail);
}

/* A case may hold a row weaker than its keyword (a position of the specification's §6), never
 * stronger: "MUST" next to a SHOULD row would read as a FAIL the RFC does not back. */
static int held_stronger(const iw_case *c, const iw_case_req *r, iw_err *e)
{
	enum iw_level lvl;
	const char *kw = NULL;
	if (!iw_req_level(r->id, &lvl, &kw) || r->level >= lvl)
		return IW_OK;
	return iw_errf(e, IW_EINVAL, "%.120s:%d: requirement: %s is cited as %s, but the catalog's keyword is %s: "
		       "cite it as %s (or weaker)", c->file, r->line, r->id, iw_level_name(r->level), kw,
		       iw_level_name(lvl));
}

int iw_case_check_reqs(const iw_case *c, iw_err *e)
{
	for (size_t i = 0; i < c->nreqs && i < IW_CASE_MAX_REQS; i++) {
		if (!iw_req_find(c->reqs[i].id))
			return not_a_row(c, &c->reqs[i], 0, e);
		if (held_stronger(c, &c->reqs[i], e))
			return IW_EINVAL;
	}
	return IW_OK;
}

int iw_catalog_check_reqs(const iw_catalog *cat, iw_err *e)
{
	const iw_case *fc = NULL;
	const iw_case_req *fr = NULL;
	size_t more = 0;
	for (size_t i = 0; i < cat->n; i++) {
		const iw_case *c = cat->cases[i];
		for (size_t k = 0; k < c->nreqs && k < IW_CASE_MAX_REQS; k++) {
			if (iw_req_find(c->reqs[k].id)) {
				if (held_stronger(c, &c->reqs[k], e))
					return IW_EINVAL;
				continue;
			}
			if (fr) {
				more++;
			} else {
				fc = c;
				fr = &c->reqs[k];
			}
		}
	}
	return fr ? not_a_row(fc, fr, more, e) : IW_OK;
}
