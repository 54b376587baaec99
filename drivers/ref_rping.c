/*
 * ref_rping.c - the built-in DUT running rping (docs/rping.md) instead of the reflector: the
 * application protocol of rdma-core's rping as it crosses the wire (suite/engine/rping_info.h),
 * written from that description, on the engine's connection model.
 *
 * As a responder it is `rping -s`: each 16-octet Send advertises a buffer of the peer; the
 * first of a pair is RDMA Read into its own buffer, then a "go ahead" Send; the second gets
 * the data read RDMA Written into it (strlen + 1 octets), then another "go ahead". As an
 * initiator it is `rping -c -C 2`: it advertises its source buffer, waits for the go-ahead,
 * advertises its sink buffer, waits for the next, and after two iterations ends the
 * connection. Like rping it keeps one 16-octet receive posted (reposted as soon as a Send is
 * delivered), and anything its flow does not expect (a Send of another size, a Send while its
 * Read is outstanding, a buffer larger than its own) ends the connection, as rping's error
 * path does.
 */
#include "ref_server_int.h"

#include <stdlib.h>
#include <string.h>

#include "iw_proto.h"
#include "rping_info.h"

enum {
	RP_WAIT_READ_ADV,           /* server: the client's source buffer next */
	RP_READING,                 /* server: its Read Request is outstanding */
	RP_WAIT_WRITE_ADV,          /* server: the client's sink buffer next */
	RP_WAIT_GO_READ,            /* client: source advertised, waiting for the first go-ahead */
	RP_WAIT_GO_WRITE,           /* client: sink advertised, waiting for the second */
	RP_DONE,
};

void rs_rping_config(const rconn *c, iw_conn_config *cfg)
{
	(void)c;
	cfg->recv_buffers = 1;
	cfg->recv_buffer_size = IW_RPING_INFO_LEN;
	cfg->ird = IW_RPING_IRD;
	cfg->ord = IW_RPING_ORD;
}

/* Two buffers a connection of rping's -S each, registered for remote read and write as rping
 * registers them, at addresses that look like a process's heap (rping advertises virtual
 * addresses), each in a region of its own: 2 KiB for the default 64 octets, the size rounded
 * up to 4 KiB for a larger one. */
int rs_rping_register(rconn *c, iw_err *e)
{
	rs_rping *r = &c->rping;
	rs_rping_free(c);
	memset(r, 0, sizeof *r);
	r->size = c->o.rping_size ? c->o.rping_size : RS_RPING_SIZE;
	r->mem = calloc(2, r->size);
	if (!r->mem)
		return iw_errf(e, IW_ENOSPC, "rping: no memory for two buffers of %u octets", r->size);
	r->start_buf = r->mem;
	r->rdma_buf = r->mem + r->size;
	r->state = c->o.role == IW_ROLE_INITIATOR ? RP_WAIT_GO_READ : RP_WAIT_READ_ADV;
	r->start_stag = 0x00a00001u + 0x100u * (c->id % 4096u);
	r->rdma_stag = r->start_stag + 1;
	uint64_t region = r->size <= 0x800 ? 0x800 : ((uint64_t)r->size + 0xfff) & ~(uint64_t)0xfff;
	r->start_to = 0x000055d0c0de0000ull + 2 * region * c->id;
	r->rdma_to = r->start_to + region;
	unsigned acc = IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE;
	int rc = iw_conn_register(c->model, r->start_stag, r->start_to, r->start_buf, r->size, acc, e);
	if (rc == IW_OK)
		rc = iw_conn_register(c->model, r->rdma_stag, r->rdma_to, r->rdma_buf, r->size, acc, e);
	return rc;
}

void rs_rping_free(rconn *c)
{
	free(c->rping.mem);
	c->rping.mem = c->rping.start_buf = c->rping.rdma_buf = NULL;
}

static void fail(iw_ref_server *s, rconn *c, const char *why)
{
	rs_log(s, c, "rping: %s: disconnecting", why);
	c->rping.state = RP_DONE;
	c->app_close = true;
}

