/*
 * vec_judge.c - the expected result of a one-direction stream vector, from the engine.
 *
 * The receiver of the direction is modelled with the engine's pieces, in the order the
 * connection model (iw_conn_rx.c) applies them: the startup frame through
 * iw_mpa_frame_decode + iw_mpa_frame_check; FPDUs through iw_mpa_rx; each ULPDU through
 * iw_rdmap_parse, the RDMAP queue rule (RFC 5040: each untagged message has its queue) and the
 * DDP sink; delivered messages through their RDMAP meaning (Send, Send with Invalidate, RDMA
 * Read Request against the receiver's buffers, Terminate). A stream vector starts anywhere in
 * a stream (the seeds' second FPDU starts at offset 492), which the connection model cannot,
 * hence this passive receiver; conversations use the model itself (vec_conv.c).
 *
 * The first error ends the judgment (MPA-7-08, DDP-9.1-03): later octets are not looked at.
 * A Terminate ends it too: the receiver closes. Where the spec lets a receiver do either
 * (requirements.md §6 A11, A21, A27, A28, DDP-6.3-05) the result is "acceptable", with the
 * engine's strict outcome and the other outcomes the position allows.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ddp_sink.h"
#include "iw_octets.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "rdmap.h"
#include "vec_int.h"

/* Rows of spec/rfc-rows.md, as the engine names them (suite/engine/iw_conn_rx.c). */
#define REQ_RDMAP_UNASKED  "RFC5040-5.2-09"
#define REQ_RDMAP_QUEUE    "RFC5040-4.2-05"
#define REQ_RDMAP_READ_REQ "RFC5040-4.4-01"
#define REQ_RDMAP_TERM     "RFC5040-4.8-02"
#define REQ_RDMAP_INVAL    "RFC5040-5.3-06"

#define MAX_READS 16
#define MAX_SEEN 64
#define MEM_LIMIT (64u << 20)

typedef struct judge {
	const iw_profile *p;
	iw_ddp_sink sink;
	uint8_t *qmem[IW_SINK_MAX_QUEUES];
	uint32_t qsize[IW_SINK_MAX_QUEUES], qcount[IW_SINK_MAX_QUEUES];
	bool repost;
	uint8_t *tmem[IW_SINK_MAX_STAGS];
	size_t ntmem;
	iw_read_req reads[MAX_READS];
	unsigned nreads, rd_head;
	json_t *messages, *notes;
	bool failed, closed;
	iw_violation err;
	bool zero_len_untagged;     /* the error was on a zero-length untagged segment (A27) */
	bool rsvdulp_varies;        /* DDP-6.3-05 */
	struct {
		uint32_t qn, msn;
		uint8_t rsvdulp[5];
	} seen[MAX_SEEN];
	size_t nseen;
	size_t fpdus;
} judge;

static void judge_free(judge *j)
{
	for (int i = 0; i < IW_SINK_MAX_QUEUES; i++)
		free(j->qmem[i]);
	for (size_t i = 0; i < j->ntmem; i++)
		free(j->tmem[i]);
	json_decref(j->messages);
	json_decref(j->notes);
}

/* ---- the receiver's resources ---- */

static unsigned access_bits(const char *s)
{
	unsigned a = 0;
	for (; s && *s; s++) {
		if (*s == 'r')
			a |= IW_ACCESS_REMOTE_READ;
		else if (*s == 'w')
			a |= IW_ACCESS_REMOTE_WRITE;
	}
	return a;
}

