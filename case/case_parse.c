/*
 * case_parse.c - the case language (.iwt) into an iw_case.
 *
 * A hand-written line parser: a line is a header (`name: value`, before any step), a step
 * (leading words name it, then name=value arguments and at most one bare value), or part of
 * an `expect one-of` block. Every value is checked against the step's schema
 * (case_schema.c) here, so the runner can trust names, types and ranges. Every error names
 * the file and line; nothing is read past the given length, and every limit of case.h is an
 * error, never an overflow.
 */
#include "case.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_schema.h"
#include "profile.h"

#define DEFAULT_TIMEOUT_MS 10000

typedef struct parser {
	const char *file;
	int line;               /* 0: the message is about the whole file */
	iw_err *e;
	iw_case *c;
	char ctx[80];           /* the step being parsed, for messages; empty for headers */
} parser;

/* ---- messages ---- */

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

static int perr(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verr(p, IW_EINVAL, fmt, ap);
	va_end(ap);
	return rc;
}

/* A limit of case.h was reached. */
static int plimit(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int plimit(parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = verr(p, IW_ENOSPC, fmt, ap);
	va_end(ap);
	return rc;
}

/* Input text quoted in a message: printable, and short enough to leave room for the rest. */
static const char *show(const char *s, size_t n, char *buf, size_t cap)
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

static void fmt_ms(int64_t ms, char *buf, size_t cap)
{
	if (ms % 60000 == 0 && ms != 0)
		snprintf(buf, cap, "%lldm", (long long)(ms / 60000));
	else if (ms % 1000 == 0)
		snprintf(buf, cap, "%llds", (long long)(ms / 1000));
	else
		snprintf(buf, cap, "%lldms", (long long)ms);
}

/* ---- characters ---- */

static bool is_space(char ch) { return ch == ' ' || ch == '\t'; }
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static bool is_lower(char ch) { return ch >= 'a' && ch <= 'z'; }
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

/* Ends an unquoted value or token. */
static bool is_stop(char ch) { return is_space(ch) || ch == '#' || ch == ';'; }

/* ---- values ---- */

enum vkind { V_INT, V_DUR, V_STR, V_HEX, V_WORD, V_LIST, V_ANY };

typedef struct value {
	enum vkind kind;
	int64_t i;              /* INT, DUR (ms) */
	bool big;               /* INT above INT64_MAX, i holds the bit pattern */
	uint8_t *bytes;         /* STR (NUL-terminated as well), HEX: owned until moved */
	size_t n;
	int64_t list[16];
	size_t nlist;
	const char *text;       /* as written, for messages */
	size_t ntext;
} value;

static void value_free(value *v)
{
	free(v->bytes);
	v->bytes = NULL;
}

static const char *vkind_name(enum vkind k)
{
	switch (k) {
	case V_INT: return "an integer";
	case V_DUR: return "a duration";
	case V_STR: return "a string";
	case V_HEX: return "a hex byte string";
	case V_WORD: return "a word";
	case V_LIST: return "a list";
	case V_ANY: return "'*'";
	}
	return "a value";
}

/* Integer: decimal or 0x hex, optionally negative. Values up to 2^64-1 are read so a 64-bit
 * TO can be written; *big marks those above INT64_MAX. Returns false when not an integer;
 * *overflow tells a number that does not fit from one that is no number. */
static bool parse_int(const char *s, size_t n, int64_t *out, bool *big, bool *overflow)
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
static int parse_duration(parser *p, const char *s, size_t n, int64_t *ms, bool *is_dur)
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
		return perr(p, "duration %s is longer than the 24 h limit", show(s, n, b, sizeof b));
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
		return perr(p, "out of memory");
	for (;;) {
		if (s >= end) {
			free(out);
			return perr(p, "unterminated string (no closing '\"')");
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
			return perr(p, "unterminated string (ends in '\\')");
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
				return perr(p, "bad escape in string: \\x needs two hex digits");
			}
			out[n++] = (uint8_t)(hi << 4 | lo);
			s += 2;
			break;
		}
		default:
			free(out);
			return perr(p, "bad escape '\\%s' in string (known: \\n \\t \\r \\\\ \\\" \\xHH)",
				    show(&ch, 1, b, sizeof b));
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
		return perr(p, "out of memory");
	for (;;) {
		if (s >= end) {
			free(out);
			return perr(p, "unterminated hex string (no closing '\"')");
		}
		char ch = *s++;
		if (ch == '"')
			break;
		if (is_space(ch)) {
			if (hi >= 0) {
				free(out);
				return perr(p, "bad hex: a lone digit before a space (write octets as two digits)");
			}
			continue;
		}
		int d = hex_val(ch);
		if (d < 0) {
			free(out);
			return perr(p, "bad hex: '%s' is not a hex digit", show(&ch, 1, b, sizeof b));
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
		return perr(p, "bad hex: odd number of digits");
	}
	v->kind = V_HEX;
	v->bytes = out;
	v->n = n;
	*pp = s;
	return 0;
}

/* Reads one value at *pp (not a space) and leaves *pp after it. */
static int lex_value(parser *p, const char **pp, const char *end, value *v)
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
			value_free(v);
			return perr(p, "unexpected '%s' right after a quoted value", show(*pp, 1, b, sizeof b));
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
					return plimit(p, "list %s has more than 16 items", show(s, n, b, sizeof b));
				if (!parse_int(e, (size_t)(f - e), &v->list[v->nlist], &big, &overflow) || big)
					return perr(p, "bad list '%s' (integers separated by commas, no spaces)",
						    show(s, n, b, sizeof b));
				v->nlist++;
				e = f + 1;
			}
			v->kind = V_LIST;
			return 0;
		}
		if (parse_int(s, n, &v->i, &v->big, &overflow)) {
			v->kind = V_INT;
			return 0;
		}
		if (overflow)
			return perr(p, "integer %s does not fit in 64 bits", show(s, n, b, sizeof b));
		bool is_dur;
		rc = parse_duration(p, s, n, &v->i, &is_dur);
		if (rc)
			return rc;
		if (is_dur) {
			v->kind = V_DUR;
			return 0;
		}
		if (*s == '-') {
			rc = parse_duration(p, s + 1, n - 1, &v->i, &is_dur);
			if (rc)
				return rc;
			if (is_dur)
				return perr(p, "duration %s is negative", show(s, n, b, sizeof b));
		}
		return perr(p, "bad number '%s' (integers: 42, -1, 0x2a; durations: 500ms, 5s, 2m)",
			    show(s, n, b, sizeof b));
	}
	for (size_t i = 0; i < n; i++)
		if (!is_word_char(s[i]))
			return perr(p, "bad value '%s' (a value is an integer, duration, word [a-z0-9_-], "
				    "list, \"string\", x\"hex\" or *)", show(s, n, b, sizeof b));
	v->kind = V_WORD;
	return 0;
}

