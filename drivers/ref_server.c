/* accept4(): accepted sockets come out non-blocking and close-on-exec in one call. */
#define _GNU_SOURCE
#include "ref_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "ref_mutants.h"
#include "reflector_greeting.h"

#define TX_CAP          (64u * 1024u)   /* transmit buffer per connection */
#define MODEL_OUT_CAP   (256u * 1024u)  /* the model's output queue */
#define READ_CHUNK      16384u
#define DRAIN_MS        1000            /* after our FIN, how long unread input is discarded */
#define REDIAL_MS       100
#define MAX_DIALS       16
#define POLL_CAP_MS     100             /* so a signal's stop flag is seen promptly */

enum rc_state { RC_CONNECTING, RC_OPEN, RC_DRAINING };

typedef struct rconn {
	struct rconn *next;
	unsigned id;
	int fd;
	enum rc_state st;
	bool auto_dial;             /* opened by the options' host:port (reconnects) */
	iw_conn *model;
	iw_fault_conn fault;
	struct iw_ref_server *srv;  /* for the fault stage's after-feed callback */
	iw_txbuf tx;
	uint32_t stag;              /* this connection's STag for the shared reflector buffer */
	iw_ref_options o;           /* the per-connection options it was opened with */
	bool watch_reject;          /* still looking for a REJECTME Request */
	uint8_t sbuf[IW_MPA_FRAME_HDR_LEN + IW_MPA_IRDORD_LEN + 8];
	size_t sbuf_len;
	uint64_t in_total;
	bool peer_eof;
	int64_t opened_ms, last_in_ms, last_out_ms, drain_deadline_ms, wake_ms;
	char peer[64];
} rconn;

struct iw_ref_server {
	iw_ref_options o;           /* per-connection fields guarded by mu */
	pthread_mutex_t mu;
	int lfd;
	uint16_t port;
	int ctl[2];                 /* wakes the loop: stop and dial requests */
	bool stop_req;
	struct { char host[IW_NET_HOST_MAX]; uint16_t port; } dials[MAX_DIALS];
	int ndials;
	iw_ref_stats stats;
	pthread_t thr;
	bool thr_started;
	int thr_rc;
	iw_err thr_err;

	/* Loop state (the loop's thread only). */
	rconn *conns;
	int nconns;
	uint8_t *shared_mem;        /* the reflector's buffer, one for all connections (docs/reflector.md) */
	unsigned next_id;
	int64_t redial_ms;
	bool once_begun;
	bool accepting;
	unsigned dial_streak;       /* auto-dial failures in a row (logged once) */
	uint8_t rbuf[READ_CHUNK];
};

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

static void logf_(iw_ref_server *s, const rconn *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void logf_(iw_ref_server *s, const rconn *c, const char *fmt, ...)
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

static void stat_add(iw_ref_server *s, uint64_t *field)
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

/* ---- connections ---- */

static void conn_free(iw_ref_server *s, rconn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	iw_conn_free(c->model);
	iw_fault_conn_free(&c->fault);
	free(c->tx.buf);
	free(c);
	s->nconns--;
	pthread_mutex_lock(&s->mu);
	s->stats.open = s->nconns;
	pthread_mutex_unlock(&s->mu);
}

static void peer_name(int fd, char *buf, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *in = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &in->sin_addr, a, sizeof a);
			port = ntohs(in->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof a);
			port = ntohs(in6->sin6_port);
		}
	}
	snprintf(buf, cap, "%s:%u", a, port);
}

static void greet(iw_ref_server *s, rconn *c)
{
	uint8_t g[IW_GREETING_LEN];
	iw_err e;
	iw_greeting_encode(g, c->stag, s->o.base_to, IW_REF_STAG_LEN);
	if (iw_conn_send(c->model, IW_OP_SEND, g, sizeof g, &e) != IW_OK)
		logf_(s, c, "reflector: cannot send the greeting: %s", e.msg);
}

