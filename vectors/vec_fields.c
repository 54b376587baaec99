/*
 * vec_fields.c - the engine's view of the iWARP traffic in a capture, as lines of fields, for
 * comparison with Wireshark's dissectors (tests/cli/tshark_check.sh).
 *
 * One line per startup frame and per FPDU, in the frame Wireshark shows it in (the frame that
 * completes it), in the vocabulary the test extracts from tshark's PDML:
 *   frame=N from=PORT req|rep m= c= r= res= rev= pdlen=
 *   frame=N from=PORT fpdu ulpdu= crc=good|bad|unchecked crcv=OCTETS [mk=FPDUPTR,...] t= l= dv= (qn= msn= mo= |
 *         stag= to=) rv= op= [inval=] [sinkstag= sinkto= size= srcstag= srcto=]
 *         [tlayer= tetype= tecode= tm= td= tr= [tseglen= tddp=] [trdma=]]
 * Numbers are lower-case hex without leading zeros; octet strings are hex (crcv: the CRC field's
 * four octets in wire order, as tshark shows the field).
 *
 * The plain view is what the engine decodes: markers on a direction iff the peer's frame had
 * M=1, CRC iff either frame had C=1, every FPDU framed by the length chain (after a CRC error
 * too: Wireshark keeps dissecting, so the view keeps framing). The Wireshark view rewrites what
 * Wireshark 4.0 is known to show differently (rfc-and-interop.md §2) and names each such
 * exception in a "# exception NAME: ..." line; it also lists the expert infos Wireshark's MPA
 * dissector is expected to raise ("expert SEVERITY SUMMARY").
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "pcap_read.h"
#include "rdmap.h"
#include "vec_int.h"

typedef struct row {
	uint64_t frame, seq;
	char *text;
} row;

typedef struct rows {
	row *r;
	size_t n, cap;
	uint64_t seq;
	bool oom;
} rows;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void add_row(rows *rs, uint64_t frame, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		row *r = realloc(rs->r, cap * sizeof *r);
		if (!r) {
			rs->oom = true;
			return;
		}
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n].frame = frame;
	rs->r[rs->n].seq = rs->seq++;
	rs->r[rs->n].text = strdup(buf);
	rs->n++;
}

static int row_cmp(const void *a, const void *b)
{
	const row *x = a, *y = b;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Appends "key=hex-octets". */
static size_t put_octets(char *b, size_t cap, size_t n, const char *key, const uint8_t *p, size_t len)
{
	n += (size_t)snprintf(b + n, n < cap ? cap - n : 0, " %s=", key);
	for (size_t i = 0; i < len && n + 3 < cap; i++)
		n += (size_t)snprintf(b + n, cap - n, "%02x", p[i]);
	return n;
}

typedef struct dirview {
	const iw_pcap_conn *c;
	int side;               /* the sender */
	const iw_pcap_stream *s;
	size_t frame_len;       /* octets of the startup frame before the FPDUs */
	bool markers, crc;      /* as the engine decodes them */
	bool wview;
	const iw_profile *p;
} dirview;

static uint64_t frame_at(const dirview *d, uint64_t fpdu_off)
{
	return iw_pcap_frame_of(d->s, d->frame_len + fpdu_off);
}

/* The DDP/RDMAP part of an FPDU line, and the engine's objection to it (Wireshark's DDP and
 * RDMAP dissector validates nothing, §2.2). */
