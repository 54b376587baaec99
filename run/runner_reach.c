/*
 * runner_reach.c - reaching a DUT that listens on its own (tcp:HOST:PORT) with one connection
 * attempt (runner.h iw_reach_once).
 *
 * The drivers retry a refused connection until connect_timeout, for a DUT that is still
 * starting or restarting its listener between cases. Before any case has reached the DUT that
 * patience only hides its absence: 152 cases each retrying for 5 s take 13 minutes to say
 * "connection refused". So until then the runner asks for a single attempt, made here rather
 * than through the driver (whose connect always retries), and the connection it opens is the
 * case's own: no extra connection reaches the DUT (a connection closed before its Request breaks
 * some DUTs' listeners, docs/interop/linux-siw.md F3).
 */
#include "runner.h"

#include <string.h>

#include "iw_conn.h"
#include "net.h"

int iw_reach_once(const iw_dut_config *d, int64_t timeout_ms, int mss, int *fd, iw_err *e)
{
	if (strncmp(d->dut, "tcp:", 4) != 0 || d->role != IW_ROLE_RESPONDER)
		return IW_EINVAL;
	char host[IW_NET_HOST_MAX];
	uint16_t port;
	iw_err pe;
	/* A bad address is the driver's to report. */
	if (iw_net_parse_hostport(d->dut + 4, host, sizeof host, &port, &pe) != IW_OK)
		return IW_EINVAL;
	int rc = iw_net_connect_once(host, port, timeout_ms > 0 ? timeout_ms : d->connect_timeout_ms, mss, fd, &pe);
	if (rc != IW_OK)
		return iw_errf(e, rc == IW_NET_ERESET_AT_ONCE ? rc : IW_ESTATE, "tcp: %s", pe.msg);
	return IW_OK;
}
