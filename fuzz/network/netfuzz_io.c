/*
 * netfuzz_io.c - connections to the DUT and a run's socket I/O. Every octet sent is logged in
 * the run's trace and fed to the model of a conforming DUT; every octet received is logged.
 * Sockets are non-blocking (MSG_DONTWAIT) and every wait is a poll() bounded by the reaction
 * timeout, so no DUT can stop the harness.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "interrupt.h"
#include "net.h"
#include "netfuzz_int.h"

bool nf_grow(uint8_t **b, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap : 4096;
	while (nc < need)
		nc *= 2;
	uint8_t *n = realloc(*b, nc);
	if (!n)
		return false;
	*b = n;
	*cap = nc;
	return true;
}

void nf_chunk_log(nf_session *s, int dir, size_t off, size_t len)
{
	nf_trace *t = &s->c.tr;
	if (!t->record || !len)
		return;
	if (t->nchunks && t->chunks[t->nchunks - 1].dir == dir &&
	    t->chunks[t->nchunks - 1].off + t->chunks[t->nchunks - 1].len == off) {
		t->chunks[t->nchunks - 1].len += (uint32_t)len;
		return;
	}
	if (t->nchunks == t->chunk_cap) {
		size_t nc = t->chunk_cap ? t->chunk_cap * 2 : 64;
		nf_chunk *n = realloc(t->chunks, nc * sizeof *n);
		if (!n)
			return;
		t->chunks = n;
		t->chunk_cap = nc;
	}
	t->chunks[t->nchunks++] = (nf_chunk){.dir = (uint8_t)dir, .off = (uint32_t)off, .len = (uint32_t)len};
}

/* ---- connections ---- */

int nf_drv_connect(nf_session *s, int *fd, iw_err *e)
{
	/* The connect timeout, but never past the deadline. */
	int64_t ct = s->o.dut.connect_timeout_ms, left = nf_session_time_left(s);
	if (left <= 0)
		return iw_errf(e, IW_ETRUNC, "%s before the connection", iw_interrupted() ? "interrupted" : "the time ran out");
	if (ct <= 0 || ct > left)
		ct = left;
	if (!s->case_open) {
		int rc = s->drv->ops->case_begin(s->drv, e);
		if (rc)
			return rc;
		s->case_open = true;
		s->have_addr = false;
	}
	if (s->d.role == IW_ROLE_INITIATOR)
		return s->drv->ops->accept(s->drv, fd, ct, e);
	if (s->have_addr) {
		/* Loopback connects complete at once: a blocking connect is one syscall. Elsewhere a
		 * non-blocking one bounded by the connect timeout. The socket stays blocking; every
		 * send and recv says MSG_DONTWAIT. */
		bool loop = (s->addr.ss_family == AF_INET &&
			     (ntohl(((struct sockaddr_in *)&s->addr)->sin_addr.s_addr) >> 24) == 127) ||
			    (s->addr.ss_family == AF_INET6 &&
			     IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&s->addr)->sin6_addr));
		int f = socket(s->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (loop ? 0 : SOCK_NONBLOCK), 0);
		if (f < 0)
			return iw_errf(e, IW_ESTATE, "socket: %s", strerror(errno));
		/* No TCP_NODELAY here: a run is one write and a FIN, which Nagle never holds back;
		 * programs that cut or pause set it before their first write (nf_nodelay()). */
		if (connect(f, (struct sockaddr *)&s->addr, s->alen) != 0) {
			if (errno != EINPROGRESS) {
				int err = errno;
				close(f);
				return iw_errf(e, IW_ESTATE, "connect: %s", strerror(err));
			}
			if (!nf_wait(s, f, POLLOUT, iw_net_now_ms() + ct)) {
				close(f);
				return iw_errf(e, IW_ESTATE, "connect: no connection within %lld ms", (long long)ct);
			}
			iw_err ce;
			int rc = iw_net_connect_result(f, &ce);
			if (rc) {
				/* A refusal, or a reset right after the handshake: say which, not a timeout. */
				close(f);
				return iw_errf(e, rc, "connect: %s", ce.msg);
			}
			iw_net_set_nonblock(f, false);
		}
		*fd = f;
		return IW_OK;
	}
	int rc = s->drv->ops->connect(s->drv, fd, ct, 0, e);
	if (rc)
		return rc;
	s->alen = sizeof s->addr;
	if (getpeername(*fd, (struct sockaddr *)&s->addr, &s->alen) == 0)
		s->have_addr = true;
	iw_net_set_nonblock(*fd, false);
	return IW_OK;
}

