/*
 * decode_stream.c - one direction of an MPA stream, decoded by the engine, judged by the
 * verifiers the runner judges a DUT with (suite/verify/), and printed (see decode_stream.h).
 * Moved out of cmd_decode.c so captures reuse the same printer.
 */
#include "decode_stream.h"

#include <stdio.h>
#include <string.h>

#include "crc32c.h"
#include "decode_reads.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "rdmap.h"
#include "verify.h"

/* A 64-bit field (a TO) as "0x" and 16 hex digits: JSON numbers are exact only to 2^53. */
static json_t *hex64(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "0x%016llx", (unsigned long long)v);
	return json_string(b);
}

uint64_t iw_decode_frame_of(const iw_decode_ctx *o, uint64_t off)
{
	return o->cap ? iw_pcap_frame_of(o->cap, o->cap_base + off) : 0;
}


/* " (frame N)" or " (frames N-M)" for octets [off, off + len), "" outside captures. */
static const char *where(const iw_decode_ctx *o, uint64_t off, uint64_t len, char *buf, size_t cap)
{
	buf[0] = '\0';
	uint64_t a = iw_decode_frame_of(o, off), b = len ? iw_decode_frame_of(o, off + len - 1) : a;
	if (a && b > a)
		snprintf(buf, cap, " (frames %llu-%llu)", (unsigned long long)a, (unsigned long long)b);
	else if (a)
		snprintf(buf, cap, " (frame %llu)", (unsigned long long)a);
	return buf;
}

static void put_frame(const iw_decode_ctx *o, json_t *j, uint64_t off)
{
	uint64_t f = iw_decode_frame_of(o, off);
	if (f)
		json_object_set_new(j, "frame", json_integer((json_int_t)f));
}

static const char *dir_name(const iw_violation *v)
{
	return v->kind == IW_VIOL_FATAL ? "error" : "sender violation";
}

/* "VIOLATION REQ at offset N (frame F): kind: detail [code]", as the text output shows it. */
static void viol_text(const iw_decode_ctx *o, const iw_violation *v, char *buf, size_t cap)
{
	char w[64];
	int n = snprintf(buf, cap, "VIOLATION %s at offset %llu%s: %s: %s", v->req, (unsigned long long)v->offset,
			 where(o, v->offset, 0, w, sizeof w), dir_name(v), v->detail);
	if (v->layer >= 0 && n >= 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " [%s]", iw_error_name(v->layer, v->etype, v->ecode));
}

static void report_viol(iw_decode_ctx *o, const iw_violation *v)
{
	if (o->first && !o->first->set) {
		o->first->set = true;
		viol_text(o, v, o->first->text, sizeof o->first->text);
	}
	if (o->json) {
		json_t *j = json_pack("{s:s, s:s, s:I, s:s}", "requirement", v->req, "kind",
				      v->kind == IW_VIOL_FATAL ? "fatal" : "sender", "offset", (json_int_t)v->offset,
				      "detail", v->detail);
		put_frame(o, j, v->offset);
		if (o->unjudged)
			json_object_set_new(j, "judged", json_false());
		if (v->layer >= 0) {
			json_object_set_new(j, "layer", json_integer(v->layer));
			json_object_set_new(j, "etype", json_integer(v->etype));
			json_object_set_new(j, "ecode", json_integer(v->ecode));
			json_object_set_new(j, "code", json_string(iw_error_name(v->layer, v->etype, v->ecode)));
		}
		json_array_append_new(o->viols, j);
	} else if (!o->quiet) {
		char line[IW_DECODE_LINE_MAX];
		viol_text(o, v, line, sizeof line);
		printf("  %s%s\n", o->unjudged ? "not judged: " : "", line);
	}
}

void iw_decode_violation(iw_decode_ctx *o, const char *req, enum iw_viol_kind kind, int layer, int etype, int ecode,
			 uint64_t off, const char *detail)
{
	iw_violation *v = iw_viol_add(o->viol, req, kind, layer, etype, ecode, off, "%s", detail);
	if (v)
		report_viol(o, v);
}

