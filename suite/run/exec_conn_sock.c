/*
 * exec_conn_sock.c - a case's connection over the kernel's TCP: a connected socket the driver
 * gave (exec_int.h, ex_conn_ops). Reads and writes never block past their timeout: receiving
 * polls first, sending is non-blocking and polls for room. And the stand-in for a connection the
 * DUT reset before the harness had its socket.
 */
#include "exec_int.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

static int sock_recv(hconn *h, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e)
{
	*got = 0;
	struct pollfd pfd = {.fd = h->fd, .events = POLLIN};
	int rc = poll(&pfd, 1, timeout_ms);
	if ((rc < 0 && errno == EINTR) || rc == 0)
		return EX_IO_AGAIN;
	if (rc < 0)
		return iw_errf(e, EX_IO_ERR, "poll failed: %s", strerror(errno));
	ssize_t n = recv(h->fd, buf, cap, 0);
	if (n > 0) {
		*got = (size_t)n;
		return EX_IO_OK;
	}
	if (n == 0)
		return EX_IO_FIN;
	if (errno == ECONNRESET)
		return EX_IO_RST;
	if (errno == EINTR || errno == EAGAIN)
		return EX_IO_AGAIN;
	return iw_errf(e, EX_IO_ERR, "receive failed: %s", strerror(errno));
}

static int sock_send(hconn *h, const uint8_t *b, size_t n, size_t *sent, int timeout_ms, iw_err *e)
{
	*sent = 0;
	ssize_t w = send(h->fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (w > 0) {
		*sent = (size_t)w;
		return EX_IO_OK;
	}
	if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		/* The DUT does not read: wait for room, at most the timeout and at most 100 ms, so the
		 * caller sees SIGINT/SIGTERM promptly (interrupt.h). */
		struct pollfd pfd = {.fd = h->fd, .events = POLLOUT};
		poll(&pfd, 1, timeout_ms < 100 ? timeout_ms : 100);
		return EX_IO_AGAIN;
	}
	int err = w < 0 ? errno : EPIPE;
	iw_errf(e, EX_IO_ERR, "%s", strerror(err));
	return err == ECONNRESET ? EX_IO_RST : EX_IO_ERR;
}

static void sock_shutdown(hconn *h) { shutdown(h->fd, SHUT_WR); }

static void sock_reset(hconn *h)
{
	iw_net_reset(h->fd);
	h->fd = -1;
}

static void sock_close(hconn *h)
{
	close(h->fd);
	h->fd = -1;
}

const ex_conn_ops ex_conn_socket = {"socket", sock_recv, sock_send, sock_shutdown, sock_reset, sock_close};

/* A connection the DUT reset right after the handshake, before the harness had the socket
 * (IW_NET_ERESET_AT_ONCE): nothing to read or write, and every attempt meets the reset. */
static int gone_recv(hconn *h, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e)
{
	(void)h, (void)buf, (void)cap, (void)timeout_ms;
	*got = 0;
	iw_errf(e, EX_IO_RST, "the DUT reset the connection right after the handshake");
	return EX_IO_RST;
}

static int gone_send(hconn *h, const uint8_t *b, size_t n, size_t *sent, int timeout_ms, iw_err *e)
{
	(void)b, (void)n, (void)timeout_ms;
	return gone_recv(h, NULL, 0, sent, 0, e);
}

static void gone_nothing(hconn *h) { (void)h; }

const ex_conn_ops ex_conn_reset_at_once = {"reset at once", gone_recv, gone_send, gone_nothing, gone_nothing,
					   gone_nothing};
