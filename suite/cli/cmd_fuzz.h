/*
 * cmd_fuzz.h - the parts of `iwspec fuzz` (docs/fuzzing-network.md): cmd_fuzz.c reads and
 * checks the options (all of them before any work starts) and opens the session;
 * cmd_fuzz_loop.c fuzzes, handles findings and prints the summary; cmd_fuzz_bench.c is --bench.
 */
#ifndef IW_CMD_FUZZ_H
#define IW_CMD_FUZZ_H

#include <stdint.h>

#include "netfuzz.h"

/* --bench: prints the bare loopback rate, the fuzzer's rate and their ratio; exit status. */
int fz_bench(int64_t ms);

/* Fuzzes with the calibrated session s from run `first` on until o->runs runs, o->deadline_ms,
 * o->max_findings distinct findings or a signal, whichever comes first; findings are confirmed,
 * minimised and written to o->out_dir. Prints the summary (also when interrupted) and returns
 * the exit status: 0 no finding, 1 findings, 3 the DUT stopped answering for good with no
 * finding, 128 + the signal when SIGINT or SIGTERM stopped it. t0: when the command began. */
int fz_loop(const nf_opts *o, nf_session *s, uint64_t first, int64_t t0);

/* The runs a crashed or dead DUT may come from, [*lo, *hi], when run `run` met it (previous:
 * when it began, so its octets never reached that DUT): the NF_SLOTS runs before it and, unless
 * previous, every run started after it (up to `last`, the last run started) while it was in
 * flight. Never before `first`, never more runs than the loop keeps programs of. */
void fz_suspects(uint64_t run, bool previous, uint64_t first, uint64_t last, uint64_t *lo, uint64_t *hi);

#endif
