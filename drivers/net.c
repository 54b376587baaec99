/* accept4(): an accepted socket is close-on-exec from the start, so a DUT process another
 * worker forks at that moment cannot inherit it (runner.c runs cases in parallel). */
#define _GNU_SOURCE
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int64_t iw_net_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* poll() that survives signals and never waits past the deadline. */
static int poll_until(struct pollfd *p, nfds_t n, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline < 0 ? -1 : deadline - iw_net_now_ms();
		if (deadline >= 0 && left < 0)
			left = 0;
		int r = poll(p, n, left > 1000000 ? 1000000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

int iw_net_parse_hostport(const char *s, char *host, size_t host_cap, uint16_t *port, iw_err *e)
{
	const char *colon, *hs = s;
	size_t hlen;
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':')
			return iw_errf(e, IW_EINVAL, "'%s': expected [ADDRESS]:PORT", s);
		hs = s + 1;
		hlen = (size_t)(rb - hs);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return iw_errf(e, IW_EINVAL, "'%s': expected HOST:PORT", s);
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0)
		return iw_errf(e, IW_EINVAL, "'%s': the host is empty (expected HOST:PORT)", s);
	if (hlen >= host_cap)
		return iw_errf(e, IW_EINVAL, "'%s': host name too long", s);
	char *end;
	errno = 0;
	unsigned long p = strtoul(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno || p == 0 || p > 65535 || colon[1] == '-' || colon[1] == '+')
		return iw_errf(e, IW_EINVAL, "'%s': port '%s' is not a number from 1 to 65535", s, colon + 1);
	memcpy(host, hs, hlen);
	host[hlen] = '\0';
	*port = (uint16_t)p;
	return IW_OK;
}

static int resolve(const char *host, uint16_t port, bool passive, struct addrinfo **res, iw_err *e)
{
	struct addrinfo hints;
	char ps[8];
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	snprintf(ps, sizeof ps, "%u", (unsigned)port);
	int r = getaddrinfo(host, ps, &hints, res);
	if (r != 0)
		return iw_errf(e, IW_EINVAL, "cannot resolve '%s': %s", host ? host : "(any)", gai_strerror(r));
	return IW_OK;
}

int iw_net_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
	return fcntl(fd, F_SETFL, fl);
}

void iw_net_nodelay(int fd)
{
	int one = 1;
	/* Best effort: small startup frames must not wait for Nagle. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int iw_net_connect_start(const char *host, uint16_t port, int mss, int *fd, bool *in_progress, iw_err *e)
{
	struct addrinfo *res;
	int rc = resolve(host, port, false, &res, e);
	if (rc)
		return rc;
	int err = 0;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (s < 0) {
			err = errno;
			continue;
		}
		iw_net_set_nonblock(s, true);
		iw_net_nodelay(s);
		/* The SYN carries the MSS option, so it is set before connect or not at all. */
		if (mss > 0 && setsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss) < 0) {
			int serr = errno;
			close(s);
			freeaddrinfo(res);
			return iw_errf(e, IW_EINVAL, "advertising MSS %d to %s:%u: %s%s", mss, host, (unsigned)port,
				       strerror(serr), serr == EINVAL ? " (Linux's TCP takes 88 and up)" : "");
		}
		int cr = connect(s, ai->ai_addr, ai->ai_addrlen);
		if (cr == 0 || errno == EINPROGRESS) {
			*in_progress = cr != 0;
			*fd = s;
			freeaddrinfo(res);
			return IW_OK;
		}
		err = errno;
		close(s);
	}
	freeaddrinfo(res);
	return iw_errf(e, err == ECONNREFUSED ? IW_NET_EREFUSED : IW_ESTATE, "connect to %s:%u: %s", host,
		       (unsigned)port, strerror(err));
}

int iw_net_connect_result(int fd, iw_err *e)
{
	int err = 0;
	socklen_t len = sizeof err;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == ECONNRESET || err == EPIPE)
		return iw_errf(e, IW_NET_ERESET_AT_ONCE, "the DUT reset the connection (RST) right after the handshake");
	if (err)
		return iw_errf(e, err == ECONNREFUSED ? IW_NET_EREFUSED : IW_ESTATE, "%s", strerror(err));
	return IW_OK;
}