void iw_decode_check(iw_decode_ctx *o, const iw_check *c, uint64_t off)
{
	if (!c->req)
		return;
	iw_decode_violation(o, c->req, c->kind, c->layer, c->etype, c->ecode, off, c->detail);
	for (size_t i = 0; i < c->nmore; i++)
		iw_decode_violation(o, c->more[i].req, c->more[i].kind, c->more[i].layer, c->more[i].etype,
				    c->more[i].ecode, off, c->more[i].detail);
}

static const char *key_text(const uint8_t *key, char *buf, size_t cap)
{
	if (!memcmp(key, iw_mpa_key(IW_MPA_REQUEST), IW_MPA_KEY_LEN))
		return "\"MPA ID Req Frame\"";
	if (!memcmp(key, iw_mpa_key(IW_MPA_REPLY), IW_MPA_KEY_LEN))
		return "\"MPA ID Rep Frame\"";
	size_t n = 0;
	for (int i = 0; i < IW_MPA_KEY_LEN && n + 3 < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%02x", key[i]);
	return buf;
}

bool iw_decode_looks_like_frame(const uint8_t *buf, size_t len)
{
	if (len < IW_MPA_KEY_LEN)
		return false;
	for (int k = 0; k < 2; k++) {
		const uint8_t *key = iw_mpa_key(k ? IW_MPA_REPLY : IW_MPA_REQUEST);
		int same = 0;
		for (int i = 0; i < IW_MPA_KEY_LEN; i++)
			same += buf[i] == key[i];
		if (same >= 12)
			return true;
	}
	return false;
}

long iw_decode_frame(iw_decode_ctx *o, const iw_profile *p, const uint8_t *buf, size_t len, int expect, bool force,
		     iw_mpa_frame *out)
{
	static const char prefix[] = "MPA ID Re";
	if (!p->startup_frames)
		return 0;
	if (!force && (len < sizeof prefix - 1 || memcmp(buf, prefix, sizeof prefix - 1)))
		return 0;
	iw_mpa_frame f;
	size_t flen = 0;
	iw_err e;
	int rc = iw_mpa_frame_decode(p, buf, len, &f, &flen, &e);
	if (rc == IW_ETRUNC) {
		if (o->stops_early)
			return -1;      /* the capture, not the sender, stopped there */
		char d[160];
		snprintf(d, sizeof d, "the stream ends after %zu octets of a startup frame that needs %zu", len, flen);
		iw_decode_violation(o, "MPA-6.1-R9a", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0, d);
		return -1;
	}
	if (rc != IW_OK) {
		iw_decode_violation(o, "MPA-6.1-R2b", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0, e.msg);
		return -1;
	}
	if (out)
		*out = f;
	enum iw_mpa_kind kind = buf[IW_MPA_KEY_DIFF_OCTET] == 'p' ? IW_MPA_REPLY : IW_MPA_REQUEST;
	if (expect >= 0)
		kind = (enum iw_mpa_kind)expect;
	char kb[40], w[64];
	const char *kname = kind == IW_MPA_REPLY ? "Reply" : "Request";
	if (o->json) {
		json_t *j = json_pack("{s:s, s:I, s:I, s:s, s:b, s:b, s:b, s:b, s:i, s:i, s:i, s:I}", "type", "startup",
				      "offset", (json_int_t)0, "length", (json_int_t)flen, "frame", kname, "m", f.m,
				      "c", f.c, "r", f.r, "enhanced", f.enhanced, "res", f.res, "rev", f.rev,
				      "pd_length", (int)f.pd_length, "pd_octets", (json_int_t)f.pd_len);
		json_object_set_new(j, "key", json_string(key_text(f.key, kb, sizeof kb)));
		if (o->cap)
			json_object_set_new(j, "capture_frame", json_integer((json_int_t)iw_decode_frame_of(o, flen - 1)));
		if (f.has_irdord) {
			json_object_set_new(j, "ird", json_integer(f.ird));
			json_object_set_new(j, "ord", json_integer(f.ord));
			json_object_set_new(j, "p2p", json_boolean(f.p2p));
			json_object_set_new(j, "rtr_send", json_boolean(f.rtr_send));
			json_object_set_new(j, "rtr_write", json_boolean(f.rtr_write));
			json_object_set_new(j, "rtr_read", json_boolean(f.rtr_read));
		}
		json_array_append_new(o->items, j);
	} else if (!o->quiet) {
		printf("offset 0%s: MPA %s frame, %zu octets\n", where(o, 0, flen, w, sizeof w), kname, flen);
		printf("  Key %s  M=%d C=%d R=%d Enhanced=%d Res=0x%02x Rev=%u PD_Length=%u\n",
		       key_text(f.key, kb, sizeof kb), f.m, f.c, f.r, f.enhanced, f.res, f.rev, f.pd_length);
		if (f.has_irdord)
			printf("  IRD=%u ORD=%u A(P2P)=%d B(Send RTR)=%d C(Write RTR)=%d D(Read RTR)=%d\n", f.ird, f.ord,
			       f.p2p, f.rtr_send, f.rtr_write, f.rtr_read);
		if (f.pd_len)
			printf("  Private Data: %zu octets\n", f.pd_len);
	}
	iw_violation vs[16];
	iw_viol_list l = {.v = vs, .cap = 16};
	iw_verify_startup_frame(p, &f, kind, &l);
	for (size_t i = 0; i < l.n; i++)
		iw_decode_violation(o, vs[i].req, vs[i].kind, vs[i].layer, vs[i].etype, vs[i].ecode, vs[i].offset,
				    vs[i].detail);
	return (long)flen;
}

/* RFC 5040 §4.8: what a Terminate carries of the segment at fault, field by field, so a reader
 * of a capture sees which message the peer refused without decoding the octets by hand. */
static void terminate_attached(const iw_terminate *t, json_t *jt)
{
	iw_ddp_hdr h;
	iw_err e;
	if (t->d && iw_ddp_hdr_decode(t->ddp_hdr, t->ddp_hdr_len, &h, NULL, &e) == IW_OK) {
		unsigned op = iw_rdmap_ctrl_opcode(h.rsvdulp[0]);
		if (jt) {
			json_t *d = json_pack("{s:b, s:b, s:i, s:i, s:s}", "tagged", h.tagged, "last", h.last, "dv", h.dv,
					      "opcode", op, "name", iw_rdmap_op(op)->name);
			if (h.tagged) {
				json_object_set_new(d, "stag", json_integer(h.stag));
				json_object_set_new(d, "to", hex64(h.to));
			} else {
				json_object_set_new(d, "qn", json_integer(h.qn));
				json_object_set_new(d, "msn", json_integer(h.msn));
				json_object_set_new(d, "mo", json_integer(h.mo));
			}
			if (t->m)
				json_object_set_new(d, "segment_length", json_integer(t->ddp_seg_len));
			json_object_set_new(jt, "ddp_header", d);
		} else if (h.tagged) {
			printf("    at fault: DDP tagged L=%d DV=%u STag=0x%08x TO=0x%016llx, RDMAP %s", h.last, h.dv, h.stag,
			       (unsigned long long)h.to, iw_rdmap_op(op)->name);
		} else {
			printf("    at fault: DDP untagged L=%d DV=%u QN=%u MSN=%u MO=%u, RDMAP %s", h.last, h.dv, h.qn,
			       h.msn, h.mo, iw_rdmap_op(op)->name);
		}
		if (!jt && t->m)
			printf(", segment length %u", (unsigned)t->ddp_seg_len);
		if (!jt)
			printf("\n");
	}
	iw_read_req rr;
	if (t->has_rdma_hdr && iw_read_req_decode(t->rdma_hdr, sizeof t->rdma_hdr, &rr, &e) == IW_OK) {
		if (jt)
			json_object_set_new(jt, "read_request",
					    json_pack("{s:I, s:o, s:I, s:I, s:o}", "sink_stag", (json_int_t)rr.sink_stag,
						      "sink_to", hex64(rr.sink_to), "size", (json_int_t)rr.size, "src_stag",
						      (json_int_t)rr.src_stag, "src_to", hex64(rr.src_to)));
		else
			printf("    at fault: Read Request sink STag=0x%08x TO=0x%llx size=%u source STag=0x%08x TO=0x%llx\n",
			       rr.sink_stag, (unsigned long long)rr.sink_to, rr.size, rr.src_stag,
			       (unsigned long long)rr.src_to);
	}
}

/* The ULPDU's fields, then the sender's rules as the runner holds a DUT to them (verify.h): its
 * headers, then the segment against the messages before it (src). */
static void decode_ulpdu(iw_decode_ctx *o, const iw_profile *p, iw_source *src, const iw_fpdu *fp, json_t *jf)
{
	iw_rdmap_msg m;
	iw_check chk;
	bool ok = iw_verify_ulpdu(p, fp->ulpdu, fp->ulpdu_length, &m, &chk);
	if (!ok && m.hdr_len == 0) {
		iw_decode_check(o, &chk, fp->start);
		return;
	}
	const iw_ddp_hdr *h = &m.ddp;
	const iw_rdmap_opinfo *op = iw_rdmap_op(m.opcode);
	/* RFC 5040 §4.2: a Send with Invalidate names the STag in the untagged header's RsvdULP. */
	bool inv = !h->tagged && (m.opcode == IW_OP_SEND_INV || m.opcode == IW_OP_SEND_SE_INV);
	uint32_t inv_stag = iw_rdmap_rsvd_word(h);
	if (o->json) {
		json_t *d = json_pack("{s:b, s:b, s:i, s:i}", "tagged", h->tagged, "last", h->last, "rsvd", h->rsvd,
				      "dv", h->dv);
		if (h->tagged) {
			json_object_set_new(d, "stag", json_integer(h->stag));
			json_object_set_new(d, "to", hex64(h->to));
		} else {
			json_object_set_new(d, "qn", json_integer(h->qn));
			json_object_set_new(d, "msn", json_integer(h->msn));
			json_object_set_new(d, "mo", json_integer(h->mo));
		}
		json_object_set_new(jf, "ddp", d);
		json_t *r = json_pack("{s:i, s:i, s:s, s:I}", "rv", m.rv, "opcode", m.opcode, "name", op->name,
				      "payload_length", (json_int_t)m.payload_len);
		if (inv)
			json_object_set_new(r, "invalidate_stag", json_integer(inv_stag));
		json_object_set_new(jf, "rdmap", r);
	} else if (!o->quiet) {
		if (h->tagged)
			printf("  DDP tagged T=1 L=%d Rsvd=0x%x DV=%u STag=0x%08x TO=0x%016llx\n", h->last, h->rsvd, h->dv,
			       h->stag, (unsigned long long)h->to);
		else
			printf("  DDP untagged T=0 L=%d Rsvd=0x%x DV=%u QN=%u MSN=%u MO=%u\n", h->last, h->rsvd, h->dv,
			       h->qn, h->msn, h->mo);
		printf("  RDMAP RV=%u Opcode=0x%x (%s)", m.rv, m.opcode, op->name);
		if (inv)
			printf(" Invalidate STag=0x%08x", inv_stag);
		printf(", payload %zu octets\n", m.payload_len);
	}
	if (!ok) {
		/* An RDMAP field refused: the DDP header's own rules are still the sender's. */
		iw_check hc;
		iw_verify_ddp_hdr(p, h, &hc);
		iw_decode_check(o, &hc, fp->start);
		iw_decode_check(o, &chk, fp->start);
		return;
	}
	if (!iw_verify_segment(src, p, &m, &chk)) {
		iw_decode_check(o, &chk, fp->start);
		iw_source_take(src, &m);  /* one fault, one violation: the next segment is judged on */
	}
	iw_decode_reads_segment(o->reads, o, &m, fp->start, jf);
	if (m.opcode == IW_OP_READ_REQ && !h->tagged) {
		iw_read_req rr;
		iw_err e;
		if (iw_read_req_decode(m.payload, m.payload_len, &rr, &e) == IW_OK) {
			if (o->json)
				json_object_set_new(jf, "read_request",
						    json_pack("{s:I, s:o, s:I, s:I, s:o}", "sink_stag",
							      (json_int_t)rr.sink_stag, "sink_to", hex64(rr.sink_to),
							      "size", (json_int_t)rr.size, "src_stag",
							      (json_int_t)rr.src_stag, "src_to", hex64(rr.src_to)));
			else if (!o->quiet)
				printf("  Read Request sink STag=0x%08x TO=0x%llx size=%u source STag=0x%08x TO=0x%llx\n",
				       rr.sink_stag, (unsigned long long)rr.sink_to, rr.size, rr.src_stag,
				       (unsigned long long)rr.src_to);
		} else {
			iw_decode_violation(o, "RFC5040-4.4-01", IW_VIOL_FATAL, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION,
					    IW_RDMAP_EC_UNSPECIFIED, fp->start, e.msg);
		}
	} else if (m.opcode == IW_OP_TERMINATE && !h->tagged) {
		iw_terminate t;
		iw_err e;
		if (o->terminates)
			(*o->terminates)++;
		if (iw_terminate_decode(m.payload, m.payload_len, &t, &e) == IW_OK) {
			json_t *jt = NULL;
			if (o->json) {
				jt = json_pack("{s:i, s:i, s:i, s:s, s:b, s:b, s:b, s:I, s:b}", "layer", t.layer, "etype",
					       t.etype, "ecode", t.ecode, "code", iw_error_name(t.layer, t.etype, t.ecode),
					       "m", t.m, "d", t.d, "r", t.r, "ddp_header_length", (json_int_t)t.ddp_hdr_len,
					       "rdma_header", t.has_rdma_hdr);
				json_object_set_new(jf, "terminate", jt);
			} else if (!o->quiet) {
				printf("  Terminate %s M=%d D=%d R=%d attached DDP header %zu octets%s\n",
				       iw_error_name(t.layer, t.etype, t.ecode), t.m, t.d, t.r, t.ddp_hdr_len,
				       t.has_rdma_hdr ? ", RDMA header 28 octets" : "");
			}
			if (jt || !o->quiet)
				terminate_attached(&t, jt);
		} else {
			iw_decode_violation(o, t.broken_row, IW_VIOL_FATAL, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION,
					    IW_RDMAP_EC_UNSPECIFIED, fp->start, e.msg);
		}
	}
}

static void decode_fpdu(iw_decode_ctx *o, const iw_profile *p, iw_source *src, const iw_fpdu *fp)
{
	json_t *jf = NULL;
	if (o->json) {
		jf = json_pack("{s:s, s:I, s:I, s:i, s:i}", "type", "fpdu", "offset", (json_int_t)fp->start,
			       "wire_length", (json_int_t)fp->wire_len, "ulpdu_length", fp->ulpdu_length, "pad",
			       (int)fp->pad_len);
		if (o->cap)
			json_object_set_new(jf, "capture_frames",
					    json_pack("[I, I]", (json_int_t)iw_decode_frame_of(o, fp->start),
						      (json_int_t)iw_decode_frame_of(o, fp->start + fp->wire_len - 1)));
		json_t *mk = json_array();
		for (size_t i = 0; i < fp->nmarkers; i++)
			json_array_append_new(mk, json_pack("{s:I, s:i, s:i}", "offset", (json_int_t)fp->markers[i].pos,
							    "reserved", fp->markers[i].reserved, "fpduptr",
							    fp->markers[i].fpduptr));
		json_object_set_new(jf, "markers", mk);
		/* The field as sent, as tshark shows it (not the value, whose octets go LS first). */
		char crc[16];
		snprintf(crc, sizeof crc, "0x%08x", iw_crc32c_wire_order(fp->crc_received));
		json_object_set_new(jf, "crc", json_string(crc));
		json_object_set_new(jf, "crc_checked", json_boolean(fp->crc_checked));
		json_array_append_new(o->items, jf);
	} else if (!o->quiet) {
		char w[64];
		printf("offset %llu%s: FPDU, %zu octets on the wire\n", (unsigned long long)fp->start,
		       where(o, fp->start, fp->wire_len, w, sizeof w), fp->wire_len);
		printf("  MPA ULPDU_Length=%u pad=%u", fp->ulpdu_length, fp->pad_len);
		for (size_t i = 0; i < fp->nmarkers; i++)
			printf(" marker@%llu(RESERVED=0x%04x FPDUPTR=0x%04x)", (unsigned long long)fp->markers[i].pos,
			       fp->markers[i].reserved, fp->markers[i].fpduptr);
		printf(" CRC=0x%08x (wire order, %s)\n", iw_crc32c_wire_order(fp->crc_received),
		       fp->crc_checked ? "valid" : "not checked");
	}
	iw_check chk;
	if (!iw_verify_fpdu(fp, &chk))
		iw_decode_check(o, &chk, fp->start);
	if (!iw_verify_ulpdu_size(fp, &chk))
		iw_decode_check(o, &chk, fp->start);
	decode_ulpdu(o, p, src, fp, jf);
}

size_t iw_decode_fpdus(iw_decode_ctx *o, const iw_profile *p, bool markers, bool crc, uint64_t start,
		       const uint8_t *buf, size_t len, uint64_t *first_end)
{
	static iw_mpa_rx rx;
	static iw_fpdu fp;
	/* A stream given from a later offset starts its first FPDU there; the markers fall
	 * relative to SeqStart. */
	iw_mpa_rx_init_at(&rx, p, markers || p->markers_always, crc || p->crc_always, start);
	/* The sender's message state (MSNs, the message under way), from the stream's start unless
	 * the octets begin mid-conversation. */
	iw_source src;
	if (o->mid_stream)
		iw_source_join(&src);
	else
		iw_source_init(&src);
	size_t nfpdu = 0;
	if (first_end)
		*first_end = 0;
	while (len) {
		size_t used = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, buf, len, &used, &fp, &err);
		buf += used;
		len -= used;
		if (st == IW_RX_FPDU) {
			if (nfpdu++ == 0 && first_end)
				*first_end = fp.start + fp.wire_len;
			decode_fpdu(o, p, &src, &fp);
		} else if (st == IW_RX_ERROR) {
			/* The decoder speaks for a receiver; the violation is the sender's rule. */
			char d[sizeof err.detail + 96];
			snprintf(d, sizeof d, "%s%s", err.detail,
				 iw_verify_crc_reversed(&err, &fp)
					 ? " (the sender sent its CRC most-significant octet first; A1: least-significant first)"
					 : "");
			iw_decode_violation(o, iw_verify_stream_req(&err, &fp), err.kind, err.layer, err.etype, err.ecode,
					    err.offset, d);
			o->mpa_failed = true;
			if (len && !o->json && !o->quiet)
				printf("  %zu octets after the error are not decoded: nothing is passed after an MPA error "
				       "(MPA-7-08)\n", len);
			return nfpdu;
		} else if (used == 0) {
			break;
		}
	}
	if (iw_mpa_rx_partial(&rx) && !o->stops_early) {
		char d[192];
		if (rx.body_need > 2)
			snprintf(d, sizeof d,
				 "the stream ends inside an FPDU: %zu of %zu octets (ULPDU_Length %u) received",
				 rx.body_have, rx.body_need, (unsigned)iw_fpdu_ulpdu_length(rx.body));
		else
			snprintf(d, sizeof d, "the stream ends inside an FPDU's ULPDU_Length field");
		iw_decode_violation(o, "MPA-5.4-04", IW_VIOL_FATAL, -1, 0, 0, rx.fpdu_start, d);
	}
	return nfpdu;
}