void nf_sock_close(int fd, bool rst)
{
	if (fd < 0)
		return;
	if (rst)
		iw_net_reset(fd);
	else
		close(fd);
}

/* ---- reading and writing ---- */

/* Reads what is there (waiting up to wait_ms for the first octet). Returns false at EOF/RST. */
bool nf_pull(nf_session *s, int wait_ms)
{
	nf_trace *t = &s->c.tr;
	if (t->dut_fin || t->dut_rst)
		return false;
	for (;;) {
		if (wait_ms > 0) {
			struct pollfd pf = {.fd = s->c.fd, .events = POLLIN};
			int r = poll(&pf, 1, wait_ms);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return true;
			wait_ms = 0;
		}
		if (t->from_len >= NF_RX_CAP) {
			s->c.obs.got_overflow = true;
			return false;
		}
		if (!nf_grow(&t->from_dut, &t->from_cap, t->from_len + 16384))
			return false;
		size_t room = t->from_cap - t->from_len;
		ssize_t k = recv(s->c.fd, t->from_dut + t->from_len, room, MSG_DONTWAIT);
		if (k > 0) {
			nf_chunk_log(s, 1, t->from_len, (size_t)k);
			t->from_len += (size_t)k;
			if ((size_t)k < room)
				return true; /* a short read: nothing more is queued now */
			continue;
		}
		if (k == 0) {
			t->dut_fin = true;
			return false;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return true;
		t->dut_rst = true;
		return false;
	}
}

/* The DUT closed before the harness's FIN: allowed only when the model has closed too. */
void nf_note_dut_close(nf_session *s)
{
	if (!s->c.obs.early_close && !s->c.tr.we_fin && !iw_conn_wants_close(s->c.model)) {
		s->c.obs.early_close = true;
		s->c.obs.early_state = (int)iw_conn_state(s->c.model);
	}
}

/* Sends all of b, reading meanwhile so neither side blocks. False when the DUT is gone or
 * stopped reading (no octet taken for the reaction timeout: a slow reader is not stuck), or the
 * deadline came (the run is abandoned). */
bool nf_push_all(nf_session *s, const uint8_t *b, size_t n)
{
	int64_t deadline = -1;
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(s->c.fd, b + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			off += (size_t)w;
			deadline = -1;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (deadline < 0)
				deadline = iw_net_now_ms() + s->run_timeout_ms;
			if (nf_session_expired(s)) {
				s->c.abandoned = true;
				return false;
			}
			if (iw_net_now_ms() >= deadline) {
				s->c.obs.stuck_writing = true;
				return false;
			}
			struct pollfd pf = {.fd = s->c.fd, .events = POLLOUT | POLLIN};
			poll(&pf, 1, 10);
			if (pf.revents & POLLIN)
				nf_pull(s, 0);
			continue;
		}
		s->c.tr.dut_rst = true;
		return false;
	}
	return true;
}