static int setup_queues(judge *j, const json_t *rcv, iw_err *e)
{
	json_t *qs = rcv ? json_object_get(rcv, "queues") : NULL;
	/* The default receiver: RDMAP's three queues, enough buffers that a Send never waits. */
	static const uint32_t dq[3][2] = {{8, 4096}, {8, 64}, {4, 64}};
	size_t n = qs ? json_array_size(qs) : 3;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t qn, cnt, size, first = 1;
		if (qs) {
			json_t *q = json_array_get(qs, i);
			if (!json_is_object(q) || vec_get_u64(q, "qn", UINT64_MAX, &qn, e) ||
			    vec_get_u64(q, "buffers", 0, &cnt, e) || vec_get_u64(q, "size", 0, &size, e) ||
			    vec_get_u64(q, "first_msn", 1, &first, e))
				return json_is_object(q) ? vec_prefix(e, "receiver.queues[%zu]", i)
							 : iw_errf(e, IW_EINVAL, "receiver.queues[%zu]: not an object", i);
		} else {
			qn = i;
			cnt = dq[i][0];
			size = dq[i][1];
		}
		if (qn >= IW_SINK_MAX_QUEUES || cnt > IW_SINK_MAX_POSTED || size > UINT32_MAX || first > UINT32_MAX)
			return iw_errf(e, IW_EINVAL, "receiver.queues[%zu]: QN below %d, at most %d buffers", i,
				       IW_SINK_MAX_QUEUES, IW_SINK_MAX_POSTED);
		total += cnt * size;
		if (total > MEM_LIMIT || j->qmem[qn])
			return iw_errf(e, IW_EINVAL, "receiver.queues: QN %" PRIu64 " twice, or buffers too large", qn);
		if (iw_sink_enable_queue(&j->sink, (uint32_t)qn, e) != IW_OK)
			return -1;
		/* A stream joined later: the messages before first_msn were delivered already. */
		j->sink.queues[qn].next_msn = (uint32_t)first;
		j->qmem[qn] = calloc(cnt ? cnt : 1, size ? size : 1);
		if (!j->qmem[qn])
			return iw_errf(e, IW_EINVAL, "out of memory for receive buffers");
		j->qsize[qn] = (uint32_t)size;
		j->qcount[qn] = (uint32_t)cnt;
		for (uint64_t k = 0; k < cnt; k++)
			iw_sink_post(&j->sink, (uint32_t)qn, j->qmem[qn] + k * size, (uint32_t)size, NULL);
	}
	return 0;
}

static int setup_stags(judge *j, const json_t *rcv, iw_err *e)
{
	json_t *st = rcv ? json_object_get(rcv, "stags") : NULL;
	for (size_t i = 0; i < json_array_size(st); i++) {
		json_t *s = json_array_get(st, i);
		uint64_t stag, base, len, stream, pd;
		bool valid;
		if (!json_is_object(s) || vec_get_u64(s, "stag", UINT64_MAX, &stag, e) ||
		    vec_get_u64(s, "base_to", 0, &base, e) || vec_get_u64(s, "length", 0, &len, e) ||
		    vec_get_u64(s, "stream", j->sink.stream, &stream, e) || vec_get_u64(s, "pd", j->sink.pd, &pd, e) ||
		    vec_get_bool(s, "valid", true, &valid, e))
			return json_is_object(s) ? vec_prefix(e, "receiver.stags[%zu]", i)
						 : iw_errf(e, IW_EINVAL, "receiver.stags[%zu]: not an object", i);
		if (stag > UINT32_MAX || len > (1u << 24) || j->ntmem == IW_SINK_MAX_STAGS)
			return iw_errf(e, IW_EINVAL, "receiver.stags[%zu]: a 32-bit STag, at most 16 MiB, at most %d STags", i,
				       IW_SINK_MAX_STAGS);
		iw_tagged_buf b;
		memset(&b, 0, sizeof b);
		b.stag = (uint32_t)stag;
		b.base_to = base;
		b.length = len;
		b.stream = (uint32_t)stream;
		b.pd = (uint32_t)pd;
		b.access = access_bits(json_string_value(json_object_get(s, "access")));
		b.mem = j->tmem[j->ntmem++] = calloc(len ? len : 1, 1);
		if (!b.mem)
			return iw_errf(e, IW_EINVAL, "out of memory for a tagged buffer");
		if (iw_sink_register(&j->sink, &b, e) != IW_OK)
			return vec_prefix(e, "receiver.stags[%zu]", i);
		if (!valid)
			iw_sink_invalidate(&j->sink, b.stag, NULL);
	}
	json_t *rd = rcv ? json_object_get(rcv, "reads") : NULL;
	for (size_t i = 0; i < json_array_size(rd); i++) {
		json_t *r = json_array_get(rd, i);
		uint64_t stag, to, size;
		if (!json_is_object(r) || vec_get_u64(r, "sink_stag", 0, &stag, e) || vec_get_u64(r, "sink_to", 0, &to, e) ||
		    vec_get_u64(r, "size", 0, &size, e) || stag > UINT32_MAX || size > UINT32_MAX || j->nreads == MAX_READS)
			return iw_errf(e, IW_EINVAL, "receiver.reads[%zu]: sink_stag, sink_to, size (at most %d reads)", i,
				       MAX_READS);
		iw_read_req *q = &j->reads[j->nreads++];
		memset(q, 0, sizeof *q);
		q->sink_stag = (uint32_t)stag;
		q->sink_to = to;
		q->size = (uint32_t)size;
	}
	return 0;
}

