/*
 * netfuzz_bench.c - the loopback baseline the network fuzzer's speed is measured against:
 * connect + a 20-octet exchange + close, against a trivial echo server on a thread of this
 * process. The client connects the way the fuzzer does (a blocking loopback connect to a
 * known address, TCP_NODELAY), so the ratio of the two rates shows what the fuzzer costs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"
#include "netfuzz.h"

typedef struct echo_srv {
	int lfd;
	int stop_pipe[2];
	pthread_t thr;
} echo_srv;

static void *echo_main(void *arg)
{
	echo_srv *s = arg;
	for (;;) {
		struct pollfd pf[2] = {{.fd = s->lfd, .events = POLLIN}, {.fd = s->stop_pipe[0], .events = POLLIN}};
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		if (!(pf[0].revents & POLLIN))
			continue;
		int fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		uint8_t b[64];
		for (;;) {
			ssize_t n = recv(fd, b, sizeof b, 0);
			if (n <= 0)
				break;
			if (send(fd, b, (size_t)n, MSG_NOSIGNAL) != n)
				break;
		}
		close(fd);
	}
	return NULL;
}

double nf_bare_rate(int64_t ms, iw_err *e)
{
	echo_srv s;
	uint16_t port = 0;
	if (iw_net_listen("127.0.0.1", &port, &s.lfd, e) != IW_OK)
		return -1;
	if (pipe(s.stop_pipe) != 0) {
		close(s.lfd);
		iw_errf(e, IW_ESTATE, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pthread_create(&s.thr, NULL, echo_main, &s) != 0) {
		close(s.lfd);
		close(s.stop_pipe[0]);
		close(s.stop_pipe[1]);
		iw_errf(e, IW_ESTATE, "cannot start the echo server thread");
		return -1;
	}
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	uint64_t n = 0;
	int64_t t0 = iw_net_now_ms(), t1 = t0;
	double rate = -1;
	while ((t1 = iw_net_now_ms()) - t0 < ms) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			break;
		int one = 1;
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
			close(fd);
			iw_errf(e, IW_ESTATE, "connect to the echo server: %s", strerror(errno));
			goto out;
		}
		uint8_t b[20] = "iwspec bare loopbac";
		ssize_t w = send(fd, b, sizeof b, MSG_NOSIGNAL);
		size_t got = 0;
		while (w == (ssize_t)sizeof b && got < sizeof b) {
			ssize_t k = recv(fd, b + got, sizeof b - got, 0);
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		close(fd);
		if (got != sizeof b) {
			iw_errf(e, IW_ESTATE, "the echo exchange failed after %llu connections", (unsigned long long)n);
			goto out;
		}
		n++;
	}
	rate = t1 > t0 ? (double)n * 1000.0 / (double)(t1 - t0) : 0;
out:;
	char c = 's';
	ssize_t wr = write(s.stop_pipe[1], &c, 1);
	(void)wr;
	pthread_join(s.thr, NULL);
	close(s.lfd);
	close(s.stop_pipe[0]);
	close(s.stop_pipe[1]);
	return rate;
}