/* ---- tokens of a step line ---- */

enum tok_kind { TOK_END, TOK_SEMI, TOK_BARE, TOK_ARG };

typedef struct tok {
	enum tok_kind kind;
	const char *name;       /* TOK_ARG: the name before '=' */
	size_t nname;
	const char *start;      /* TOK_BARE: the token; TOK_ARG: the value */
} tok;

static void skip_space(const char **pp, const char *end)
{
	while (*pp < end && is_space(**pp))
		(*pp)++;
}

/* Classifies the next token without reading its value (lex_value does that). */
static tok next_tok(const char **pp, const char *end)
{
	tok t = { TOK_END, NULL, 0, NULL };
	skip_space(pp, end);
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
static size_t take_word(const char **pp, const char *end, const char **w)
{
	skip_space(pp, end);
	*w = *pp;
	while (*pp < end && !is_stop(**pp))
		(*pp)++;
	return (size_t)(*pp - *w);
}

/* ---- steps ---- */

static void step_clear(iw_step *st)
{
	for (size_t i = 0; i < st->nargs; i++) {
		free(st->args[i].s);
		free(st->args[i].bytes);
	}
	st->nargs = 0;
	for (size_t a = 0; a < st->nalts; a++) {
		for (size_t k = 0; k < st->alts[a].nseq; k++) {
			step_clear(st->alts[a].seq[k]);
			free(st->alts[a].seq[k]);
		}
		st->alts[a].nseq = 0;
	}
	st->nalts = 0;
}

static void types_desc(const iw_arg_spec *sp, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int t = IW_ARG_INT; t <= IW_ARG_LIST; t++) {
		if (!(sp->types & IW_T(t)))
			continue;
		const char *d = "";
		switch ((enum iw_arg_type)t) {
		case IW_ARG_INT: d = "an integer"; break;
		case IW_ARG_STR: d = "a \"string\""; break;
		case IW_ARG_BYTES: d = "bytes (x\"00 2a\" or \"text\")"; break;
		case IW_ARG_DURATION: d = "a duration (500ms, 5s, 2m)"; break;
		case IW_ARG_WORD: d = "a word"; break;
		case IW_ARG_LIST: d = "a list of integers (3,7,19)"; break;
		}
		int k = snprintf(buf + o, cap - o, "%s%s", o ? " or " : "", d);
		if (k < 0 || (size_t)k >= cap - o)
			break;
		o += (size_t)k;
	}
	if ((sp->types & IW_T(IW_ARG_WORD)) && sp->words && o < cap)
		snprintf(buf + o, cap - o, " (%s)", sp->words);
}

static int wrong_type(parser *p, const iw_arg_spec *sp, const value *v)
{
	char want[160], b[64];
	types_desc(sp, want, sizeof want);
	if (v->kind == V_INT && (sp->types & IW_T(IW_ARG_DURATION)))
		return perr(p, "%s=%s: a duration needs a unit (500ms, 5s, 2m)", sp->name,
			    show(v->text, v->ntext, b, sizeof b));
	return perr(p, "argument '%s' wants %s, got %s", sp->name, want, vkind_name(v->kind));
}

static int check_duration(parser *p, const iw_arg_spec *sp, int64_t ms)
{
	if (ms > p->c->timeout_ms) {
		char a[32], b[32];
		fmt_ms(ms, a, sizeof a);
		fmt_ms(p->c->timeout_ms, b, sizeof b);
		return perr(p, "%s=%s is longer than the case timeout (%s)", sp->name, a, b);
	}
	return 0;
}

