/*
 * One connection's verbs resources and the echo loop (docs/reflector.md items 1-3).
 *
 * Receive buffer i has wr_id i. Its echo is a Send from the same memory, wr_id RFL_WR_ECHO | i,
 * and the buffer is reposted only when that Send has completed: the payload must not be
 * overwritten while the device may still be reading it. With 8 buffers a peer that sends 9
 * messages before reading any echo finds no buffer for the 9th, which is the device's RNR
 * behaviour to show, not ours to hide.
 */
#include "reflector.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define RFL_WR_ECHO 0x100u
#define RFL_WR_GREETING 0x200u
#define RFL_CQ_DEPTH (2 * RFL_RECV_BUFS + 8)

int rfl_buffer_map(rfl_buffer *b, int fd, iw_err *e)
{
	int flags = fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS;
	void *p = mmap(NULL, RFL_BUF_LEN, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED)
		return iw_errf(e, -1, "cannot map the %u-octet tagged buffer: %s", RFL_BUF_LEN, strerror(errno));
	b->base = p;
	b->len = RFL_BUF_LEN;
	return 0;
}

int rfl_nonblock(int fd, iw_err *e)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return iw_errf(e, -1, "fcntl(O_NONBLOCK): %s", strerror(errno));
	return 0;
}

static int post_recv(rfl_conn *c, unsigned i, iw_err *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->local + (size_t)i * RFL_RECV_LEN),
		.length = RFL_RECV_LEN,
		.lkey = c->local_mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = ibv_post_recv(c->id->qp, &wr, &bad);
	if (rc)
		return iw_errf(e, -1, "%s: posting receive buffer %u: %s", c->peer, i, strerror(rc));
	return 0;
}

static int post_send(rfl_conn *c, uint64_t wr_id, void *addr, uint32_t len, iw_err *e)
{
	struct ibv_sge sge = {.addr = (uintptr_t)addr, .length = len, .lkey = c->local_mr->lkey};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0, /* a zero-length Send is a message too (DDP allows it) */
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int rc = ibv_post_send(c->id->qp, &wr, &bad);
	if (rc)
		return iw_errf(e, -1, "%s: posting a Send of %u octets: %s", c->peer, len, strerror(rc));
	return 0;
}

void rfl_conn_params(struct rdma_conn_param *p, struct ibv_context *verbs, const struct rdma_conn_param *req)
{
	struct ibv_device_attr attr;
	int ird = RFL_MAX_RD_ATOMIC, ord = RFL_MAX_RD_ATOMIC;
	if (ibv_query_device(verbs, &attr) == 0) {
		if (attr.max_qp_rd_atom < ird)
			ird = attr.max_qp_rd_atom;
		if (attr.max_qp_init_rd_atom < ord)
			ord = attr.max_qp_init_rd_atom;
	}
	if (req && req->initiator_depth < ird)
		ird = req->initiator_depth;
	if (req && req->responder_resources < ord)
		ord = req->responder_resources;
	memset(p, 0, sizeof *p);
	p->responder_resources = (uint8_t)(ird < 0 ? 0 : ird);
	p->initiator_depth = (uint8_t)(ord < 0 ? 0 : ord);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

int rfl_conn_create(rfl_conn *c, struct rdma_cm_id *id, const rfl_buffer *buf, iw_err *e)
{
	memset(c, 0, sizeof *c);
	c->id = id;
	id->context = c;
	struct sockaddr *sa = rdma_get_peer_addr(id);
	char host[48] = "?";
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, host, sizeof host);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, host, sizeof host);
	snprintf(c->peer, sizeof c->peer, "%s:%u", host, ntohs(rdma_get_dst_port(id)));

	const char *step = "ibv_alloc_pd";
	size_t local_len = (size_t)RFL_RECV_BUFS * RFL_RECV_LEN + RFL_GREETING_LEN;
	if (!(c->pd = ibv_alloc_pd(id->verbs)))
		goto fail;
	step = "ibv_reg_mr (tagged buffer)";
	/* At its virtual address: the greeting advertises that base TO and the cases' TOs are
	 * offsets from it. (A zero-based registration, ibv_reg_mr_iova, is not what every device
	 * honours: siw ignores the IOVA and keeps the virtual address.) */
	c->tagged_mr = ibv_reg_mr(c->pd, buf->base, buf->len,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!c->tagged_mr)
		goto fail;
	step = "allocating receive buffers";
	if (posix_memalign((void **)&c->local, 4096, local_len)) {
		c->local = NULL;
		errno = ENOMEM;
		goto fail;
	}
	step = "ibv_reg_mr (receive buffers)";
	if (!(c->local_mr = ibv_reg_mr(c->pd, c->local, local_len, IBV_ACCESS_LOCAL_WRITE)))
		goto fail;
	step = "ibv_create_comp_channel";
	if (!(c->channel = ibv_create_comp_channel(id->verbs)))
		goto fail;
	step = "ibv_create_cq";
	if (!(c->cq = ibv_create_cq(id->verbs, RFL_CQ_DEPTH, c, c->channel, 0)))
		goto fail;
	step = "ibv_req_notify_cq";
	if ((errno = ibv_req_notify_cq(c->cq, 0)))
		goto fail;
	struct ibv_qp_init_attr qa = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {.max_send_wr = RFL_RECV_BUFS + 4, .max_recv_wr = RFL_RECV_BUFS, .max_send_sge = 1,
			.max_recv_sge = 1},
		.qp_type = IBV_QPT_RC,
	};
	step = "rdma_create_qp";
	if (rdma_create_qp(id, c->pd, &qa))
		goto fail;
	c->has_qp = true;
	if (rfl_nonblock(c->channel->fd, e))
		goto fail_e;
	for (unsigned i = 0; i < RFL_RECV_BUFS; i++)
		if (post_recv(c, i, e))
			goto fail_e;
	return 0;
