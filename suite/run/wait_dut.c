/*
 * wait_dut.c - retrying the run's first connection while the DUT refuses it (wait_dut.h).
 */
#include "wait_dut.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"
#include "net.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   1000
/* An exec: DUT has no single attempt: its connect retries by itself, so it gets slices short
 * enough for a signal to be seen between them. */
#define SLICE_MS         250
/* How often a back-off looks at the signal flag (interrupt.h asks for 100 ms at most). */
#define NAP_MS           50

void iw_wait_dut_fmt(int64_t ms, char *buf, size_t cap)
{
	if (ms % 1000 == 0)
		snprintf(buf, cap, "%lld s", (long long)(ms / 1000));
	else
		snprintf(buf, cap, "%lld ms", (long long)ms);
}

void iw_wait_dut_init(iw_wait_dut *w, const iw_dut_config *d, const char *how,
		      void (*say)(void *ctx, const char *msg), void *ctx)
{
	w->wait_ms = d->wait_dut_ms;
	w->until_ms = iw_net_now_ms() + d->wait_dut_ms;
	if (how)
		snprintf(w->how, sizeof w->how, "%s", how);
	else if (d->wait_dut_ms % 1000 == 0)
		snprintf(w->how, sizeof w->how, "wait_dut = %llds", (long long)(d->wait_dut_ms / 1000));
	else
		snprintf(w->how, sizeof w->how, "wait_dut = %lldms", (long long)d->wait_dut_ms);
	/* The address of a tcp: DUT; an exec: DUT's command is in every report already, and its
	 * port changes with each case. */
	w->exec = !strncmp(d->dut, "exec:", 5);
	if (!strncmp(d->dut, "tcp:", 4))
		snprintf(w->dut, sizeof w->dut, "the DUT at %.100s", d->dut + 4);
	else
		snprintf(w->dut, sizeof w->dut, "%s", w->exec ? "the exec: DUT" : "the built-in DUT");
	atomic_init(&w->said, false);
	w->say = say;
	w->ctx = ctx;
}

/* Sleeps ms, or less when a signal comes: false then. */
static bool nap(int64_t ms)
{
	int64_t end = iw_net_now_ms() + ms, left;
	while (!iw_interrupted() && (left = end - iw_net_now_ms()) > 0) {
		int64_t step = left < NAP_MS ? left : NAP_MS;
		struct timespec ts = {0, (long)step * 1000000L};
		nanosleep(&ts, NULL);
	}
	return !iw_interrupted();
}

static void announce(iw_wait_dut *w)
{
	if (atomic_exchange(&w->said, true) || !w->say)
		return;
	char d[32], msg[320];
	iw_wait_dut_fmt(w->wait_ms, d, sizeof d);
	snprintf(msg, sizeof msg, "waiting up to %s for %s to listen%s (%s)", d, w->dut,
		 w->exec ? " on its port" : "", w->how);
	w->say(w->ctx, msg);
}

int iw_wait_dut_connect(iw_wait_dut *w, iw_driver *drv, bool once, int64_t timeout_ms, int mss, int *fd,
			int64_t *waited_ms, iw_err *e)
{
	int64_t t0 = iw_net_now_ms();
	*waited_ms = 0;
	if (timeout_ms <= 0)
		timeout_ms = drv->cfg->connect_timeout_ms;
	/* The wait never shortens the patience the case would have had without it: a driver's
	 * connect retries refusals for timeout_ms; only a single attempt had none. */
	int64_t until = w->until_ms;
	bool by_wait = true;
	if (!(once && drv->ops->connect_once) && t0 + timeout_ms > until) {
		until = t0 + timeout_ms;
		by_wait = false;
	}
	int64_t backoff = BACKOFF_FIRST_MS;
	bool refused = false;
	for (;;) {
		int64_t left = until - iw_net_now_ms();
		int rc;
		if (drv->ops->connect_once)
			rc = drv->ops->connect_once(drv, fd, timeout_ms, mss, e);
		else
			rc = drv->ops->connect(drv, fd, left < 1 ? 1 : left < SLICE_MS ? left : SLICE_MS, mss, e);
		int64_t now = iw_net_now_ms();
		if (rc != IW_NET_EREFUSED) {
			if (rc == IW_OK && refused)
				*waited_ms = now - t0;
			return rc;
		}
		refused = true;
		if (now >= until)
			break;
		if (by_wait)
			announce(w);
		if (!nap(until - now < backoff ? until - now : backoff))
			return iw_errf(e, IW_ESTATE, "interrupted by %s while waiting for %s to listen (%s)",
				       iw_interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT", w->dut, w->how);
		backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
	/* The case's own patience ran out, not the wait: the driver's message says it as ever. */
	if (!by_wait)
		return IW_NET_EREFUSED;
	char d[32];
	iw_wait_dut_fmt(w->wait_ms, d, sizeof d);
	return iw_errf(e, IW_NET_EREFUSED, "%s refused every connection for %s (%s): %s", w->dut, d, w->how,
		       w->exec ? "does the command listen on {port}?" : "is it started?");
}