/* Stores v as argument sp of st after checking it against the schema; v's bytes move. */
static int apply(parser *p, iw_step *st, const iw_step_schema *sc, const iw_arg_spec *sp, value *v,
		 bool positional)
{
	char b[64];
	if (iw_step_arg(st, sp->name))
		return positional ? perr(p, "'%s' given twice", sp->name)
				  : perr(p, "duplicate argument '%s'", sp->name);
	if (st->nargs >= IW_CASE_MAX_ARGS)
		return plimit(p, "too many arguments (limit %d)", IW_CASE_MAX_ARGS);
	iw_arg a;
	memset(&a, 0, sizeof a);
	snprintf(a.name, sizeof a.name, "%s", sp->name);
	switch (v->kind) {
	case V_ANY:
		if (!sc->expectation)
			return perr(p, "%s=*: '*' (any) is only allowed in expectations", sp->name);
		if (sp->types == IW_T(IW_ARG_DURATION))
			return perr(p, "%s=*: '*' cannot stand for a duration", sp->name);
		a.is_pattern_any = true;
		for (int t = IW_ARG_INT; t <= IW_ARG_LIST; t++)
			if (sp->types & IW_T(t)) {
				a.type = (enum iw_arg_type)t;
				break;
			}
		break;
	case V_INT:
		if (sp->types & IW_T(IW_ARG_INT)) {
			bool ok = v->big ? (sp->flags & IW_SPEC_U64) != 0 : v->i >= sp->min && v->i <= sp->max;
			if (!ok && (sp->flags & IW_SPEC_U64))
				return perr(p, "%s=%s is out of range (0..0xffffffffffffffff)", sp->name,
					    show(v->text, v->ntext, b, sizeof b));
			if (!ok)
				return perr(p, "%s=%s is out of range (%lld..%lld)", sp->name,
					    show(v->text, v->ntext, b, sizeof b), (long long)sp->min, (long long)sp->max);
			a.type = IW_ARG_INT;
			a.i = v->i;
		} else if ((sp->types & IW_T(IW_ARG_LIST)) && !v->big) {
			a.type = IW_ARG_LIST;
			a.list[0] = v->i;
			a.nlist = 1;
		} else {
			return wrong_type(p, sp, v);
		}
		break;
	case V_DUR:
		if (!(sp->types & IW_T(IW_ARG_DURATION)))
			return wrong_type(p, sp, v);
		if (check_duration(p, sp, v->i))
			return IW_EINVAL;
		a.type = IW_ARG_DURATION;
		a.i = v->i;
		break;
	case V_STR:
	case V_HEX:
		if (v->kind == V_STR && (sp->types & IW_T(IW_ARG_STR)))
			a.type = IW_ARG_STR;
		else if (sp->types & IW_T(IW_ARG_BYTES))
			a.type = IW_ARG_BYTES;
		else
			return wrong_type(p, sp, v);
		if (sp->nbytes && v->n != sp->nbytes)
			return perr(p, "%s must be %zu octets (got %zu)", sp->name, sp->nbytes, v->n);
		if (v->kind == V_STR) {
			a.s = malloc(v->n + 1);
			if (!a.s)
				return perr(p, "out of memory");
			memcpy(a.s, v->bytes, v->n + 1);
		}
		a.bytes = v->bytes;
		a.nbytes = v->n;
		v->bytes = NULL;
		break;
	case V_WORD:
		if (!(sp->types & IW_T(IW_ARG_WORD)))
			return wrong_type(p, sp, v);
		if (sp->words && !iw_schema_word_in(sp->words, v->text, v->ntext))
			return perr(p, "%s=%s: expected one of: %s", sp->name, show(v->text, v->ntext, b, sizeof b),
				    sp->words);
		a.type = IW_ARG_WORD;
		a.s = malloc(v->ntext + 1);
		if (!a.s)
			return perr(p, "out of memory");
		memcpy(a.s, v->text, v->ntext);
		a.s[v->ntext] = '\0';
		break;
	case V_LIST:
		if (!(sp->types & IW_T(IW_ARG_LIST)))
			return wrong_type(p, sp, v);
		a.type = IW_ARG_LIST;
		memcpy(a.list, v->list, sizeof a.list);
		a.nlist = v->nlist;
		break;
	}
	st->args[st->nargs++] = a;
	return 0;
}

static int unknown_arg(parser *p, const iw_step_schema *sc, const char *name, size_t n)
{
	char b[64], names[600];
	if (sc->nargs == 0)
		return perr(p, "unknown argument '%s' (takes no arguments)", show(name, n, b, sizeof b));
	iw_schema_arg_names(sc, names, sizeof names);
	const char *hint = iw_schema_suggest(sc, name, n);
	if (hint)
		return perr(p, "unknown argument '%s' (did you mean '%s'? expected one of: %s)",
			    show(name, n, b, sizeof b), hint, names);
	return perr(p, "unknown argument '%s' (expected one of: %s)", show(name, n, b, sizeof b), names);
}

/* Arguments of a step until the end of the line, or ';' inside a one-of alternative. */
static int parse_args(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt, bool *semi)
{
	const iw_step_schema *sc = iw_schema_get(st->kind);
	char b[64];
	*semi = false;
	for (;;) {
		tok t = next_tok(pp, end);
		if (t.kind == TOK_END)
			return 0;
		if (t.kind == TOK_SEMI) {
			if (!in_alt)
				return perr(p, "';' only separates expectations in a one-of alternative");
			*semi = true;
			return 0;
		}
		value v;
		int rc;
		if (t.kind == TOK_ARG) {
			if (t.nname == 0)
				return perr(p, "missing argument name before '='");
			const iw_arg_spec *sp = iw_schema_arg(sc, t.name, t.nname);
			if (!sp)
				return unknown_arg(p, sc, t.name, t.nname);
			if (*pp >= end || is_stop(**pp))
				return perr(p, "argument '%s' has no value", sp->name);
			rc = lex_value(p, pp, end, &v);
			if (rc)
				return rc;
			rc = apply(p, st, sc, sp, &v, false);
			value_free(&v);
			if (rc)
				return rc;
			continue;
		}
		rc = lex_value(p, pp, end, &v);
		if (rc)
			return rc;
		if (sc->positional_word && v.kind == V_WORD && iw_schema_word_in(sc->positional_word, v.text, v.ntext)) {
			if (st->word[0]) {
				value_free(&v);
				return perr(p, "'%s' given twice", sc->positional_word);
			}
			snprintf(st->word, sizeof st->word, "%s", sc->positional_word);
			continue;
		}
		if (!sc->positional) {
			show(v.text, v.ntext, b, sizeof b);
			value_free(&v);
			if (sc->positional_word)
				return perr(p, "unexpected value '%s' (arguments are written name=value; "
					    "the only bare word is '%s')", b, sc->positional_word);
			return perr(p, "unexpected value '%s' (arguments are written name=value)", b);
		}
		rc = apply(p, st, sc, iw_schema_arg(sc, sc->positional, strlen(sc->positional)), &v, true);
		value_free(&v);
		if (rc)
			return rc;
	}
}

