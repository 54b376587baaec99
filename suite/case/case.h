/*
 * case.h - a conformance case in memory, as the case language (.iwt) describes it.
 *
 * A case file holds a header (id, title, requirements with their level, the DUT role and
 * capabilities it needs, profiles it applies to) and a script of steps: actions the harness
 * performs and expectations it checks, in order. Steps carry named arguments
 * (name=value) that the runner turns into bytes through the engine; the parser checks every
 * name and value against the step's schema (case_schema.c), so a typo is an error with a
 * line number, never a silently ignored word. docs/case-language.md is the user's guide.
 */
#ifndef IW_CASE_H
#define IW_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

#define IW_CASE_MAX_REQS   16
#define IW_CASE_MAX_STEPS  96
#define IW_CASE_MAX_ARGS   16
#define IW_CASE_MAX_ALTS   6       /* alternatives of one `expect one-of` */
#define IW_CASE_MAX_SEQ    6       /* expectations in one alternative */
#define IW_CASE_MAX_PROFILES 6
#define IW_CASE_MAX_FILE   (1u << 20)   /* octets of one case file */
#define IW_CASE_MAX_LINE   4096         /* characters of one line, newline excluded */
#define IW_CASE_MAX_DURATION_MS (24LL * 3600 * 1000)    /* largest duration value: 24 h */

enum iw_level { IW_LEVEL_MUST, IW_LEVEL_SHOULD, IW_LEVEL_MAY, IW_LEVEL_INFO };

typedef struct iw_case_req {
	char id[32];                /* e.g. "MPA-6.1-R5" */
	enum iw_level level;
	int line;                   /* of its `requirement:` header, for the catalog check's message */
} iw_case_req;

/* What a case needs from the DUT (`needs:`). Two kinds: what the DUT configuration declares
 * (markers, crc-off, reject, pd), and what the DUT's application provides once `startup` has
 * taken a connection to full operation: its ULP profile (suite/run/ulp_profile.h,
 * docs/ulp-profiles.md). A case names the least it relies on, so that every DUT whose
 * application provides that much runs it; the runner SKIPs it elsewhere naming what is missing. */
enum iw_cap {
	IW_CAP_MARKERS = 1u << 0,       /* can receive with markers (sends M=1 when asked) */
	IW_CAP_CRC_OFF = 1u << 1,       /* has an administrator no-CRC mode */
	IW_CAP_REJECT = 1u << 2,        /* can be told to reject a connection (R=1) */
	IW_CAP_PD = 1u << 3,            /* sends private data when configured */
	IW_CAP_RPING = 1u << 4,         /* the case scripts rdma-core's rping flow itself (docs/rping.md) */
	IW_CAP_RECV = 1u << 5,          /* recv=NxS: N receives of at least S octets posted on QN 0 */
	IW_CAP_WRITE_STAG = 1u << 6,    /* write-stag=S: an advertised STag open to remote write, S octets from its TO */
	IW_CAP_READ_STAG = 1u << 7,     /* read-stag=S: an advertised STag open to remote read, S octets from its TO */
	IW_CAP_ECHO = 1u << 8,          /* echo: each Send delivered on QN 0 comes back as a Send with its payload;
					 * startup delivered one (the harness's next MSN is 2, the DUT's 3) */
	IW_CAP_GREETING = 1u << 9,      /* greeting: the reflector's advertisement in its first Send, which the
					 * case's own steps expect (`expect greeting`) */
	IW_CAP_SHARED = 1u << 10,       /* shared-buffer: the advertised range is one memory on every connection:
					 * a later connection reads back what an earlier one placed, or did not */
	IW_CAP_SECOND_CONN = 1u << 11,  /* second-conn: two connections in full operation at once */
	IW_CAP_DUT_SEND = 1u << 12,     /* dut-send: the DUT Sends on its own (the greeting, rping's advertisement) */
	IW_CAP_DUT_READ = 1u << 13,     /* dut-read: the DUT makes RDMA Read Requests of a buffer advertised to it */
	IW_CAP_DUT_WRITE = 1u << 14,    /* dut-write: the DUT RDMA Writes into a buffer advertised to it */
	IW_CAP_ANSWER = 1u << 15,       /* answer: each Send delivered on QN 0 is answered by one Send of the
					 * application's own (not its payload); startup delivered one. The echo
					 * is an answer too: a case that judges only delivery names this */
};

/* The capabilities of the DUT configuration; every other bit is the application's. */
#define IW_CAP_CONFIG (IW_CAP_MARKERS | IW_CAP_CRC_OFF | IW_CAP_REJECT | IW_CAP_PD)

/* The amounts of the capabilities that take a value (0 where the capability is not needed):
 * `name=V` asks for at least V. None has an exact form: a case about the edge of what the
 * application offers counts from it, whatever it is: the end of an advertised range (`to=end-N`,
 * iw_arg.from_end), the size of a posted receive or the MSN past the last (`size=recv+1`,
 * `msn=recv+1`, iw_arg.from_recv). */
