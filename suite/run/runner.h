/*
 * runner.h - running cases against a DUT and judging them.
 *
 * For each selected case and profile the runner checks the case's needs against the DUT
 * configuration (SKIP with the reason when unmet), executes its steps through the driver
 * (exec_case.c and the files exec_int.h lists), and turns the first broken expectation into a
 * verdict by the level of the
 * requirement it rests on: MUST -> FAIL, SHOULD -> WARN; measured-only cases are INFO; a
 * harness or environment failure is ERROR.
 */
#ifndef IW_RUNNER_H
#define IW_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "case.h"
#include "driver.h"
#include "dut_config.h"
#include "result.h"

/* How the harness cuts its own byte stream into writes, run-wide (issue: resegmentation). */
enum iw_seg_mode { IW_SEG_NONE, IW_SEG_OCTET, IW_SEG_RANDOM, IW_SEG_COALESCE };

typedef struct iw_run_opts {
	iw_dut_config dut;
	bool role_fixed;            /* --role given (else the ref DUT takes the role each case needs) */
	bool all_profiles;          /* --profile all: every profile the case applies to */
	enum iw_seg_mode seg;
	bool frame_markers;         /* --markers on: `startup` asks for markers (M=1), the DUT is asked to want them */
	bool frame_no_crc;          /* --crc off: `startup` sends C=0, the DUT is put in its no-CRC mode if it has one */
	uint64_t seed;
	int jobs;                   /* cases at a time; 0: IW_RUNNER_REF_JOBS for the built-in DUT, else 1 */
	/* --keep-going: run every case even when the DUT cannot be reached. Without it the run
	 * stops (run->stopped) when a case could not open its first connection while no case has
	 * opened one, and until some case has, a tcp: DUT gets a single connection attempt per case
	 * (the driver's connect_once), so a refusal stops the run at once instead of after
	 * connect_timeout. */
	bool keep_going;
	bool connect_once;          /* set by the runner per case: its first connection, one attempt */
	bool ulp_picked;            /* set by the runner per case: dut.ulp is the perftest mode it picked
				     * under `ulp = perftest` (iw_ulp_mode_for) */
	/* dut.wait_dut_ms > 0 (--wait-dut, wait_dut =): until a case has reached the DUT, a refused
	 * connection is retried until that long after the run began (wait_dut.h). wait_dut_how says
	 * how it was asked for ("--wait-dut 10s"; NULL: the configuration's key), on_wait gets the
	 * one line that announces the wait (NULL: none; the runner itself writes nothing). */
	const char *wait_dut_how;
	void (*on_wait)(void *ctx, const char *msg);
	void *on_wait_ctx;
	struct iw_wait_dut *wait;   /* set by the runner per case: the run's wait, NULL once the DUT was reached */
	/* Called once per finished case, under the runner's lock (so calls never overlap): done
	 * counts the finished cases including this one. NULL: no progress. The CLI prints the
	 * console's progress line from it; the runner itself writes nothing. */
	void (*on_result)(void *ctx, size_t done, size_t total, const iw_case_result *r);
	void *on_result_ctx;
} iw_run_opts;

/* The built-in DUT's default and the most cases at a time (--jobs). Cases mostly wait on the
 * DUT's timers (silences, startup timeouts), so many at a time cost little CPU. */
#define IW_RUNNER_REF_JOBS 40
#define IW_RUNNER_MAX_JOBS 64

/* The number of cases run at a time for o (o->jobs, or the default for its DUT). */
int iw_runner_jobs(const iw_run_opts *o);

/* Runs cases[0..n) and fills run, o->jobs cases at a time; the results keep catalog order
 * whatever the order the cases end in. Returns IW_OK unless the run itself could not start.
 * A run stopped because the DUT cannot be reached returns IW_OK with run->stopped saying why,
 * run->complete false, and the results of the cases that ran. */
int iw_runner_run(const iw_run_opts *o, iw_case *const *cases, size_t n, iw_run *run, iw_err *e);

/* Executes one case against an open driver (exec_case.c). */
void iw_exec_case(const iw_case *c, const iw_profile *p, int dut_role, const iw_run_opts *o, iw_driver *drv,
		  iw_case_result *r);

const char *iw_seg_mode_name(enum iw_seg_mode m);
int iw_seg_mode_parse(const char *s, enum iw_seg_mode *m);

/* Whether c runs against a DUT in either role: it opens every connection with `startup` and
 * advertises no MSS (which rides on a SYN only the harness sends); otherwise only in its own. */
bool iw_case_either_role(const iw_case *c);

#endif
