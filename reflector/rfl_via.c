/*
 * --via AGENT --connect TARGET | --listen PORT: the harness-side half of --agent (rfl_agent.c
 * has the protocol). It behaves like the run it stands for: prints that run's output and exits with its
 * status, 128+N when the run was killed by signal N (as a shell reports it, which the exec
 * driver reads as a crash). A SIGTERM from the harness closes the control connection's sending
 * half, which stops the run on the agent's host, and exits 0 once the agent says the run has
 * ended (at most STOP_MS): the run's port is free when we are gone, so an exec driver that
 * starts the next instance at once does not meet the last one still listening on it.
 */
#include "reflector.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_MS 10000
#define STOP_MS 3000

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int dial(const char *agent, iw_err *e)
{
	struct sockaddr_storage ss;
	char host[64];
	unsigned port;
	if (rfl_parse_hostport(agent, &ss, host, sizeof host, &port, e))
		return -1;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rfl_sys_err(e, "socket");
	if (rfl_nonblock(fd, e)) {
		close(fd);
		return -1;
	}
	socklen_t len = ss.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int rc = connect(fd, (struct sockaddr *)&ss, len);
	if (rc && errno == EINPROGRESS) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int err = ETIMEDOUT;
		socklen_t el = sizeof err;
		if (poll(&p, 1, CONNECT_MS) == 1)
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
		errno = err;
		rc = err ? -1 : 0;
	}
	if (rc) {
		iw_errf(e, -1, "cannot reach the agent at %s: %s (is it running there? `iwspec-reflector --agent PORT`;"
			       " for siw, tools/siw-guest/boot.sh)", agent, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Handles one line from the agent: 0 while the run goes on, 1 with *status set when it ended,
 * -1 with e filled. */
static int on_line(const char *line, int *status, iw_err *e)
{
	if (!strncmp(line, "out ", 4)) {
		printf("%s\n", line + 4);
		fflush(stdout);
		return 0;
	}
	if (!strncmp(line, "exit ", 5)) {
		*status = atoi(line + 5) & 0xff;
		return 1;
	}
	if (!strncmp(line, "signal ", 7)) {
		*status = 128 + (atoi(line + 7) & 0x3f);
		return 1;
	}
	if (!strncmp(line, "error ", 6))
		return iw_errf(e, -1, "the agent refused the request: %s", line + 6);
	return iw_errf(e, -1, "the agent sent '%.60s', which is not its protocol", line);
}

int rfl_via_run(const char *agent, const char *target, unsigned listen_port, const char *app, iw_err *e)
{
	struct sockaddr_storage ss;
	char host[64];
	unsigned port = listen_port;
	if (target && rfl_parse_hostport(target, &ss, host, sizeof host, &port, e))
		return -1;
	int fd = dial(agent, e);
	if (fd < 0)
		return -1;
	char req[128];
	bool rping = app != NULL;   /* rping or perftest: a program of rdma-core's, not ourselves */
	const char *pre = app ? app : "";
	int n = target ? snprintf(req, sizeof req, "%s%sconnect %s %u\n", pre, app ? "-" : "", host, port)
		       : snprintf(req, sizeof req, "%s%slisten %u\n", pre, app ? "-" : "", port);
	if (write(fd, req, (size_t)n) != n) {
		rfl_sys_err(e, "sending the request to the agent");
		close(fd);
		return -1;
	}
	char acc[1024];
	size_t len = 0;
	int status = -1, r = 0;
	int64_t stop_by = 0;
	while (r == 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (rfl_stop && !stop_by) {
			shutdown(fd, SHUT_WR);
			stop_by = now_ms() + STOP_MS;
		}
		if (stop_by && now_ms() >= stop_by)
			break;
		if (poll(&p, 1, rfl_stop ? 100 : 500) <= 0)
			continue;
		ssize_t k = read(fd, acc + len, sizeof acc - 1 - len);
		if (k < 0 && errno == EAGAIN)
			continue;
		if (k <= 0) {
			iw_errf(e, -1, "the agent at %s closed the control connection before the run ended", agent);
			break;
		}
		len += (size_t)k;
		acc[len] = 0;
		char *nl;
		while (r == 0 && (nl = strchr(acc, '\n'))) {
			*nl = 0;
			r = on_line(acc, &status, e);
			len -= (size_t)(nl + 1 - acc);
			memmove(acc, nl + 1, len + 1);
		}
		if (len == sizeof acc - 1) /* a line longer than the agent ever sends */
			len = 0;
	}
	close(fd);
	/* Stopped by the harness: the run's end by our stop is not a finding (a crash it reported
	 * still is). */
	if (rfl_stop && (r == 0 || status == 128 + SIGTERM || status == 128 + SIGKILL))
		return 0;
	/* rping and perftest exit non-zero whenever their flow breaks, and the cases break it on
	 * purpose (a Terminate, a closed connection): those outcomes are the cases' to judge, so only
	 * a signal (a crash) stays a finding for the exec driver. rping's client returns -1 from
	 * main when its connection fails: status 255, no signal's (129-192). */
	if (rping && r >= 0 && (status == 126 || status == 127))
		return iw_errf(e, -1, "the agent could not start %s on its host (exit %d): is it installed there (Debian: "
			       "rdmacm-utils for rping, perftest for ib_*_bw)?", app, status);
	if (rping && r >= 0 && ((status > 0 && status < 128) || status == 255)) {
		fprintf(stderr, "iwspec-reflector via: %s exited %d (its flow ended in an error; not a crash)\n", app, status);
		status = 0;
	}
	return r < 0 ? -1 : status;
}