static bool word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static const char expect_words[] = "request reply terminate close silence alive as-model one-of";

/* The kind of `expect <w>`; -1 when w names no expectation. */
static int expect_kind(const char *w, size_t n)
{
	if (word_is(w, n, "request")) return IW_EXPECT_REQUEST;
	if (word_is(w, n, "reply")) return IW_EXPECT_REPLY;
	if (word_is(w, n, "terminate")) return IW_EXPECT_TERMINATE;
	if (word_is(w, n, "close")) return IW_EXPECT_CLOSE;
	if (word_is(w, n, "silence")) return IW_EXPECT_SILENCE;
	if (word_is(w, n, "alive")) return IW_EXPECT_ALIVE;
	if (word_is(w, n, "as-model")) return IW_EXPECT_AS_MODEL;
	if (word_is(w, n, "one-of")) return IW_EXPECT_ONE_OF;
	if (iw_schema_word_in(iw_schema_expect_msgs, w, n)) return IW_EXPECT_FPDU;
	return -1;
}

/* Reads the words that name a step; in a one-of alternative the leading `expect` is implied. */
static int parse_step_name(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt)
{
	const char *w1, *w2 = NULL;
	size_t n1 = take_word(pp, end, &w1), n2 = 0;
	char b[64], b2[64];
	int kind = -1;
	show(w1, n1, b, sizeof b);
	if (in_alt) {
		if (n1 == 0)
			return perr(p, "empty alternative");
		if (word_is(w1, n1, "expect"))
			return perr(p, "inside one-of, write expectations without 'expect' (e.g. `- close within=5s`)");
		kind = expect_kind(w1, n1);
		if (kind == IW_EXPECT_ONE_OF)
			return perr(p, "one-of blocks do not nest");
		if (kind < 0)
			return perr(p, "unknown expectation '%s' (expected one of: request reply terminate close "
				    "silence alive as-model %s)", b, iw_schema_expect_msgs);
		w2 = w1;
		n2 = n1;
	} else if (word_is(w1, n1, "send") || word_is(w1, n1, "expect") || word_is(w1, n1, "measure")) {
		const char *save = *pp;
		n2 = take_word(pp, end, &w2);
		if (n2 == 0 || memchr(w2, '=', n2) || *w2 == '"') {
			*pp = save;
			if (word_is(w1, n1, "send"))
				return perr(p, "send: missing what to send (request, reply, raw, or a message: %s)",
					    iw_schema_send_msgs);
			if (word_is(w1, n1, "expect"))
				return perr(p, "expect: missing what to expect (%s, or a message: %s)", expect_words,
					    iw_schema_expect_msgs);
			return perr(p, "measure: missing what to measure (close)");
		}
		show(w2, n2, b2, sizeof b2);
		if (word_is(w1, n1, "send")) {
			if (word_is(w2, n2, "request"))
				kind = IW_STEP_SEND_REQUEST;
			else if (word_is(w2, n2, "reply"))
				kind = IW_STEP_SEND_REPLY;
			else if (word_is(w2, n2, "raw"))
				kind = IW_STEP_SEND_RAW;
			else if (iw_schema_word_in(iw_schema_send_msgs, w2, n2))
				kind = IW_STEP_SEND_FPDU;
			else
				return perr(p, "unknown step 'send %s' (send takes: request reply raw %s)", b2,
					    iw_schema_send_msgs);
		} else if (word_is(w1, n1, "expect")) {
			kind = expect_kind(w2, n2);
			if (kind < 0)
				return perr(p, "unknown step 'expect %s' (expect takes: %s %s)", b2, expect_words,
					    iw_schema_expect_msgs);
		} else {
			if (!word_is(w2, n2, "close"))
				return perr(p, "unknown step 'measure %s' (measure takes: close)", b2);
			kind = IW_EXPECT_MEASURE;
		}
	} else if (word_is(w1, n1, "connect")) {
		kind = IW_STEP_CONNECT;
	} else if (word_is(w1, n1, "accept")) {
		kind = IW_STEP_ACCEPT;
	} else if (word_is(w1, n1, "split")) {
		kind = IW_STEP_SPLIT;
	} else if (word_is(w1, n1, "sleep")) {
		kind = IW_STEP_SLEEP;
	} else if (word_is(w1, n1, "close")) {
		kind = IW_STEP_CLOSE;
	} else if (word_is(w1, n1, "reset")) {
		kind = IW_STEP_RESET;
	} else if (word_is(w1, n1, "use")) {
		kind = IW_STEP_USE;
	} else if (word_is(w1, n1, "startup")) {
		kind = IW_STEP_STARTUP;
	} else {
		return perr(p, "unknown step '%s' (steps: connect, accept, startup, send ..., split, sleep, close, reset, "
			    "use, expect ..., measure close)", b);
	}
	st->kind = (enum iw_step_kind)kind;
	if (w2 && n2 < sizeof st->word) {
		memcpy(st->word, w2, n2);
		st->word[n2] = '\0';
	}
	if (in_alt)
		snprintf(p->ctx + strlen(p->ctx), sizeof p->ctx - strlen(p->ctx), ": %s", b);
	else
		iw_step_label(st, p->ctx, sizeof p->ctx);
	return 0;
}

/* One step from *pp: its name, arguments, and the checks between them. */
static int parse_step(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt, bool *semi)
{
	char msg[200];
	st->line = p->line;
	int rc = parse_step_name(p, pp, end, st, in_alt);
	if (rc)
		return rc;
	if (st->kind == IW_EXPECT_ONE_OF) {
		tok t = next_tok(pp, end);
		if (t.kind != TOK_END)
			return perr(p, "nothing may follow 'expect one-of' on its line (alternatives go on '-' lines)");
		return 0;
	}
	rc = parse_args(p, pp, end, st, in_alt, semi);
	if (rc)
		return rc;
	if (st->kind == IW_EXPECT_CLOSE) {
		const iw_arg *how = iw_step_arg(st, "how");
		snprintf(st->word, sizeof st->word, "%s", how && !how->is_pattern_any ? how->s : "any");
	}
	if (!iw_schema_check_step(st, msg, sizeof msg))
		return perr(p, "%s", msg);
	return 0;
}

