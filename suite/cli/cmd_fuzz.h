/*
 * cmd_fuzz.h - the parts of `iwspec fuzz` (docs/fuzzing-network.md): cmd_fuzz.c reads and
 * checks the options (all of them before any work starts) and opens the session;
 * cmd_fuzz_loop.c fuzzes, handles findings and prints the summary; cmd_fuzz_bench.c is --bench;
 * cmd_fuzz_kernel.c the kernel findings of --console (a guest kernel's console as an oracle).
 */
#ifndef IW_CMD_FUZZ_H
#define IW_CMD_FUZZ_H

#include <stdint.h>

#include "netfuzz.h"

/* ---- kernel findings (cmd_fuzz_kernel.c; kernel_console.h reads the console) ---- */

typedef struct fz_kernel fz_kernel;

/* What the loop knows of its runs, for naming a kernel report's candidates: a run's program
 * (NULL when no longer kept) and the finding it was written as (0: none). */
typedef struct fz_runs {
	const nf_prog *(*prog)(void *ctx, uint64_t run);
	unsigned (*finding)(void *ctx, uint64_t run);
	void *ctx;
	uint64_t first;             /* the session's first run */
} fz_runs;

/* Follows the console file from its current end; marks go to the agent at HOST:PORT. */
int fzk_open(fz_kernel **out, const char *console, const char *agent, iw_err *e);
void fzk_close(fz_kernel *k);
/* Writes a mark (printf-style text) into the console and waits until it is there; IW_OK and
 * nothing done when k is NULL. An error means the guest's agent did not answer. */
int fzk_mark(fz_kernel *k, iw_err *e, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* Reads the console: true when a report of a new signature is waiting to be handled. */
bool fzk_pending(fz_kernel *k);
/* Writes every waiting report of a new signature as DIR/kernel-N/ (recording its candidate runs
 * once more: call with nothing in flight). Returns how many were written. */
unsigned fzk_handle(fz_kernel *k, nf_session *s, const nf_opts *o, const fz_runs *r);
/* Keeps reading the console for ms (reports the kernel prints a little late). */
void fzk_settle(fz_kernel *k, int64_t ms);
/* --console-reports FILE: every report of a console file, one line each ("report", kind,
 * signature and mark, tab-separated), its excerpt indented below it. Returns how many (-1 and e
 * when the file cannot be read). */
int fzk_print_reports(const char *path, FILE *out, iw_err *e);
/* Kernel findings written, and reports of a signature already seen. */
unsigned fzk_found(const fz_kernel *k);
unsigned fzk_repeats(const fz_kernel *k);

/* --bench: prints the bare loopback rate, the fuzzer's rate and their ratio; exit status. */
int fz_bench(int64_t ms);

/* --merge (cmd_fuzz_merge.c): the shards' output directories as one: OUT/corpus/corpus.bin and
 * OUT/findings.tsv, each finding once; a summary line on log; the exit status. */
int fz_merge(char *const *dirs, int ndirs, const char *out, FILE *log);

/* Fuzzes with the calibrated session s from run `first` on until o->runs runs, o->deadline_ms,
 * o->max_findings distinct findings or a signal, whichever comes first; findings are confirmed,
 * minimised and written to o->out_dir. Prints the summary (also when interrupted) and returns
 * the exit status: 0 no finding, 1 findings, 3 the DUT stopped answering for good with no
 * finding or no run was judged (the time ran out first: fuzzing nothing is no pass), 128 + the
 * signal when SIGINT or SIGTERM stopped it. t0: when the command began.
 * k (NULL: none): the guest kernel's console, marked before each run; its reports are kernel
 * findings (they count as findings for the exit status), and a guest whose agent stops taking
 * marks ends the loop as a DUT lost for good. */
int fz_loop(const nf_opts *o, nf_session *s, uint64_t first, int64_t t0, fz_kernel *k);

/* The runs a crashed or dead DUT may come from, [*lo, *hi], when run `run` met it (previous:
 * when it began, so its octets never reached that DUT): the NF_SLOTS runs before it and, unless
 * previous, every run started after it (up to `last`, the last run started) while it was in
 * flight. Never before `first`, never more runs than the loop keeps programs of. */
void fz_suspects(uint64_t run, bool previous, uint64_t first, uint64_t last, uint64_t *lo, uint64_t *hi);

#endif