static void send_info(iw_ref_server *s, rconn *c, uint32_t stag, uint64_t to)
{
	uint8_t b[IW_RPING_INFO_LEN];
	iw_rping_info in = {.to = to, .stag = stag, .len = c->rping.size};
	iw_err e;
	iw_rping_info_encode(b, &in);
	if (iw_conn_send(c->model, IW_OP_SEND, b, sizeof b, &e) != IW_OK)
		fail(s, c, e.msg);
}

/* The server's go-ahead: its send buffer, which rping never fills (16 zero octets). */
static void go_ahead(iw_ref_server *s, rconn *c)
{
	static const uint8_t zero[IW_RPING_INFO_LEN];
	iw_err e;
	if (iw_conn_send(c->model, IW_OP_SEND, zero, sizeof zero, &e) != IW_OK)
		fail(s, c, e.msg);
}

static void client_advertise_source(iw_ref_server *s, rconn *c)
{
	rs_rping *r = &c->rping;
	iw_rping_data(r->ping, r->start_buf, r->size);
	r->state = RP_WAIT_GO_READ;
	send_info(s, c, r->start_stag, r->start_to);
}

static void server_send(iw_ref_server *s, rconn *c, const iw_rping_info *in)
{
	rs_rping *r = &c->rping;
	iw_err e;
	if (r->state == RP_READING) {
		fail(s, c, "a buffer advertised while the RDMA Read is outstanding");
		return;
	}
	if (in->len > r->size) {
		fail(s, c, "the peer's buffer is larger than rping's own (a local length error)");
		return;
	}
	if (r->state == RP_WAIT_READ_ADV) {
		iw_read_req rr = {.sink_stag = r->rdma_stag, .sink_to = r->rdma_to, .size = in->len,
				  .src_stag = in->stag, .src_to = in->to};
		memset(r->rdma_buf, 0, r->size);
		if (iw_conn_read(c->model, &rr, &e) != IW_OK) {
			fail(s, c, e.msg);
			return;
		}
		r->state = RP_READING;
		return;
	}
	/* RP_WAIT_WRITE_ADV: the data read comes back, up to and with its NUL. */
	size_t n = strnlen((const char *)r->rdma_buf, r->size);
	n = n < r->size ? n + 1 : n;
	if (n > in->len) {
		fail(s, c, "the peer's sink buffer is shorter than the data to write back");
		return;
	}
	if (iw_conn_write(c->model, in->stag, in->to, r->rdma_buf, n, &e) != IW_OK) {
		fail(s, c, e.msg);
		return;
	}
	r->state = RP_WAIT_READ_ADV;
	go_ahead(s, c);
}

static void client_send(iw_ref_server *s, rconn *c)
{
	rs_rping *r = &c->rping;
	if (r->state == RP_WAIT_GO_READ) {
		r->state = RP_WAIT_GO_WRITE;
		send_info(s, c, r->rdma_stag, r->rdma_to);
		return;
	}
	if (++r->ping == RS_RPING_COUNT) {
		rs_log(s, c, "rping: %u iterations done", r->ping);
		r->state = RP_DONE;
		c->app_close = true;
		return;
	}
	client_advertise_source(s, c);
}

void rs_rping_event(iw_ref_server *s, rconn *c, const iw_conn_event *ev)
{
	rs_rping *r = &c->rping;
	if (r->state == RP_DONE)
		return;
	bool client = c->o.role == IW_ROLE_INITIATOR;
	switch (ev->kind) {
	case IW_EV_FULL_OPERATION:
		if (client)
			client_advertise_source(s, c);
		break;
	case IW_EV_SEND:
		if (!iw_rping_info_len_ok(ev->len)) {
			fail(s, c, "a Send that is not 16 octets (rping: \"Received bogus data\")");
		} else if (client) {
			client_send(s, c);
		} else {
			iw_rping_info in;
			iw_rping_info_parse(ev->data, &in);
			server_send(s, c, &in);
		}
		break;
	case IW_EV_READ_DONE:
		if (!client && r->state == RP_READING) {
			r->state = RP_WAIT_WRITE_ADV;
			go_ahead(s, c);
		}
		break;
	default:
		break;
	}
}