fail:
	rfl_sys_err(e, step);
fail_e:
	if (c->has_qp)
		rdma_destroy_qp(id);
	c->has_qp = false;
	c->id = NULL; /* the caller owns the id when we fail */
	id->context = NULL;
	rfl_conn_destroy(c);
	return -1;
}

int rfl_conn_greet(rfl_conn *c, iw_err *e)
{
	uint8_t *g = c->local + (size_t)RFL_RECV_BUFS * RFL_RECV_LEN;
	uint32_t stag = c->tagged_mr->rkey;
	uint64_t to = (uintptr_t)c->tagged_mr->addr;
	uint32_t len = (uint32_t)c->tagged_mr->length;
	for (int i = 0; i < 4; i++)
		g[i] = (uint8_t)(stag >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		g[4 + i] = (uint8_t)(to >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		g[12 + i] = (uint8_t)(len >> (24 - 8 * i));
	if (post_send(c, RFL_WR_GREETING, g, RFL_GREETING_LEN, e))
		return -1;
	c->greeted = true;
	rfl_log("%s: greeting sent: STag 0x%08x, TO 0x%016llx, %u octets", c->peer, stag, (unsigned long long)to,
		len);
	return 0;
}

int rfl_conn_fd(const rfl_conn *c)
{
	return c->channel->fd;
}

static int completed(rfl_conn *c, const struct ibv_wc *wc, iw_err *e)
{
	if (wc->status != IBV_WC_SUCCESS) {
		/* After the first error every outstanding request is flushed: report only the cause. */
		if (!c->broken && wc->status != IBV_WC_WR_FLUSH_ERR)
			rfl_log("%s: completion error: %s (vendor error 0x%x)", c->peer, ibv_wc_status_str(wc->status),
				wc->vendor_err);
		c->broken = true;
		return 0;
	}
	if (wc->opcode == IBV_WC_RECV) {
		unsigned i = (unsigned)wc->wr_id;
		if (!c->greeted && rfl_conn_greet(c, e))
			return -1;
		if (post_send(c, RFL_WR_ECHO | i, c->local + (size_t)i * RFL_RECV_LEN, wc->byte_len, e))
			return -1;
		return 0;
	}
	if (wc->opcode == IBV_WC_SEND && (wc->wr_id & RFL_WR_ECHO)) {
		c->echoed++;
		return post_recv(c, (unsigned)(wc->wr_id & 0xffu), e);
	}
	return 0;
}

int rfl_conn_service(rfl_conn *c, iw_err *e)
{
	struct ibv_cq *cq;
	void *ctx;
	if (ibv_get_cq_event(c->channel, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		if ((errno = ibv_req_notify_cq(cq, 0)))
			return rfl_sys_err(e, "ibv_req_notify_cq");
	} else if (errno != EAGAIN) {
		return rfl_sys_err(e, "ibv_get_cq_event");
	}
	struct ibv_wc wc[16];
	int n;
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0)
		for (int k = 0; k < n; k++)
			if (completed(c, &wc[k], e))
				return -1;
	if (n < 0)
		return iw_errf(e, -1, "%s: ibv_poll_cq failed", c->peer);
	return 0;
}

void rfl_conn_destroy(rfl_conn *c)
{
	if (c->has_qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->channel)
		ibv_destroy_comp_channel(c->channel);
	if (c->local_mr)
		ibv_dereg_mr(c->local_mr);
	if (c->tagged_mr)
		ibv_dereg_mr(c->tagged_mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->local);
	if (c->id)
		rdma_destroy_id(c->id);
	memset(c, 0, sizeof *c);
}
