/*
 * kernel_console.h - a guest kernel's console as a fuzzing oracle (docs/fuzzing-network.md,
 * "Kernel findings"). A DUT that is a kernel stack (Linux siw in the qemu guest of
 * tools/siw-guest/) can fail without a wrong octet on the wire: a refcount underflow, a
 * use-after-free KASAN sees, an RCU stall. The kernel says so on its console, which qemu writes
 * to a file on the host. This module reads that file as it grows and cuts it into reports
 * (kc_feed), and writes marks into the same console through the guest's agent (kc_mark:
 * `iwspec-reflector --agent`'s `mark TEXT`, which the agent writes to /dev/kmsg before it
 * answers), so a report is tied to the last mark before it: the run the harness had started.
 *
 * A report begins at a line the kernel prints when something is wrong:
 *   WARNING: (a WARN_ON, or lockdep's "possible circular locking dependency"), BUG: (KASAN's
 *   "BUG: KASAN: ...", "BUG: soft lockup", "BUG: unable to handle page fault"), kernel BUG at,
 *   Oops:, general protection fault, refcount_t:, UBSAN:, an RCU stall ("rcu: INFO: ...
 *   stall"), a hung task ("INFO: task ... blocked for more than"), Kernel panic
 * (with the "[ cut here ]" line before it, when there is one) and ends at "---[ end trace", at a
 * mark, after KC_MAX_LINES lines, or when the console has been quiet for a while (kc_flush):
 * an RCU stall has no end line. Its signature, for telling one fault from another across runs,
 * guests and kernels, has no CPU, PID, address, offset or source line in it (the same fault sits
 * on another line in another kernel: siw_cm.c:453 in 6.1.192, :449 in 6.12.117): "WARNING at
 * siw_cm.c siw_cep_put", "kernel BUG at list_debug.c in siw_destroy_listen",
 * "refcount_t: underflow; use-after-free. in siw_destroy_listen" (the first RDMA-stack function
 * of the call trace, or else the RDMA stack's work item it ran in), "RCU stall in
 * siw_cep_set_inuse".
 */
#ifndef IW_KERNEL_CONSOLE_H
#define IW_KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

#define KC_MAX_LINES 80
#define KC_EXCERPT   8192
#define KC_MARK_MAX  120

typedef struct kc_report {
	char kind[24];              /* WARNING, BUG, KASAN, UBSAN, Oops, refcount_t, RCU stall, hung task, panic */
	char sig[200];              /* the signature (see above) */
	char mark[KC_MARK_MAX + 8]; /* the last mark before it, "" when none */
	char excerpt[KC_EXCERPT];   /* its console lines, timestamps kept */
	size_t nlines;
} kc_report;

/* The parser's state: the last mark, a partial line, the report being read. */
typedef struct kc_parser {
	char mark[KC_MARK_MAX + 8];
	char line[512];
	size_t line_len;
	bool line_long;             /* the line in progress overflowed line[]: the rest is dropped */
	char prev[512];             /* the line before, for "[ cut here ]" */
	bool open;
	bool ended;                 /* "---[ end trace" seen: the report is complete */
	char wq_fn[80];             /* the RDMA stack's work item the report ran in ("Workqueue:") */
	kc_report cur;
} kc_parser;

void kc_parser_init(kc_parser *p);

/* Feeds console octets; complete reports are copied to out (at most cap; more are dropped and
 * counted in the return value all the same). Returns how many reports completed. */
size_t kc_feed(kc_parser *p, const char *buf, size_t len, kc_report *out, size_t cap);

/* Ends the report being read, if any, into *out: returns 1 when there was one. */
size_t kc_flush(kc_parser *p, kc_report *out);

/* The signature of a report's first line (timestamp removed), e.g. "WARNING: CPU: 1 PID: 80 at
 * drivers/infiniband/sw/siw/siw_cm.c:453 siw_cep_put+0x7b/0x90 [siw]" -> "WARNING at
 * siw_cm.c siw_cep_put"; kind gets the report's kind. False when the line starts no report. */
bool kc_trigger(const char *line, char *kind, size_t kind_cap, char *sig, size_t sig_cap);

/* Writes a mark into the guest's console through its agent at host:port ("mark TEXT"), waiting
 * for the agent's answer (at most timeout_ms), so the mark is on the console before anything the
 * caller does next. TEXT: letters, digits and " ._:-", at most KC_MARK_MAX. */
int kc_mark(const char *host, uint16_t port, const char *text, int64_t timeout_ms, iw_err *e);

/* A console file followed as it grows. A file that shrinks (the guest was booted again) is read
 * from its start. */
typedef struct kc_console {
	char path[512];
	uint64_t off;
	kc_parser p;
	int64_t last_growth_ms;     /* when the file last grew */
} kc_console;

/* Follows path from its current end (what the console said before is not this session's). */
int kc_console_open(kc_console *c, const char *path, iw_err *e);

/* Reads what the file gained and returns the reports it completed (at most cap into out). A
 * report still open when the console has said nothing for quiet_ms is ended too. */
size_t kc_console_poll(kc_console *c, int64_t quiet_ms, kc_report *out, size_t cap);

#endif