/* `- expectation ; expectation ...`, one alternative of the open one-of block. */
static int parse_alt(parser *p, iw_step *block, const char *s, const char *end)
{
	if (block->nalts >= IW_CASE_MAX_ALTS)
		return plimit(p, "too many alternatives in one-of (limit %d)", IW_CASE_MAX_ALTS);
	iw_alt *alt = &block->alts[block->nalts++];
	size_t k = block->nalts;
	for (;;) {
		const char *save = s;
		tok t = next_tok(&save, end);
		snprintf(p->ctx, sizeof p->ctx, "expect one-of, alternative %zu", k);
		if (t.kind == TOK_END || t.kind == TOK_SEMI)
			return perr(p, alt->nseq ? "empty expectation after ';'" : "empty alternative");
		if (alt->nseq >= IW_CASE_MAX_SEQ)
			return plimit(p, "too many expectations in one alternative (limit %d)", IW_CASE_MAX_SEQ);
		iw_step *st = calloc(1, sizeof *st);
		if (!st)
			return perr(p, "out of memory");
		alt->seq[alt->nseq++] = st;
		bool semi = false;
		int rc = parse_step(p, &s, end, st, true, &semi);
		if (rc)
			return rc;
		if (!semi)
			return 0;
	}
}

/* ---- headers ---- */

static bool id_char(char ch) { return is_lower(ch) || is_digit(ch) || ch == '.' || ch == '_' || ch == '-'; }

/* Section numbers: digits, dot-separated ("6.1.1"). Returns the length read, 0 if none. */
static size_t section_len(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		size_t st = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == st)
			return 0;
		if (i < n && s[i] == '.' && i + 1 < n && is_digit(s[i + 1])) {
			i++;
			continue;
		}
		return i;
	}
}

/* A catalog ID (MPA-6.1-R5, MPAc-8.1-04, DDP-9.1-T4, ARCH-2.2-F1, MPA-6.1-R1a): PREFIX-SECTION-
 * [up to two capitals]digits[a lower-case letter]; or an RFC reference: RFCnnnn-SECTION. */
static bool req_id_ok(const char *s, size_t n)
{
	size_t i = 0;
	if (n >= 8 && memcmp(s, "RFC", 3) == 0 && is_digit(s[3])) {
		i = 3;
		while (i < n && is_digit(s[i]))
			i++;
		if (i - 3 < 4 || i - 3 > 5 || i >= n || s[i] != '-')
			return false;
		i++;
		size_t k = section_len(s + i, n - i);
		return k > 0 && i + k == n;
	}
	if (i >= n || !(s[i] >= 'A' && s[i] <= 'Z'))
		return false;
	while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || is_lower(s[i])))
		i++;
	if (i > 8 || i >= n || s[i] != '-')
		return false;
	i++;
	size_t k = section_len(s + i, n - i);
	if (k == 0)
		return false;
	i += k;
	if (i >= n || s[i] != '-')
		return false;
	i++;
	size_t caps = 0;
	while (i < n && s[i] >= 'A' && s[i] <= 'Z' && caps < 2) {
		i++;
		caps++;
	}
	size_t d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d)
		return false;
	if (i < n && is_lower(s[i]))
		i++;
	return i == n;
}

/* The value of a header with any comment removed and spaces trimmed. */
static void header_value(const char *s, const char *end, const char **v, size_t *n)
{
	skip_space(&s, end);
	const char *q = s;
	bool quoted = false;
	while (q < end) {
		if (*q == '"')
			quoted = !quoted;
		else if (*q == '\\' && quoted && q + 1 < end)
			q++;
		else if (*q == '#' && !quoted)
			break;
		q++;
	}
	while (q > s && is_space(q[-1]))
		q--;
	*v = s;
	*n = (size_t)(q - s);
}

static int header_requirement(parser *p, const char *v, const char *end)
{
	iw_case *c = p->c;
	char b[64];
	const char *id, *lv, *nt;
	size_t nid = take_word(&v, end, &id);
	size_t nlv = take_word(&v, end, &lv);
	size_t nnt = take_word(&v, end, &nt);
	if (nid == 0)
		return perr(p, "requirement: missing ID and level (e.g. `requirement: MPA-6.1-R5 MUST`)");
	show(id, nid, b, sizeof b);
	if (!req_id_ok(id, nid) || nid >= sizeof c->reqs[0].id)
		return perr(p, "requirement: '%s' is not a requirement ID (like MPA-6.1-R5, MPAc-8.1-04, "
			    "DDP-9.1-T4, ARCH-2.2-F1, or RFC5040-4.8)", b);
	if (c->nreqs >= IW_CASE_MAX_REQS)
		return plimit(p, "too many requirements (limit %d)", IW_CASE_MAX_REQS);
	enum iw_level level;
	if (word_is(lv, nlv, "MUST"))
		level = IW_LEVEL_MUST;
	else if (word_is(lv, nlv, "SHOULD"))
		level = IW_LEVEL_SHOULD;
	else if (word_is(lv, nlv, "MAY"))
		level = IW_LEVEL_MAY;
	else if (word_is(lv, nlv, "INFO"))
		level = IW_LEVEL_INFO;
	else if (nlv == 0)
		return perr(p, "requirement: %s: missing level (MUST, SHOULD, MAY or INFO)", b);
	else
		return perr(p, "requirement: %s: level must be MUST, SHOULD, MAY or INFO", b);
	/* The catalog keywords "MUST NOT" and "SHOULD NOT" bind as strongly as MUST and SHOULD. */
	if (nnt && !(word_is(nt, nnt, "NOT") && level <= IW_LEVEL_SHOULD))
		return perr(p, "requirement: %s: unexpected text after the level", b);
	if (nnt) {
		const char *more;
		if (take_word(&v, end, &more))
			return perr(p, "requirement: %s: unexpected text after the level", b);
	}
	for (size_t i = 0; i < c->nreqs; i++)
		if (strlen(c->reqs[i].id) == nid && memcmp(c->reqs[i].id, id, nid) == 0)
			return perr(p, "requirement: %s cited twice", b);
	iw_case_req *r = &c->reqs[c->nreqs++];
	memcpy(r->id, id, nid);
	r->id[nid] = '\0';
	r->level = level;
	return 0;
}