static size_t ulpdu_fields(const dirview *d, const uint8_t *u, size_t ul, char *b, size_t cap, size_t n, uint64_t frame,
			   FILE *out)
{
	iw_ddp_hdr h;
	size_t hl;
	if (iw_ddp_hdr_decode(u, ul, &h, &hl, NULL) != IW_OK)
		return n;
	n += (size_t)snprintf(b + n, cap - n, " t=%d l=%d dv=%x", h.tagged, h.last, h.dv);
	if (h.tagged)
		n += (size_t)snprintf(b + n, cap - n, " stag=%" PRIx32 " to=%" PRIx64, h.stag, h.to);
	else
		n += (size_t)snprintf(b + n, cap - n, " qn=%" PRIx32 " msn=%" PRIx32 " mo=%" PRIx32, h.qn, h.msn, h.mo);
	unsigned op = iw_rdmap_ctrl_opcode(h.rsvdulp[0]);
	n += (size_t)snprintf(b + n, cap - n, " rv=%x op=%x", iw_rdmap_ctrl_rv(h.rsvdulp[0]), op);
	const uint8_t *pl = u + hl;
	size_t plen = ul - hl;
	if (!h.tagged && (op == IW_OP_SEND_INV || op == IW_OP_SEND_SE_INV))
		n += (size_t)snprintf(b + n, cap - n, " inval=%" PRIx32,
				      iw_rdmap_rsvd_word(&h));
	iw_read_req rr;
	if (!h.tagged && op == IW_OP_READ_REQ && iw_read_req_decode(pl, plen, &rr, NULL) == IW_OK)
		n += (size_t)snprintf(b + n, cap - n,
				      " sinkstag=%" PRIx32 " sinkto=%" PRIx64 " size=%" PRIx32 " srcstag=%" PRIx32
				      " srcto=%" PRIx64, rr.sink_stag, rr.sink_to, rr.size, rr.src_stag, rr.src_to);
	iw_terminate t;
	if (!h.tagged && op == IW_OP_TERMINATE && iw_terminate_decode(pl, plen, &t, NULL) == IW_OK) {
		n += (size_t)snprintf(b + n, cap - n, " tlayer=%x tetype=%x tecode=%x tm=%d td=%d tr=%d", t.layer, t.etype,
				      t.ecode, t.m, t.d, t.r);
		const uint8_t *ddp_h = t.ddp_hdr, *rdma_h = t.rdma_hdr;
		size_t ddp_len = t.ddp_hdr_len;
		if (d->wview && t.d) {
			/* Wireshark takes 14 octets of terminated DDP header when EType is 1 and 18
			 * otherwise, whatever the layer and the header's own T bit (§2.2). */
			size_t ws = t.etype == IW_DDP_ET_TAGGED ? IW_DDP_TAGGED_HDR_LEN : IW_DDP_UNTAGGED_HDR_LEN;
			if (ws != t.ddp_hdr_len && plen < 6 + ws) {
				ddp_h = NULL;
				fprintf(out,
					"# exception wireshark-term-ddp-header-by-etype: frame %" PRIu64 ": a Terminate (layer "
					"%u, EType %u) carries a %zu-octet DDP header; Wireshark wants %zu octets by EType, "
					"finds too few and shows no terminated header (rfc-and-interop.md §2.2)\n",
					frame, t.layer, t.etype, t.ddp_hdr_len, ws);
			} else if (ws != t.ddp_hdr_len) {
				ddp_h = pl + 6;
				ddp_len = ws;
				rdma_h = pl + 6 + ws;
				fprintf(out,
					"# exception wireshark-term-ddp-header-by-etype: frame %" PRIu64 ": a Terminate (layer "
					"%u, EType %u) carries a %zu-octet DDP header; Wireshark splits %zu octets by EType "
					"(rfc-and-interop.md §2.2)%s\n",
					frame, t.layer, t.etype, t.ddp_hdr_len, ws,
					t.r ? ", so the terminated RDMA header is shifted too" : "");
			}
		}
		if (t.d) {
			uint8_t sl[2] = {(uint8_t)(t.ddp_seg_len >> 8), (uint8_t)t.ddp_seg_len};
			n = put_octets(b, cap, n, "tseglen", sl, 2);
			if (ddp_h)
				n = put_octets(b, cap, n, "tddp", ddp_h, ddp_len);
		}
		if (t.r && ddp_h && (rdma_h != t.rdma_hdr ? (size_t)(pl + plen - rdma_h) >= IW_RDMAP_READ_REQ_LEN : true))
			n = put_octets(b, cap, n, "trdma", rdma_h, IW_RDMAP_READ_REQ_LEN);
	}
	if (d->wview) {
		iw_rdmap_msg m;
		iw_violation v;
		memset(&v, 0, sizeof v);
		bool ok = iw_rdmap_parse(d->p, u, ul, &m, &v);
		if (!ok && v.ecode == IW_RDMAP_EC_OPCODE && iw_rdmap_op(op)->known &&
		    iw_rdmap_op(op)->tagged != h.tagged)
			fprintf(out,
				"# exception wireshark-t-bit-header-choice: frame %" PRIu64 ": %s (opcode 0x%x) in a%s "
				"segment; Wireshark reads the header the T bit announces, as the engine does, and reports "
				"nothing; the engine reports %s (rfc-and-interop.md §2.2)\n",
				frame, iw_rdmap_op(op)->name, op, h.tagged ? " tagged" : "n untagged",
				iw_error_name(v.layer, v.etype, v.ecode));
		else if (!ok || h.dv != d->p->ddp_version)
			fprintf(out,
				"# exception wireshark-no-ddp-rdmap-validation: frame %" PRIu64 ": the engine reports %s; "
				"Wireshark's DDP/RDMAP dissector validates no field (rfc-and-interop.md §2.2)\n",
				frame,
				ok ? iw_error_name(IW_LAYER_DDP, h.tagged ? IW_DDP_ET_TAGGED : IW_DDP_ET_UNTAGGED,
						   h.tagged ? IW_DDP_EC_T_VERSION : IW_DDP_EC_U_VERSION)
				   : iw_error_name(v.layer, v.etype, v.ecode));
	}
	return n;
}

