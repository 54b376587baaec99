#include "iw_err.h"

#include <stdarg.h>
#include <stdio.h>

int iw_errf(iw_err *e, int rc, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void iw_err_clear(iw_err *e)
{
	if (e)
		e->msg[0] = '\0';
}