static int header_needs(parser *p, const char *v, const char *end)
{
	char b[64];
	const char *w;
	size_t n;
	bool any = false;
	while ((n = take_word(&v, end, &w)) != 0) {
		unsigned bit = 1;
		const char *q = iw_schema_caps;
		bool found = false;
		while (*q) {
			const char *e = strchr(q, ' ');
			size_t k = e ? (size_t)(e - q) : strlen(q);
			if (k == n && memcmp(q, w, n) == 0) {
				found = true;
				break;
			}
			bit <<= 1;
			q += k + (e ? 1 : 0);
		}
		if (!found)
			return perr(p, "needs: unknown capability '%s' (known: %s)", show(w, n, b, sizeof b),
				    iw_schema_caps);
		p->c->needs |= bit;
		any = true;
	}
	if (!any)
		return perr(p, "needs: no capability named (known: %s)", iw_schema_caps);
	return 0;
}

static int header_profiles(parser *p, const char *v, const char *end)
{
	iw_case *c = p->c;
	char b[64], names[160];
	const char *w;
	size_t n;
	while ((n = take_word(&v, end, &w)) != 0) {
		char name[32];
		show(w, n, b, sizeof b);
		const iw_profile *pr = NULL;
		if (n < sizeof name) {
			memcpy(name, w, n);
			name[n] = '\0';
			pr = iw_profile_find(name);
		}
		if (!pr) {
			iw_profile_names(names, sizeof names);
			return perr(p, "profiles: unknown profile '%s' (known: %s)", b, names);
		}
		for (size_t i = 0; i < c->nprofiles; i++)
			if (strcmp(c->profiles[i], pr->name) == 0)
				return perr(p, "profiles: '%s' named twice", b);
		if (c->nprofiles >= IW_CASE_MAX_PROFILES)
			return plimit(p, "profiles: too many (limit %d)", IW_CASE_MAX_PROFILES);
		snprintf(c->profiles[c->nprofiles++], sizeof c->profiles[0], "%s", pr->name);
	}
	if (c->nprofiles == 0)
		return perr(p, "profiles: no profile named (leave the header out for every profile with "
			    "startup frames)");
	return 0;
}

enum { H_ID = 1, H_TITLE = 2, H_ROLE = 4, H_NEEDS = 8, H_PROFILES = 16, H_TIMEOUT = 32 };

static int parse_header(parser *p, const char *name, size_t nname, const char *v0, const char *end,
			unsigned *seen)
{
	iw_case *c = p->c;
	char b[64];
	const char *v;
	size_t n;
	header_value(v0, end, &v, &n);
	const char *vend = v + n;
	static const struct { const char *name; unsigned bit; } once[] = {
		{ "id", H_ID }, { "title", H_TITLE }, { "role", H_ROLE }, { "needs", H_NEEDS },
		{ "profiles", H_PROFILES }, { "timeout", H_TIMEOUT },
	};
	unsigned bit = 0;
	for (size_t i = 0; i < sizeof once / sizeof once[0]; i++)
		if (word_is(name, nname, once[i].name))
			bit = once[i].bit;
	if (!bit && !word_is(name, nname, "requirement"))
		return perr(p, "unknown header '%s:' (headers: id, title, requirement, role, needs, profiles, "
			    "timeout)", show(name, nname, b, sizeof b));
	if (bit & *seen)
		return perr(p, "header '%s:' given twice", show(name, nname, b, sizeof b));
	*seen |= bit;
	if (n == 0 && bit != H_NEEDS && bit != H_PROFILES)
		return perr(p, "%s: missing value", show(name, nname, b, sizeof b));
	switch (bit) {
	case H_ID:
		for (size_t i = 0; i < n; i++)
			if (!id_char(v[i]))
				return perr(p, "id: '%s' may hold only a-z 0-9 . _ - (got '%s')", show(v, n, b, sizeof b),
					    (char[]){ (v[i] >= 0x20 && v[i] < 0x7F) ? v[i] : '?', 0 });
		if (n >= sizeof c->id)
			return plimit(p, "id: longer than %zu characters", sizeof c->id - 1);
		memcpy(c->id, v, n);
		c->id[n] = '\0';
		return 0;
	case H_TITLE:
		if (*v == '"') {
			value val;
			const char *q = v;
			int rc = lex_value(p, &q, vend, &val);
			if (rc)
				return rc;
			size_t vn = val.n;
			if (q != vend) {
				value_free(&val);
				return perr(p, "title: text after the closing '\"'");
			}
			if (vn >= sizeof c->title || memchr(val.bytes, '\0', vn)) {
				value_free(&val);
				return vn >= sizeof c->title
					       ? plimit(p, "title: longer than %zu characters", sizeof c->title - 1)
					       : perr(p, "title: contains a NUL");
			}
			memcpy(c->title, val.bytes, vn + 1);
			value_free(&val);
			return 0;
		}
		if (n >= sizeof c->title)
			return plimit(p, "title: longer than %zu characters", sizeof c->title - 1);
		memcpy(c->title, v, n);
		c->title[n] = '\0';
		return 0;
	case H_ROLE:
		if (word_is(v, n, "responder"))
			c->dut_role = 1;
		else if (word_is(v, n, "initiator"))
			c->dut_role = 0;
		else
			return perr(p, "role: '%s' is not responder or initiator (the DUT's role)", show(v, n, b, sizeof b));
		return 0;
	case H_NEEDS:
		return header_needs(p, v, vend);
	case H_PROFILES:
		return header_profiles(p, v, vend);
	case H_TIMEOUT: {
		bool is_dur = false;
		int64_t ms = 0;
		int rc = parse_duration(p, v, n, &ms, &is_dur);
		if (rc)
			return rc;
		if (!is_dur || ms == 0)
			return perr(p, "timeout: '%s' is not a positive duration (500ms, 10s, 2m)", show(v, n, b, sizeof b));
		c->timeout_ms = ms;
		return 0;
	}
	default:
		return header_requirement(p, v, vend);
	}
}