/* Cut writes and pauses must reach the DUT as separate segments: no Nagle from then on. */
void nf_nodelay(nf_session *s)
{
	int one = 1;
	(void)setsockopt(s->c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Sends what is pending in one write: the octets of consecutive actions go out together
 * unless a split or a pause separates them (one syscall per run in the common case). */
bool nf_flush(nf_session *s)
{
	nf_trace *t = &s->c.tr;
	size_t n = t->to_len - s->c.sent;
	if (!n)
		return true;
	bool ok = nf_push_all(s, t->to_dut + s->c.sent, n);
	s->c.sent = t->to_len;
	return ok;
}

/* Logs octets, feeds them to the model and sends them (cut as the last split said, or
 * batched with their neighbours). */
bool nf_emit(nf_session *s, const uint8_t *b, size_t n)
{
	nf_trace *t = &s->c.tr;
	if (!n)
		return true;
	if (!nf_grow(&t->to_dut, &t->to_cap, t->to_len + n))
		return false;
	memcpy(t->to_dut + t->to_len, b, n);
	nf_chunk_log(s, 0, t->to_len, n);
	t->to_len += n;
	nf_model_feed(s, b, n);
	if (!s->c.split_every)
		return true;
	size_t before = t->to_len - n;
	if (before > s->c.sent && !nf_push_all(s, t->to_dut + s->c.sent, before - s->c.sent))
		return false;
	for (size_t off = 0; off < n; off += s->c.split_every) {
		size_t k = n - off < s->c.split_every ? n - off : s->c.split_every;
		if (!nf_push_all(s, t->to_dut + before + off, k))
			return false;
	}
	s->c.sent = t->to_len;
	return true;
}

/* The DUT's whole reaction: everything up to its close (or the timeout). Reads first (the
 * answer is often in already), polls only when nothing is there. */
void nf_await_close(nf_session *s)
{
	nf_trace *t = &s->c.tr;
	/* The silence counts from here (the answer is due), or from the DUT's latest octet. */
	int64_t last = iw_net_now_ms(), cap = last + NF_RUN_CAP * s->run_timeout_ms;
	while (!s->c.obs.stuck_writing && !t->dut_fin && !t->dut_rst && !s->c.obs.got_overflow) {
		if (!nf_grow(&t->from_dut, &t->from_cap, t->from_len + 16384))
			break;
		if (t->from_len >= NF_RX_CAP) {
			s->c.obs.got_overflow = true;
			break;
		}
		ssize_t k = recv(s->c.fd, t->from_dut + t->from_len, t->from_cap - t->from_len, MSG_DONTWAIT);
		if (k > 0) {
			nf_chunk_log(s, 1, t->from_len, (size_t)k);
			t->from_len += (size_t)k;
			last = iw_net_now_ms();
			continue;
		}
		if (k == 0) {
			t->dut_fin = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			t->dut_rst = true;
			break;
		}
		/* Progress decides: the reaction timeout counts from the DUT's last octet. */
		int64_t until = last + s->run_timeout_ms;
		if (until > cap)
			until = cap;
		if (iw_net_now_ms() >= until || !nf_wait(s, s->c.fd, POLLIN, until)) {
			if (nf_session_expired(s))
				s->c.abandoned = true;
			else
				s->c.obs.timed_out = true;
			break;
		}
	}
}

short nf_wait(nf_session *s, int fd, short events, int64_t until_ms)
{
	for (;;) {
		if (nf_session_expired(s))
			return 0;
		int64_t now = iw_net_now_ms(), end = until_ms;
		if (s->deadline_ms && s->deadline_ms < end)
			end = s->deadline_ms;
		if (now >= end)
			return 0;
		int64_t w = end - now > 100 ? 100 : end - now;
		struct pollfd pf = {.fd = fd, .events = events};
		int r = poll(&pf, 1, (int)w);
		if (r > 0)
			return pf.revents ? pf.revents : events;
		if (r < 0 && errno != EINTR)
			return POLLERR;
	}
}

enum nf_rd nf_read_progress(int fd, uint8_t *b, size_t *have, size_t need, int64_t idle_ms, int64_t until_ms,
			    int64_t *last_ms, int64_t *gap_ms)
{
	while (*have < need) {
		ssize_t k = recv(fd, b + *have, need - *have, MSG_DONTWAIT);
		if (k > 0) {
			int64_t now = iw_net_now_ms();
			if (now - *last_ms > *gap_ms)
				*gap_ms = now - *last_ms;
			*last_ms = now;
			*have += (size_t)k;
			continue;
		}
		if (k == 0)
			return NF_RD_EOF;
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
			return NF_RD_RST;
		int64_t now = iw_net_now_ms();
		if (iw_interrupted() || (until_ms && now >= until_ms))
			return NF_RD_CUT;
		int64_t end = *last_ms + idle_ms;
		if (now >= end)
			return NF_RD_IDLE;
		if (until_ms && until_ms < end)
			end = until_ms;
		int64_t w = end - now > 100 ? 100 : end - now;
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, (int)w) < 0 && errno != EINTR)
			return NF_RD_RST;
	}
	return NF_RD_DONE;
}
