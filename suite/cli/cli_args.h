/*
 * cli_args.h - checks of command-line arguments the subcommands share, made before any work
 * starts, each failing with a message that names the problem and the fix (the caller prints it
 * and exits 2).
 */
#ifndef IW_CLI_ARGS_H
#define IW_CLI_ARGS_H

#include <stdint.h>

#include "iw_err.h"

/* A seed: a decimal number from 0 to 2^64-1, or 0x and hex digits. No sign (strtoull would make
 * "-1" into 2^64-1), no blanks, nothing after the digits. opt names the option in the message. */
int iw_cli_parse_seed(const char *opt, const char *s, uint64_t *out, iw_err *e);

/* A wait (--wait-dut): a duration as the configuration writes them (250ms, 10s, 2m; at most a
 * day), 0 allowed (no wait). A sign is refused with its own message, as is an empty value. */
int iw_cli_parse_wait(const char *opt, const char *s, int64_t *ms, iw_err *e);

/* A DUT configuration file that exists and declares something: an empty name, or a file with
 * no `key = value` line (empty, or only blanks and comments), is refused; an empty file is more
 * likely a truncated or wrong one than a wish for the defaults, which need no file. Reading the
 * settings themselves is iw_dut_config_load's job. */
int iw_cli_check_dut_config(const char *path, iw_err *e);

/* A --cases selection that names a path (it has a '/' or ends in .iwt, which no case id does)
 * must exist; a glob on ids is left to the catalog. */
int iw_cli_check_case_path(const char *sel, iw_err *e);

/* The report directory exists, or is created, and can be written. */
int iw_cli_check_report_dir(const char *dir, iw_err *e);

/* An output file (--write-expect) can be created: its directory exists and can be written, or
 * the file itself can be. */
int iw_cli_check_out_file(const char *opt, const char *path, iw_err *e);

#endif