static void fpdu_row(const dirview *d, rows *rs, const iw_fpdu *fp, bool crc_bad, FILE *out)
{
	char b[1024];
	uint64_t frame = frame_at(d, fp->start + fp->wire_len - 1);
	size_t n = (size_t)snprintf(b, sizeof b, "frame=%" PRIu64 " from=%u fpdu ulpdu=%x crc=%s crcv=%08" PRIx32, frame,
				    d->c->port[d->side], fp->ulpdu_length,
				    !d->crc ? "unchecked" : crc_bad ? "bad" : "good", iw_crc32c_wire_order(fp->crc_received));
	if (fp->nmarkers) {
		n += (size_t)snprintf(b + n, sizeof b - n, " mk=");
		for (size_t i = 0; i < fp->nmarkers; i++)
			n += (size_t)snprintf(b + n, sizeof b - n, "%s%x", i ? "," : "", fp->markers[i].fpduptr);
	}
	n = ulpdu_fields(d, fp->ulpdu, fp->ulpdu_length, b, sizeof b, n, frame, out);
	(void)n;
	add_row(rs, frame, "%s", b);
}

static void fpdu_rows(const dirview *d, rows *rs, FILE *out)
{
	static iw_mpa_rx rx;
	static iw_fpdu fp;
	const uint8_t *b = d->s->data + d->frame_len;
	size_t len = d->s->len - d->frame_len, pos = 0;
	iw_mpa_rx_init(&rx, d->p, d->markers, d->crc);
	while (pos < len) {
		size_t used = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, b + pos, len - pos, &used, &fp, &err);
		pos += used;
		if (st == IW_RX_FPDU) {
			fpdu_row(d, rs, &fp, false, out);
		} else if (st == IW_RX_ERROR) {
			/* Wireshark dissects on after a bad FPDU; so does this view, by the length chain. */
			fpdu_row(d, rs, &fp, err.ecode == IW_MPA_E_CRC, out);
			uint64_t next = fp.start + fp.wire_len;
			iw_mpa_rx_init_at(&rx, d->p, d->markers, d->crc, next);
			pos = (size_t)next;
		} else if (used == 0) {
			break;
		}
	}
}

static bool frame_at_start(const iw_pcap_stream *s, enum iw_mpa_kind kind)
{
	return s->len >= IW_MPA_KEY_LEN && !memcmp(s->data, iw_mpa_key(kind), IW_MPA_KEY_LEN);
}

static void frame_row(rows *rs, const iw_pcap_conn *c, int side, const iw_mpa_frame *f, size_t flen, bool req)
{
	const iw_pcap_stream *s = &c->dir[side];
	uint8_t flags = (uint8_t)(f->enhanced ? 0x10 : 0) | f->res;
	add_row(rs, iw_pcap_frame_of(s, flen - 1), "frame=%" PRIu64 " from=%u %s m=%d c=%d r=%d res=%x rev=%x pdlen=%x",
		iw_pcap_frame_of(s, flen - 1), c->port[side], req ? "req" : "rep", f->m, f->c, f->r, flags, f->rev,
		f->pd_length);
}