static int judge_init(judge *j, const iw_profile *p, const json_t *v, iw_err *e)
{
	memset(j, 0, sizeof *j);
	j->p = p;
	j->messages = json_array();
	j->notes = json_array();
	const json_t *rcv = json_object_get(v, "receiver");
	if (rcv && !json_is_object(rcv))
		return iw_errf(e, IW_EINVAL, "'receiver' must be an object");
	uint64_t stream, pd;
	if (vec_get_u64(rcv, "stream", 1, &stream, e) || vec_get_u64(rcv, "pd", 1, &pd, e) ||
	    vec_get_bool(rcv, "repost", true, &j->repost, e))
		return vec_prefix(e, "receiver");
	iw_sink_init(&j->sink, p, (uint32_t)stream, (uint32_t)pd);
	if (setup_queues(j, rcv, e) || setup_stags(j, rcv, e))
		return -1;
	return 0;
}

/* ---- verdicts ---- */

static void note(judge *j, const char *req, uint64_t off)
{
	json_array_append_new(j->notes, json_pack("{s:s, s:I}", "requirement", req, "offset", (json_int_t)off));
}

static void fail(judge *j, const char *req, int layer, int etype, int ecode, uint64_t off)
{
	j->failed = true;
	memset(&j->err, 0, sizeof j->err);
	j->err.req = req;
	j->err.kind = IW_VIOL_FATAL;
	j->err.layer = layer;
	j->err.etype = etype;
	j->err.ecode = ecode;
	j->err.offset = off;
}

static void fail_sink(judge *j, const iw_sink_result *r, uint64_t off)
{
	fail(j, r->req ? r->req : "DDP-9.1-01", r->layer, r->etype, r->ecode, off);
}

static json_t *hexs(uint64_t v)
{
	char b[24];
	return json_string(vec_u64hex(v, b));
}

static void repost(judge *j, uint32_t qn, const iw_sink_delivery *d)
{
	if (!j->repost)
		return;
	uint32_t size = j->qsize[qn];
	size_t idx = size ? (size_t)((uintptr_t)d->data - (uintptr_t)j->qmem[qn]) / size : 0;
	if (idx >= j->qcount[qn])
		idx = 0;
	iw_sink_post(&j->sink, qn, j->qmem[qn] + idx * size, size, NULL);
}

/* ---- one ULPDU ---- */

static void on_tagged(judge *j, const iw_rdmap_msg *m, uint64_t off)
{
	bool write = m->opcode == IW_OP_WRITE;
	unsigned access = write ? IW_ACCESS_REMOTE_WRITE : 0;   /* ARCH-2.2-F1 */
	if (!write) {
		/* A Read Response answers the oldest outstanding Read Request (RFC 5040 §5.2). */
		if (j->nreads == 0) {
			fail(j, REQ_RDMAP_UNASKED, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, off);
			return;
		}
		const iw_read_req *rr = &j->reads[j->rd_head];
		if (m->payload_len) {
			uint64_t d = m->ddp.to - rr->sink_to;
			if (m->ddp.stag != rr->sink_stag) {
				fail(j, "DDP-9.1-T1", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_INVALID_STAG, off);
				return;
			}
			if (m->ddp.to < rr->sink_to || d > rr->size || m->payload_len > rr->size - d) {
				fail(j, "DDP-9.1-T4", IW_LAYER_DDP, IW_DDP_ET_TAGGED, IW_DDP_EC_BASE_BOUNDS, off);
				return;
			}
		}
	}
	iw_sink_result r;
	iw_sink_segment(&j->sink, &m->ddp, m->payload, m->payload_len, access, &r);
	if (r.status != IW_SINK_PLACED) {
		fail_sink(j, &r, off);
		return;
	}
	if (!m->ddp.last)
		return;
	if (!write) {
		j->rd_head++;
		j->nreads--;
	}
	json_array_append_new(j->messages,
			      json_pack("{s:s, s:i, s:o, s:o, s:I}", "message", write ? "RDMA Write" : "RDMA Read Response",
					"opcode", m->opcode, "stag", hexs(m->ddp.stag), "to", hexs(m->ddp.to), "length",
					(json_int_t)m->payload_len));
}

