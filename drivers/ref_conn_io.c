/*
 * ref_conn_io.c - a connection's octets moved: the peer's through the fault stage into the model,
 * the model's through the fault stage into the socket; the timeouts, and closing with FIN.
 */
#include "ref_server_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net.h"

static void begin_close(iw_ref_server *s, rconn *c, int64_t now, const char *why)
{
	if (c->st == RC_DRAINING)
		return;
	rs_log(s, c, "closing with FIN: %s", why);
	shutdown(c->fd, SHUT_WR);
	c->st = RC_DRAINING;
	c->drain_deadline_ms = now + DRAIN_MS;
	rs_stat_add(s, &s->stats.closed_fin);
}

/* Writes what it can; false when the connection is gone. */
bool rs_flush(iw_ref_server *s, rconn *c, int64_t now)
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
		rs_log(s, c, "the peer is gone (%s)", k < 0 ? strerror(errno) : "no progress");
		return false;
	}
	return true;
}

/* Octets we are about to read wait in the socket. A thread that was not scheduled for a while
 * (a loaded machine) may find a deadline passed with the peer's octets already there: it reads
 * them first. */
static bool unread_input(rconn *c)
{
	uint8_t o;
	return rs_want_read(c) && recv(c->fd, &o, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

/* Runs the model-to-socket path and the timeouts. False when the connection must be freed. */
bool rs_conn_step(iw_ref_server *s, rconn *c, int64_t now)
{
	if (c->st == RC_CONNECTING)
		return true;
	if (c->st == RC_DRAINING)
		return !(c->peer_eof || now >= c->drain_deadline_ms);
	iw_fault_conn *f = &c->fault;
	/* Pump and write until the model has nothing more or the socket takes no more. */
	for (int i = 0; i < 8; i++) {
		rs_drain_events(s, c);
		size_t before = c->tx.len;
		c->wake_ms = iw_fault_pump(f, c->model, &c->tx, now);
		size_t pumped = c->tx.len;
		if (!rs_flush(s, c, now))
			return false;
		if (pumped == before || c->tx.len)
			break;
	}
	if (f->crash_armed && c->tx.len == 0) {
		rs_log(s, c, "mutant crash-short-ulpdu: abort()");
		abort();
	}
	if (f->fin_at_once) {
		begin_close(s, c, now, "hostile: close at once");
		return true;
	}
	if (f->reset_when_flushed && c->tx.len == 0) {
		rs_log(s, c, "hostile: %s", f->hostile == IW_HOSTILE_RST ? "reset at once" : "reset mid-frame");
		iw_net_reset(c->fd);
		c->fd = -1;
		rs_stat_add(s, &s->stats.closed_rst);
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
		bool want = iw_conn_wants_close(c->model) || c->peer_eof || c->app_close;
		if (want && pending == 0 && c->tx.len == 0) {
			if (c->peer_eof) {
				/* Nothing more can arrive after the peer's FIN and everything before it was
				 * read: the close that follows (rs_conn_free) sends the FIN, as a shutdown
				 * would, without a system call of its own (one a run of the network fuzzer). */
				rs_log(s, c, "closing with FIN: the peer closed");
				rs_stat_add(s, &s->stats.closed_fin);
				return false;
			}
			begin_close(s, c, now, c->app_close ? "the application closes" : "the model closes");
			return true;
		}
		if (f->feed_model && !f->no_startup_timeout && iw_conn_state(c->model) == IW_CS_STARTUP &&
		    iw_ref_startup_expired(now, c->opened_ms, c->last_in_ms, s->o.startup_timeout_ms) && !unread_input(c)) {
			rs_stat_add(s, &s->stats.startup_timeouts);
			begin_close(s, c, now, "startup timeout (MPA-6.1-R10a)");
			return true;
		}
	}
	int64_t last = f->idle_input_only ? c->last_in_ms
					  : (c->last_in_ms > c->last_out_ms ? c->last_in_ms : c->last_out_ms);
	if (now - last >= s->o.idle_timeout_ms && !unread_input(c)) {
		rs_stat_add(s, &s->stats.idle_timeouts);
		begin_close(s, c, now, "idle timeout");
	}
	return true;
}

/* The timer restarts with each octet the peer sends because a peer that sends its frame slowly
 * but steadily (a Reply one octet at a time, on a loaded machine) is no attack; the cap keeps
 * the defence against one that drips forever. */
bool iw_ref_startup_expired(int64_t now_ms, int64_t opened_ms, int64_t last_in_ms, int64_t timeout_ms)
{
	return now_ms - last_in_ms >= timeout_ms || now_ms - opened_ms >= IW_REF_STARTUP_CAP * timeout_ms;
}

bool rs_conn_readable(iw_ref_server *s, rconn *c, int64_t now)
{
	/* A second read when the first was short: a FIN that came with the data is then seen in
	 * the same wakeup, and the answer and our FIN leave together. */
	for (int k = 0; k < 2; k++) {
		ssize_t n = recv(c->fd, s->rbuf, sizeof s->rbuf, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return true;
			rs_log(s, c, "read: %s", strerror(errno));
			return false;
		}
		if (n == 0) {
			c->peer_eof = true;
			if (c->st == RC_OPEN) {
				rs_log(s, c, "the peer closed (FIN)");
				iw_conn_peer_closed(c->model);
				rs_drain_events(s, c);
			}
			return true;
		}
		c->fault.read_gap_ms = now - c->last_in_ms;
		c->last_in_ms = now;
		if (c->st != RC_OPEN)
			return true; /* draining: discarded */
		c->fault.read_short = (size_t)n < sizeof s->rbuf;
		if (c->fault.mutant == IW_MUTANT_RESYNC_ON_READ)
			(void)iw_net_tcp_ooo_packets(c->fd, &c->fault.ooo_packets);
		for (size_t off = 0; off < (size_t)n && c->st == RC_OPEN;) {
			uint8_t *chunk = s->rbuf + off;
			size_t len = iw_fault_input_limit(&c->fault, (size_t)n - off);
			off += len;
			c->fault.model = c->model;
			iw_fault_input(&c->fault, chunk, len);
			if (c->fault.feed_model) {
				/* A message-level mutant may have re-framed the peer's octets. */
				if (c->fault.in_rewritten)
					rs_feed(s, c, c->fault.in_buf, c->fault.in_len);
				else
					rs_feed(s, c, chunk, len);
			}
			/* Also when the fault stage fed the model itself. */
			rs_drain_events(s, c);
		}
		if ((size_t)n == sizeof s->rbuf || !rs_want_read(c))
			return true;
	}
	return true;
}

bool rs_want_read(rconn *c)
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