/* Expert infos Wireshark's MPA dissector raises on a frame (§2.1), with the exceptions named. */
static void experts(const iw_mpa_frame *f, bool req, const iw_profile *p, FILE *out)
{
	uint8_t low = (uint8_t)((f->enhanced ? 0x10 : 0) | f->res);
	if (req && low) {
		fprintf(out, "expert Warn Res field is NOT set to zero as required by RFC 5044\n");
		if (!f->res)
			fprintf(out, "# exception wireshark-rfc5044-only: the Request's Enhanced bit (0x10, RFC 6581) "
				     "draws Wireshark's Res warning (rfc-and-interop.md §2.1)\n");
	}
	if (req && f->rev != IW_MPA_REV_RFC5044) {
		fprintf(out, "expert Warn Rev field is NOT set to one as required by RFC 5044\n");
		if (iw_profile_rev_ok(p, f->rev))
			fprintf(out, "# exception wireshark-rfc5044-only: Rev %u is valid under %s; Wireshark knows only "
				     "RFC 5044's Rev 1 (rfc-and-interop.md §2.1)\n",
				f->rev, p->name);
	}
	if (!req && f->r)
		fprintf(out, "expert Note Reject bit set by Responder\n");
	if (f->pd_length > IW_MPA_PD_MAX_RFC)
		fprintf(out, "expert Error Bad length\n");
}

static int conn_rows(const iw_pcap_conn *c, const iw_profile *force, bool wview, rows *rs, FILE *out)
{
	int rq = frame_at_start(&c->dir[0], IW_MPA_REQUEST) ? 0 : frame_at_start(&c->dir[1], IW_MPA_REQUEST) ? 1 : -1;
	if (rq < 0)
		return 0;       /* Wireshark engages on a Request only; nor does the engine look further */
	iw_mpa_frame f[2];
	size_t flen[2] = {0, 0};
	const iw_profile *p = force;
	if (!p) {
		/* The profile the Request's Rev speaks, so its frame checks as it was meant. */
		uint8_t rev = c->dir[rq].len > 17 ? c->dir[rq].data[17] : 1;
		p = iw_profile_get(rev == 0 ? IW_PROFILE_RDDP_MPA_01 : rev == 2 ? IW_PROFILE_RFC6581 : IW_PROFILE_RFC5044);
	}
	if (iw_mpa_frame_decode(p, c->dir[rq].data, c->dir[rq].len, &f[rq], &flen[rq], NULL) != IW_OK)
		return 0;
	frame_row(rs, c, rq, &f[rq], flen[rq], true);
	if (wview)
		experts(&f[rq], true, p, out);
	int rp = !rq;
	if (!frame_at_start(&c->dir[rp], IW_MPA_REPLY) ||
	    iw_mpa_frame_decode(p, c->dir[rp].data, c->dir[rp].len, &f[rp], &flen[rp], NULL) != IW_OK)
		return 0;
	frame_row(rs, c, rp, &f[rp], flen[rp], false);
	if (wview)
		experts(&f[rp], false, p, out);
	if (f[rp].r)
		return 0;       /* no full operation after a reject */
	for (int s = 0; s < 2; s++) {
		dirview d = {.c = c, .side = s, .s = &c->dir[s], .frame_len = flen[s], .markers = f[!s].m,
			     .crc = f[0].c || f[1].c, .wview = wview, .p = p};
		bool ws_markers = f[0].m || f[1].m;
		if (wview && ws_markers != d.markers) {
			fprintf(out,
				"# exception wireshark-markers-both-directions: %s sends no markers (the peer's frame had "
				"M=0) but the other frame had M=1; Wireshark assumes markers both ways and its fields for "
				"this direction are not compared (rfc-and-interop.md §2.1)\n"
				"skip from=%u\n",
				s == rq ? "the initiator" : "the responder", c->port[s]);
			continue;
		}
		fpdu_rows(&d, rs, out);
	}
	return 0;
}

int iw_vec_dump_fields(const char *pcap_path, const iw_profile *p, bool wview, FILE *out, iw_err *e)
{
	iw_pcap_capture *cap;
	char msg[512];
	if (iw_pcap_read(pcap_path, &cap, msg, sizeof msg))
		return iw_errf(e, -1, "%s", msg);
	rows rs;
	memset(&rs, 0, sizeof rs);
	for (size_t i = 0; i < cap->nconns; i++)
		conn_rows(&cap->conns[i], p, wview, &rs, out);
	if (rs.n)
		qsort(rs.r, rs.n, sizeof *rs.r, row_cmp);
	for (size_t i = 0; i < rs.n; i++) {
		fprintf(out, "%s\n", rs.r[i].text ? rs.r[i].text : "");
		free(rs.r[i].text);
	}
	free(rs.r);
	iw_pcap_capture_free(cap);
	if (rs.oom)
		return iw_errf(e, -1, "out of memory");
	return 0;
}
