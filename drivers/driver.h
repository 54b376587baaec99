/*
 * driver.h - how the harness reaches a device under test: one small vtable.
 *
 *   ref            the built-in reference DUT (the engine's connection model served over
 *                  loopback TCP by a thread of the harness). The default.
 *   tcp:HOST:PORT  a DUT listening at an address; the harness is the initiator.
 *   exec:'CMD'     the harness starts CMD for each case, with {host} and {port} substituted:
 *                  a responder DUT listens on {port}; an initiator DUT connects to the harness
 *                  listening at {host}:{port}. A crash or a non-zero exit is a finding.
 *
 * Per case the runner calls case_begin, then connect (DUT responder) or accept (DUT
 * initiator) once per TCP connection the case needs (liveness probes ask for another), then
 * case_end, which reports what became of an exec'd process. Between case_begin and the first
 * connection a case may pass requests to a cooperating DUT (iw_driver_instruct: markers, no
 * CRC, reject, private data, greeting); only ref takes them, and case_end undoes them.
 */
#ifndef IW_DRIVER_H
#define IW_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "dut_config.h"
#include "iw_err.h"

/* What a driver learned about the DUT process during a case (exec only). */
typedef struct iw_dut_finding {
	bool present;           /* something to report */
	bool crashed;           /* killed by a signal (other than our own stop) */
	int signal;
	int exit_code;          /* when it exited by itself */
	char stderr_tail[1024]; /* the last output on its stderr */
} iw_dut_finding;

typedef struct iw_driver iw_driver;

/* Per-case requests to a cooperating DUT, for the capabilities its configuration declares
 * (markers, crc = optional-off, reject, private data). They hold for the connections opened
 * after the call, until case_end restores the configured behaviour. */
typedef struct iw_dut_instr {
	bool markers;           /* send M=1: wants markers on what it receives (IW_CAP_MARKERS) */
	bool crc_off;           /* administrator no-CRC mode: sends C=0 (IW_CAP_CRC_OFF) */
	bool reject;            /* answers the Request with R=1 (IW_CAP_REJECT) */
	bool greeting;          /* the reflector greets as soon as full operation is reached (IW_CAP_REFLECTOR) */
	const uint8_t *pd;      /* private data for its Request or Reply (IW_CAP_PD), copied */
	size_t pd_len;
} iw_dut_instr;

/* connect: the DUT's application serves one run per instance (perftest's server), and the
 * instance that served this case's last run had not ended when the bound did, so nothing
 * listened for the next: the application's timing, which says nothing of the stack's listener. */
#define IW_DRV_ELAST_RUN (-32)

typedef struct iw_driver_ops {
	const char *name;
	/* Prepares the DUT for a case (exec: picks a port; ref: nothing). */
	int (*case_begin)(iw_driver *d, iw_err *e);
	/* DUT responder: a new TCP connection from the harness to the DUT; mss > 0 is the MSS the
	 * harness advertises on it (TR-17), 0 the kernel's. */
	int (*connect)(iw_driver *d, int *fd, int64_t timeout_ms, int mss, iw_err *e);
	/* DUT initiator: makes the DUT connect to the harness once more and returns the accepted socket. */
	int (*accept)(iw_driver *d, int *fd, int64_t timeout_ms, iw_err *e);
	/* Ends the case: stops what case_begin started and reports a finding. */
	int (*case_end)(iw_driver *d, iw_dut_finding *f, iw_err *e);
	void (*destroy)(iw_driver *d);
	/* Optional (NULL: the DUT takes no per-case requests; only ref does). */
	int (*instruct)(iw_driver *d, const iw_dut_instr *in, iw_err *e);
	/* Optional (NULL: connect is the only way): one connection attempt, no retry, to a DUT that
	 * listens on its own (tcp:). connect retries a refusal for a DUT still starting; before any
	 * case has reached the DUT that patience only hides its absence (152 cases retrying 5 s each
	 * take 13 minutes to say "connection refused"), so the runner asks for one attempt then. */
	int (*connect_once)(iw_driver *d, int *fd, int64_t timeout_ms, int mss, iw_err *e);
} iw_driver_ops;

struct iw_driver {
	const iw_driver_ops *ops;
	const iw_dut_config *cfg;
	void *priv;
	/* The application the DUT runs for the next case (enum iw_ulp): cfg->ulp, but under `ulp =
	 * perftest` the mode the runner picked for the case (iw_driver_set_ulp), which an exec:
	 * command gets as {perftest} and the built-in DUT serves. */
	int ulp;
};

/* Builds the driver cfg->dut names (ref, tcp:..., exec:...). */
int iw_driver_open(iw_driver **out, const iw_dut_config *cfg, iw_err *e);
void iw_driver_close(iw_driver *d);

/* The application of the next case (struct iw_driver's ulp); takes effect at case_begin. */
void iw_driver_set_ulp(iw_driver *d, int ulp);

/* The word {perftest} stands for under perftest mode ulp ("send", "write", "read", "send-lat"), or
 * NULL; and back, the mode a word names, or -1. */
const char *iw_driver_perftest_word(int ulp);
int iw_driver_perftest_ulp(const char *word);

/* d->ops->instruct, or an error naming the driver when it has none. */
int iw_driver_instruct(iw_driver *d, const iw_dut_instr *in, iw_err *e);

/* The backends iw_driver_open dispatches to: each fills d->ops and d->priv (d->cfg is set). */
int iw_drv_ref_open(iw_driver *d, iw_err *e);

/* The built-in DUT's perftest program (enum iw_ref_perftest) for a perftest mode ulp, OFF for any
 * other (drv_ref.c). */
int iw_drv_ref_perftest(int ulp);
int iw_drv_tcp_open(iw_driver *d, iw_err *e);
int iw_drv_exec_open(iw_driver *d, iw_err *e);

#endif
