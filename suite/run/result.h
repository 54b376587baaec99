/*
 * result.h - what a run found: one result per case, and the run around them.
 *
 * The runner fills these; the report writers (reports/) turn them into results.json,
 * junit.xml and the console summary. The wire log keeps every event of the case's
 * connections both ways, decoded by the engine, so a FAIL can show what was seen.
 */
#ifndef IW_RESULT_H
#define IW_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"

enum iw_verdict { IW_PASS, IW_FAIL, IW_WARN, IW_INFO, IW_SKIP, IW_ERROR, IW_VERDICT_COUNT };

enum iw_wire_dir { IW_TO_DUT, IW_FROM_DUT, IW_NOTE };

/* A case's wire log keeps at most this many events (plus one note saying it stopped), so a
 * flooding DUT cannot exhaust memory or make the reports unreadable. */
#define IW_RESULT_MAX_WIRE 4096

typedef struct iw_wire_entry {
	enum iw_wire_dir dir;
	int conn;               /* 1 for the case's first connection, 2 for the next ... */
	int64_t t_us;           /* since the case started */
	char what[24];          /* "request", "reply", "fpdu", "raw", "fin", "rst", "connect", "note" ... */
	char summary[320];      /* decoded fields, e.g. "Reply key=ok M=0 C=1 R=0 Rev=1 PD_Length=0" */
	char act[64];           /* the DUT's events: what it did, in the words of an outcome (below):
				 * "Terminate LLP/0x0/0x02 (MPA CRC error)", "Send", "Reply R=0 Rev=1", "FIN" */
	uint8_t *bytes;         /* owned, may be NULL */
	size_t nbytes;
} iw_wire_entry;

/* What the harness's own TCP connections carried, as sent and received (not as decoded): the
 * source of the per-case pcap (reports/report_pcap.c). One chunk per send() or recv(), plus the
 * opening and closing of each connection. */
enum iw_tcp_kind { IW_TCP_OPEN, IW_TCP_DATA, IW_TCP_FIN, IW_TCP_RST,
	IW_TCP_FRAME,               /* a whole Ethernet frame sent or received on the raw segment path
	                             * (suite/rawtcp/): a case that has any is captured from its frames alone */
};

/* A case keeps at most this many captured octets and chunks; past that the capture stops and
 * says so (tcp_cut), the verdict does not depend on it. */
#define IW_RESULT_MAX_TCP_OCTETS (16u << 20)
#define IW_RESULT_MAX_TCP_CHUNKS 65536

typedef struct iw_tcp_chunk {
	enum iw_tcp_kind kind;
	enum iw_wire_dir dir;       /* IW_TO_DUT or IW_FROM_DUT (who sent the data, FIN or RST) */
	int conn;                   /* as in the wire log */
	int64_t t_us;               /* since the case started */
	uint8_t *bytes;             /* owned, IW_TCP_DATA and IW_TCP_FRAME only */
	size_t n;
} iw_tcp_chunk;

typedef struct iw_measure {
	char name[48];          /* "close_after_bad_request_ms" */
	double value;
	char unit[8];
} iw_measure;

/* A requirement the per-frame checks (suite/verify/) applied to the DUT's octets during a case, and
 * on how many of its frames. A case judges some twenty rules at most; past the limit a rule is
 * not recorded (judged_cut says so). */
#define IW_RESULT_MAX_JUDGED 32

typedef struct iw_judged {
	char req[32];
	size_t frames;
} iw_judged;