static void deliver(judge *j, uint32_t qn, const iw_sink_delivery *d, uint64_t off)
{
	unsigned opcode = iw_rdmap_ctrl_opcode(d->rsvdulp[0]);
	if (qn == IW_QN_SEND) {
		if (opcode == IW_OP_SEND_INV || opcode == IW_OP_SEND_SE_INV) {
			uint32_t stag = iw_get_be32(d->rsvdulp + 1);
			if (iw_sink_invalidate(&j->sink, stag, NULL) != IW_OK) {
				fail(j, REQ_RDMAP_INVAL, IW_LAYER_RDMAP, IW_RDMAP_ET_PROTECTION, IW_RDMAP_EC_CANNOT_INVALIDATE,
				     off);
				return;
			}
		}
		json_t *msg = json_pack("{s:s, s:i, s:i, s:I, s:I}", "message", iw_rdmap_op(opcode)->name, "opcode",
					opcode, "qn", 0, "msn", (json_int_t)d->msn, "length", (json_int_t)d->len);
		if (opcode == IW_OP_SEND_INV || opcode == IW_OP_SEND_SE_INV)
			json_object_set_new(msg, "invalidate_stag", hexs(iw_get_be32(d->rsvdulp + 1)));
		json_array_append_new(j->messages, msg);
		repost(j, qn, d);
		return;
	}
	if (qn == IW_QN_READ_REQ) {
		iw_read_req rr;
		bool ok = d->len == IW_RDMAP_READ_REQ_LEN && iw_read_req_decode(d->data, d->len, &rr, NULL) == IW_OK;
		repost(j, qn, d);
		if (!ok) {
			fail(j, REQ_RDMAP_READ_REQ, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_UNSPECIFIED, off);
			return;
		}
		iw_sink_result r;
		if (!iw_sink_check_read(&j->sink, rr.src_stag, rr.src_to, rr.size, &r)) {
			fail_sink(j, &r, off);
			return;
		}
		json_array_append_new(j->messages,
				      json_pack("{s:s, s:i, s:I, s:o, s:o, s:I, s:o, s:o}", "message", "RDMA Read Request",
						"opcode", IW_OP_READ_REQ, "msn", (json_int_t)d->msn, "sink_stag",
						hexs(rr.sink_stag), "sink_to", hexs(rr.sink_to), "size", (json_int_t)rr.size,
						"src_stag", hexs(rr.src_stag), "src_to", hexs(rr.src_to)));
		return;
	}
	iw_terminate t;
	int rc = iw_terminate_decode(d->data, d->len, &t, NULL);
	repost(j, qn, d);
	if (rc != IW_OK) {
		fail(j, REQ_RDMAP_TERM, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_UNSPECIFIED, off);
		return;
	}
	json_t *msg = json_pack("{s:s, s:i, s:I, s:i, s:i, s:i, s:s, s:b, s:b, s:b}", "message", "Terminate", "opcode",
				IW_OP_TERMINATE, "msn", (json_int_t)d->msn, "layer", t.layer, "etype", t.etype, "ecode",
				t.ecode, "code", iw_error_name(t.layer, t.etype, t.ecode), "m", t.m, "d", t.d, "r", t.r);
	if (t.d) {
		json_object_set_new(msg, "ddp_segment_length", json_integer(t.ddp_seg_len));
		json_object_set_new(msg, "ddp_header", vec_hex_json(t.ddp_hdr, t.ddp_hdr_len));
	}
	if (t.r)
		json_object_set_new(msg, "rdma_header", vec_hex_json(t.rdma_hdr, IW_RDMAP_READ_REQ_LEN));
	json_array_append_new(j->messages, msg);
	j->closed = true;   /* the peer ended the stream (DDP-9.1-04) */
}

static void track_rsvdulp(judge *j, const iw_ddp_hdr *h)
{
	for (size_t i = 0; i < j->nseen; i++)
		if (j->seen[i].qn == h->qn && j->seen[i].msn == h->msn) {
			if (memcmp(j->seen[i].rsvdulp, h->rsvdulp, 5))
				j->rsvdulp_varies = true;
			return;
		}
	if (j->nseen < MAX_SEEN) {
		j->seen[j->nseen].qn = h->qn;
		j->seen[j->nseen].msn = h->msn;
		memcpy(j->seen[j->nseen].rsvdulp, h->rsvdulp, 5);
		j->nseen++;
	}
}

