/*
 * case_args.c - a step's arguments: each name=value (and the one bare value a step may take)
 * is checked against the step's schema (case_schema.c) for its name, type, range, words and
 * size, so the runner can trust what it reads.
 */
#include "case_parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_schema.h"

static void fmt_ms(int64_t ms, char *buf, size_t cap)
{
	if (ms % 60000 == 0 && ms != 0)
		snprintf(buf, cap, "%lldm", (long long)(ms / 60000));
	else if (ms % 1000 == 0)
		snprintf(buf, cap, "%llds", (long long)(ms / 1000));
	else
		snprintf(buf, cap, "%lldms", (long long)ms);
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
	if ((sp->flags & IW_SPEC_FROM_END) && o < cap)
		snprintf(buf + o, cap - o, ", or end, end-N (back from the end of the advertised buffer)");
	if ((sp->flags & IW_SPEC_FROM_RECV) && o < cap)
		snprintf(buf + o, cap - o, ", or recv, recv+N, recv-N (from the DUT's posted receives)");
}

/* Whether the n octets at t are word, or word, a sign of signs and N of 1 to 0xffffffff (a
 * buffer's length and an MSN are 32 bits; `word+0` is written `word`, so that each value has one
 * spelling); *by gets the signed N (0 for word alone). */
static bool relative(const char *t, size_t n, const char *word, const char *signs, int64_t *by)
{
	size_t w = strlen(word);
	int64_t v = 0;
	bool big = false, overflow = false;
	*by = 0;
	if (n < w || memcmp(t, word, w))
		return false;
	if (n == w)
		return true;
	if (!strchr(signs, t[w]) || !cp_parse_int(t + w + 1, n - w - 1, &v, &big, &overflow) || big || v < 1 ||
	    v > 0xffffffffLL)
		return false;
	*by = t[w] == '-' ? -v : v;
	return true;
}

/* A value counted from what the DUT's application tells only when the case runs: `end` or
 * `end-N` for a TO into its advertised buffer (IW_SPEC_FROM_END: N octets back from its end), or
 * `recv`, `recv+N`, `recv-N` (IW_SPEC_FROM_RECV: from the receives it posts; size and mo count
 * from their size, msn from the MSN of the last one). */
static int relative_arg(parser *p, const iw_arg_spec *sp, const value *v, iw_arg *a)
{
	char b[64];
	bool end = (sp->flags & IW_SPEC_FROM_END) != 0;
	int64_t by;
	if (!relative(v->text, v->ntext, end ? "end" : "recv", end ? "-" : "+-", &by)) {
		cp_show(v->text, v->ntext, b, sizeof b);
		if (end)
			return cp_err(p, "%s=%s: expected an offset into the advertised buffer (an integer), or one counted "
				      "back from its end: end, end-N with N from 1 to 0xffffffff (end-16, end-0x10)", sp->name, b);
		return cp_err(p, "%s=%s: expected an integer, or one counted from the receives the DUT's application "
			      "posts: recv, recv+N, recv-N with N from 1 to 0xffffffff (recv+1, recv-6)", sp->name, b);
	}
	a->type = IW_ARG_INT;
	a->i = end ? -by : by;
	a->from_end = end;
	a->from_recv = !end;
	return 0;
}

static int wrong_type(parser *p, const iw_arg_spec *sp, const value *v)
{
	char want[160], b[64];
	types_desc(sp, want, sizeof want);
	if (v->kind == V_INT && (sp->types & IW_T(IW_ARG_DURATION)))
		return cp_err(p, "%s=%s: a duration needs a unit (500ms, 5s, 2m)", sp->name,
			      cp_show(v->text, v->ntext, b, sizeof b));
	return cp_err(p, "argument '%s' wants %s, got %s", sp->name, want, vkind_name(v->kind));
}

static int check_duration(parser *p, const iw_arg_spec *sp, int64_t ms)
{
	if (ms > p->c->timeout_ms) {
		char a[32], b[32];
		fmt_ms(ms, a, sizeof a);
		fmt_ms(p->c->timeout_ms, b, sizeof b);
		return cp_err(p, "%s=%s is longer than the case timeout (%s)", sp->name, a, b);
	}
	return 0;
}