typedef struct iw_case_result {
	char id[64];
	char title[160];
	char file[256];
	size_t nreqs;
	iw_case_req reqs[IW_CASE_MAX_REQS];
	char profile[16];
	enum iw_verdict verdict;
	char reason[1024];          /* expected, seen, requirement; or why SKIP / ERROR */
	char failed_req[32];        /* the requirement a FAIL/WARN rests on */
	int64_t start_unix_ms;
	int64_t duration_ms;
	size_t nwire, capwire;
	iw_wire_entry *wire;        /* owned */
	size_t wire_dropped;        /* events not kept: past IW_RESULT_MAX_WIRE, or out of memory */
	size_t nmeasures;
	iw_measure measures[8];
	size_t nmappings;
	char mappings[4][160];      /* error-code mappings applied */
	bool dut_finding;           /* the exec'd DUT crashed or exited non-zero */
	char dut_finding_text[1200];
	char dut_role[12];          /* "responder" or "initiator": which side opened the connections */
	char expected[1024];        /* the case's expectations as written, "LINE: expect ..." per line */
	size_t fail_wire;           /* 1 + index of the wire entry the failure points at; 0 = none */
	char fail_field[32];        /* the field of that entry the failure names ("Rev", "MSN"), or "" */
	/* A FAIL's or WARN's outcome: what the DUT did that the verdict rests on, one event in
	 * stable words ("Terminate LLP/0x0/0x22 (unknown MPA error)", "Send", "FIN", "silence").
	 * A baseline pins it, so the same verdict on other behaviour is a difference (baseline.h). */
	char outcome[64];
	size_t ntcp, captcp;
	iw_tcp_chunk *tcp;          /* owned: the TCP capture (above) */
	size_t tcp_octets;          /* octets kept in tcp */
	bool tcp_cut;               /* the capture stopped at a limit or for lack of memory */
	/* ERROR because the DUT contradicted its declared configuration: the key it denied
	 * ("markers"), or "". Not an outage, nor the harness's fault: the run's exit status says so. */
	char dut_contradicts[32];
	bool dut_reached;           /* a connection to or from the DUT was opened */
	bool dut_unreachable;       /* none was: the case's first connection failed (refused, timed out) */
	size_t frames_judged;       /* the DUT's FPDUs held to the per-frame checks (suite/verify/) */
	size_t njudged;
	iw_judged judged[IW_RESULT_MAX_JUDGED];     /* the requirements those checks applied, in first-seen order */
	bool judged_cut;            /* a requirement did not fit in judged[] */
} iw_case_result;

#define IW_RUN_MAX_DISABLED 64
#define IW_RUN_MAX_MAPS 32

typedef struct iw_run {
	char tool_version[32];
	char git_rev[48];
	char dut[512];
	char dut_config_source[256];
	char profile[16];
	char role[16];
	char host[128];
	char seg_mode[32];          /* resegmentation mode of the run */
	char framing[32];           /* "markers on, crc on": the run's --markers and --crc */
	uint64_t seed;
	int jobs;                   /* cases run at a time */
	int64_t start_unix_ms, end_unix_ms;
	bool complete;              /* false when interrupted or stopped */
	int stop_signal;            /* the signal that interrupted the run (SIGINT, SIGTERM), 0 none */
	char stopped[400];          /* why the runner stopped the run early (the DUT cannot be reached), or "" */
	size_t not_started;         /* selected cases an interruption or a stop kept from starting (not in cases) */
	/* provenance (docs/reports.md): what a lab needs to reproduce and trust the run */
	char command[512];          /* the command line */
	char selection[256];        /* --cases, or "*" */
	char vectors_sha256[72];    /* sha256 of the vector set (vectors/ *.json by name), or "none" */
	char vectors_dir[256];
	size_t nvectors;
	char dut_settings[1024];    /* the DUT configuration in effect, as `key = value` lines */
	size_t ndisabled;
	char disabled[IW_RUN_MAX_DISABLED][200];    /* "GLOB : reason" of the configuration */
	size_t nmaps;
	char maps[IW_RUN_MAX_MAPS][200];            /* "L/T/C -> L/T/C : reason" of the configuration */
	size_t ncases, capcases;
	iw_case_result *cases;      /* owned */
	size_t counts[IW_VERDICT_COUNT];
} iw_run;

/* "PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR"; "?" for a value outside the enum. */
const char *iw_verdict_name(enum iw_verdict v);

/* A measure as the text reports show it: the value and its unit ("1500.5 ms"; with decimals >= 0
 * that many decimals), or "none" when it could not be measured (a value that is not finite: no
 * close within the time, docs/reports.md; results.json has null). */
