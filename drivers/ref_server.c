/*
 * ref_server.c - the built-in DUT's server: made, started, stopped; dialling out, accepting, and
 * the one poll() loop that steps every connection (ref_server_int.h lists the other files).
 */
/* accept4(): accepted sockets come out non-blocking and close-on-exec in one call. */
#define _GNU_SOURCE
#include "ref_server_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

void iw_ref_options_default(iw_ref_options *o)
{
	memset(o, 0, sizeof *o);
	o->profile = iw_profile_default();
	o->role = IW_ROLE_RESPONDER;
	o->reflector = true;
	o->reject_pd = true;
	o->startup_timeout_ms = 5000;
	o->idle_timeout_ms = 30000;
	snprintf(o->host, sizeof o->host, "127.0.0.1");
	o->max_conns = 64;
}

void rs_log(iw_ref_server *s, const rconn *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void rs_log(iw_ref_server *s, const rconn *c, const char *fmt, ...)
{
	if (!s->o.log)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (c)
		fprintf(s->o.log, "iwspec serve: connection %u (%s): ", c->id, c->peer);
	else
		fprintf(s->o.log, "iwspec serve: ");
	vfprintf(s->o.log, fmt, ap);
	fputc('\n', s->o.log);
	fflush(s->o.log);
	va_end(ap);
}

void rs_stat_add(iw_ref_server *s, uint64_t *field)
{
	pthread_mutex_lock(&s->mu);
	(*field)++;
	pthread_mutex_unlock(&s->mu);
}

static void wake(iw_ref_server *s)
{
	char b = 'w';
	/* The pipe is non-blocking: when it is full the loop is awake anyway. */
	ssize_t r = write(s->ctl[1], &b, 1);
	(void)r;
}

int iw_ref_server_new(iw_ref_server **out, const iw_ref_options *o, iw_err *e)
{
	*out = NULL;
	if (!o->profile)
		return iw_errf(e, IW_EINVAL, "ref server: no profile");
	if (o->pd_len > IW_REF_PD_MAX)
		return iw_errf(e, IW_EINVAL, "ref server: private data of %zu octets (at most %d)", o->pd_len,
			       IW_REF_PD_MAX);
	iw_ref_server *s = calloc(1, sizeof *s);
	if (!s)
		return iw_errf(e, IW_ENOSPC, "ref server: out of memory");
	s->o = *o;
	if (s->o.max_conns <= 0)
		s->o.max_conns = 64;
	if (s->o.startup_timeout_ms <= 0)
		s->o.startup_timeout_ms = 5000;
	if (s->o.idle_timeout_ms <= 0)
		s->o.idle_timeout_ms = 30000;
	s->lfd = -1;
	s->redial_ms = -1;
	s->ctl[0] = s->ctl[1] = -1;
	pthread_mutex_init(&s->mu, NULL);
	if (pipe(s->ctl) != 0) {
		int err = errno;
		iw_ref_server_free(s);
		return iw_errf(e, IW_ESTATE, "ref server: pipe: %s", strerror(err));
	}
	for (int i = 0; i < 2; i++) {
		iw_net_set_nonblock(s->ctl[i], true);
		(void)fcntl(s->ctl[i], F_SETFD, FD_CLOEXEC);
	}
	if (o->role == IW_ROLE_RESPONDER) {
		uint16_t port = o->port;
		int rc = iw_net_listen(o->host[0] ? o->host : NULL, &port, &s->lfd, e);
		if (rc) {
			iw_ref_server_free(s);
			return rc;
		}
		iw_net_set_nonblock(s->lfd, true);
		s->port = port;
		s->accepting = true;
	}
	*out = s;
	return IW_OK;
}

uint16_t iw_ref_server_port(const iw_ref_server *s) { return s->port; }

/* ---- dialling ---- */

static int dial(iw_ref_server *s, const char *host, uint16_t port, bool auto_dial, int64_t now, iw_err *e)
{
	int fd;
	bool wait;
	int rc = iw_net_connect_start(host, port, 0, &fd, &wait, e);
	if (rc) {
		rs_stat_add(s, &s->stats.dial_failures);
		return rc;
	}
	rconn *c = rs_conn_new(s, fd, wait ? RC_CONNECTING : RC_OPEN, now, e);
	if (!c) {
		close(fd);
		return IW_ENOSPC;
	}
	c->auto_dial = auto_dial;
	snprintf(c->peer, sizeof c->peer, "%s:%u", host, (unsigned)port);
	if (!wait) {
		s->dial_streak = 0;
		rs_conn_opened(s, c, now);
	}
	s->once_begun = true;
	return IW_OK;
}

int iw_ref_server_dial(iw_ref_server *s, const char *host, uint16_t port, iw_err *e)
{
	if (s->o.role != IW_ROLE_INITIATOR)
		return iw_errf(e, IW_ESTATE, "ref server: a responder does not connect out");
	pthread_mutex_lock(&s->mu);
	if (s->ndials == MAX_DIALS) {
		pthread_mutex_unlock(&s->mu);
		return iw_errf(e, IW_ENOSPC, "ref server: %d connection requests already pending", MAX_DIALS);
	}
	snprintf(s->dials[s->ndials].host, sizeof s->dials[0].host, "%s", host);
	s->dials[s->ndials].port = port;
	s->ndials++;
	pthread_mutex_unlock(&s->mu);
	wake(s);
	return IW_OK;
}

void iw_ref_server_configure(iw_ref_server *s, const iw_ref_options *o)
{
	pthread_mutex_lock(&s->mu);
	s->o.markers = o->markers;
	s->o.crc_off = o->crc_off;
	s->o.reject = o->reject;
	s->o.reflector = o->reflector;
	s->o.greeting = o->greeting;
	s->o.reject_pd = o->reject_pd;
	s->o.pd_len = o->pd_len <= IW_REF_PD_MAX ? o->pd_len : IW_REF_PD_MAX;
	memcpy(s->o.pd, o->pd, s->o.pd_len);
	s->o.hostile = o->hostile;
	s->o.mutant = o->mutant;
	s->o.perftest = o->perftest;     /* ulp = perftest: the program of the case (drv_ref.c) */
	pthread_mutex_unlock(&s->mu);
}

void iw_ref_server_stats(iw_ref_server *s, iw_ref_stats *st)
{
	pthread_mutex_lock(&s->mu);
	*st = s->stats;
	pthread_mutex_unlock(&s->mu);
}

/* ---- the loop ---- */

static void conn_ended(iw_ref_server *s, rconn *c, int64_t now);

/* Takes c off the list, and closes and frees it. */
static void conn_drop(iw_ref_server *s, rconn *c, int64_t now)
{
	for (rconn **pp = &s->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	conn_ended(s, c, now);
	rs_conn_free(s, c);
}

static void accept_all(iw_ref_server *s, int64_t now)
{
	while (s->accepting && s->nconns < s->o.max_conns) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		iw_net_nodelay(fd);
		iw_err e;
		rconn *c = rs_conn_new(s, fd, RC_OPEN, now, &e);
		if (!c) {
			rs_log(s, NULL, "cannot serve a connection: %s", e.msg);
			close(fd);
			continue;
		}
		rs_conn_opened(s, c, now);
		if (s->o.once) {
			/* Refuse further connections now, rather than let them queue and be reset. */
			s->accepting = false;
			s->once_begun = true;
			close(s->lfd);
			s->lfd = -1;
		}
		/* The peer has usually sent its first octets (the network fuzzer: its whole program and
		 * its FIN) by the time this thread accepts: read them now rather than one poll() later. */
		if (rs_want_read(c) && !rs_conn_readable(s, c, now))
			conn_drop(s, c, now);
	}
}

static void conn_ended(iw_ref_server *s, rconn *c, int64_t now)
{
	rs_log(s, c, "closed");
	if (c->auto_dial && !s->o.once)
		s->redial_ms = now + REDIAL_MS;
}

static void close_all(iw_ref_server *s)
{
	while (s->conns) {
		rconn *c = s->conns;
		s->conns = c->next;
		rs_conn_free(s, c);
	}
}

int iw_ref_server_run(iw_ref_server *s, volatile sig_atomic_t *stop, iw_err *e)
{
	int rc = IW_OK;
	if (s->o.role == IW_ROLE_INITIATOR && s->o.port)
		s->redial_ms = iw_net_now_ms();
	struct pollfd *pf = NULL;
	rconn **pc = NULL;
	size_t pcap = 0;
	for (;;) {
		int64_t now = iw_net_now_ms();
		if (stop && *stop)
			break;
		pthread_mutex_lock(&s->mu);
		bool stop_req = s->stop_req;
		int nd = s->ndials;
		struct { char host[IW_NET_HOST_MAX]; uint16_t port; } dials[MAX_DIALS];
		memcpy(dials, s->dials, sizeof dials);
		s->ndials = 0;
		pthread_mutex_unlock(&s->mu);
		if (stop_req)
			break;
		for (int i = 0; i < nd; i++) {
			iw_err de;
			if (dial(s, dials[i].host, dials[i].port, false, now, &de) != IW_OK) {
				rs_log(s, NULL, "%s", de.msg);
				if (s->o.once) {
					rc = iw_errf(e, IW_ESTATE, "%s", de.msg);
					goto out;
				}
			}
		}
		if (s->redial_ms >= 0 && now >= s->redial_ms) {
			s->redial_ms = -1;
			iw_err de;
			if (dial(s, s->o.host, s->o.port, true, now, &de) != IW_OK) {
				if (s->dial_streak++ == 0)
					rs_log(s, NULL, "%s (retrying every %d ms)", de.msg, REDIAL_MS);
				if (s->o.once) {
					rc = iw_errf(e, IW_ESTATE, "%s", de.msg);
					goto out;
				}
				s->redial_ms = now + REDIAL_MS;
			}
		}

		/* Step every connection; free the finished ones. */
		int64_t next = now + POLL_CAP_MS;
		for (rconn **pp = &s->conns; *pp;) {
			rconn *c = *pp;
			if (!rs_conn_step(s, c, now)) {
				*pp = c->next;
				conn_ended(s, c, now);
				rs_conn_free(s, c);
				continue;
			}
			if (c->wake_ms >= 0 && c->wake_ms < next)
				next = c->wake_ms;
			pp = &c->next;
		}
		if (s->o.once && s->once_begun && s->nconns == 0)
			break;
		if (s->redial_ms >= 0 && s->redial_ms < next)
			next = s->redial_ms;

		size_t need = 2 + (size_t)s->nconns;
		if (need > pcap) {
			size_t ncap = need * 2;
			struct pollfd *npf = realloc(pf, ncap * sizeof *pf);
			if (npf)
				pf = npf;
			rconn **npc = realloc(pc, ncap * sizeof *pc);
			if (npc)
				pc = npc;
			if (!npf || !npc) {
				rc = iw_errf(e, IW_ENOSPC, "ref server: out of memory");
				goto out;
			}
			pcap = ncap;
		}
		nfds_t n = 0;
		pf[n] = (struct pollfd){ .fd = s->ctl[0], .events = POLLIN };
		pc[n++] = NULL;
		int lidx = -1;
		if (s->lfd >= 0 && s->accepting && s->nconns < s->o.max_conns) {
			lidx = (int)n;
			pf[n] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
			pc[n++] = NULL;
		}
		for (rconn *c = s->conns; c; c = c->next) {
			short ev = 0;
			if (c->st == RC_CONNECTING || (c->st == RC_OPEN && c->tx.len))
				ev |= POLLOUT;
			if (rs_want_read(c))
				ev |= POLLIN;
			pf[n] = (struct pollfd){ .fd = c->fd, .events = ev };
			pc[n++] = c;
		}
		int64_t tmo = next - now;
		if (tmo < 0)
			tmo = 0;
		int pr = poll(pf, n, (int)tmo);
		if (pr < 0) {
			if (errno == EINTR)
				continue;
			rc = iw_errf(e, IW_ESTATE, "ref server: poll: %s", strerror(errno));
			goto out;
		}
		now = iw_net_now_ms();
		if (pf[0].revents & POLLIN) {
			char junk[64];
			while (read(s->ctl[0], junk, sizeof junk) > 0)
				;
		}
		if (lidx >= 0 && (pf[lidx].revents & POLLIN))
			accept_all(s, now);
		for (nfds_t i = 0; i < n; i++) {
			rconn *c = pc[i];
			if (!c || !pf[i].revents)
				continue;
			bool alive = true;
			if (c->st == RC_CONNECTING) {
				iw_err ce;
				if (iw_net_connect_result(c->fd, &ce) == IW_OK) {
					s->dial_streak = 0;
					rs_conn_opened(s, c, now);
				} else {
					if (s->dial_streak++ == 0)
						rs_log(s, c, "cannot connect: %s", ce.msg);
					rs_stat_add(s, &s->stats.dial_failures);
					alive = false;
					if (s->o.once) {
						rc = iw_errf(e, IW_ESTATE, "connect to %s: %s", c->peer, ce.msg);
						c->auto_dial = false;
					}
				}
			} else {
				if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
					alive = rs_conn_readable(s, c, now);
				if (alive && (pf[i].revents & POLLOUT) && c->st == RC_OPEN)
					alive = rs_flush(s, c, now);
				if (alive && (pf[i].revents & POLLERR) && !(pf[i].revents & POLLIN))
					alive = false;
			}
			if (!alive) {
				conn_drop(s, c, now);
				if (rc != IW_OK)
					goto out;
			}
		}
	}
out:
	close_all(s);
	free(pf);
	free(pc);
	return rc;
}

static void *thread_main(void *arg)
{
	iw_ref_server *s = arg;
#ifdef SCHED_BATCH
	if (s->o.batch) {
		struct sched_param sp = {0};
		(void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
	}
#endif
	s->thr_rc = iw_ref_server_run(s, NULL, &s->thr_err);
	return NULL;
}

int iw_ref_server_start(iw_ref_server *s, iw_err *e)
{
	if (s->thr_started)
		return iw_errf(e, IW_ESTATE, "ref server: already running");
	pthread_mutex_lock(&s->mu);
	s->stop_req = false;
	pthread_mutex_unlock(&s->mu);
	int r = pthread_create(&s->thr, NULL, thread_main, s);
	if (r != 0)
		return iw_errf(e, IW_ESTATE, "ref server: cannot start a thread: %s", strerror(r));
	s->thr_started = true;
	return IW_OK;
}

void iw_ref_server_stop(iw_ref_server *s)
{
	pthread_mutex_lock(&s->mu);
	s->stop_req = true;
	pthread_mutex_unlock(&s->mu);
	if (s->ctl[1] >= 0)
		wake(s);
	if (s->thr_started) {
		pthread_join(s->thr, NULL);
		s->thr_started = false;
	}
}

void iw_ref_server_free(iw_ref_server *s)
{
	if (!s)
		return;
	iw_ref_server_stop(s);
	close_all(s);
	if (s->lfd >= 0)
		close(s->lfd);
	for (int i = 0; i < 2; i++)
		if (s->ctl[i] >= 0)
			close(s->ctl[i]);
	pthread_mutex_destroy(&s->mu);
	for (int i = 0; i < s->nused_model; i++)
		iw_conn_free(s->used_model[i]);
	for (int i = 0; i < s->nused_tx; i++)
		free(s->used_tx[i]);
	free(s->shared_mem);
	free(s->pt_mem);
	free(s);
}