/* `name:` at the start of a line (after spaces) makes it a header. */
static bool is_header(const char *s, const char *end, size_t *nname)
{
	const char *q = s;
	if (q >= end || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
		return false;
	while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || is_digit(*q) || *q == '_' ||
			   *q == '-'))
		q++;
	if (q >= end || *q != ':')
		return false;
	*nname = (size_t)(q - s);
	return true;
}

/* ---- the whole case ---- */

static int check_case(parser *p, unsigned seen)
{
	iw_case *c = p->c;
	p->line = 0;
	p->ctx[0] = '\0';
	if (!(seen & H_ID))
		return perr(p, "missing header 'id:' (a stable name like mpa.startup.req.key-reply-key)");
	if (!(seen & H_TITLE))
		return perr(p, "missing header 'title:'");
	if (c->nreqs == 0)
		return perr(p, "missing header 'requirement:' (at least one, e.g. `requirement: MPA-6.1-R5 MUST`)");
	if (!(seen & H_ROLE))
		return perr(p, "missing header 'role:' (responder or initiator: the DUT's role)");
	if (c->nsteps == 0)
		return perr(p, "the case has no steps");
	c->level = IW_LEVEL_INFO;
	for (size_t i = 0; i < c->nreqs; i++)
		if (c->reqs[i].level < c->level)
			c->level = c->reqs[i].level;
	/* Only the DUT's role decides who opens the connection: a mismatch could never run. */
	for (size_t i = 0; i < c->nsteps; i++) {
		const iw_step *st = &c->steps[i];
		p->line = st->line;
		if (st->kind == IW_STEP_CONNECT && c->dut_role != 1)
			return perr(p, "connect: the harness connects only to a responder DUT (role: responder)");
		if (st->kind == IW_STEP_ACCEPT && c->dut_role != 0)
			return perr(p, "accept: the harness accepts only from an initiator DUT (role: initiator)");
		/* startup ends with the reflector's greeting and an echo: without one it cannot run. */
		if (st->kind == IW_STEP_STARTUP && !(c->needs & IW_CAP_REFLECTOR))
			return perr(p, "startup: the step uses the reflector (greeting and echo): add `needs: reflector`");
		/* The MSS option rides on the SYN of a connection the harness opens. */
		if (st->kind == IW_STEP_STARTUP && iw_step_arg(st, "mss") && c->dut_role != 1)
			return perr(p, "startup mss=: the harness advertises an MSS only on connections it opens "
				       "(role: responder)");
	}
	return 0;
}

static int parse_lines(parser *p, const char *text, size_t len)
{
	iw_case *c = p->c;
	iw_step *block = NULL;      /* the open `expect one-of`, if any */
	int block_line = 0;
	unsigned seen = 0;
	size_t off = 0;
	p->line = 0;
	while (off < len) {
		const char *s = text + off;
		const char *nl = memchr(s, '\n', len - off);
		const char *end = nl ? nl : text + len;
		off = (size_t)(end - text) + (nl ? 1 : 0);
		p->line++;
		p->ctx[0] = '\0';
		if (end > s && end[-1] == '\r')
			end--;
		if ((size_t)(end - s) > IW_CASE_MAX_LINE)
			return plimit(p, "line is longer than %d characters", IW_CASE_MAX_LINE);
		if (memchr(s, '\0', (size_t)(end - s)))
			return perr(p, "NUL octet in the line");
		skip_space(&s, end);
		if (s == end || *s == '#')
			continue;
		if (block) {
			const char *q = s;
			const char *w;
			size_t n = take_word(&q, end, &w);
			if (word_is(w, n, "end")) {
				tok t = next_tok(&q, end);
				if (t.kind != TOK_END)
					return perr(p, "expect one-of: nothing may follow 'end'");
				if (block->nalts < 2) {
					p->line = block_line;
					return perr(p, "expect one-of: needs at least two alternatives ('-' lines)");
				}
				block = NULL;
				continue;
			}
			if (*s != '-')
				return perr(p, "expect one-of (line %d): expected an alternative ('- ...') or 'end'",
					    block_line);
			int rc = parse_alt(p, block, s + 1, end);
			if (rc)
				return rc;
			continue;
		}
		size_t nname;
		if (is_header(s, end, &nname)) {
			if (c->nsteps) {
				char b[64];
				return perr(p, "header '%s:' after the first step (headers come first)",
					    show(s, nname, b, sizeof b));
			}
			int rc = parse_header(p, s, nname, s + nname + 1, end, &seen);
			if (rc)
				return rc;
			continue;
		}
		if (*s == '-')
			return perr(p, "an alternative ('- ...') outside an `expect one-of` block");
		{
			const char *q = s, *w;
			size_t n = take_word(&q, end, &w);
			if (word_is(w, n, "end"))
				return perr(p, "'end' without an open `expect one-of` block");
		}
		if (c->nsteps >= IW_CASE_MAX_STEPS)
			return plimit(p, "too many steps (limit %d)", IW_CASE_MAX_STEPS);
		iw_step *st = &c->steps[c->nsteps++];    /* counted now so a failure frees its arguments */
		bool semi;
		int rc = parse_step(p, &s, end, st, false, &semi);
		if (rc)
			return rc;
		if (st->kind == IW_EXPECT_ONE_OF) {
			block = st;
			block_line = p->line;
		}
	}
	if (block) {
		p->line = block_line;
		snprintf(p->ctx, sizeof p->ctx, "expect one-of");
		return perr(p, "unterminated block: missing 'end' before the end of the file");
	}
	return check_case(p, seen);
}