typedef struct iw_case_needs_amounts {
	uint32_t recv_n;            /* recv=NxS: N receives ... */
	uint32_t recv_size;         /* ... of S octets */
	uint64_t write_stag;        /* write-stag=S */
	uint64_t read_stag;         /* read-stag=S */
} iw_case_needs_amounts;

enum iw_step_kind {
	/* actions */
	IW_STEP_CONNECT,            /* harness connects to the DUT (DUT is responder) */
	IW_STEP_ACCEPT,             /* harness waits for the DUT to connect (DUT is initiator) */
	IW_STEP_SEND_REQUEST,       /* a Request frame built from fields */
	IW_STEP_SEND_REPLY,         /* a Reply frame built from fields */
	IW_STEP_SEND_FPDU,          /* an FPDU carrying an RDMAP message built from fields */
	IW_STEP_SEND_RAW,           /* octets as given */
	IW_STEP_SPLIT,              /* how the following sends are cut into writes */
	IW_STEP_SLEEP,
	IW_STEP_CLOSE,              /* FIN */
	IW_STEP_RESET,              /* RST */
	IW_STEP_USE,                /* make connection N (1 = the case's first) the current one */
	IW_STEP_STARTUP,            /* a new connection taken to full operation: frames (by role and profile),
	                             * the reflector's greeting and one echoed Send */
	IW_STEP_SEGMENTS,           /* the next N sends are collected, not written: the stream of a segment plan */
	IW_STEP_SEGMENT,            /* one step of that plan (word: send, hold, release, drop, wait-dupacks),
	                             * sent over the raw segment path before the next step of another kind */
	/* expectations */
	IW_EXPECT_REQUEST,          /* a Request frame arrives, matching field patterns */
	IW_EXPECT_REPLY,            /* a Reply frame arrives, matching field patterns */
	IW_EXPECT_FPDU,             /* an FPDU arrives, matching field patterns */
	IW_EXPECT_TERMINATE,        /* a Terminate with layer/etype/ecode */
	IW_EXPECT_CLOSE,            /* FIN or RST within a time window, nothing else before it */
	IW_EXPECT_SILENCE,          /* no octet for a duration */
	IW_EXPECT_ALIVE,            /* a fresh connection still completes startup */
	IW_EXPECT_ONE_OF,           /* any one of several alternatives (sequences of expectations) */
	IW_EXPECT_MEASURE,          /* measure a duration (INFO), e.g. time to close */
	IW_EXPECT_AS_MODEL,         /* the DUT reacts as the engine's connection model says a conforming one must */
	IW_STEP_KIND_COUNT
};

enum iw_arg_type { IW_ARG_INT, IW_ARG_STR, IW_ARG_BYTES, IW_ARG_DURATION, IW_ARG_WORD, IW_ARG_LIST };

/* A named argument. An argument whose schema accepts bytes and is given a "string" has type
 * BYTES with both s and bytes set; an integer given where only a list is accepted is a list
 * of one. A `*` has is_pattern_any set and type the first type its schema accepts (check
 * is_pattern_any before the value). Positional values are stored under their name: `for`
 * (sleep, expect silence), `data` (send raw). */
typedef struct iw_arg {
	char name[24];
	enum iw_arg_type type;
	int64_t i;                  /* INT, DURATION (milliseconds) */
	bool is_pattern_any;        /* value was `*` (any) in an expectation */
	bool from_end;              /* `to=end-N`, `src_to=end` (IW_SPEC_FROM_END): i is N (0 for `end`), octets
				     * back from the end of the advertised buffer, which only the connection
				     * knows: read it with that length (suite/run/exec_send.c), never as a TO */
	bool from_recv;             /* `size=recv+1`, `mo=recv-6`, `msn=recv+1` (IW_SPEC_FROM_RECV): i is the signed
				     * N from the size of the receives the DUT's application posts (size, mo), or
				     * from the MSN of the last one posted when `startup` ended (msn): known only
				     * when the case runs (suite/run/exec_send.c) */
	char *s;                    /* STR, WORD (owned, NUL-terminated) */
	uint8_t *bytes;             /* BYTES, STR (owned) */
	size_t nbytes;
	int64_t list[16];           /* LIST of integers, e.g. split at=3,7,19 */
	size_t nlist;
} iw_arg;

typedef struct iw_step iw_step;

typedef struct iw_alt {
	size_t nseq;
	iw_step *seq[IW_CASE_MAX_SEQ];  /* owned */
} iw_alt;

