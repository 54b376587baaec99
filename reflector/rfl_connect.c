/*
 * --connect: the DUT as MPA initiator, one connection. The harness is the responder and its
 * cases end connections in every way a peer can (a Reply with R=1, a malformed Reply, RST,
 * Terminate): each of those is an outcome for the harness to judge, so the run reports it and
 * exits 0. Only what keeps the connection from being tried at all (no route, no device) is an
 * error.
 */
#include "reflector.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#define RESOLVE_MS 5000

/* Waits for the next cm event (or a signal: returns 1), acknowledges it, returns its type. */
static int next_event(struct rdma_event_channel *ec, enum rdma_cm_event_type *type, int *status, iw_err *e)
{
	for (;;) {
		struct rdma_cm_event *ev;
		if (rdma_get_cm_event(ec, &ev) == 0) {
			*type = ev->event;
			*status = ev->status;
			rdma_ack_cm_event(ev);
			return 0;
		}
		if (errno != EAGAIN)
			return rfl_sys_err(e, "rdma_get_cm_event");
		if (rfl_stop)
			return 1;
		struct pollfd p = {.fd = ec->fd, .events = POLLIN};
		if (poll(&p, 1, 500) < 0 && errno != EINTR)
			return rfl_sys_err(e, "poll");
	}
}

/* Resolves address and route; returns 1 when a signal ended the wait. */
static int resolve(struct rdma_event_channel *ec, struct rdma_cm_id *id, struct sockaddr *dst, const char *target,
		   iw_err *e)
{
	if (rdma_resolve_addr(id, NULL, dst, RESOLVE_MS))
		return rfl_sys_err(e, "rdma_resolve_addr");
	enum rdma_cm_event_type want = RDMA_CM_EVENT_ADDR_RESOLVED;
	for (int step = 0; step < 2; step++) {
		enum rdma_cm_event_type type;
		int status, rc = next_event(ec, &type, &status, e);
		if (rc)
			return rc;
		if (type != want) {
			errno = status < 0 ? -status : status;
			return iw_errf(e, -1, "%s: %s (%s)%s", target, rdma_event_str(type), strerror(errno),
				       " (is the address on an RDMA device's network? `rdma link` lists them)");
		}
		if (step == 0 && rdma_resolve_route(id, RESOLVE_MS))
			return rfl_sys_err(e, "rdma_resolve_route");
		want = RDMA_CM_EVENT_ROUTE_RESOLVED;
	}
	return 0;
}

/* The connection's life after rdma_connect, until it ends or a signal comes. */
static int run(struct rdma_event_channel *ec, rfl_conn *c, iw_err *e)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = ec->fd, .events = POLLIN}, {.fd = rfl_conn_fd(c), .events = POLLIN}};
		int r = poll(p, 2, 500);
		if (r < 0 && errno != EINTR)
			return rfl_sys_err(e, "poll");
		if (rfl_stop) {
			rfl_log("%s: stopping (signal); %lu Sends echoed", c->peer, c->echoed);
			return 0;
		}
		if (r <= 0)
			continue;
		if (p[1].revents && rfl_conn_service(c, e))
			return -1;
		if (!p[0].revents)
			continue;
		enum rdma_cm_event_type type;
		int status, rc = next_event(ec, &type, &status, e);
		if (rc)
			return rc < 0 ? -1 : 0;
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			rfl_log("%s: established", c->peer);
			if (rfl_conn_greet(c, e))
				return -1;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			rfl_conn_service(c, e); /* the last echoes, if any completed */
			rfl_log("%s: %s (status %d); %lu Sends echoed", c->peer, rdma_event_str(type), status,
				c->echoed);
			return 0;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			return iw_errf(e, -1, "the RDMA device was removed");
		default:
			break;
		}
	}
}

int rfl_connect_run(const char *target, int buffer_fd, iw_err *e)
{
	struct sockaddr_storage dst;
	char host[64];
	unsigned port;
	if (rfl_parse_hostport(target, &dst, host, sizeof host, &port, e))
		return -1;
	rfl_buffer buf;
	if (rfl_buffer_map(&buf, buffer_fd, e))
		return -1;
	struct rdma_event_channel *ec = rdma_create_event_channel();
	if (!ec)
		return rfl_sys_err(e, "rdma_create_event_channel");
	struct rdma_cm_id *id = NULL;
	rfl_conn c;
	memset(&c, 0, sizeof c);
	int rc = -1;
	if (rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		rfl_sys_err(e, "rdma_create_id");
		goto out;
	}
	if (rfl_nonblock(ec->fd, e))
		goto out;
	rc = resolve(ec, id, (struct sockaddr *)&dst, target, e);
	if (rc) {
		rc = rc < 0 ? -1 : 0;
		goto out;
	}
	rc = -1;
	if (rfl_conn_create(&c, id, &buf, e))
		goto out;
	id = NULL; /* c owns it now */
	struct rdma_conn_param p;
	rfl_conn_params(&p, c.id->verbs, NULL);
	if (rdma_connect(c.id, &p)) {
		rfl_sys_err(e, "rdma_connect");
		goto out;
	}
	rfl_log("%s: connecting (IRD %u, ORD %u)", target, p.responder_resources, p.initiator_depth);
	rc = run(ec, &c, e);
	if (c.id)
		rdma_disconnect(c.id);
out:
	if (c.id)
		rfl_conn_destroy(&c);
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	return rc;
}
