/*
 * case_schema.h - what each step of the case language accepts (private to the case parser).
 *
 * One table per step kind lists its argument names, the value types each accepts, the words
 * or integer range allowed, and which are required; the parser checks every name=value
 * against it, so the runner never meets an argument it does not know. docs/case-language.md
 * explains the meaning of each argument; keep the two in step.
 */
#ifndef IW_CASE_SCHEMA_H
#define IW_CASE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"

/* Bit of an iw_arg_spec.types mask for one value type. */
#define IW_T(type) (1u << (type))

enum iw_arg_flag {
	IW_SPEC_REQUIRED = 1u << 0,     /* the step is incomplete without it */
	IW_SPEC_U64 = 1u << 1,          /* a 64-bit unsigned field (TO): values above INT64_MAX are
					 * accepted and stored as their two's-complement bit pattern */
	IW_SPEC_FROM_END = 1u << 2,     /* a TO into the DUT's advertised buffer: also `end` or `end-N`, counted
					 * back from its end (iw_arg.from_end), for a case that must reach past
					 * it whatever its length */
	IW_SPEC_FROM_RECV = 1u << 3,    /* size, mo, msn of an untagged Send: also `recv`, `recv+N`, `recv-N`,
					 * counted from the receive the DUT's application posted (iw_arg.from_recv),
					 * for a case about the edge of a receive buffer whatever its size */
};

typedef struct iw_arg_spec {
	const char *name;
	unsigned types;         /* IW_T(IW_ARG_INT) | ... */
	const char *words;      /* the words allowed when WORD is accepted, space-separated; NULL: any */
	int64_t min, max;       /* INT range */
	size_t nbytes;          /* exact BYTES length, 0: any */
	unsigned flags;         /* enum iw_arg_flag */
} iw_arg_spec;

typedef struct iw_step_schema {
	enum iw_step_kind kind;
	const char *name;               /* as written: "send request", "send <msg>", "expect one-of" */
	bool expectation;               /* `*` (any) is allowed in its values */
	const iw_arg_spec *args;
	size_t nargs;
	const char *positional;         /* the argument a bare value is stored as ("for", "data"), or NULL */
	const char *positional_word;    /* a bare word stored in step->word instead (split: "none"), or NULL */
} iw_step_schema;

/* Messages `send <msg>` and `expect <msg>` accept, space-separated (also used in messages). */
extern const char iw_schema_send_msgs[];
extern const char iw_schema_expect_msgs[];
/* Capabilities of the `needs:` header, in enum iw_cap bit order. */
extern const char iw_schema_caps[];

/* The schema of a step kind (never NULL for a valid kind). */
const iw_step_schema *iw_schema_get(enum iw_step_kind k);

/* The argument spec named by the n octets at name, or NULL. */
const iw_arg_spec *iw_schema_arg(const iw_step_schema *s, const char *name, size_t n);

/* True when the n octets at w are one of the space-separated words of list. */
bool iw_schema_word_in(const char *list, const char *w, size_t n);

/* Writes "a, b, c" (the names of s's arguments) into buf. */
void iw_schema_arg_names(const iw_step_schema *s, char *buf, size_t cap);

/* The argument of s closest to the n octets at name (a likely typo), or NULL. */
const char *iw_schema_suggest(const iw_step_schema *s, const char *name, size_t n);

/* Levenshtein distance of two short strings (argument names, requirement IDs: each under 32
 * octets), or (size_t)-1 when either is longer. */
size_t iw_edit_distance(const char *a, size_t na, const char *b, size_t nb);

/* Rules between arguments of one parsed step (required ones, exclusive pairs, split's
 * forms). Returns true when s is complete; otherwise writes the problem into msg. */
bool iw_schema_check_step(const iw_step *s, char *msg, size_t cap);

#endif
