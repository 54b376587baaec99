/*
 * case_lex.c - the values and tokens of a case line: integers (decimal or 0x hex, up to
 * 2^64-1), durations, "strings" with escapes, x"hex" octets, words, lists and '*'; a token
 * is a bare value, a name=value argument, ';' or the end of the line. Nothing is read past
 * the line's end.
 */
#include "case_parse_int.h"

#include <stdlib.h>
#include <string.h>

static bool is_word_char(char ch) { return is_lower(ch) || is_digit(ch) || ch == '_' || ch == '-'; }

static int hex_val(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* ---- values ---- */

void cp_value_free(value *v)
{
	free(v->bytes);
	v->bytes = NULL;
}

bool cp_parse_int(const char *s, size_t n, int64_t *out, bool *big, bool *overflow)
{
	bool neg = false;
	uint64_t u = 0;
	size_t i = 0;
	*big = false;
	*overflow = false;
	if (i < n && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		if (i == n)
			return false;
		for (; i < n; i++) {
			int d = hex_val(s[i]);
			if (d < 0)
				return false;
			if (u >> 60) {
				*overflow = true;
				return false;
			}
			u = u << 4 | (uint64_t)d;
		}
	} else {
		if (i == n)
			return false;
		for (; i < n; i++) {
			if (!is_digit(s[i]))
				return false;
			unsigned d = (unsigned)(s[i] - '0');
			if (u > (UINT64_MAX - d) / 10) {
				*overflow = true;
				return false;
			}
			u = u * 10 + d;
		}
	}
	if (neg) {
		if (u > (uint64_t)INT64_MAX + 1) {
			*overflow = true;
			return false;
		}
		*out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
	} else if (u > (uint64_t)INT64_MAX) {
		*big = true;
		*out = (int64_t)(u - ((uint64_t)INT64_MAX + 1)) + INT64_MIN;
	} else {
		*out = (int64_t)u;
	}
	return true;
}

/* "500ms", "5s", "2m": digits and a unit. Returns 0 when s is not shaped as a duration. */
int cp_parse_duration(parser *p, const char *s, size_t n, int64_t *ms, bool *is_dur)
{
	size_t i = 0;
	uint64_t u = 0;
	char b[64];
	*is_dur = false;
	while (i < n && is_digit(s[i])) {
		if (u < 100000000000000ull)
			u = u * 10 + (uint64_t)(s[i] - '0');
		else
			u = UINT64_MAX / 2;     /* keeps growing past any limit without overflow */
		i++;
	}
	if (i == 0 || i == n)
		return 0;
	uint64_t mult;
	if (n - i == 2 && s[i] == 'm' && s[i + 1] == 's')
		mult = 1;
	else if (n - i == 1 && s[i] == 's')
		mult = 1000;
	else if (n - i == 1 && s[i] == 'm')
		mult = 60000;
	else
		return 0;
	*is_dur = true;
	if (u > (uint64_t)IW_CASE_MAX_DURATION_MS / mult)
		return cp_err(p, "duration %s is longer than the 24 h limit", cp_show(s, n, b, sizeof b));
	*ms = (int64_t)(u * mult);
	return 0;
}

static int lex_string(parser *p, const char **pp, const char *end, value *v)
{
	const char *s = *pp + 1;
	char b[64];
	uint8_t *out = malloc((size_t)(end - s) + 1);
	size_t n = 0;
	if (!out)
		return cp_err(p, "out of memory");
	for (;;) {
		if (s >= end) {
			free(out);
			return cp_err(p, "unterminated string (no closing '\"')");
		}
		char ch = *s++;
		if (ch == '"')
			break;
		if (ch != '\\') {
			out[n++] = (uint8_t)ch;
			continue;
		}
		if (s >= end) {
			free(out);
			return cp_err(p, "unterminated string (ends in '\\')");
		}
		ch = *s++;
		switch (ch) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case '\\': out[n++] = '\\'; break;
		case '"': out[n++] = '"'; break;
		case 'x': {
			int hi = s < end ? hex_val(s[0]) : -1;
			int lo = s + 1 < end ? hex_val(s[1]) : -1;
			if (hi < 0 || lo < 0) {
				free(out);
				return cp_err(p, "bad escape in string: \\x needs two hex digits");
			}
			out[n++] = (uint8_t)(hi << 4 | lo);
			s += 2;
			break;
		}
		default:
			free(out);
			return cp_err(p, "bad escape '\\%s' in string (known: \\n \\t \\r \\\\ \\\" \\xHH)",
				      cp_show(&ch, 1, b, sizeof b));
		}
	}
	out[n] = '\0';
	v->kind = V_STR;
	v->bytes = out;
	v->n = n;
	*pp = s;
	return 0;
}

