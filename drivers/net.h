/*
 * net.h - the few socket operations the drivers and the built-in DUT need, each bounded by
 * a timeout so nothing in the harness can hang on a DUT that stops talking.
 *
 * Every function returns IW_OK or a negative iw_rc with a message naming the address and
 * the system error; iw_net_read returns a status (data, end of stream, reset, timeout) since
 * how a DUT ends a connection is itself something the suite judges (FIN versus RST).
 * Sockets returned are blocking with TCP_NODELAY set, unless a function says otherwise.
 */
#ifndef IW_NET_H
#define IW_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

#define IW_NET_HOST_MAX 256

/* Monotonic milliseconds, for deadlines. */
int64_t iw_net_now_ms(void);

/* Splits "HOST:PORT" or "[V6ADDR]:PORT" into host and port (1..65535). */
int iw_net_parse_hostport(const char *s, char *host, size_t host_cap, uint16_t *port, iw_err *e);

/* A connection attempt whose handshake completed and which the peer then reset before the
 * attempt could report success (SO_ERROR ECONNRESET): the DUT took the connection and answered
 * with RST at once. That is the DUT's answer to this connection, to be judged, so it is never
 * retried as a refusal is (a retry would judge a second connection in its place). */
#define IW_NET_ERESET_AT_ONCE (-30)

/* A connection attempt the peer refused (ECONNREFUSED): nothing listens at the address, which
 * for a DUT still starting means not yet. iwspec run --wait-dut retries exactly this. */
#define IW_NET_EREFUSED (-31)

/* One connection attempt, bounded by timeout_ms (<= 0: 5 s). mss > 0 is the MSS this end
 * advertises (TCP_MAXSEG before connect; Linux takes 88 and up), 0 the kernel's.
 * IW_NET_ERESET_AT_ONCE and IW_NET_EREFUSED as above. */
int iw_net_connect_once(const char *host, uint16_t port, int64_t timeout_ms, int mss, int *fd, iw_err *e);

/* Connects, retrying every 20 ms while the peer refuses (a DUT still starting up) until
 * timeout_ms has passed (then the last attempt's code: IW_NET_EREFUSED when it was refused); a
 * connection reset at once (IW_NET_ERESET_AT_ONCE) is returned, not retried. */
int iw_net_connect(const char *host, uint16_t port, int64_t timeout_ms, int mss, int *fd, iw_err *e);

/* Starts a non-blocking connect; *in_progress tells whether completion must be awaited
 * (POLLOUT, then iw_net_connect_result). The socket is non-blocking. */
int iw_net_connect_start(const char *host, uint16_t port, int mss, int *fd, bool *in_progress, iw_err *e);

/* The outcome of a non-blocking connect once the socket is writable (the message is the
 * system's, e.g. "Connection refused": the caller names the address; IW_NET_EREFUSED then). */
int iw_net_connect_result(int fd, iw_err *e);

/* Listens on host (NULL: 127.0.0.1) at *port; *port 0 picks an ephemeral port and returns it.
 * SO_REUSEADDR is set; a port still in use is said with who holds it (iw_net_port_busy_why). */
int iw_net_listen(const char *host, uint16_t *port, int *fd, iw_err *e);

/* Why a TCP port cannot be bound, from the kernel's socket tables (net_port.c): another
 * listener, TIME-WAIT connections (those of outgoing connections, which SO_REUSEADDR cannot
 * override, with the way out), or open ones; "" when none is found. */
void iw_net_port_busy_why(uint16_t port, char *buf, size_t cap);

/* Accepts one connection within timeout_ms (blocking socket, TCP_NODELAY). */
int iw_net_accept(int lfd, int64_t timeout_ms, int *fd, iw_err *e);

enum iw_net_status {
	IW_NET_DATA = 0,        /* *n > 0 octets were read */
	IW_NET_EOF = 1,         /* the peer closed its half (FIN) */
	IW_NET_RESET = 2,       /* the peer reset the connection (RST) */
	IW_NET_TIMEOUT = 3,     /* nothing within timeout_ms */
};

/* Reads at most cap octets, waiting up to timeout_ms (0: do not wait; < 0: wait forever).
 * Returns an iw_net_status, or a negative iw_rc on any other error. */
int iw_net_read(int fd, void *buf, size_t cap, int64_t timeout_ms, size_t *n, iw_err *e);

/* Writes all len octets within timeout_ms. IW_ESTATE when the peer reset or closed. */
int iw_net_write_all(int fd, const void *buf, size_t len, int64_t timeout_ms, iw_err *e);

/* Closes with FIN: half-closes, then discards what the peer still sends for up to linger_ms
 * (so unread data does not turn the close into a RST), then closes. */
void iw_net_close_fin(int fd, int64_t linger_ms);

/* Closes with RST (SO_LINGER with a zero timeout). */
void iw_net_reset(int fd);

/* How many out-of-order segments the kernel's TCP has received on fd (TCP_INFO's
 * tcpi_rcv_ooopack, Linux 5.4 and later): a hole the peer's TCP made and then filled.
 * -1 when the kernel does not tell (net_tcpinfo.c). */
int iw_net_tcp_ooo_packets(int fd, uint32_t *n);

int iw_net_set_nonblock(int fd, bool on);
void iw_net_nodelay(int fd);

/* A port that was free a moment ago on 127.0.0.1 (for DUTs that must listen themselves), below
 * the ephemeral range when it can be, so no port-0 bind or outgoing connection takes it first.
 * *hold is a socket that keeps other harnesses from choosing the same port until it is closed
 * (close it when the DUT is gone), or -1. */
int iw_net_free_port(uint16_t *port, int *hold, iw_err *e);

#endif
