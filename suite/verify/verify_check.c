/*
 * verify_check.c - the record every verifier fills (verify_int.h).
 */
#include "verify_int.h"

#include <stdarg.h>
#include <stdio.h>

void iw_check_begin(iw_check *out)
{
	out->req = NULL;
	out->detail[0] = '\0';
	out->kind = IW_VIOL_SENDER;
	out->layer = -1;
	out->etype = out->ecode = 0;
	out->nmore = 0;
	out->nrules = 0;
}

void iw_check_applied(iw_check *out, const char *req)
{
	if (out->nrules < IW_CHECK_MAX_RULES)
		out->rules[out->nrules++] = req;
}

bool iw_check_broken(iw_check *out, const char *req, enum iw_viol_kind kind, int layer, int etype, int ecode,
		     const char *fmt, ...)
{
	char *detail;
	size_t cap;
	if (!out->req) {
		out->req = req;
		out->kind = kind;
		out->layer = layer;
		out->etype = etype;
		out->ecode = ecode;
		detail = out->detail;
		cap = sizeof out->detail;
	} else if (out->nmore < IW_CHECK_MAX_MORE) {
		iw_check_more *m = &out->more[out->nmore++];
		*m = (iw_check_more){.req = req, .kind = kind, .layer = layer, .etype = etype, .ecode = ecode};
		detail = m->detail;
		cap = sizeof m->detail;
	} else {
		return false;   /* the checks that go on have fewer rules than room */
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, cap, fmt, ap);
	va_end(ap);
	return false;
}