static void drain_events(iw_ref_server *s, rconn *c)
{
	iw_conn_event ev;
	while (iw_conn_next_event(c->model, &ev)) {
		iw_err e;
		switch (ev.kind) {
		case IW_EV_FRAME_ACCEPTED:
			logf_(s, c, "startup frame accepted (M=%d C=%d R=%d Rev %u, %u octets of private data)", ev.frame.m,
			      ev.frame.c, ev.frame.r, ev.frame.rev, ev.frame.pd_length);
			break;
		case IW_EV_FRAME_REJECTED:
			logf_(s, c, "startup frame rejected: %s (%s)", ev.viol.detail, ev.viol.req ? ev.viol.req : "");
			break;
		case IW_EV_PEER_REJECT:
			logf_(s, c, "the peer rejected the connection (R=1)");
			break;
		case IW_EV_FULL_OPERATION:
			logf_(s, c, "full operation");
			if (c->o.reflector && c->o.greeting)
				greet(s, c);
			break;
		case IW_EV_SEND:
			if (c->o.reflector && iw_conn_send(c->model, IW_OP_SEND, ev.data, ev.len, &e) != IW_OK)
				logf_(s, c, "reflector: cannot echo a Send of %zu octets: %s", ev.len, e.msg);
			break;
		case IW_EV_TERMINATE:
			logf_(s, c, "Terminate received: %s",
			      iw_error_name(ev.term.layer, ev.term.etype, ev.term.ecode));
			break;
		case IW_EV_ERROR:
			logf_(s, c, "error: %s (%s): %s", iw_error_name(ev.viol.layer, ev.viol.etype, ev.viol.ecode),
			      ev.viol.req ? ev.viol.req : "", ev.viol.detail);
			break;
		default:
			break;
		}
	}
}

/* The reflector's buffer is one memory region for the whole DUT, registered under a different
 * STag on each connection (ARCH-2.1.2-F3: one buffer, several registrations). So a Read on a
 * second connection shows what a first one placed, or did not (DDP-9.1-01), and each sink also
 * knows the other connections' STags as belonging to other streams, so using one gives 0x1/0x02
 * (DDP-10.3-02) rather than an unknown STag. */
static void share_stags(iw_ref_server *s, rconn *c)
{
	iw_err e;
	for (rconn *o = s->conns; o; o = o->next) {
		if (o == c || !o->model || !o->o.reflector)
			continue;
		iw_tagged_buf mine = {.stag = c->stag, .base_to = s->o.base_to, .length = IW_REF_STAG_LEN, .stream = c->id, .pd = 1,
				      .access = IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, .valid = true,
				      .mem = s->shared_mem};
		iw_tagged_buf theirs = mine;
		theirs.stag = o->stag;
		theirs.stream = o->id;
		/* A full table only loses the cross-stream check, never correctness of the own STag. */
		(void)iw_conn_register_buf(o->model, &mine, &e);
		(void)iw_conn_register_buf(c->model, &theirs, &e);
	}
}

/* The EMSS the accepted socket agreed (its MSS less TCP options), 0 when it cannot tell. */
static uint32_t socket_emss(int fd)
{
	int mss = 0;
	socklen_t len = sizeof mss;
	return getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == 0 && mss > 0 ? (uint32_t)mss : 0;
}

