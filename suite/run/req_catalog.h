/*
 * req_catalog.h - the requirements catalog as data, for the runner's verdicts and for the reports:
 * the drafts' rows (the shared specification's requirements.md §1) and the RFC-era rows
 * (spec/rfc-rows.md §1: RFC 5040, and RFC 5041/5044/6581 where they differ from the drafts).
 *
 * A broken requirement is judged at its catalog level (req_level.h: MUST -> FAIL, SHOULD ->
 * WARN), so the runner needs the catalog; the HTML report shows each case's requirement text and
 * level and a coverage table of the MUSTs observable on the wire. All of it is needed at run
 * time, without Python and without the shared specification, which is not part of the
 * repository. So req_catalog.c is a table generated from requirements.md and rfc-rows.md by
 * tools/gen-req-catalog.sh and committed; regenerate it when either file changes:
 *
 *   sh tools/gen-req-catalog.sh ../shared/spec/requirements.md spec/rfc-rows.md > suite/run/req_catalog.c
 *
 * It lives in suite/run/, the lowest stage that judges, so suite/run/ and every stage after it (reports/,
 * fuzz/network/) read the same table.
 */
#ifndef IW_REQ_CATALOG_H
#define IW_REQ_CATALOG_H

#include <stddef.h>

/* Why no case may cite a requirement yet (the generator's rules, from the T column and the
 * test idea). */
enum iw_req_gap {
	IW_GAP_NONE,            /* observable, nothing in the way: not yet written */
	IW_GAP_NOT_OBSERVABLE,  /* T has no W: only the DUT side could tell */
	IW_GAP_TCP_CONTROL,     /* needs control of TCP itself (order, checksums, MSS, ICMP ...) */
	IW_GAP_REFLECTOR,       /* needs a reflector feature docs/reflector.md does not define */
};

typedef struct iw_req_info {
	const char *id;         /* "MPA-6.1-R5" */
	const char *kw;         /* keyword as the catalog writes it: "MUST", "MUST NOT", "FACT", "must(lc)" ... */
	const char *t;          /* testability as in the "T" column: "W", "W*", "R / W*", "N" ... */
	const char *text;       /* the requirement, paraphrased */
	const char *idea;       /* the catalog's test idea */
	unsigned char must;     /* keyword is upper-case MUST or MUST NOT */
	unsigned char wire;     /* observable on the wire: T names W or W* */
	unsigned char gap;      /* enum iw_req_gap */
	const char *gap_note;   /* the gap in words, for the coverage table */
	unsigned char rfc;      /* a row of spec/rfc-rows.md (an RFC-era row), not of requirements.md */
	const char *source;     /* where it stands: "RFC 5040 §4.8, HdrCt list, item D" (the Source column) */
	const char *quote;      /* the RFC's sentence it rests on, verbatim; "" for the drafts' rows */
} iw_req_info;

/* A row of spec/rfc-rows.md §3: an ID that turned out to stand for no RFC sentence. It is never
 * reused; a case citing it is refused with why and what replaced it. */
typedef struct iw_req_retired_info {
	const char *id;         /* "RFC5040-4.4-03" */
	const char *why;        /* why it was retired, in the RFC's words where they say otherwise */
	const char *replaced_by; /* the rows that hold what was right in it, or "nothing" */
} iw_req_retired_info;

extern const iw_req_info iw_req_catalog[];
extern const size_t iw_req_catalog_n;
/* "requirements.md sha256 <hex>; rfc-rows.md sha256 <hex>": the catalog versions the table was
 * generated from. */
extern const char iw_req_catalog_source[];

extern const iw_req_retired_info iw_req_retired[];
extern const size_t iw_req_retired_n;

/* The catalog row of an id, or NULL. */
const iw_req_info *iw_req_find(const char *id);

/* "KW, SOURCE" of a row, for a verdict's line: "SHOULD, RFC 5040 §4.8, HdrCt list, item D";
 * "" when id is no row. Writes into buf (cut to cap) and returns it. */
const char *iw_req_where(const char *id, char *buf, size_t cap);

/* The retired row of an id, or NULL. */
const iw_req_retired_info *iw_req_find_retired(const char *id);

/* Up to max catalog IDs closest to an id that is not a row (same family first, then the fewest
 * edits), written to out as "A, B, C"; "" when none is close. For the error that names an ID a
 * case cites and the catalog does not have. Returns out. */
const char *iw_req_closest(const char *id, size_t max, char *out, size_t cap);

/* The family of an id: everything before its last '-' ("MPA-6.1-R5" -> "MPA-6.1",
 * "DDP-9.1-T4" -> "DDP-9.1"). Writes into buf and returns it. */
const char *iw_req_family(const char *id, char *buf, size_t cap);

#endif
