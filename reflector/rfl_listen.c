/*
 * --listen: the DUT as MPA responder. One event channel for the listener and every connection
 * it accepts, one completion channel per connection, all in one poll() loop, so that a harness
 * running cases in parallel finds every connection served, and all of them share one buffer.
 */
#include "reflector.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

typedef struct listener {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id;
	rfl_buffer buf;
	rfl_conn *conns[RFL_MAX_CONNS];
} listener;

static void drop(listener *l, rfl_conn *c, const char *why)
{
	rfl_log("%s: %s; %lu Sends echoed", c->peer, why, c->echoed);
	for (int i = 0; i < RFL_MAX_CONNS; i++)
		if (l->conns[i] == c)
			l->conns[i] = NULL;
	rfl_conn_destroy(c);
	free(c);
}

/* A connection request: refuse REJECTME, otherwise set up and accept. */
static void on_request(listener *l, struct rdma_cm_id *id, const uint8_t *pd, size_t pd_len,
		       const struct rdma_conn_param *req)
{
	if (pd_len == RFL_REJECT_PD_LEN && memcmp(pd, RFL_REJECT_PD, RFL_REJECT_PD_LEN) == 0) {
		rfl_log("request with private data REJECTME: refused (rdma_reject)");
		if (rdma_reject(id, NULL, 0))
			rfl_log("rdma_reject: %s", strerror(errno));
		rdma_destroy_id(id);
		return;
	}
	int slot = -1;
	for (int i = 0; i < RFL_MAX_CONNS && slot < 0; i++)
		if (!l->conns[i])
			slot = i;
	rfl_conn *c = calloc(1, sizeof *c);
	iw_err e = {{0}};
	if (slot < 0 || !c) {
		rfl_log("request refused: %s", slot < 0 ? "too many connections at once" : "out of memory");
		free(c);
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	if (rfl_conn_create(c, id, &l->buf, &e)) {
		rfl_log("request refused: %s", e.msg);
		free(c);
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	l->conns[slot] = c;
	struct rdma_conn_param p;
	rfl_conn_params(&p, id->verbs, req);
	if (rdma_accept(id, &p)) {
		rfl_sys_err(&e, "rdma_accept");
		drop(l, c, e.msg);
		return;
	}
	rfl_log("%s: accepted (%zu octets of private data, IRD %u, ORD %u)", c->peer, pd_len, p.responder_resources,
		p.initiator_depth);
}

/* Handles one cm event. The event is acknowledged before any id is destroyed (librdmacm waits
 * for that), so what the handlers need is copied out first. */
static int on_cm_event(listener *l, iw_err *e)
{
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(l->ec, &ev)) {
		if (errno == EAGAIN)
			return 1;
		return rfl_sys_err(e, "rdma_get_cm_event");
	}
	enum rdma_cm_event_type type = ev->event;
	int status = ev->status;
	struct rdma_cm_id *id = ev->id;
	struct rdma_conn_param req = ev->param.conn;
	uint8_t pd[256];
	size_t pd_len = req.private_data_len; /* a uint8_t: pd holds any */
	if (req.private_data && pd_len)
		memcpy(pd, req.private_data, pd_len);
	else
		pd_len = 0;
	rdma_ack_cm_event(ev);

	rfl_conn *c = id && id != l->listen_id ? id->context : NULL;
	switch (type) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		on_request(l, id, pd, pd_len, &req);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c)
			rfl_log("%s: established", c->peer);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c)
			drop(l, c, "disconnected");
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		if (c) {
			char why[96];
			snprintf(why, sizeof why, "%s (status %d)", rdma_event_str(type), status);
			drop(l, c, why);
		}
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return iw_errf(e, -1, "the RDMA device was removed");
	default:
		break;
	}
	return 0;
}

static int serve(listener *l, iw_err *e)
{
	while (!rfl_stop) {
		struct pollfd pfd[1 + RFL_MAX_CONNS];
		rfl_conn *who[1 + RFL_MAX_CONNS];
		int n = 0;
		pfd[n] = (struct pollfd){.fd = l->ec->fd, .events = POLLIN};
		who[n++] = NULL;
		for (int i = 0; i < RFL_MAX_CONNS; i++)
			if (l->conns[i]) {
				pfd[n] = (struct pollfd){.fd = rfl_conn_fd(l->conns[i]), .events = POLLIN};
				who[n++] = l->conns[i];
			}
		int r = poll(pfd, (nfds_t)n, 500);
		if (r < 0 && errno != EINTR)
			return rfl_sys_err(e, "poll");
		if (r <= 0)
			continue;
		/* Completions first: a connection's last echoes are sent before its DISCONNECTED drops it. */
		for (int i = 1; i < n; i++)
			if (pfd[i].revents && rfl_conn_service(who[i], e))
				return -1;
		if (pfd[0].revents) {
			int rc;
			while ((rc = on_cm_event(l, e)) == 0)
				;
			if (rc < 0)
				return -1;
		}
	}
	rfl_log("stopping (signal)");
	return 0;
}

int rfl_listen_run(const char *bind_addr, unsigned port, int buffer_fd, iw_err *e)
{
	listener l;
	memset(&l, 0, sizeof l);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	if (bind_addr) {
		char spec[128], host[64];
		unsigned p;
		snprintf(spec, sizeof spec, strchr(bind_addr, ':') ? "[%s]:%u" : "%s:%u", bind_addr, port);
		if (rfl_parse_hostport(spec, &ss, host, sizeof host, &p, e))
			return -1;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
	}
	int rc = -1;
	if (rfl_buffer_map(&l.buf, buffer_fd, e))
		return -1;
	if (!(l.ec = rdma_create_event_channel())) {
		rfl_sys_err(e, "rdma_create_event_channel");
		goto out;
	}
	if (rdma_create_id(l.ec, &l.listen_id, NULL, RDMA_PS_TCP)) {
		rfl_sys_err(e, "rdma_create_id");
		goto out;
	}
	if (rdma_bind_addr(l.listen_id, (struct sockaddr *)&ss)) {
		char what[96];
		snprintf(what, sizeof what, "binding %s port %u", bind_addr ? bind_addr : "every address", port);
		rfl_sys_err(e, what);
		goto out;
	}
	if (rdma_listen(l.listen_id, RFL_MAX_CONNS)) {
		char what[64];
		snprintf(what, sizeof what, "listening on port %u", port);
		rfl_sys_err(e, what);
		goto out;
	}
	if (rfl_nonblock(l.ec->fd, e))
		goto out;
	rfl_log("listening on %s port %u (buffer %u octets, %u receive buffers per connection)",
		bind_addr ? bind_addr : "every address", port, RFL_BUF_LEN, RFL_RECV_BUFS);
	rc = serve(&l, e);
out:
	for (int i = 0; i < RFL_MAX_CONNS; i++)
		if (l.conns[i]) {
			rdma_disconnect(l.conns[i]->id);
			rfl_conn_destroy(l.conns[i]);
			free(l.conns[i]);
		}
	if (l.listen_id)
		rdma_destroy_id(l.listen_id);
	if (l.ec)
		rdma_destroy_event_channel(l.ec);
	return rc;
}