static void on_untagged(judge *j, const iw_rdmap_msg *m, uint64_t off)
{
	uint32_t qn = m->ddp.qn;
	const iw_rdmap_opinfo *op = iw_rdmap_op(m->opcode);
	if (qn <= IW_QN_TERMINATE && op->qn != (int)qn) {
		fail(j, REQ_RDMAP_QUEUE, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION, IW_RDMAP_EC_OPCODE, off);
		return;
	}
	track_rsvdulp(j, &m->ddp);
	iw_sink_result r;
	iw_sink_segment(&j->sink, &m->ddp, m->payload, m->payload_len, 0, &r);
	if (r.status != IW_SINK_PLACED) {
		j->zero_len_untagged = m->payload_len == 0;
		fail_sink(j, &r, off);
		return;
	}
	iw_sink_delivery d;
	while (!j->failed && !j->closed && qn <= IW_QN_TERMINATE && iw_sink_deliver(&j->sink, qn, &d))
		deliver(j, qn, &d, off);
}

static void on_ulpdu(judge *j, const uint8_t *u, size_t ul, uint64_t off)
{
	iw_rdmap_msg m;
	iw_violation v;
	memset(&v, 0, sizeof v);
	if (!iw_rdmap_parse(j->p, u, ul, &m, &v)) {
		fail(j, v.req, v.layer, v.etype, v.ecode, off);
		return;
	}
	if (m.ddp.rsvd)
		note(j, "DDP-6.1-08", off);     /* reserved bits: the receiver ignores them */
	if (m.ddp.tagged)
		on_tagged(j, &m, off);
	else
		on_untagged(j, &m, off);
}

/* ---- the stream ---- */

static long judge_frame(judge *j, const iw_profile *p, const char *kind, const uint8_t *b, size_t n, json_t *x,
			iw_err *e)
{
	enum iw_mpa_kind want;
	if (!strcmp(kind, "request"))
		want = IW_MPA_REQUEST;
	else if (!strcmp(kind, "reply"))
		want = IW_MPA_REPLY;
	else
		return iw_errf(e, IW_EINVAL, "'startup_frame' must be \"request\" or \"reply\"");
	if (!p->startup_frames)
		return iw_errf(e, IW_EINVAL, "profile %s has no startup frames", p->name);
	iw_mpa_frame f;
	size_t flen = 0;
	int rc = iw_mpa_frame_decode(p, b, n, &f, &flen, NULL);
	if (rc == IW_ETRUNC && n < IW_MPA_FRAME_HDR_LEN) {
		fail(j, "MPA-6.1-R10a", IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0);
		return 0;
	}
	if (rc != IW_OK && rc != IW_ETRUNC)
		return iw_errf(e, IW_EINVAL, "startup frame: engine error %d", rc);
	json_object_set_new(x, "frame",
			    json_pack("{s:s, s:b, s:b, s:b, s:b, s:i, s:i, s:i}", "key",
				      !memcmp(f.key, iw_mpa_key(IW_MPA_REQUEST), IW_MPA_KEY_LEN) ? "request"
				      : !memcmp(f.key, iw_mpa_key(IW_MPA_REPLY), IW_MPA_KEY_LEN) ? "reply"
												  : "other",
				      "m", f.m, "c", f.c, "r", f.r, "enhanced", f.enhanced, "res", f.res, "rev", f.rev,
				      "pd_length", f.pd_length));
	if (f.has_irdord)
		json_object_set_new(json_object_get(x, "frame"), "irdord",
				    json_pack("{s:i, s:i, s:b, s:b, s:b, s:b}", "ird", f.ird, "ord", f.ord, "p2p", f.p2p,
					      "rtr_send", f.rtr_send, "rtr_write", f.rtr_write, "rtr_read", f.rtr_read));
	iw_violation vs[16];
	iw_viol_list l = {.v = vs, .cap = 16};
	bool ok = iw_mpa_frame_check(p, &f, want, &l);
	for (size_t i = 0; i < l.n; i++)
		if (vs[i].kind == IW_VIOL_SENDER)
			note(j, vs[i].req, 0);
	if (!ok) {
		for (size_t i = 0; i < l.n; i++)
			if (vs[i].kind == IW_VIOL_FATAL) {
				fail(j, vs[i].req, vs[i].layer, vs[i].etype, vs[i].ecode, 0);
				break;
			}
		return 0;
	}
	if (rc == IW_ETRUNC) {
		/* The header is fine but the private data never completes: rule 9 (MPA-6.1-R9a). */
		fail(j, "MPA-6.1-R9a", IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0);
		return 0;
	}
	return (long)flen;
}

