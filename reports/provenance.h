/*
 * provenance.h - what a report says about where its results come from (docs/reports.md,
 * "Provenance"): the DUT configuration in effect, the vector set, the command line.
 */
#ifndef IW_PROVENANCE_H
#define IW_PROVENANCE_H

#include <stddef.h>

#include "dut_config.h"
#include "result.h"

/* Records the DUT configuration d into run: dut_settings as `key = value` lines (the syntax of
 * a configuration file, so a lab can reproduce it), the disabled cases and the error-code maps. */
void iw_provenance_dut(iw_run *run, const iw_dut_config *d);

/* Records the command line "iwspec ARGV..." (argv[0] is the subcommand; arguments quoted when
 * they need it, cut to fit). */
void iw_provenance_command(iw_run *run, int argc, char **argv);

/*
 * The vector set's hash: SHA-256 over the lines `sha256sum` prints for DIR/ *.json in byte order
 * of their names, so a reader can check it with
 *   (cd vectors && LC_ALL=C sha256sum *.json | sha256sum)
 * hex gets 64 digits, or "none" when DIR has no .json file (or cannot be read). Returns the
 * number of files hashed.
 */
size_t iw_vectors_hash(const char *dir, char *hex, size_t cap);

/* Where the vector set is: $IWSPEC_VECTORS, else the vectors/ directory two levels above the
 * case catalog (the repository's layout: cases and vectors/), else ./vectors. Writes the
 * first that exists into out, or "" when none does. */
void iw_vectors_locate(const char *case_dir, char *out, size_t cap);

#endif