/* Makes the connection's model from c->o (again, when the reflector decides to reject). */
static int model_new(iw_ref_server *s, rconn *c, iw_err *e)
{
	const iw_ref_options *o = &c->o;
	iw_conn_config cfg;
	iw_conn_config_default(&cfg, o->profile, o->role);
	cfg.want_markers = o->markers;
	cfg.crc_admin_off = o->crc_off;
	cfg.want_crc = !o->crc_off;
	cfg.reject = o->reject;
	cfg.pd = o->pd_len ? o->pd : NULL;
	cfg.pd_len = o->pd_len;
	cfg.out_cap = MODEL_OUT_CAP;
	cfg.stream = c->id;
	cfg.pd_id = 1;
	/* MULPDU follows the connection's EMSS (MPA-5.3.2-01/02, TR-17), up to the Ethernet 1460
	 * the model is sized for: loopback's 65483 would make every message one 64768-octet FPDU.
	 * Only an accepted connection knows its MSS here; an initiator's is still being dialled. */
	if (o->role == IW_ROLE_RESPONDER) {
		uint32_t emss = socket_emss(c->fd);
		if (emss && emss < cfg.emss)
			cfg.emss = emss;
	}
	iw_mut_conn_config(o->mutant, &cfg);
	iw_conn_free(c->model);
	c->model = NULL;
	int rc = iw_conn_new(&c->model, &cfg, e);
	if (rc)
		return rc;
	if (o->reflector) {
		if (!s->shared_mem)
			s->shared_mem = calloc(1, IW_REF_STAG_LEN);
		if (!s->shared_mem)
			return iw_errf(e, IW_ENOSPC, "out of memory");
		c->stag = IW_REF_STAG + 0x100u * (c->id % 64u);
		rc = iw_conn_register(c->model, c->stag, s->o.base_to, s->shared_mem, IW_REF_STAG_LEN,
				      IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, e);
		if (rc)
			return rc;
		share_stags(s, c);
	}
	return iw_conn_start(c->model, e);
}

static void after_feed(void *arg);

static rconn *conn_new(iw_ref_server *s, int fd, enum rc_state st, int64_t now, iw_err *e)
{
	rconn *c = calloc(1, sizeof *c);
	if (!c) {
		iw_errf(e, IW_ENOSPC, "out of memory");
		return NULL;
	}
	c->fd = fd;
	c->st = st;
	c->id = ++s->next_id;
	c->opened_ms = c->last_in_ms = c->last_out_ms = now;
	c->wake_ms = -1;
	snprintf(c->peer, sizeof c->peer, "connecting");
	pthread_mutex_lock(&s->mu);
	c->o = s->o;
	pthread_mutex_unlock(&s->mu);
	c->watch_reject = c->o.reflector && c->o.reject_pd && !c->o.reject && c->o.role == IW_ROLE_RESPONDER &&
			  c->o.profile->startup_frames;
	c->tx.buf = malloc(TX_CAP);
	c->tx.cap = TX_CAP;
	s->nconns++;
	if (!c->tx.buf || model_new(s, c, e) != IW_OK) {
		if (!c->tx.buf)
			iw_errf(e, IW_ENOSPC, "out of memory");
		c->fd = -1;
		conn_free(s, c);
		return NULL;
	}
	iw_fault_conn_init(&c->fault, c->o.hostile, c->o.mutant, c->o.profile, c->o.role,
			   (uint64_t)now * 0x9E3779B97F4A7C15ull ^ c->id);
	c->srv = s;
	c->fault.after_feed = after_feed;
	c->fault.after_feed_arg = c;
	c->next = s->conns;
	s->conns = c;
	pthread_mutex_lock(&s->mu);
	s->stats.open = s->nconns;
	pthread_mutex_unlock(&s->mu);
	return c;
}

/* The reflector's one decision at startup: a Request carrying the private data REJECTME is
 * refused with R=1 (MPA-6.1-R2c). The model takes its reject flag when it is made, and it
 * answers only once the whole Request is in, so the chunk that completes such a Request is
 * not fed: the model is made anew with reject set and given the whole frame. */