static json_t *outcome(bool valid, const iw_violation *err)
{
	json_t *o = json_object();
	json_object_set_new(o, "result", json_string(valid ? "valid" : "invalid"));
	if (!valid && err)
		json_object_set_new(o, "error", vec_error_json(err));
	return o;
}

/* The other outcome(s) the spec allows for this one, or NULL. */
static json_t *alternatives(const judge *j, const iw_profile *p, const json_t *frame, const char **pos, const char **req)
{
	const iw_violation *v = &j->err;
	if (!j->failed) {
		if (j->rsvdulp_varies) {
			*pos = "DDP-6.3-05";
			*req = "DDP-6.3-05";
			return json_pack("[{s:s}]", "result", "invalid");
		}
		json_t *pl = frame ? json_object_get(frame, "pd_length") : NULL;
		if (pl && json_integer_value(pl) > (json_int_t)IW_MPA_PD_MAX_RFC && p->pd_max > IW_MPA_PD_MAX_RFC) {
			iw_violation a = {.req = "MPA-6.1-R9b", .layer = IW_LAYER_LLP, .etype = IW_LLP_ET_MPA,
					  .ecode = IW_MPA_E_STARTUP};
			*pos = "A11";
			*req = "MPA-6.1-R9b";
			json_t *arr = json_array();
			json_array_append_new(arr, outcome(false, &a));
			return arr;
		}
		return NULL;
	}
	iw_violation a = *v;
	if (v->layer == IW_LAYER_DDP && v->etype == IW_DDP_ET_UNTAGGED && j->zero_len_untagged &&
	    v->ecode >= IW_DDP_EC_INVALID_QN && v->ecode <= IW_DDP_EC_MSN_RANGE) {
		*pos = "A27";
		*req = "DDP-7.2-08";
		return json_pack("[{s:s}]", "result", "valid");
	}
	if (v->layer == IW_LAYER_DDP && v->etype == IW_DDP_ET_UNTAGGED && v->ecode == IW_DDP_EC_TOO_LONG) {
		a.ecode = IW_DDP_EC_INVALID_MO;
		*pos = "A28";
		*req = "DDP-9.1-U4";
	} else if (v->layer == IW_LAYER_DDP && v->etype == IW_DDP_ET_UNTAGGED && v->ecode == IW_DDP_EC_MSN_NO_BUFFER) {
		a.ecode = IW_DDP_EC_MSN_RANGE;
		*pos = "A28";
		*req = "DDP-9.1-U5";
	} else if (v->layer == IW_LAYER_DDP && v->etype == IW_DDP_ET_TAGGED && v->ecode == IW_DDP_EC_TO_WRAP) {
		a.ecode = IW_DDP_EC_BASE_BOUNDS;
		*pos = "A28";
		*req = "DDP-9.1-T5";
	} else if (v->layer == IW_LAYER_LLP && v->etype == IW_LLP_ET_MPA && v->ecode == IW_MPA_E_MARKER) {
		*pos = "A21";
		*req = "MPA-7-05";
		return json_pack("[{s:s}]", "result", "valid");
	} else {
		return NULL;
	}
	json_t *arr = json_array();
	json_array_append_new(arr, outcome(false, &a));
	return arr;
}