struct iw_step {
	enum iw_step_kind kind;
	int line;                   /* in the case file, for messages */
	/* Kind-specific word: the second word of two-word steps as written ("request", "reply",
	 * "raw", the FPDU message "send", "write", ... for SEND_FPDU and EXPECT_FPDU, "terminate",
	 * "silence", "alive", "one-of", "as-model", "close" for measure close); for expect close
	 * the how= value ("fin", "rst", or "any" when not given); "none" for `split none`; the
	 * operation of a `segment` step ("send", "hold", "release", "drop", "wait-dupacks");
	 * empty for the one-word steps. */
	char word[24];
	/* `rule=ID` on an expectation: the requirement its failure rests on, one the case cites (the
	 * close after a Terminate rests on its own row, not on the Terminate code's); "" for the
	 * case's first requirement. */
	char rule[32];
	/* `instead=ID` on `expect terminate`: the requirement another message in the Terminate's
	 * place breaks, one the case cites (the echo of a Send whose CRC was bad is the CRC rule's
	 * failure, not the Terminate's SHOULD); "" to rest it as any failure of the step. */
	char instead[32];
	size_t nargs;
	iw_arg args[IW_CASE_MAX_ARGS];
	size_t nalts;               /* IW_EXPECT_ONE_OF */
	iw_alt alts[IW_CASE_MAX_ALTS];
};

typedef struct iw_case {
	char id[64];
	char title[160];
	char file[256];
	size_t nreqs;
	iw_case_req reqs[IW_CASE_MAX_REQS];
	enum iw_level level;        /* the strongest level among reqs: decides FAIL vs WARN */
	int dut_role;               /* enum iw_role the DUT must have: 0 initiator, 1 responder */
	unsigned needs;             /* enum iw_cap bits */
	iw_case_needs_amounts amounts;  /* the values of recv=, write-stag=, read-stag= */
	size_t nprofiles;           /* 0 = every profile with startup frames */
	char profiles[IW_CASE_MAX_PROFILES][16];
	int64_t timeout_ms;         /* whole-case bound (default 10 s) */
	bool coalesce;              /* `resegment: coalesce`: the octets of consecutive sends go out in
				     * one write, whatever the run's --resegment says (a fuzz finding
				     * replays the writes of its run) */
	size_t nsteps;              /* at most IW_CASE_MAX_STEPS */
	iw_step *steps;             /* grown as the parser adds steps: a case of 96 steps inline
				     * was 357 KB, which a sanitizer build maps afresh per parse */
	size_t steps_cap;
} iw_case;

/* The capabilities that take a value: recv=NxS, write-stag=S, read-stag=S. */
#define IW_CAP_AMOUNTS (IW_CAP_RECV | IW_CAP_WRITE_STAG | IW_CAP_READ_STAG)

/* The bit of the capability named by the n octets at name ("write-stag"), 0 when none is. */
unsigned iw_needs_bit(const char *name, size_t n);

/* The name of one capability bit as `needs:` writes it, or NULL. */
const char *iw_needs_name(unsigned bit);

/* Reads the value of capability bit from the n octets at v: N and S of recv=NxS into *x and *y,
 * the range of write-stag= or read-stag= into *x; decimal or 0x hex, each at least 1 (N and S
 * at most UINT32_MAX). Returns the octets read, 0 when v starts with no such value. */
size_t iw_needs_parse_amount(unsigned bit, const char *v, size_t n, uint64_t *x, uint64_t *y);

/* needs and its amounts as a `needs:` header writes them ("recv=1x16 write-stag=64 echo"),
 * in bit order; "" for none. Returns buf. */
const char *iw_needs_text(unsigned needs, const iw_case_needs_amounts *a, char *buf, size_t cap);

/* The first capability of need (amounts na) that have (amounts ha) does not meet: absent, or
 * a smaller amount (fewer or smaller receives, a shorter range), or another where the case asks
 * for exactly (==) that amount. Writes it as the header does,
 * with what have offers when it is an amount ("recv=8x65536 (there: recv=1x16)"), and returns
 * true; false when have meets every one. */
bool iw_needs_unmet(unsigned need, const iw_case_needs_amounts *na, unsigned have, const iw_case_needs_amounts *ha,
		    char *buf, size_t cap);

/* Parses one case from text. The file name is used in messages ("file:line: ..."). On
 * failure returns IW_EINVAL (IW_ENOSPC when a limit above is exceeded), sets *out to NULL
 * and e names the file, the line and the problem. */
int iw_case_parse(const char *text, size_t len, const char *file, iw_case **out, iw_err *e);

/* Reads and parses a file (may hold one case). */
int iw_case_load(const char *path, iw_case **out, iw_err *e);

void iw_case_free(iw_case *c);

/* The argument of a step, or NULL. */
const iw_arg *iw_step_arg(const iw_step *s, const char *name);

/* Name of a step kind as written in the language ("send request", "expect close", ...). */
const char *iw_step_name(enum iw_step_kind k);

const char *iw_level_name(enum iw_level l);

/* The step as written, for messages and reports: "send write", "expect close",
 * "split none", "sleep". Writes into buf and returns it. */
const char *iw_step_label(const iw_step *s, char *buf, size_t cap);

#endif
