/*
 * exec_fixture.h - what the executor tests share (tests/test_exec*.c): a scripted DUT on loopback
 * that answers with recorded octets, and one case run against it with the DUT configuration a
 * test asks for.
 */
#ifndef IW_TEST_EXEC_FIXTURE_H
#define IW_TEST_EXEC_FIXTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "result.h"
#include "runner.h"

/* A DUT that reads the harness's Request (min_read octets of it, 20 when 0), answers with
 * `reply`, then, once the harness has sent anything more, with `after`; it then reads until the
 * harness closes, or closes at once after its answer with close_after. */
typedef struct scripted_dut {
	int lfd;
	uint16_t port;
	uint8_t reply[256], after[256];
	size_t reply_len, after_len;
	size_t min_read;
	int after_delay_ms;         /* how long `after` waits once the harness has sent */
	bool close_on_data;         /* closes, sending nothing, once the harness has sent (after the Reply) */
	bool close_after;
	/* A DUT that takes the connection and then answers nothing: it stays silent (reading until
	 * the harness closes), closes at once, or resets at once. */
	enum { DUT_ANSWERS, DUT_SILENT, DUT_CLOSES, DUT_RESETS } mode;
	pthread_t th;
} scripted_dut;

void dut_start(scripted_dut *d);
void dut_stop(scripted_dut *d);

/* An rfc5044 Reply with C=1, R=0 and no private data, as a conforming responder sends it. */
size_t good_reply(uint8_t *out, size_t cap);

/* One Send FPDU (QN 0, MSN 1, L=1) carrying payload, CRC on, no markers. */
size_t send_fpdu(const char *payload, uint8_t *out, size_t cap);

/* How the DUT is declared for a run (the rest is iw_dut_config_default's, profile rfc5044, a
 * responder). */
typedef struct exec_cfg {
	bool crc_off_mode;      /* crc = optional-off */
	bool frame_no_crc;      /* --crc off */
	bool reject;            /* reject = yes */
	enum iw_profile_id profile; /* 0 (culley-mpa-02, which has no Request): rfc5044 */
} exec_cfg;

/* Runs the case text (named name in messages) with o, a responder DUT's options, seed 1; the
 * result is run->cases[0] (free with iw_run_free(run)). */
void run_text_with(const char *text, const char *name, iw_run_opts *o, iw_run *run);

/* Runs the case text (cfg may be NULL) against d; the result is run->cases[0] (free with
 * iw_run_free(run)). */
void run_against_cfg(scripted_dut *d, const char *text, const exec_cfg *cfg, iw_run *run);
#define run_against(d, text, run) run_against_cfg((d), (text), NULL, (run))

/* The iwspec binary a test may run: $IWSPEC when executable, else build/iwspec, else NULL. */
const char *iwspec_binary(void);

/* The text of a case file of the catalog (tests run from the repository's top), or NULL;
 * free it. */
char *case_text(const char *path);

/* Runs the catalog's case file at path against the built-in DUT with the mutant (drivers/
 * ref_faults.h), a responder under rfc5044 with a 5 s case timeout; the result is run->cases[0]
 * (free with iw_run_free(run)). */
void run_catalog_case_mutant(const char *path, const char *mutant, iw_run *run);

#endif