int iw_net_connect_once(const char *host, uint16_t port, int64_t timeout_ms, int mss, int *fd, iw_err *e)
{
	int s;
	bool wait;
	if (timeout_ms <= 0)
		timeout_ms = 5000;
	int rc = iw_net_connect_start(host, port, mss, &s, &wait, e);
	if (rc)
		return rc;
	if (wait) {
		struct pollfd p = { .fd = s, .events = POLLOUT };
		int r = poll_until(&p, 1, iw_net_now_ms() + timeout_ms);
		if (r == 0) {
			close(s);
			return iw_errf(e, IW_ESTATE, "connect to %s:%u: no answer within %lld ms", host,
				       (unsigned)port, (long long)timeout_ms);
		}
		iw_err ce;
		rc = iw_net_connect_result(s, &ce);
		if (rc) {
			close(s);
			return iw_errf(e, rc, "connect to %s:%u: %s", host, (unsigned)port, ce.msg);
		}
	}
	iw_net_set_nonblock(s, false);
	*fd = s;
	return IW_OK;
}

int iw_net_connect(const char *host, uint16_t port, int64_t timeout_ms, int mss, int *fd, iw_err *e)
{
	if (timeout_ms <= 0)
		timeout_ms = 5000;
	int64_t deadline = iw_net_now_ms() + timeout_ms;
	for (;;) {
		int64_t left = deadline - iw_net_now_ms();
		int rc = iw_net_connect_once(host, port, left > 0 ? left : 1, mss, fd, e);
		if (rc == IW_OK || rc == IW_NET_ERESET_AT_ONCE)
			return rc;
		if (iw_net_now_ms() + 20 >= deadline)
			return rc;
		sleep_ms(20);
	}
}

int iw_net_listen(const char *host, uint16_t *port, int *fd, iw_err *e)
{
	struct addrinfo *res;
	const char *h = host ? host : "127.0.0.1";
	int rc = resolve(h, *port, true, &res, e);
	if (rc)
		return rc;
	int err = 0;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (s < 0) {
			err = errno;
			continue;
		}
		int one = 1;
		(void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(s, ai->ai_addr, ai->ai_addrlen) == 0 && listen(s, 64) == 0) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof ss;
			if (getsockname(s, (struct sockaddr *)&ss, &sl) == 0) {
				if (ss.ss_family == AF_INET)
					*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
				else if (ss.ss_family == AF_INET6)
					*port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
			}
			*fd = s;
			freeaddrinfo(res);
			return IW_OK;
		}
		err = errno;
		close(s);
	}
	freeaddrinfo(res);
	char why[400] = "";
	if (err == EADDRINUSE && *port)
		iw_net_port_busy_why(*port, why, sizeof why);
	return iw_errf(e, IW_ESTATE, "listen on %s:%u: %s%s%s", h, (unsigned)*port, strerror(err), why[0] ? ": " : "",
		       why);
}

int iw_net_accept(int lfd, int64_t timeout_ms, int *fd, iw_err *e)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int r = poll_until(&p, 1, timeout_ms < 0 ? -1 : iw_net_now_ms() + timeout_ms);
	if (r < 0)
		return iw_errf(e, IW_ESTATE, "accept: poll: %s", strerror(errno));
	if (r == 0)
		return iw_errf(e, IW_ESTATE, "accept: the DUT did not connect within %lld ms", (long long)timeout_ms);
	int s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		return iw_errf(e, IW_ESTATE, "accept: %s", strerror(errno));
	iw_net_set_nonblock(s, false);
	iw_net_nodelay(s);
	*fd = s;
	return IW_OK;
}

int iw_net_read(int fd, void *buf, size_t cap, int64_t timeout_ms, size_t *n, iw_err *e)
{
	*n = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll_until(&p, 1, timeout_ms < 0 ? -1 : iw_net_now_ms() + timeout_ms);
	if (r < 0)
		return iw_errf(e, IW_ESTATE, "read: poll: %s", strerror(errno));
	if (r == 0)
		return IW_NET_TIMEOUT;
	for (;;) {
		ssize_t k = recv(fd, buf, cap, MSG_DONTWAIT);
		if (k > 0) {
			*n = (size_t)k;
			return IW_NET_DATA;
		}
		if (k == 0)
			return IW_NET_EOF;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return IW_NET_TIMEOUT;
		if (errno == ECONNRESET || errno == EPIPE)
			return IW_NET_RESET;
		return iw_errf(e, IW_ESTATE, "read: %s", strerror(errno));
	}
}