static void feed(iw_ref_server *s, rconn *c, const uint8_t *data, size_t n)
{
	if (c->watch_reject) {
		uint64_t before = c->in_total;
		for (size_t i = 0; i < n && c->sbuf_len < sizeof c->sbuf; i++)
			c->sbuf[c->sbuf_len++] = data[i];
		c->in_total += n;
		if (c->sbuf_len >= IW_MPA_FRAME_HDR_LEN) {
			const uint8_t *h = c->sbuf;
			size_t pdl = iw_mpa_frame_pd_length(h);
			size_t off = IW_MPA_FRAME_HDR_LEN;
			if (c->o.profile->enhanced && (iw_mpa_frame_flags(h) & IW_MPA_FLAG_ENHANCED) && pdl >= IW_MPA_IRDORD_LEN)
				off += IW_MPA_IRDORD_LEN;
			size_t end = IW_MPA_FRAME_HDR_LEN + pdl;
			size_t want = sizeof IW_REF_REJECT_PD - 1;
			if (end - off != want) {
				c->watch_reject = false;
			} else if (c->in_total >= end) {
				c->watch_reject = false;
				if (memcmp(h + off, IW_REF_REJECT_PD, want) == 0) {
					iw_err e;
					logf_(s, c, "reflector: the private data is %s: rejecting", IW_REF_REJECT_PD);
					c->o.reject = true;
					if (model_new(s, c, &e) != IW_OK) {
						logf_(s, c, "reflector: %s", e.msg);
						return;
					}
					(void)iw_conn_input(c->model, h, end);
					size_t used = end - (size_t)before;
					if (used < n)
						(void)iw_conn_input(c->model, data + used, n - used);
					return;
				}
			}
		}
	}
	(void)iw_conn_input(c->model, data, n);
}

/* The fault stage fed the model one FPDU itself: its events now, while their data is valid. */
static void after_feed(void *arg)
{
	rconn *c = arg;
	drain_events(c->srv, c);
}

static void conn_opened(iw_ref_server *s, rconn *c, int64_t now)
{
	c->st = RC_OPEN;
	c->opened_ms = c->last_in_ms = c->last_out_ms = now;
	if (s->o.log) /* only the log shows it: no syscall per connection otherwise */
		peer_name(c->fd, c->peer, sizeof c->peer);
	stat_add(s, &s->stats.connections);
	logf_(s, c, "open (%s, %s)", s->o.role == IW_ROLE_RESPONDER ? "responder" : "initiator", s->o.profile->name);
}

static void begin_close(iw_ref_server *s, rconn *c, int64_t now, const char *why)
{
	if (c->st == RC_DRAINING)
		return;
	logf_(s, c, "closing with FIN: %s", why);
	shutdown(c->fd, SHUT_WR);
	c->st = RC_DRAINING;
	c->drain_deadline_ms = now + DRAIN_MS;
	stat_add(s, &s->stats.closed_fin);
}