static int lex_hex(parser *p, const char **pp, const char *end, value *v)
{
	const char *s = *pp + 2;
	char b[64];
	uint8_t *out = malloc((size_t)(end - s) / 2 + 1);
	size_t n = 0;
	int hi = -1;
	if (!out)
		return cp_err(p, "out of memory");
	for (;;) {
		if (s >= end) {
			free(out);
			return cp_err(p, "unterminated hex string (no closing '\"')");
		}
		char ch = *s++;
		if (ch == '"')
			break;
		if (is_space(ch)) {
			if (hi >= 0) {
				free(out);
				return cp_err(p, "bad hex: a lone digit before a space (write octets as two digits)");
			}
			continue;
		}
		int d = hex_val(ch);
		if (d < 0) {
			free(out);
			return cp_err(p, "bad hex: '%s' is not a hex digit", cp_show(&ch, 1, b, sizeof b));
		}
		if (hi < 0) {
			hi = d;
		} else {
			out[n++] = (uint8_t)(hi << 4 | d);
			hi = -1;
		}
	}
	if (hi >= 0) {
		free(out);
		return cp_err(p, "bad hex: odd number of digits");
	}
	v->kind = V_HEX;
	v->bytes = out;
	v->n = n;
	*pp = s;
	return 0;
}

/* Reads one value at *pp (not a space) and leaves *pp after it. */
int cp_lex_value(parser *p, const char **pp, const char *end, value *v)
{
	const char *s = *pp;
	char b[64];
	memset(v, 0, sizeof *v);
	v->text = s;
	int rc;
	if (*s == '"' || (*s == 'x' && s + 1 < end && s[1] == '"')) {
		rc = *s == '"' ? lex_string(p, pp, end, v) : lex_hex(p, pp, end, v);
		if (rc)
			return rc;
		v->ntext = (size_t)(*pp - s);
		if (*pp < end && !is_stop(**pp)) {
			cp_value_free(v);
			return cp_err(p, "unexpected '%s' right after a quoted value", cp_show(*pp, 1, b, sizeof b));
		}
		return 0;
	}
	const char *q = s;
	while (q < end && !is_stop(*q))
		q++;
	size_t n = (size_t)(q - s);
	v->ntext = n;
	*pp = q;
	if (n == 1 && *s == '*') {
		v->kind = V_ANY;
		return 0;
	}
	if (is_digit(*s) || (*s == '-' && n > 1 && is_digit(s[1]))) {
		bool big, overflow;
		if (memchr(s, ',', n)) {
			const char *e = s;
			while (e <= q) {
				const char *f = e;
				while (f < q && *f != ',')
					f++;
				if (v->nlist == sizeof v->list / sizeof v->list[0])
					return cp_limit(p, "list %s has more than 16 items", cp_show(s, n, b, sizeof b));
				if (!cp_parse_int(e, (size_t)(f - e), &v->list[v->nlist], &big, &overflow) || big)
					return cp_err(p, "bad list '%s' (integers separated by commas, no spaces)",
						      cp_show(s, n, b, sizeof b));
				v->nlist++;
				e = f + 1;
			}
			v->kind = V_LIST;
			return 0;
		}
		if (cp_parse_int(s, n, &v->i, &v->big, &overflow)) {
			v->kind = V_INT;
			return 0;
		}
		if (overflow)
			return cp_err(p, "integer %s does not fit in 64 bits", cp_show(s, n, b, sizeof b));
		bool is_dur;
		rc = cp_parse_duration(p, s, n, &v->i, &is_dur);
		if (rc)
			return rc;
		if (is_dur) {
			v->kind = V_DUR;
			return 0;
		}
		if (*s == '-') {
			rc = cp_parse_duration(p, s + 1, n - 1, &v->i, &is_dur);
			if (rc)
				return rc;
			if (is_dur)
				return cp_err(p, "duration %s is negative", cp_show(s, n, b, sizeof b));
		}
		return cp_err(p, "bad number '%s' (integers: 42, -1, 0x2a; durations: 500ms, 5s, 2m)",
			      cp_show(s, n, b, sizeof b));
	}
	for (size_t i = 0; i < n; i++)
		if (!is_word_char(s[i]))
			return cp_err(p, "bad value '%s' (a value is an integer, duration, word [a-z0-9_-], "
				      "list, \"string\", x\"hex\" or *)", cp_show(s, n, b, sizeof b));
	v->kind = V_WORD;
	return 0;
}

/* ---- tokens ---- */

void cp_skip_space(const char **pp, const char *end)
{
	while (*pp < end && is_space(**pp))
		(*pp)++;
}

/* Classifies the next token without reading its value (cp_lex_value does that). */
tok cp_next_tok(const char **pp, const char *end)
{
	tok t = { TOK_END, NULL, 0, NULL };
	cp_skip_space(pp, end);
	const char *s = *pp;
	if (s >= end || *s == '#')
		return t;
	if (*s == ';') {
		(*pp)++;
		t.kind = TOK_SEMI;
		return t;
	}
	t.start = s;
	t.kind = TOK_BARE;
	if (*s == '"' || (*s == 'x' && s + 1 < end && s[1] == '"'))
		return t;
	const char *q = s;
	while (q < end && !is_stop(*q) && *q != '=' && *q != '"')
		q++;
	if (q < end && *q == '=') {
		t.kind = TOK_ARG;
		t.name = s;
		t.nname = (size_t)(q - s);
		t.start = q + 1;
		*pp = q + 1;
	}
	return t;
}

/* The raw text of a bare token (a step's name word), advancing past it. */
size_t cp_take_word(const char **pp, const char *end, const char **w)
{
	cp_skip_space(pp, end);
	*w = *pp;
	while (*pp < end && !is_stop(**pp))
		(*pp)++;
	return (size_t)(*pp - *w);
}

bool cp_word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}