int iw_net_write_all(int fd, const void *buf, size_t len, int64_t timeout_ms, iw_err *e)
{
	const uint8_t *p = buf;
	int64_t deadline = timeout_ms < 0 ? -1 : iw_net_now_ms() + timeout_ms;
	while (len > 0) {
		ssize_t k = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k > 0) {
			p += k;
			len -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			int r = poll_until(&pf, 1, deadline);
			if (r == 0)
				return iw_errf(e, IW_ESTATE, "write: the peer took no data for %lld ms (%zu octets left)",
					       (long long)timeout_ms, len);
			continue;
		}
		if (k < 0 && (errno == ECONNRESET || errno == EPIPE))
			return iw_errf(e, IW_ESTATE, "write: the peer %s the connection",
				       errno == EPIPE ? "closed" : "reset");
		return iw_errf(e, IW_ESTATE, "write: %s", k < 0 ? strerror(errno) : "no progress");
	}
	return IW_OK;
}

void iw_net_close_fin(int fd, int64_t linger_ms)
{
	if (fd < 0)
		return;
	shutdown(fd, SHUT_WR);
	int64_t deadline = iw_net_now_ms() + linger_ms;
	uint8_t junk[4096];
	for (;;) {
		int64_t left = deadline - iw_net_now_ms();
		if (left <= 0)
			break;
		size_t n;
		int st = iw_net_read(fd, junk, sizeof junk, left, &n, NULL);
		if (st != IW_NET_DATA)
			break;
	}
	close(fd);
}

void iw_net_reset(int fd)
{
	if (fd < 0)
		return;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	close(fd);
}

/* The kernel's ephemeral range (where bind to port 0 and outgoing connections take ports). */
static void ephemeral_range(unsigned *lo, unsigned *hi)
{
	*lo = 32768;
	*hi = 60999;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	if (!f)
		return;
	unsigned a, b;
	if (fscanf(f, "%u %u", &a, &b) == 2 && a <= b && b <= 65535) {
		*lo = a;
		*hi = b;
	}
	fclose(f);
}

/* A UDP socket on 127.0.0.1:port, or -1 when another one holds the number. */
static int hold_udp(uint16_t port)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof a) != 0) {
		close(s);
		return -1;
	}
	return s;
}

int iw_net_free_port(uint16_t *port, int *hold, iw_err *e)
{
	/* The port is free now; the command binds it a little later. A port from the ephemeral
	 * range could be taken in between by any socket bound to port 0 or any outgoing
	 * connection (another run's built-in DUT, say), so it comes from below that range. Another
	 * harness choosing at the same moment is kept off by the UDP socket on the same number:
	 * it is in nobody's way but another harness's (the DUT binds TCP). */
	*hold = -1;
	unsigned lo, hi;
	ephemeral_range(&lo, &hi);
	enum { BELOW = 10000, TRIES = 64 };
	static _Atomic unsigned long counter;
	unsigned long seed = (unsigned long)getpid() * 2654435761ul ^ (unsigned long)iw_net_now_ms() ^
			     ++counter * 0x9E3779B9ul;
	for (int i = 0; lo > BELOW + 1024 && i < TRIES; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		uint16_t p = (uint16_t)(BELOW + (seed >> 33) % (lo - BELOW));
		int h = hold_udp(p), fd;
		if (h < 0)
			continue;
		if (iw_net_listen("127.0.0.1", &p, &fd, NULL) == IW_OK) {
			close(fd);
			*port = p;
			*hold = h;
			return IW_OK;
		}
		close(h);
	}
	int fd;
	*port = 0;
	int rc = iw_net_listen("127.0.0.1", port, &fd, e);
	if (rc)
		return rc;
	close(fd);
	return IW_OK;
}
