/*
 * wait_dut.h - the run's first connection to a DUT that is not listening yet (iwspec run
 * --wait-dut DURATION, the configuration's wait_dut): a lab script that starts the DUT and the
 * harness at once.
 *
 * Until a case of the run has reached the DUT, a connection the DUT refuses (IW_NET_EREFUSED: a
 * tcp: DUT with nothing listening, an exec: DUT whose process does not listen yet) is tried
 * again after 100 ms, then after twice as long each time up to 1 s, until DURATION after the
 * run began. The first refusal is said once per run (the caller's say()); SIGINT or SIGTERM
 * ends the wait within 50 ms. Anything but a refusal (a connection, a reset at once, silence,
 * an MSS the kernel refuses) ends the wait and goes up as it is, so only the DUT's absence is
 * waited out. Once some case has reached the DUT, the runner passes no wait: a later refusal is
 * judged as without the option.
 */
#ifndef IW_WAIT_DUT_H
#define IW_WAIT_DUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "dut_config.h"
#include "iw_err.h"

typedef struct iw_wait_dut {
	int64_t until_ms;           /* iw_net_now_ms() at which the wait ends */
	int64_t wait_ms;            /* the duration asked for */
	char how[80];               /* how it was asked for, for the messages: "--wait-dut 10s" */
	char dut[128];              /* the DUT in the messages: "the DUT at 127.0.0.1:4000", "the exec: DUT" */
	bool exec;                  /* the harness starts the DUT (exec:): it is started, it does not listen */
	atomic_bool said;           /* the wait was announced: once per run, whichever worker first */
	void (*say)(void *ctx, const char *msg);
	void *ctx;
} iw_wait_dut;

/* A wait of d->wait_dut_ms from now for the DUT d names; how says how it was asked for (NULL:
 * the configuration's key); say (may be NULL) gets the one line announcing the wait. */
void iw_wait_dut_init(iw_wait_dut *w, const iw_dut_config *d, const char *how,
		      void (*say)(void *ctx, const char *msg), void *ctx);

/* A connection to the responder DUT behind drv, retrying refusals as above. Each attempt is the
 * driver's connect_once when it has one (timeout_ms bounds it), else its connect for at most
 * 250 ms. once: the case would have made a single attempt (the runner's connect_once); when not,
 * the wait lasts at least timeout_ms, the patience the driver's connect would have had. When the
 * wait runs out the error (IW_NET_EREFUSED) names it and how it was asked for. *waited_ms is how
 * long the DUT refused before it listened (0: at once). */
int iw_wait_dut_connect(iw_wait_dut *w, iw_driver *drv, bool once, int64_t timeout_ms, int mss, int *fd,
			int64_t *waited_ms, iw_err *e);

/* "10 s", "1500 ms": a duration for a sentence. */
void iw_wait_dut_fmt(int64_t ms, char *buf, size_t cap);

#endif
