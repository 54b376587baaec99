/*
 * exec_conn_raw.c - a case's connection over the raw segment path (suite/rawtcp/, docs/raw-segments.md):
 * the harness is the TCP sender, through the TAP device the DUT configuration's raw_link names,
 * so `segment` steps can send the stream's octets in any order, twice, or late. Everything else
 * goes in order, in segments of the DUT's MSS, as the kernel would send it. Every frame sent and
 * received is kept for the case's pcap (IW_TCP_FRAME), in the order it went.
 */
#include "exec_int.h"

#include <arpa/inet.h>
#include <string.h>

#include "interrupt.h"
#include "net.h"

static void on_frame(void *arg, enum iw_raw_dir dir, const uint8_t *frame, size_t len, uint64_t usec)
{
	(void)usec;
	hconn *h = arg;
	iw_result_tcp(h->x->r, IW_TCP_FRAME, dir == IW_RAW_TX ? IW_TO_DUT : IW_FROM_DUT, h->no, ex_tcase(h->x), frame, len);
}

/* Ctrl-C ends every wait on the raw path within 100 ms, as on the socket path (exec_io.c). */
static bool stop_asked(void *unused)
{
	(void)unused;
	return iw_interrupted();
}

static int raw_io_recv(hconn *h, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e)
{
	*got = 0;
	int rc = iw_raw_recv(h->raw, buf, cap, got, timeout_ms, e);
	if (rc == IW_OK)
		return *got ? EX_IO_OK : EX_IO_FIN;
	if (rc == IW_RAW_ETIMEDOUT || rc == IW_RAW_ESTOPPED)
		return EX_IO_AGAIN; /* the caller sees the interruption itself */
	return rc == IW_RAW_ERESET ? EX_IO_RST : EX_IO_ERR;
}

/* The octets join the stream at once: on a timeout (the DUT's window stayed shut) they are not
 * offered again, and the case's expectations judge what the DUT did with the rest. */
static int raw_io_send(hconn *h, const uint8_t *b, size_t n, size_t *sent, int timeout_ms, iw_err *e)
{
	*sent = 0;
	int rc = iw_raw_send(h->raw, b, n, timeout_ms, e);
	if (rc == IW_OK) {
		*sent = n;
		return EX_IO_OK;
	}
	if (rc == IW_RAW_ESTOPPED)
		return EX_IO_AGAIN;
	return rc == IW_RAW_ERESET ? EX_IO_RST : EX_IO_ERR;
}

static void raw_io_shutdown(hconn *h)
{
	iw_err e;
	iw_raw_close(h->raw, 0, &e); /* sends the FIN; the DUT's octets and FIN come later */
}

static void raw_io_reset(hconn *h)
{
	iw_err e;
	iw_raw_reset(h->raw, &e);
	iw_raw_free(h->raw);
	h->raw = NULL;
}

/* A graceful end when the DUT answers at once; the link must be free for the next connection. */
static void raw_io_close(hconn *h)
{
	iw_err e;
	if (iw_raw_close(h->raw, 300, &e) != IW_OK)
		iw_raw_reset(h->raw, &e);
	iw_raw_free(h->raw);
	h->raw = NULL;
}

const ex_conn_ops ex_conn_raw = {"raw", raw_io_recv, raw_io_send, raw_io_shutdown, raw_io_reset, raw_io_close};

int ex_raw_open(ctx *x, hconn *h, int64_t timeout_ms, int mss, iw_err *e)
{
	const iw_dut_config *d = &x->o->dut;
	if (x->dut_role != IW_ROLE_RESPONDER) {
		ex_skip(x, "the raw segment path connects to the DUT; a DUT in the initiator role is not supported "
			"there (raw_link %s:%s)", d->raw_netns, d->raw_ifname);
		return EX_RAW_JUDGED;
	}
	/* One TAP descriptor, one connection: a second one while the case holds one (a liveness
	 * probe, a second `startup`) cannot be opened here, which is the path's limit, not the DUT's. */
	for (int i = 0; i < x->nconns; i++)
		if (&x->conns[i] != h && x->conns[i].io == &ex_conn_raw) {
			ex_skip(x, "the raw segment path takes one connection at a time (one TAP), and this case opens "
				"another while connection %d is open", x->conns[i].no);
			return EX_RAW_JUDGED;
		}
	char host[IW_NET_HOST_MAX];
	uint16_t port = 0;
	iw_raw_opts o;
	iw_raw_opts_default(&o);
	if (strncmp(d->dut, "tcp:", 4) || iw_net_parse_hostport(d->dut + 4, host, sizeof host, &port, e) ||
	    inet_pton(AF_INET, host, o.dut_ip) != 1) {
		ex_herror(x, "raw_link needs dut = tcp:A.B.C.D:PORT (an IPv4 address on the TAP's subnet); the DUT is "
			  "'%s'", d->dut);
		return EX_RAW_JUDGED;
	}
	o.dut_port = port;
	o.mss = mss > 0 ? (uint16_t)mss : 0;
	o.on_frame = on_frame;
	o.frame_ctx = h;
	o.stop = stop_asked;
	h->x = x;
	iw_raw_link link;
	int rc = iw_raw_tap_open(&link, d->raw_netns[0] ? d->raw_netns : NULL, d->raw_ifname, e);
	if (rc == IW_RAW_EPERM) {
		ex_skip(x, "the raw segment path is not available: %s", e->msg);
		return EX_RAW_JUDGED;
	}
	if (rc != IW_OK) {
		ex_herror(x, "cannot open the raw link %s:%s: %s", d->raw_netns, d->raw_ifname, e->msg);
		return EX_RAW_JUDGED;
	}
	rc = iw_raw_connect(&h->raw, &link, &o, (int)timeout_ms, e);
	if (rc != IW_OK)
		return rc;
	h->io = &ex_conn_raw;
	iw_raw_stats st;
	iw_raw_stats_get(h->raw, &st);
	uint32_t ours = o.mss ? o.mss : 1460;
	h->mss = st.dut_mss < ours ? st.dut_mss : ours;
	return IW_OK;
}