/* Stores v as argument sp of st after checking it against the schema; v's bytes move. */
static int apply(parser *p, iw_step *st, const iw_step_schema *sc, const iw_arg_spec *sp, value *v,
		 bool positional)
{
	char b[64];
	if (iw_step_arg(st, sp->name))
		return positional ? cp_err(p, "'%s' given twice", sp->name)
				  : cp_err(p, "duplicate argument '%s'", sp->name);
	if (st->nargs >= IW_CASE_MAX_ARGS)
		return cp_limit(p, "too many arguments (limit %d)", IW_CASE_MAX_ARGS);
	iw_arg a;
	memset(&a, 0, sizeof a);
	snprintf(a.name, sizeof a.name, "%s", sp->name);
	switch (v->kind) {
	case V_ANY:
		if (!sc->expectation)
			return cp_err(p, "%s=*: '*' (any) is only allowed in expectations", sp->name);
		if (sp->types == IW_T(IW_ARG_DURATION))
			return cp_err(p, "%s=*: '*' cannot stand for a duration", sp->name);
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
				return cp_err(p, "%s=%s is out of range (0..0xffffffffffffffff)", sp->name,
					      cp_show(v->text, v->ntext, b, sizeof b));
			if (!ok)
				return cp_err(p, "%s=%s is out of range (%lld..%lld)", sp->name,
					      cp_show(v->text, v->ntext, b, sizeof b), (long long)sp->min, (long long)sp->max);
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
			return cp_err(p, "%s must be %zu octets (got %zu)", sp->name, sp->nbytes, v->n);
		if (v->kind == V_STR) {
			a.s = malloc(v->n + 1);
			if (!a.s)
				return cp_err(p, "out of memory");
			memcpy(a.s, v->bytes, v->n + 1);
		}
		a.bytes = v->bytes;
		a.nbytes = v->n;
		v->bytes = NULL;
		break;
	case V_WORD:
		if (sp->flags & (IW_SPEC_FROM_END | IW_SPEC_FROM_RECV)) {
			if (relative_arg(p, sp, v, &a))
				return IW_EINVAL;
			break;
		}
		if (!(sp->types & IW_T(IW_ARG_WORD)))
			return wrong_type(p, sp, v);
		if (sp->words && !iw_schema_word_in(sp->words, v->text, v->ntext))
			return cp_err(p, "%s=%s: expected one of: %s", sp->name, cp_show(v->text, v->ntext, b, sizeof b),
				      sp->words);
		a.type = IW_ARG_WORD;
		a.s = malloc(v->ntext + 1);
		if (!a.s)
			return cp_err(p, "out of memory");
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
		return cp_err(p, "unknown argument '%s' (takes no arguments)", cp_show(name, n, b, sizeof b));
	iw_schema_arg_names(sc, names, sizeof names);
	const char *hint = iw_schema_suggest(sc, name, n);
	if (hint)
		return cp_err(p, "unknown argument '%s' (did you mean '%s'? expected one of: %s)",
			      cp_show(name, n, b, sizeof b), hint, names);
	return cp_err(p, "unknown argument '%s' (expected one of: %s)", cp_show(name, n, b, sizeof b), names);
}

/* A value that starts with `end` where an offset from the buffer's end may go (`recv` where one
 * from the posted receives may): taken whole, to the next space, so that relative_arg() names
 * what is wrong with `end+1`, `end-0x1g` or `recv*2` itself rather than the lexer calling it no
 * value at all. */
static int lex_relative(const char **pp, const char *end, value *v)
{
	memset(v, 0, sizeof *v);
	v->kind = V_WORD;
	v->text = *pp;
	while (*pp < end && !is_stop(**pp))
		(*pp)++;
	v->ntext = (size_t)(*pp - v->text);
	return 0;
}

/* `rule=ID` on an expectation, `instead=ID` on `expect terminate`: a requirement the case cites
 * (its `requirement:` headers come before the steps), taken whole to the next space, into dst. */
static int rule_arg(parser *p, const char **pp, const char *end, const char *name, char *dst, size_t cap)
{
	const char *v = *pp;
	while (*pp < end && !is_stop(**pp))
		(*pp)++;
	size_t n = (size_t)(*pp - v);
	char b[64];
	if (!n)
		return cp_err(p, "argument '%s' has no value (a requirement the case cites, e.g. %s=DDP-5-10)", name, name);
	if (dst[0])
		return cp_err(p, "'%s' given twice", name);
	if (!cp_req_id_ok(v, n) || n >= cap)
		return cp_err(p, "%s=%s is not a requirement ID (e.g. %s=RFC5040-7.1-03)", name, cp_show(v, n, b, sizeof b),
			      name);
	for (size_t i = 0; i < p->c->nreqs; i++)
		if (strlen(p->c->reqs[i].id) == n && !memcmp(p->c->reqs[i].id, v, n)) {
			memcpy(dst, v, n);
			dst[n] = '\0';
			return 0;
		}
	return cp_err(p, "%s=%s is not a requirement this case cites: add `requirement: %s LEVEL` to its headers", name,
		      cp_show(v, n, b, sizeof b), cp_show(v, n, b, sizeof b));
}

/* Arguments of a step until the end of the line, or ';' inside a one-of alternative. */
int cp_parse_args(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt, bool *semi)
{
	const iw_step_schema *sc = iw_schema_get(st->kind);
	char b[64];
	*semi = false;
	for (;;) {
		tok t = cp_next_tok(pp, end);
		if (t.kind == TOK_END)
			return 0;
		if (t.kind == TOK_SEMI) {
			if (!in_alt)
				return cp_err(p, "';' only separates expectations in a one-of alternative");
			*semi = true;
			return 0;
		}
		value v;
		int rc;
		if (t.kind == TOK_ARG) {
			if (t.nname == 0)
				return cp_err(p, "missing argument name before '='");
			if (cp_word_is(t.name, t.nname, "rule") && st->kind >= IW_EXPECT_REQUEST) {
				rc = rule_arg(p, pp, end, "rule", st->rule, sizeof st->rule);
				if (rc)
					return rc;
				continue;
			}
			if (cp_word_is(t.name, t.nname, "instead") && st->kind == IW_EXPECT_TERMINATE) {
				rc = rule_arg(p, pp, end, "instead", st->instead, sizeof st->instead);
				if (rc)
					return rc;
				continue;
			}
			const iw_arg_spec *sp = iw_schema_arg(sc, t.name, t.nname);
			if (!sp)
				return unknown_arg(p, sc, t.name, t.nname);
			if (*pp >= end || is_stop(**pp))
				return cp_err(p, "argument '%s' has no value", sp->name);
			bool counted = ((sp->flags & IW_SPEC_FROM_END) && end - *pp >= 3 && !memcmp(*pp, "end", 3)) ||
					((sp->flags & IW_SPEC_FROM_RECV) && end - *pp >= 4 && !memcmp(*pp, "recv", 4));
			rc = counted ? lex_relative(pp, end, &v) : cp_lex_value(p, pp, end, &v);
			if (rc)
				return rc;
			rc = apply(p, st, sc, sp, &v, false);
			cp_value_free(&v);
			if (rc)
				return rc;
			continue;
		}
		rc = cp_lex_value(p, pp, end, &v);
		if (rc)
			return rc;
		if (sc->positional_word && v.kind == V_WORD && iw_schema_word_in(sc->positional_word, v.text, v.ntext)) {
			if (st->word[0]) {
				cp_value_free(&v);
				return cp_err(p, "'%s' given twice", sc->positional_word);
			}
			snprintf(st->word, sizeof st->word, "%s", sc->positional_word);
			continue;
		}
		if (!sc->positional) {
			cp_show(v.text, v.ntext, b, sizeof b);
			cp_value_free(&v);
			if (sc->positional_word)
				return cp_err(p, "unexpected value '%s' (arguments are written name=value; "
					      "the only bare word is '%s')", b, sc->positional_word);
			return cp_err(p, "unexpected value '%s' (arguments are written name=value)", b);
		}
		rc = apply(p, st, sc, iw_schema_arg(sc, sc->positional, strlen(sc->positional)), &v, true);
		cp_value_free(&v);
		if (rc)
			return rc;
	}
}