void iw_measure_text(const iw_measure *m, int decimals, char *buf, size_t cap);

/* Appends a wire entry to r (copies bytes; `what` and the summary are cut to fit). Never
 * fails: past IW_RESULT_MAX_WIRE entries it stops adding, appends one IW_NOTE entry saying
 * so, and counts what it drops in r->wire_dropped (as it does when memory runs out). */
void iw_result_wire(iw_case_result *r, enum iw_wire_dir dir, int conn, int64_t t_us, const char *what,
		    const uint8_t *bytes, size_t n, const char *summary_fmt, ...)
	__attribute__((format(printf, 8, 9)));

/* Appends one chunk to r's TCP capture (copies bytes). Never fails: past the limits above, or
 * out of memory, it stops and sets r->tcp_cut. iw_result_wire records IW_TCP_OPEN, FIN and RST
 * itself for the wire events "connect", "fin" and "rst"; the harness calls this for the data
 * it sends and receives. */
void iw_result_tcp(iw_case_result *r, enum iw_tcp_kind kind, enum iw_wire_dir dir, int conn, int64_t t_us,
		   const uint8_t *bytes, size_t n);

/* Points a failure just recorded in r->reason at the wire log: the last entry that is not a
 * harness note (what was judged, or the stimulus when nothing came), and the field of it the
 * reason or the requirement req (may be NULL) names. Sets fail_wire and fail_field. */
void iw_result_blame(iw_case_result *r, const char *req);
/* The same, pointing at wire entry k (1 + its index) instead of the last one: the entry that
 * showed octets a step read again (the wire log shows each event once, exec_wire.c). k = 0, or
 * past the log, is iw_result_blame. */
void iw_result_blame_at(iw_case_result *r, const char *req, size_t k);

/* Sets r->outcome from the wire log once the verdict is known: "" unless FAIL or WARN. The
 * entry the failure points at when the DUT sent it (not its FIN or RST); else, on that entry's
 * connection, the DUT's first event after the harness's last send before it (a Terminate the DUT
 * sent before closing is what it did, not the FIN); "silence" when there is none. */
void iw_result_outcome(iw_case_result *r);

/* The field a requirement is about ("MPA-6.1.1-06" -> "Rev"), or NULL when it names none. */
const char *iw_blame_field_for_req(const char *req);

/* Writes c's expectation steps into r->expected, one "LINE: expect ..." line each, with their
 * arguments as written (cut with "..." when they do not fit). */
void iw_result_set_expected(iw_case_result *r, const iw_case *c);

/* Records that the per-frame checks applied each of rules[0..n) to one more frame of the DUT
 * (each ID a requirement of the catalog). Never fails: past IW_RESULT_MAX_JUDGED distinct IDs
 * it sets judged_cut. */
void iw_result_judged(iw_case_result *r, const char *const *rules, size_t n);

/* Copies a case's identity (id, title, file, requirements) into r. */
void iw_result_set_case(iw_case_result *r, const iw_case *c);

/* Frees r's wire log and TCP capture (the bytes too) and empties them. */
void iw_result_clear_wire(iw_case_result *r);

/* A new result slot in run (zeroed), or NULL when memory is exhausted. The slot lives in
 * run->cases, which may move on the next call: do not keep the pointer across calls. */
iw_case_result *iw_run_add(iw_run *run);

/* Counts the cases per verdict into counts; a verdict outside the enum counts as ERROR, the
 * way the report writers show it. The writers tally for themselves, so counts[] may be stale. */
void iw_run_tally(const iw_run *run, size_t counts[IW_VERDICT_COUNT]);

void iw_run_count(iw_run *run);     /* recomputes counts[] from the cases */

/* Why an incomplete run is incomplete, for every report to say in the same words:
 * "interrupted by SIGINT after N cases", or "stopped after N cases: <run->stopped>" when the
 * runner stopped it (the DUT cannot be reached). "" for a complete run. */
void iw_run_incomplete_text(const iw_run *run, char *buf, size_t cap);

/* Frees the cases and their wire logs; the run's provenance fields stay. */
void iw_run_free(iw_run *run);

#endif
