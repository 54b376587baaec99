/* tcp:HOST:PORT - a responder DUT that is already listening somewhere. */
#include "driver.h"

#include <stdlib.h>
#include <string.h>

#include "net.h"

typedef struct tcp_priv {
	char host[IW_NET_HOST_MAX];
	uint16_t port;
} tcp_priv;

static int tcp_case_begin(iw_driver *d, iw_err *e)
{
	(void)d;
	(void)e;
	return IW_OK;
}

/* One attempt, or attempts until the timeout while the DUT refuses; net.h's code goes up as it is
 * (a reset at once and an MSS the kernel refuses are not the DUT's absence). */
static int tcp_dial(iw_driver *d, bool once, int *fd, int64_t timeout_ms, int mss, iw_err *e)
{
	tcp_priv *t = d->priv;
	iw_err ce;
	if (timeout_ms <= 0)
		timeout_ms = d->cfg->connect_timeout_ms;
	int rc = once ? iw_net_connect_once(t->host, t->port, timeout_ms, mss, fd, &ce)
		      : iw_net_connect(t->host, t->port, timeout_ms, mss, fd, &ce);
	if (rc != IW_OK)
		return iw_errf(e, rc, "tcp: %s", ce.msg);
	return IW_OK;
}

static int tcp_connect(iw_driver *d, int *fd, int64_t timeout_ms, int mss, iw_err *e)
{
	return tcp_dial(d, false, fd, timeout_ms, mss, e);
}

static int tcp_connect_once(iw_driver *d, int *fd, int64_t timeout_ms, int mss, iw_err *e)
{
	return tcp_dial(d, true, fd, timeout_ms, mss, e);
}

static int tcp_accept(iw_driver *d, int *fd, int64_t timeout_ms, iw_err *e)
{
	(void)d;
	(void)fd;
	(void)timeout_ms;
	return iw_errf(e, IW_ESTATE, "tcp: driver cannot make the DUT connect; use exec:");
}

static int tcp_case_end(iw_driver *d, iw_dut_finding *f, iw_err *e)
{
	(void)d;
	(void)e;
	memset(f, 0, sizeof *f);
	return IW_OK;
}

static void tcp_destroy(iw_driver *d)
{
	free(d->priv);
	d->priv = NULL;
}

static const iw_driver_ops tcp_ops = {
	.name = "tcp",
	.case_begin = tcp_case_begin,
	.connect = tcp_connect,
	.accept = tcp_accept,
	.case_end = tcp_case_end,
	.destroy = tcp_destroy,
	.instruct = NULL,
	.connect_once = tcp_connect_once,
};

int iw_drv_tcp_open(iw_driver *d, iw_err *e)
{
	tcp_priv *t = calloc(1, sizeof *t);
	if (!t)
		return iw_errf(e, IW_ENOSPC, "tcp: out of memory");
	iw_err pe;
	if (iw_net_parse_hostport(d->cfg->dut + 4, t->host, sizeof t->host, &t->port, &pe) != IW_OK) {
		free(t);
		return iw_errf(e, IW_EINVAL, "DUT '%s': %s", d->cfg->dut, pe.msg);
	}
	d->ops = &tcp_ops;
	d->priv = t;
	return IW_OK;
}