json_t *vec_judge_stream(const json_t *v, const iw_profile *p, iw_err *e)
{
	const char *hex = json_string_value(json_object_get(v, "hex"));
	uint64_t offset;
	bool markers, crc;
	if (!hex)
		return iw_errf(e, IW_EINVAL, "a stream vector needs 'hex'"), NULL;
	if (vec_get_u64(v, "stream_offset", 0, &offset, e) || vec_get_bool(v, "markers", false, &markers, e) ||
	    vec_get_bool(v, "crc", true, &crc, e))
		return NULL;
	json_t *fr = json_object_get(v, "startup_frame");
	if (fr && !json_is_string(fr))
		return iw_errf(e, IW_EINVAL, "'startup_frame' must be a string"), NULL;
	uint8_t *b;
	size_t n;
	if (vec_unhex(hex, &b, &n, e) != IW_OK)
		return NULL;
	judge *j = calloc(1, sizeof *j);
	iw_mpa_rx *rx = malloc(sizeof *rx);
	iw_fpdu *fp = malloc(sizeof *fp);
	json_t *x = json_object();
	if (!j || !rx || !fp) {
		iw_errf(e, IW_EINVAL, "out of memory");
		goto bad;
	}
	if (judge_init(j, p, v, e))
		goto bad;
	size_t pos = 0;
	if (fr) {
		long fl = judge_frame(j, p, json_string_value(fr), b, n, x, e);
		if (fl < 0)
			goto bad;
		pos = (size_t)fl;
	}
	bool fpdu_part = !fr || (!j->failed && pos < n);
	if (!j->failed && pos < n) {
		iw_mpa_rx_init_at(rx, p, markers || p->markers_always, crc || p->crc_always, offset);
		while (pos < n && !j->failed && !j->closed) {
			size_t used = 0;
			iw_violation err;
			enum iw_rx_status st = iw_mpa_rx_push(rx, b + pos, n - pos, &used, fp, &err);
			pos += used;
			if (st == IW_RX_FPDU) {
				j->fpdus++;
				if (fp->notes & IW_NOTE_PAD_NONZERO)
					note(j, "MPA-4-02", fp->start);
				if (fp->notes & IW_NOTE_MARKER_RESERVED)
					note(j, "MPA-4.1-02", fp->start);
				if (fp->notes & IW_NOTE_FPDUPTR_LOWBITS)
					note(j, "MPA-5.1-05", fp->start);
				on_ulpdu(j, fp->ulpdu, fp->ulpdu_length, fp->start);
			} else if (st == IW_RX_ERROR) {
				fail(j, err.req, err.layer, err.etype, err.ecode, err.offset);
			} else if (used == 0) {
				break;
			}
		}
		if (!j->failed && !j->closed && iw_mpa_rx_partial(rx))
			/* The FPDU never completes: nothing may be passed on (MPA-5.4-04). */
			fail(j, "MPA-5.4-04", -1, 0, 0, rx->fpdu_start);
	}

	const char *position = NULL, *preq = NULL;
	json_t *also = alternatives(j, p, json_object_get(x, "frame"), &position, &preq);
	json_t *strict = outcome(!j->failed, &j->err);
	if (also) {
		json_object_set_new(x, "result", json_string("acceptable"));
		json_object_set_new(x, "position", json_string(position));
		json_object_set_new(x, "requirement", json_string(preq));
		json_object_set_new(x, "strict", strict);
		json_object_set_new(x, "also", also);
	} else {
		json_object_update(x, strict);
		json_decref(strict);
	}
	if (json_array_size(j->notes))
		json_object_set(x, "notes", j->notes);
	if (fpdu_part) {
		json_object_set_new(x, "fpdus", json_integer((json_int_t)j->fpdus));
		json_object_set(x, "messages", j->messages);
	}
	judge_free(j);
	free(j);
	free(rx);
	free(fp);
	free(b);
	return x;
bad:
	if (j)
		judge_free(j);
	free(j);
	free(rx);
	free(fp);
	free(b);
	json_decref(x);
	return NULL;
}

json_t *iw_vec_expect(const json_t *v, iw_err *e)
{
	if (!json_is_object(v))
		return iw_errf(e, IW_EINVAL, "a vector must be an object"), NULL;
	const char *pn = json_string_value(json_object_get(v, "profile"));
	const iw_profile *p = iw_profile_find(pn);
	if (!p)
		return iw_errf(e, IW_EINVAL, "unknown profile '%s'", pn ? pn : "(none)"), NULL;
	const char *kind = json_string_value(json_object_get(v, "kind"));
	if (kind && !strcmp(kind, "stream"))
		return vec_judge_stream(v, p, e);
	if (kind && !strcmp(kind, "conversation"))
		return vec_judge_conversation(v, p, e);
	return iw_errf(e, IW_EINVAL, "'kind' must be \"stream\" or \"conversation\""), NULL;
}
