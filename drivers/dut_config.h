/*
 * dut_config.h - what the DUT is and supports: the --dut-config file (plain `key = value`)
 * and the command-line flags that override it (--dut, --profile, --role).
 *
 * Keys (docs/dut-config.md is the user's reference):
 *   dut = ref | tcp:HOST:PORT | exec:COMMAND       role = responder | initiator
 *   profile = rddp-mpa-01 | rfc5044 | rfc6581 | culley-mpa-02
 *   mpa_revision = N          markers = yes|no       crc = required | optional-off (admin no-CRC mode)
 *   private_data_limit = N    reflector = yes|no     reject = yes|no (can be told to reject)
 *   ulp = reflector | rping | none | perftest-send | perftest-write | perftest-read | perftest |
 *         perftest-send-lat
 *                             (rping: rdma-core's rping is the application, docs/rping.md;
 *                             perftest-*: ib_*_bw -R, docs/ulp-profiles.md; perftest: the one
 *                             of the three each case needs, started per case: {perftest};
 *                             perftest-send-lat: ib_send_lat -R -s 65536)
 *   rping_size = 64           (ulp = rping: the -S the DUT's rping runs with, 26 to 65535)
 *   connect_timeout = 5s      case_timeout = 10s     close_timeout = 5s
 *   exec_host = ADDR          ({host} of exec: commands: where the listening side is; 127.0.0.1)
 *   first_fpdu_delay = 0ms    (a responder DUT: the harness waits this long after the Reply
 *                             before its first FPDU; a declared workaround, reported)
 *   disable = CASE-ID-GLOB : reason          (repeatable)
 *   map = LAYER/ETYPE/ECODE -> LAYER/ETYPE/ECODE : reason   (repeatable; an error code the DUT
 *         sends instead of the one the spec names, accepted and reported as a mapping)
 *   hostile = MODE            (ref only: a misbehaving built-in DUT, for robustness tests)
 *   mutant = NAME             (ref only: a built-in DUT with one requirement broken)
 *   raw_link = NETNS:IFNAME   (tcp: DUTs: the harness's connections go over the raw segment
 *                             path, suite/rawtcp/, through the TAP device IFNAME in namespace NETNS
 *                             (empty: the harness's own); docs/raw-segments.md)
 *   wait_dut = 0s             (iwspec run: how long the run's first connection is retried while
 *                             the DUT refuses it, for a DUT started with the run; --wait-dut)
 * Unknown keys and bad values are errors naming the file, line and the fix.
 */
#ifndef IW_DUT_CONFIG_H
#define IW_DUT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"
#include "profile.h"

#define IW_DUT_MAX_DISABLED 64
#define IW_RPING_SIZE_DEFAULT 64    /* rping's own default -S, which the rping cases script */
#define IW_RPING_SIZE_MIN 26        /* "rdma-ping-N: " and a few letters: what rping's data needs */
#define IW_RPING_SIZE_MAX 65535     /* rping refuses a larger -S (its RPING_BUFSIZE less one) */
#define IW_DUT_MAX_MAPS     32

typedef struct iw_code { int layer, etype, ecode; } iw_code;

typedef struct iw_code_map {
	iw_code from;           /* what the spec requires */
	iw_code to;             /* what this DUT sends instead */
	char reason[128];
} iw_code_map;

typedef struct iw_disabled_case {
	char glob[64];
	char reason[128];
} iw_disabled_case;

/* The application the DUT runs for the full-operation cases (`ulp =`; docs/ulp-profiles.md). */
enum iw_ulp { IW_ULP_REFLECTOR, IW_ULP_RPING, IW_ULP_NONE, IW_ULP_PERFTEST_SEND, IW_ULP_PERFTEST_WRITE, IW_ULP_PERFTEST_READ,
	      IW_ULP_PERFTEST /* any of the three: per case the one whose profile meets its needs */,
	      IW_ULP_PERFTEST_SEND_LAT /* ib_send_lat's server: answers each Send */ };

typedef struct iw_dut_config {
	char dut[512];              /* "ref", "tcp:HOST:PORT", "exec:COMMAND" */
	const iw_profile *profile;
	int role;                   /* enum iw_role of the DUT */
	bool role_set;              /* role was given (file or flag), not defaulted */
	int mpa_revision;           /* -1 = the profile's */
	bool markers;               /* can receive with markers */
	bool markers_set;           /* `markers` was given, not defaulted (an ERROR that it is wrong says which) */
	bool crc_off_mode;          /* administrator no-CRC mode available */
	uint32_t pd_limit;          /* private data the DUT accepts; 0 = the profile's */
	bool reflector;
	bool reflector_set;         /* `reflector` was given (ulp = rping contradicts reflector = yes) */
	int ulp;                    /* enum iw_ulp: the reflector (default, `reflector = no`: none) or rping */
	bool ulp_set;               /* `ulp` was given, not defaulted (iwspec fuzz takes it over calibration) */
	uint32_t rping_size;        /* ulp = rping: rping's -S, its buffers' length (IW_RPING_SIZE_DEFAULT) */
	bool reject;                /* follows `reflector = no` unless set itself (reject_set) */
	bool reject_set;
	int64_t connect_timeout_ms, case_timeout_ms, close_timeout_ms;
	int64_t first_fpdu_delay_ms;  /* 0: the first FPDU follows the Reply at once, as MPA allows */
	int64_t wait_dut_ms;        /* 0: a refused first connection stops the run (suite/run/wait_dut.h) */
	char exec_host[48];         /* {host}: the harness's address for an initiator DUT, the DUT's for a responder */
	size_t ndisabled;
	iw_disabled_case disabled[IW_DUT_MAX_DISABLED];
	size_t nmaps;
	iw_code_map maps[IW_DUT_MAX_MAPS];
	char hostile[32];           /* ref only: misbehaviour for robustness tests */
	char mutant[48];            /* ref only: a fault breaking one requirement (self-validation) */
	bool ref_batch;             /* ref only, no configuration key: the built-in DUT's thread runs
				     * as SCHED_BATCH (iwspec fuzz sets it for the DUT in its process) */
	char raw_netns[64];         /* raw_link's namespace ("" = the harness's own) */
	char raw_ifname[16];        /* raw_link's TAP device; "" = no raw segment path */
	char source[256];           /* the file it came from, or "defaults" */
} iw_dut_config;

/* Defaults: the built-in DUT as a responder in rfc5044 with markers, reflector, reject. */
void iw_dut_config_default(iw_dut_config *c);

/* Reads a configuration file over the values already in c. */
int iw_dut_config_load(iw_dut_config *c, const char *path, iw_err *e);

/* Parses one `key = value` setting (used for files and tests). */
int iw_dut_config_set(iw_dut_config *c, const char *key, const char *value, iw_err *e);

/* The reason a case id is disabled, or NULL. */
const char *iw_dut_config_disabled(const iw_dut_config *c, const char *case_id);

/* What the keys must be together, once all are set: `ulp = perftest` starts, per case, the
 * perftest program the case needs, which only the built-in DUT and an exec: command with
 * {perftest} can. IW_EINVAL with the fix in e otherwise. */
int iw_dut_config_check(const iw_dut_config *c, iw_err *e);

/* Parses a duration "5s", "250ms", "2m" into milliseconds. */
int iw_parse_duration(const char *s, int64_t *ms, iw_err *e);

#endif