int iw_case_parse(const char *text, size_t len, const char *file, iw_case **out, iw_err *e)
{
	parser p;
	memset(&p, 0, sizeof p);
	p.file = file ? file : "<case>";
	p.e = e;
	if (out)
		*out = NULL;
	if (!out || (!text && len))
		return perr(&p, "iw_case_parse: no text or no output");
	if (len > IW_CASE_MAX_FILE)
		return plimit(&p, "case file is %zu octets, over the %u-octet (1 MiB) limit", len, IW_CASE_MAX_FILE);
	iw_case *c = calloc(1, sizeof *c);
	if (!c)
		return perr(&p, "out of memory");
	snprintf(c->file, sizeof c->file, "%s", p.file);
	c->timeout_ms = DEFAULT_TIMEOUT_MS;
	p.c = c;
	int rc = parse_lines(&p, text ? text : "", len);
	if (rc) {
		iw_case_free(c);
		return rc;
	}
	iw_err_clear(e);
	*out = c;
	return 0;
}

int iw_case_load(const char *path, iw_case **out, iw_err *e)
{
	if (out)
		*out = NULL;
	if (!path)
		return iw_errf(e, IW_EINVAL, "iw_case_load: no path");
	FILE *f = fopen(path, "rb");
	if (!f)
		return iw_errf(e, IW_EINVAL, "%s: cannot open: %s", path, strerror(errno));
	/* One octet past the limit tells "too large" without reading a huge file whole. */
	size_t cap = IW_CASE_MAX_FILE + 1;
	char *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return iw_errf(e, IW_EINVAL, "%s: out of memory", path);
	}
	size_t n = fread(buf, 1, cap, f);
	int rd_err = ferror(f) ? errno : 0;
	fclose(f);
	if (rd_err) {
		free(buf);
		return iw_errf(e, IW_EINVAL, "%s: cannot read: %s", path, strerror(rd_err));
	}
	if (n > IW_CASE_MAX_FILE) {
		free(buf);
		return iw_errf(e, IW_ENOSPC, "%s: case file is over the %u-octet (1 MiB) limit", path, IW_CASE_MAX_FILE);
	}
	int rc = iw_case_parse(buf, n, path, out, e);
	free(buf);
	return rc;
}

void iw_case_free(iw_case *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsteps && i < IW_CASE_MAX_STEPS; i++)
		step_clear(&c->steps[i]);
	free(c);
}

const iw_arg *iw_step_arg(const iw_step *s, const char *name)
{
	if (!s || !name)
		return NULL;
	for (size_t i = 0; i < s->nargs && i < IW_CASE_MAX_ARGS; i++)
		if (strcmp(s->args[i].name, name) == 0)
			return &s->args[i];
	return NULL;
}

const char *iw_step_name(enum iw_step_kind k)
{
	switch (k) {
	case IW_STEP_CONNECT: return "connect";
	case IW_STEP_ACCEPT: return "accept";
	case IW_STEP_SEND_REQUEST: return "send request";
	case IW_STEP_SEND_REPLY: return "send reply";
	case IW_STEP_SEND_FPDU: return "send fpdu";
	case IW_STEP_SEND_RAW: return "send raw";
	case IW_STEP_SPLIT: return "split";
	case IW_STEP_SLEEP: return "sleep";
	case IW_STEP_CLOSE: return "close";
	case IW_STEP_RESET: return "reset";
	case IW_STEP_USE: return "use";
	case IW_STEP_STARTUP: return "startup";
	case IW_EXPECT_REQUEST: return "expect request";
	case IW_EXPECT_REPLY: return "expect reply";
	case IW_EXPECT_FPDU: return "expect fpdu";
	case IW_EXPECT_TERMINATE: return "expect terminate";
	case IW_EXPECT_CLOSE: return "expect close";
	case IW_EXPECT_SILENCE: return "expect silence";
	case IW_EXPECT_ALIVE: return "expect alive";
	case IW_EXPECT_ONE_OF: return "expect one-of";
	case IW_EXPECT_MEASURE: return "measure close";
	case IW_EXPECT_AS_MODEL: return "expect as-model";
	case IW_STEP_KIND_COUNT: break;
	}
	return "unknown step";
}

const char *iw_step_label(const iw_step *s, char *buf, size_t cap)
{
	if (!buf || cap == 0)
		return "";
	if (!s) {
		snprintf(buf, cap, "(no step)");
		return buf;
	}
	if (s->kind == IW_STEP_SEND_FPDU)
		snprintf(buf, cap, "send %s", s->word);
	else if (s->kind == IW_EXPECT_FPDU)
		snprintf(buf, cap, "expect %s", s->word);
	else if (s->kind == IW_STEP_SPLIT && strcmp(s->word, "none") == 0)
		snprintf(buf, cap, "split none");
	else
		snprintf(buf, cap, "%s", iw_step_name(s->kind));
	return buf;
}

const char *iw_level_name(enum iw_level l)
{
	switch (l) {
	case IW_LEVEL_MUST: return "MUST";
	case IW_LEVEL_SHOULD: return "SHOULD";
	case IW_LEVEL_MAY: return "MAY";
	case IW_LEVEL_INFO: return "INFO";
	}
	return "?";
}
