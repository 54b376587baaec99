/*
 * report_text.c - UTF-8 repair and escaping for the report writers (see report_text.h).
 */
#include "report_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

size_t iw_utf8_next(const unsigned char *s, size_t n, uint32_t *cp, bool *valid)
{
	unsigned c = s[0];
	size_t len;
	uint32_t v, min;
	*valid = false;
	*cp = 0xFFFD;
	if (c < 0x80) {
		*cp = c;
		*valid = true;
		return 1;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2, v = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, v = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 1;       /* continuation octet, C0/C1 overlong lead, or F5..FF */
	}
	if (n < len)
		return 1;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return 1;
		v = v << 6 | (s[k] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 1;
	*cp = v;
	*valid = true;
	return len;
}

/* A growable string; a failed append marks it broken and the result becomes NULL. */
typedef struct sbuf {
	char *p;
	size_t n, cap;
	bool oom;
} sbuf;

static void sb_add(sbuf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static char *sb_done(sbuf *b)
{
	if (b->oom) {
		free(b->p);
		return NULL;
	}
	if (!b->p)
		sb_add(b, "", 0);
	return b->oom ? NULL : b->p;
}

static void sb_hexesc(sbuf *b, unsigned c)
{
	char t[8];
	snprintf(t, sizeof t, "\\x%02x", c & 0xFF);
	sb_str(b, t);
}

static const char fffd[] = "\xEF\xBF\xBD";

char *iw_text_utf8(const char *s, size_t n)
{
	sbuf b = {0};
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		bool ok;
		size_t k = iw_utf8_next(u + i, n - i, &cp, &ok);
		if (ok)
			sb_add(&b, u + i, k);
		else
			sb_str(&b, fffd);
		i += k;
	}
	return sb_done(&b);
}

char *iw_text_xml(const char *s, size_t n, bool attr)
{
	sbuf b = {0};
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		bool ok;
		size_t k = iw_utf8_next(u + i, n - i, &cp, &ok);
		if (!ok) {
			sb_str(&b, fffd);
		} else if (cp == '&') {
			sb_str(&b, "&amp;");
		} else if (cp == '<') {
			sb_str(&b, "&lt;");
		} else if (cp == '>') {
			sb_str(&b, "&gt;");     /* also keeps "]]>" out of text */
		} else if (attr && cp == '"') {
			sb_str(&b, "&quot;");
		} else if (attr && cp == '\'') {
			sb_str(&b, "&apos;");
		} else if (cp == '\t' || cp == '\n' || cp == '\r') {
			if (attr) {
				char t[8];
				snprintf(t, sizeof t, "&#%u;", (unsigned)cp);
				sb_str(&b, t);
			} else {
				sb_add(&b, u + i, 1);
			}
		} else if (cp < 0x20) {
			sb_hexesc(&b, cp);      /* XML 1.0 has no way to carry these, not even as &#1; */
		} else if (cp == 0xFFFE || cp == 0xFFFF) {
			sb_str(&b, fffd);
		} else {
			sb_add(&b, u + i, k);
		}
		i += k;
	}
	return sb_done(&b);
}

char *iw_text_console(const char *s, size_t n)
{
	sbuf b = {0};
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		bool ok;
		size_t k = iw_utf8_next(u + i, n - i, &cp, &ok);
		if (!ok || (cp >= 0x80 && cp < 0xA0))
			sb_str(&b, fffd);       /* C1 includes CSI (U+009B), which some terminals obey */
		else if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7F)
			sb_hexesc(&b, cp);
		else
			sb_add(&b, u + i, k);
		i += k;
	}
	return sb_done(&b);
}

void iw_text_time(int64_t unix_ms, bool with_ms, char *buf, size_t cap)
{
	int64_t sec = unix_ms / 1000, ms = unix_ms % 1000;
	if (ms < 0) {
		ms += 1000;
		sec--;
	}
	time_t t = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, cap, "%s", with_ms ? "1970-01-01T00:00:00.000Z" : "1970-01-01T00:00:00");
		return;
	}
	char base[32];
	strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
	if (with_ms)
		snprintf(buf, cap, "%s.%03dZ", base, (int)ms);
	else
		snprintf(buf, cap, "%s", base);
}

const char *iw_text_level(enum iw_level l)
{
	switch (l) {
	case IW_LEVEL_MUST: return "MUST";
	case IW_LEVEL_SHOULD: return "SHOULD";
	case IW_LEVEL_MAY: return "MAY";
	case IW_LEVEL_INFO: return "INFO";
	}
	return "?";
}
