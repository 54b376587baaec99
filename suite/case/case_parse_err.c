/*
 * case_parse_err.c - the case parser's messages: each names the file, the line and the step
 * being parsed, and fits an iw_err.
 */
#include "case_parse_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int verr(parser *p, int rc, const char *fmt, va_list ap)
{
	char body[1024], full[1400];
	vsnprintf(body, sizeof body, fmt, ap);
	if (p->line > 0)
		snprintf(full, sizeof full, "%s:%d: %s%s%s", p->file, p->line, p->ctx, p->ctx[0] ? ": " : "",
			 body);
	else
		snprintf(full, sizeof full, "%s: %s", p->file, body);
	/* iw_err holds 255 characters: a cut message says so rather than ending mid-word. */
	if (p->e) {
		size_t cap = sizeof p->e->msg;
		if (strlen(full) >= cap)
			memcpy(full + cap - 4, "...", 4);
		iw_errf(p->e, rc, "%s", full);
	}
	return rc;
}

int cp_err(parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verr(p, IW_EINVAL, fmt, ap);
	va_end(ap);
	return rc;
}

/* A limit of case.h was reached. */
int cp_limit(parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verr(p, IW_ENOSPC, fmt, ap);
	va_end(ap);
	return rc;
}

/* Input text quoted in a message: printable, and short enough to leave room for the rest. */
const char *cp_show(const char *s, size_t n, char *buf, size_t cap)
{
	size_t o = 0, lim = cap > 48 ? 44 : cap - 4;
	for (size_t i = 0; i < n && o < lim; i++) {
		unsigned char ch = (unsigned char)s[i];
		buf[o++] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
	}
	if (n > lim)
		for (int k = 0; k < 3; k++)
			buf[o++] = '.';
	buf[o] = '\0';
	return buf;
}