/* Writes what it can; false when the connection is gone. */
static bool flush(iw_ref_server *s, rconn *c, int64_t now)
{
	while (c->tx.len) {
		ssize_t k = send(c->fd, c->tx.buf + c->tx.off, c->tx.len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (k > 0) {
			iw_txbuf_drop(&c->tx, (size_t)k);
			c->last_out_ms = now;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		logf_(s, c, "the peer is gone (%s)", k < 0 ? strerror(errno) : "no progress");
		return false;
	}
	return true;
}

static bool want_read(rconn *c);

/* Octets we are about to read wait in the socket. A thread that was not scheduled for a while
 * (a loaded machine) may find a deadline passed with the peer's octets already there: it reads
 * them first. */
static bool unread_input(rconn *c)
{
	uint8_t o;
	return want_read(c) && recv(c->fd, &o, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

/* Runs the model-to-socket path and the timeouts. False when the connection must be freed. */
static bool conn_step(iw_ref_server *s, rconn *c, int64_t now)
{
	if (c->st == RC_CONNECTING)
		return true;
	if (c->st == RC_DRAINING)
		return !(c->peer_eof || now >= c->drain_deadline_ms);
	iw_fault_conn *f = &c->fault;
	/* Pump and write until the model has nothing more or the socket takes no more. */
	for (int i = 0; i < 8; i++) {
		drain_events(s, c);
		size_t before = c->tx.len;
		c->wake_ms = iw_fault_pump(f, c->model, &c->tx, now);
		size_t pumped = c->tx.len;
		if (!flush(s, c, now))
			return false;
		if (pumped == before || c->tx.len)
			break;
	}
	if (f->crash_armed && c->tx.len == 0) {
		logf_(s, c, "mutant crash-short-ulpdu: abort()");
		abort();
	}
	if (f->fin_at_once) {
		begin_close(s, c, now, "hostile: close at once");
		return true;
	}
	if (f->reset_when_flushed && c->tx.len == 0) {
		logf_(s, c, "hostile: %s", f->hostile == IW_HOSTILE_RST ? "reset at once" : "reset mid-frame");
		iw_net_reset(c->fd);
		c->fd = -1;
		stat_add(s, &s->stats.closed_rst);
		return false;
	}
	bool streaming = f->triggered && (f->hostile == IW_HOSTILE_GARBAGE || f->hostile == IW_HOSTILE_ENDLESS);
	if (c->peer_eof && streaming && !f->hold_open) {
		begin_close(s, c, now, "the peer closed while we were streaming");
		return true;
	}
	if (!f->hold_open) {
		size_t pending;
		(void)iw_conn_output_peek(c->model, &pending);
		bool want = iw_conn_wants_close(c->model) || c->peer_eof;
		if (want && pending == 0 && c->tx.len == 0) {
			begin_close(s, c, now, c->peer_eof ? "the peer closed" : "the model closes");
			/* Nothing more can arrive after the peer's FIN: no need to drain, close now. */
			return !c->peer_eof;
		}
		/* MPA-6.1-R10a: the peer's whole startup frame within the startup timeout. */
		if (f->feed_model && !f->no_startup_timeout && iw_conn_state(c->model) == IW_CS_STARTUP &&
		    now - c->opened_ms >= s->o.startup_timeout_ms && !unread_input(c)) {
			stat_add(s, &s->stats.startup_timeouts);
			begin_close(s, c, now, "startup timeout (MPA-6.1-R10a)");
			return true;
		}
	}
	int64_t last = f->idle_input_only ? c->last_in_ms
					  : (c->last_in_ms > c->last_out_ms ? c->last_in_ms : c->last_out_ms);
	if (now - last >= s->o.idle_timeout_ms && !unread_input(c)) {
		stat_add(s, &s->stats.idle_timeouts);
		begin_close(s, c, now, "idle timeout");
	}
	return true;
}

static bool conn_readable(iw_ref_server *s, rconn *c, int64_t now)
{
	/* A second read when the first was short: a FIN that came with the data is then seen in
	 * the same wakeup, and the answer and our FIN leave together. */
	for (int k = 0; k < 2; k++) {
		ssize_t n = recv(c->fd, s->rbuf, sizeof s->rbuf, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return true;
			logf_(s, c, "read: %s", strerror(errno));
			return false;
		}
		if (n == 0) {
			c->peer_eof = true;
			if (c->st == RC_OPEN) {
				logf_(s, c, "the peer closed (FIN)");
				iw_conn_peer_closed(c->model);
				drain_events(s, c);
			}
			return true;
		}
		c->last_in_ms = now;
		if (c->st != RC_OPEN)
			return true; /* draining: discarded */
		for (size_t off = 0; off < (size_t)n && c->st == RC_OPEN;) {
			uint8_t *chunk = s->rbuf + off;
			size_t len = iw_fault_input_limit(&c->fault, (size_t)n - off);
			off += len;
			c->fault.model = c->model;
			iw_fault_input(&c->fault, chunk, len);
			if (c->fault.feed_model) {
				/* A message-level mutant may have re-framed the peer's octets. */
				if (c->fault.in_rewritten)
					feed(s, c, c->fault.in_buf, c->fault.in_len);
				else
					feed(s, c, chunk, len);
			}
			/* Also when the fault stage fed the model itself. */
			drain_events(s, c);
		}
		if ((size_t)n == sizeof s->rbuf || !want_read(c))
			return true;
	}
	return true;
}

static bool want_read(rconn *c)
{
	if (c->peer_eof)
		return false;
	if (c->st == RC_DRAINING)
		return true;
	if (c->st != RC_OPEN)
		return false;
	if (!c->fault.feed_model || c->fault.triggered)
		return true; /* the model's output is not what fills the buffer */
	/* Backpressure: a peer that does not read what it asked for gets no more reading. */
	size_t pending;
	(void)iw_conn_output_peek(c->model, &pending);
	return pending < MODEL_OUT_CAP / 2 && c->tx.len < TX_CAP / 2;
}

/* ---- dialling ---- */

static int dial(iw_ref_server *s, const char *host, uint16_t port, bool auto_dial, int64_t now, iw_err *e)
{
	int fd;
	bool wait;
	int rc = iw_net_connect_start(host, port, 0, &fd, &wait, e);
	if (rc) {
		stat_add(s, &s->stats.dial_failures);
		return rc;
	}
	rconn *c = conn_new(s, fd, wait ? RC_CONNECTING : RC_OPEN, now, e);
	if (!c) {
		close(fd);
		return IW_ENOSPC;
	}
	c->auto_dial = auto_dial;
	snprintf(c->peer, sizeof c->peer, "%s:%u", host, (unsigned)port);
	if (!wait) {
		s->dial_streak = 0;
		conn_opened(s, c, now);
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
	pthread_mutex_unlock(&s->mu);
}

void iw_ref_server_stats(iw_ref_server *s, iw_ref_stats *st)
{
	pthread_mutex_lock(&s->mu);
	*st = s->stats;
	pthread_mutex_unlock(&s->mu);
}

/* ---- the loop ---- */

static void accept_all(iw_ref_server *s, int64_t now)
{
	while (s->accepting && s->nconns < s->o.max_conns) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		iw_net_nodelay(fd);
		iw_err e;
		rconn *c = conn_new(s, fd, RC_OPEN, now, &e);
		if (!c) {
			logf_(s, NULL, "cannot serve a connection: %s", e.msg);
			close(fd);
			continue;
		}
		conn_opened(s, c, now);
		if (s->o.once) {
			/* Refuse further connections now, rather than let them queue and be reset. */
			s->accepting = false;
			s->once_begun = true;
			close(s->lfd);
			s->lfd = -1;
		}
	}
}

static void conn_ended(iw_ref_server *s, rconn *c, int64_t now)
{
	logf_(s, c, "closed");
	if (c->auto_dial && !s->o.once)
		s->redial_ms = now + REDIAL_MS;
}

static void close_all(iw_ref_server *s)
{
	while (s->conns) {
		rconn *c = s->conns;
		s->conns = c->next;
		conn_free(s, c);
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
				logf_(s, NULL, "%s", de.msg);
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
					logf_(s, NULL, "%s (retrying every %d ms)", de.msg, REDIAL_MS);
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
			if (!conn_step(s, c, now)) {
				*pp = c->next;
				conn_ended(s, c, now);
				conn_free(s, c);
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
			if (want_read(c))
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
					conn_opened(s, c, now);
				} else {
					if (s->dial_streak++ == 0)
						logf_(s, c, "cannot connect: %s", ce.msg);
					stat_add(s, &s->stats.dial_failures);
					alive = false;
					if (s->o.once) {
						rc = iw_errf(e, IW_ESTATE, "connect to %s: %s", c->peer, ce.msg);
						c->auto_dial = false;
					}
				}
			} else {
				if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
					alive = conn_readable(s, c, now);
				if (alive && (pf[i].revents & POLLOUT) && c->st == RC_OPEN)
					alive = flush(s, c, now);
				if (alive && (pf[i].revents & POLLERR) && !(pf[i].revents & POLLIN))
					alive = false;
			}
			if (!alive) {
				for (rconn **pp = &s->conns; *pp; pp = &(*pp)->next)
					if (*pp == c) {
						*pp = c->next;
						break;
					}
				conn_ended(s, c, now);
				conn_free(s, c);
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
	free(s->shared_mem);
	free(s);
}
