/*
 * case_parse_int.h - the case parser's internals, shared by its files (not a public header:
 * callers use iw_case_parse and iw_case_load in case.h).
 *
 * A line is a header (`name: value`, before any step), a step (leading words name it, then
 * name=value arguments and at most one bare value), or part of an `expect one-of` block.
 * The files, in the order a line meets them:
 *
 *   case_parse.c      the file line by line, the checks of the whole case, iw_case_parse/load
 *   case_header.c     the headers (id, title, requirement, role, needs, profiles, timeout)
 *   case_step.c       the words that name a step, one step, one alternative of `one-of`
 *   case_args.c       a step's name=value arguments checked against its schema (case_schema.c)
 *   case_lex.c        values (integers, durations, strings, hex, words, lists, *) and tokens
 *   case_parse_err.c  the messages: file, line and step named, cut to fit an iw_err
 *   case_access.c     the parsed case: freeing it, its arguments, step and level names
 *
 * Every error names the file and line; nothing is read past the given length, and every
 * limit of case.h is an error, never an overflow.
 */
#ifndef IW_CASE_PARSE_INT_H
#define IW_CASE_PARSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"

typedef struct parser {
	const char *file;
	int line;               /* 0: the message is about the whole file */
	iw_err *e;
	iw_case *c;
	char ctx[80];           /* the step being parsed, for messages; empty for headers */
} parser;

/* case_parse_err.c. cp_err fails with IW_EINVAL, cp_limit with IW_ENOSPC (a limit of case.h
 * was reached); both fill p->e and return the code. cp_show quotes input text in a message:
 * printable, and short enough to leave room for the rest. */
int cp_err(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cp_limit(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *cp_show(const char *s, size_t n, char *buf, size_t cap);

/* ---- characters ---- */

static inline bool is_space(char ch) { return ch == ' ' || ch == '\t'; }
static inline bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static inline bool is_lower(char ch) { return ch >= 'a' && ch <= 'z'; }

/* Ends an unquoted value or token. */
static inline bool is_stop(char ch) { return is_space(ch) || ch == '#' || ch == ';'; }

/* ---- values (case_lex.c) ---- */

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

void cp_value_free(value *v);
/* Integer: decimal or 0x hex, optionally negative. Values up to 2^64-1 are read so a 64-bit
 * TO can be written; *big marks those above INT64_MAX. Returns false when not an integer;
 * *overflow tells a number that does not fit from one that is no number. */
bool cp_parse_int(const char *s, size_t n, int64_t *out, bool *big, bool *overflow);
/* "500ms", "5s", "2m": digits and a unit. Returns 0 when s is not shaped as a duration
 * (*is_dur false); an error only for one over the 24 h limit. */
int cp_parse_duration(parser *p, const char *s, size_t n, int64_t *ms, bool *is_dur);
/* Reads one value at *pp (not a space) and leaves *pp after it. */
int cp_lex_value(parser *p, const char **pp, const char *end, value *v);

/* ---- tokens of a step line (case_lex.c) ---- */

enum tok_kind { TOK_END, TOK_SEMI, TOK_BARE, TOK_ARG };

typedef struct tok {
	enum tok_kind kind;
	const char *name;       /* TOK_ARG: the name before '=' */
	size_t nname;
	const char *start;      /* TOK_BARE: the token; TOK_ARG: the value */
} tok;

void cp_skip_space(const char **pp, const char *end);
/* Classifies the next token without reading its value (cp_lex_value does that). */
tok cp_next_tok(const char **pp, const char *end);
/* The raw text of a bare token (a step's name word), advancing past it. */
size_t cp_take_word(const char **pp, const char *end, const char **w);
bool cp_word_is(const char *w, size_t n, const char *lit);

/* ---- steps ---- */

/* case_args.c. Arguments of a step until the end of the line, or ';' inside a one-of
 * alternative (then *semi). */
int cp_parse_args(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt, bool *semi);

/* case_step.c. One step from *pp: its name, arguments, and the checks between them; in a
 * one-of alternative (in_alt) the leading `expect` is implied. cp_parse_alt reads
 * `- expectation ; expectation ...`, one alternative of the open one-of block. */
int cp_parse_step(parser *p, const char **pp, const char *end, iw_step *st, bool in_alt, bool *semi);
int cp_parse_alt(parser *p, iw_step *block, const char *s, const char *end);

/* ---- headers (case_header.c) ---- */

/* The headers that may appear once, as bits of the set seen so far. */
enum { H_ID = 1, H_TITLE = 2, H_ROLE = 4, H_NEEDS = 8, H_PROFILES = 16, H_TIMEOUT = 32, H_RESEGMENT = 64 };

/* `name:` at the start of a line (after spaces) makes it a header. */
bool cp_is_header(const char *s, const char *end, size_t *nname);
/* The shape of a requirement ID (MPA-6.1-R5, RFC5040-4.8-03); whether it is a row is the
 * catalog's business (suite/run/req_check.c). */
bool cp_req_id_ok(const char *s, size_t n);
/* The header `name:` whose value starts at v0; *seen gains its H_ bit. */
int cp_parse_header(parser *p, const char *name, size_t nname, const char *v0, const char *end,
		    unsigned *seen);

#endif
