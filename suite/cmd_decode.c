/*
 * cmd_decode.c - `iwspec decode`: decode an MPA byte stream layer by layer and list every
 * violation with its requirement ID and error code.
 *
 * The stream may begin with a startup frame (Request or Reply); the octets after it are
 * FPDUs, as are all octets when there is no frame (or the profile has none). Everything is
 * decoded by the engine; this file only prints.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hexin.h"
#include "mpa_fpdu.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "profile.h"
#include "rdmap.h"

#define MAX_INPUT (64u << 20)
#define MAX_VIOLS 4096

typedef struct decode_out {
	bool json;
	json_t *root, *items, *viols;
	iw_violation viol_store[MAX_VIOLS];
	iw_viol_list viol;
} decode_out;

static void usage(FILE *f)
{
	char names[128];
	iw_profile_names(names, sizeof names);
	fprintf(f,
		"usage: iwspec decode [--profile P] [--markers] [--crc|--no-crc] [--start OFFSET] [--json]\n"
		"                     (--hex HEX | FILE | -)\n"
		"\n"
		"Decodes an MPA byte stream: an optional startup frame (Request or Reply), then FPDUs.\n"
		"Prints every field of every layer (MPA, DDP, RDMAP) and lists each violation with its\n"
		"requirement ID (spec/requirements.md) and error code.\n"
		"\n"
		"  --profile P     spec profile (default %s); one of: %s\n"
		"  --markers       the FPDU stream carries markers (every 512 octets from SeqStart)\n"
		"  --crc           CRCs are checked (default)\n"
		"  --no-crc        CRCs were agreed off: the field is present but not checked\n"
		"  --start OFFSET  stream offset of the first FPDU octet from SeqStart (default 0);\n"
		"                  decimal or 0x hex; places the markers\n"
		"  --json          print one JSON document instead of text\n"
		"  --hex HEX       the stream as hex digits (spaces and colons allowed)\n"
		"  FILE | -        the stream as raw octets from a file or standard input\n"
		"\n"
		"exit status: 0 the stream conforms, 1 it has violations, 2 bad usage or unreadable input\n",
		iw_profile_default()->name, names);
}

static const char *dir_name(const iw_violation *v)
{
	return v->kind == IW_VIOL_FATAL ? "error" : "sender violation";
}

static void report_viol(decode_out *o, const iw_violation *v)
{
	if (o->json) {
		json_t *j = json_pack("{s:s, s:s, s:I, s:s}", "requirement", v->req, "kind",
				      v->kind == IW_VIOL_FATAL ? "fatal" : "sender", "offset", (json_int_t)v->offset,
				      "detail", v->detail);
		if (v->layer >= 0) {
			json_object_set_new(j, "layer", json_integer(v->layer));
			json_object_set_new(j, "etype", json_integer(v->etype));
			json_object_set_new(j, "ecode", json_integer(v->ecode));
			json_object_set_new(j, "code", json_string(iw_error_name(v->layer, v->etype, v->ecode)));
		}
		json_array_append_new(o->viols, j);
	} else {
		printf("  VIOLATION %s at offset %llu: %s: %s", v->req, (unsigned long long)v->offset, dir_name(v),
		       v->detail);
		if (v->layer >= 0)
			printf(" [%s]", iw_error_name(v->layer, v->etype, v->ecode));
		printf("\n");
	}
}

static void add_viol(decode_out *o, const char *req, enum iw_viol_kind kind, int layer, int etype, int ecode,
		     uint64_t off, const char *detail)
{
	iw_violation *v = iw_viol_add(&o->viol, req, kind, layer, etype, ecode, off, "%s", detail);
	if (v)
		report_viol(o, v);
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

/* Decodes the startup frame at buf; returns its length, 0 when there is none, or -1 when the
 * stream ends inside it (reported). */
static long decode_frame(decode_out *o, const iw_profile *p, const uint8_t *buf, size_t len)
{
	static const char prefix[] = "MPA ID Re";
	if (!p->startup_frames || len < sizeof prefix - 1 || memcmp(buf, prefix, sizeof prefix - 1))
		return 0;
	iw_mpa_frame f;
	size_t flen = 0;
	iw_err e;
	int rc = iw_mpa_frame_decode(p, buf, len, &f, &flen, &e);
	if (rc == IW_ETRUNC) {
		char d[160];
		snprintf(d, sizeof d, "the stream ends after %zu octets of a startup frame that needs %zu", len, flen);
		add_viol(o, "MPA-6.1-R9a", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0, d);
		return -1;
	}
	if (rc != IW_OK) {
		add_viol(o, "MPA-6.1-R2b", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0, e.msg);
		return -1;
	}
	enum iw_mpa_kind kind = buf[IW_MPA_KEY_DIFF_OCTET] == 'p' ? IW_MPA_REPLY : IW_MPA_REQUEST;
	char kb[40];
	const char *kname = kind == IW_MPA_REPLY ? "Reply" : "Request";
	if (o->json) {
		json_t *j = json_pack("{s:s, s:I, s:I, s:s, s:b, s:b, s:b, s:b, s:i, s:i, s:i, s:I}", "type", "startup",
				      "offset", (json_int_t)0, "length", (json_int_t)flen, "frame", kname, "m", f.m,
				      "c", f.c, "r", f.r, "enhanced", f.enhanced, "res", f.res, "rev", f.rev,
				      "pd_length", (int)f.pd_length, "pd_octets", (json_int_t)f.pd_len);
		json_object_set_new(j, "key", json_string(key_text(f.key, kb, sizeof kb)));
		if (f.has_irdord) {
			json_object_set_new(j, "ird", json_integer(f.ird));
			json_object_set_new(j, "ord", json_integer(f.ord));
			json_object_set_new(j, "p2p", json_boolean(f.p2p));
			json_object_set_new(j, "rtr_send", json_boolean(f.rtr_send));
			json_object_set_new(j, "rtr_write", json_boolean(f.rtr_write));
			json_object_set_new(j, "rtr_read", json_boolean(f.rtr_read));
		}
		json_array_append_new(o->items, j);
	} else {
		printf("offset 0: MPA %s frame, %zu octets\n", kname, flen);
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
	iw_mpa_frame_check(p, &f, kind, &l);
	for (size_t i = 0; i < l.n; i++)
		add_viol(o, vs[i].req, vs[i].kind, vs[i].layer, vs[i].etype, vs[i].ecode, vs[i].offset, vs[i].detail);
	return (long)flen;
}

static void decode_ulpdu(decode_out *o, const iw_profile *p, const iw_fpdu *fp, json_t *jf)
{
	iw_rdmap_msg m;
	iw_violation v;
	memset(&v, 0, sizeof v);
	bool ok = iw_rdmap_parse(p, fp->ulpdu, fp->ulpdu_length, &m, &v);
	if (!ok && m.hdr_len == 0) {
		v.offset = fp->start;
		add_viol(o, v.req, v.kind, v.layer, v.etype, v.ecode, fp->start, v.detail);
		return;
	}
	const iw_ddp_hdr *h = &m.ddp;
	const iw_rdmap_opinfo *op = iw_rdmap_op(m.opcode);
	if (o->json) {
		json_t *d = json_pack("{s:b, s:b, s:i, s:i}", "tagged", h->tagged, "last", h->last, "rsvd", h->rsvd,
				      "dv", h->dv);
		if (h->tagged) {
			json_object_set_new(d, "stag", json_integer(h->stag));
			json_object_set_new(d, "to", json_integer((json_int_t)h->to));
		} else {
			json_object_set_new(d, "qn", json_integer(h->qn));
			json_object_set_new(d, "msn", json_integer(h->msn));
			json_object_set_new(d, "mo", json_integer(h->mo));
		}
		json_object_set_new(jf, "ddp", d);
		json_object_set_new(jf, "rdmap", json_pack("{s:i, s:i, s:s, s:I}", "rv", m.rv, "opcode", m.opcode,
							   "name", op->name, "payload_length",
							   (json_int_t)m.payload_len));
	} else {
		if (h->tagged)
			printf("  DDP tagged T=1 L=%d Rsvd=0x%x DV=%u STag=0x%08x TO=0x%016llx\n", h->last, h->rsvd, h->dv,
			       h->stag, (unsigned long long)h->to);
		else
			printf("  DDP untagged T=0 L=%d Rsvd=0x%x DV=%u QN=%u MSN=%u MO=%u\n", h->last, h->rsvd, h->dv,
			       h->qn, h->msn, h->mo);
		printf("  RDMAP RV=%u Opcode=0x%x (%s), payload %zu octets\n", m.rv, m.opcode, op->name, m.payload_len);
	}
	if (h->dv != p->ddp_version) {
		char d[96];
		snprintf(d, sizeof d, "DDP version DV=%u, the profile sends and expects %u", h->dv, p->ddp_version);
		add_viol(o, "DDP-6.1-10", IW_VIOL_FATAL, IW_LAYER_DDP, h->tagged ? IW_DDP_ET_TAGGED : IW_DDP_ET_UNTAGGED,
			 h->tagged ? IW_DDP_EC_T_VERSION : IW_DDP_EC_U_VERSION, fp->start, d);
	}
	if (h->rsvd) {
		char d[96];
		snprintf(d, sizeof d, "DDP reserved bits 0x%x sent; they must be zero (receivers ignore them)", h->rsvd);
		add_viol(o, "DDP-6.1-08", IW_VIOL_SENDER, -1, 0, 0, fp->start, d);
	}
	if (!ok) {
		add_viol(o, v.req, v.kind, v.layer, v.etype, v.ecode, fp->start, v.detail);
		return;
	}
	if (m.opcode == IW_OP_READ_REQ && !h->tagged) {
		iw_read_req rr;
		iw_err e;
		if (iw_read_req_decode(m.payload, m.payload_len, &rr, &e) == IW_OK) {
			if (o->json)
				json_object_set_new(jf, "read_request",
						    json_pack("{s:I, s:I, s:I, s:I, s:I}", "sink_stag",
							      (json_int_t)rr.sink_stag, "sink_to", (json_int_t)rr.sink_to,
							      "size", (json_int_t)rr.size, "src_stag",
							      (json_int_t)rr.src_stag, "src_to", (json_int_t)rr.src_to));
			else
				printf("  Read Request sink STag=0x%08x TO=0x%llx size=%u source STag=0x%08x TO=0x%llx\n",
				       rr.sink_stag, (unsigned long long)rr.sink_to, rr.size, rr.src_stag,
				       (unsigned long long)rr.src_to);
		} else {
			add_viol(o, "RFC5040-4.4", IW_VIOL_FATAL, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION,
				 IW_RDMAP_EC_UNSPECIFIED, fp->start, e.msg);
		}
	} else if (m.opcode == IW_OP_TERMINATE && !h->tagged) {
		iw_terminate t;
		iw_err e;
		if (iw_terminate_decode(m.payload, m.payload_len, &t, &e) == IW_OK) {
			if (o->json)
				json_object_set_new(jf, "terminate",
						    json_pack("{s:i, s:i, s:i, s:s, s:b, s:b, s:b, s:I, s:b}", "layer",
							      t.layer, "etype", t.etype, "ecode", t.ecode, "code",
							      iw_error_name(t.layer, t.etype, t.ecode), "m", t.m, "d", t.d,
							      "r", t.r, "ddp_header_length", (json_int_t)t.ddp_hdr_len,
							      "rdma_header", t.has_rdma_hdr));
			else
				printf("  Terminate %s M=%d D=%d R=%d attached DDP header %zu octets%s\n",
				       iw_error_name(t.layer, t.etype, t.ecode), t.m, t.d, t.r, t.ddp_hdr_len,
				       t.has_rdma_hdr ? ", RDMA header 28 octets" : "");
		} else {
			add_viol(o, "RFC5040-4.8", IW_VIOL_FATAL, IW_LAYER_RDMAP, IW_RDMAP_ET_OPERATION,
				 IW_RDMAP_EC_UNSPECIFIED, fp->start, e.msg);
		}
	}
}

static void decode_fpdu(decode_out *o, const iw_profile *p, const iw_fpdu *fp)
{
	json_t *jf = NULL;
	if (o->json) {
		jf = json_pack("{s:s, s:I, s:I, s:i, s:i}", "type", "fpdu", "offset", (json_int_t)fp->start,
			       "wire_length", (json_int_t)fp->wire_len, "ulpdu_length", fp->ulpdu_length, "pad",
			       (int)fp->pad_len);
		json_t *mk = json_array();
		for (size_t i = 0; i < fp->nmarkers; i++)
			json_array_append_new(mk, json_pack("{s:I, s:i, s:i}", "offset", (json_int_t)fp->markers[i].pos,
							    "reserved", fp->markers[i].reserved, "fpduptr",
							    fp->markers[i].fpduptr));
		json_object_set_new(jf, "markers", mk);
		char crc[16];
		snprintf(crc, sizeof crc, "0x%08x", fp->crc_received);
		json_object_set_new(jf, "crc", json_string(crc));
		json_object_set_new(jf, "crc_checked", json_boolean(fp->crc_checked));
		json_array_append_new(o->items, jf);
	} else {
		printf("offset %llu: FPDU, %zu octets on the wire\n", (unsigned long long)fp->start, fp->wire_len);
		printf("  MPA ULPDU_Length=%u pad=%u", fp->ulpdu_length, fp->pad_len);
		for (size_t i = 0; i < fp->nmarkers; i++)
			printf(" marker@%llu(RESERVED=0x%04x FPDUPTR=0x%04x)", (unsigned long long)fp->markers[i].pos,
			       fp->markers[i].reserved, fp->markers[i].fpduptr);
		printf(" CRC=0x%08x %s\n", fp->crc_received, fp->crc_checked ? "(valid)" : "(not checked)");
	}
	if (fp->notes & IW_NOTE_PAD_NONZERO)
		add_viol(o, "MPA-4-02", IW_VIOL_SENDER, -1, 0, 0, fp->start, "pad octets are not zero");
	if (fp->notes & IW_NOTE_MARKER_RESERVED)
		add_viol(o, "MPA-4.1-02", IW_VIOL_SENDER, -1, 0, 0, fp->start, "a marker's RESERVED field is not zero");
	if (fp->notes & IW_NOTE_FPDUPTR_LOWBITS)
		add_viol(o, "MPA-5.1-05", IW_VIOL_SENDER, -1, 0, 0, fp->start, "a marker's FPDUPTR has its low two bits set");
	decode_ulpdu(o, p, fp, jf);
}

static int decode_stream(decode_out *o, const iw_profile *p, bool markers, bool crc, uint64_t start,
			 const uint8_t *buf, size_t len)
{
	long flen = decode_frame(o, p, buf, len);
	if (flen < 0)
		return 0;
	buf += flen;
	len -= (size_t)flen;

	static iw_mpa_rx rx;
	iw_mpa_rx_init(&rx, p, markers || p->markers_always, crc || p->crc_always);
	rx.pos = start;
	static iw_fpdu fp;
	size_t nfpdu = 0;
	while (len) {
		size_t used = 0;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, buf, len, &used, &fp, &err);
		buf += used;
		len -= used;
		if (st == IW_RX_FPDU) {
			nfpdu++;
			decode_fpdu(o, p, &fp);
		} else if (st == IW_RX_ERROR) {
			add_viol(o, err.req, err.kind, err.layer, err.etype, err.ecode, err.offset, err.detail);
			if (len && !o->json)
				printf("  %zu octets after the error are not decoded: nothing is passed after an MPA error "
				       "(MPA-7-08)\n", len);
			return 0;
		} else if (used == 0) {
			break;
		}
	}
	if (iw_mpa_rx_partial(&rx)) {
		char d[192];
		if (rx.body_need > 2)
			snprintf(d, sizeof d,
				 "the stream ends inside an FPDU: %zu of %zu octets (ULPDU_Length %u) received",
				 rx.body_have, rx.body_need, (unsigned)rx.body_need - 6 - iw_mpa_pad_len(rx.body_need - 6));
		else
			snprintf(d, sizeof d, "the stream ends inside an FPDU's ULPDU_Length field");
		add_viol(o, "MPA-5.4-04", IW_VIOL_FATAL, -1, 0, 0, rx.fpdu_start, d);
	}
	if (!o->json && nfpdu == 0 && flen == 0)
		printf("no FPDU in the stream\n");
	return 0;
}

int cmd_decode(int argc, char **argv)
{
	static const struct option opts[] = {
		{"profile", required_argument, 0, 'p'}, {"markers", no_argument, 0, 'm'},
		{"crc", no_argument, 0, 'c'},           {"no-crc", no_argument, 0, 'n'},
		{"start", required_argument, 0, 's'},   {"json", no_argument, 0, 'j'},
		{"hex", required_argument, 0, 'x'},     {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const iw_profile *p = iw_profile_default();
	bool markers = false, crc = true;
	uint64_t start = 0;
	const char *hex = NULL;
	decode_out *o = calloc(1, sizeof *o);
	if (!o)
		return IW_EXIT_ERROR;
	int c;
	optind = 1;
	opterr = 0;
	int status = IW_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			p = iw_profile_find(optarg);
			if (!p) {
				char names[128];
				iw_profile_names(names, sizeof names);
				fprintf(stderr, "iwspec decode: unknown profile '%s'; use one of: %s\n", optarg, names);
				goto out;
			}
			break;
		case 'm': markers = true; break;
		case 'c': crc = true; break;
		case 'n': crc = false; break;
		case 's': {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 0);
			if (errno || *end || optarg[0] == '-') {
				fprintf(stderr, "iwspec decode: --start '%s' is not an offset; give a decimal or 0x hex number\n",
					optarg);
				goto out;
			}
			start = v;
			break;
		}
		case 'j': o->json = true; break;
		case 'x': hex = optarg; break;
		case 'h': usage(stdout); status = IW_EXIT_OK; goto out;
		default:
			fprintf(stderr, "iwspec decode: unknown or incomplete option '%s'; see 'iwspec decode --help'\n",
				argv[optind - 1]);
			goto out;
		}
	}
	const char *file = optind < argc ? argv[optind] : NULL;
	if (optind + 1 < argc) {
		fprintf(stderr, "iwspec decode: one input only; got '%s' and '%s'\n", argv[optind], argv[optind + 1]);
		goto out;
	}
	if ((hex != NULL) == (file != NULL)) {
		fprintf(stderr, "iwspec decode: give the stream as --hex HEX, a FILE, or - for standard input\n");
		goto out;
	}
	uint8_t *buf = NULL;
	size_t len = 0;
	char msg[256];
	if (hex ? iw_hex_parse(hex, &buf, &len, msg, sizeof msg) : iw_read_input(file, MAX_INPUT, &buf, &len, msg, sizeof msg)) {
		fprintf(stderr, "iwspec decode: %s\n", msg);
		goto out;
	}
	if (len == 0) {
		fprintf(stderr, "iwspec decode: the stream is empty\n");
		free(buf);
		goto out;
	}
	o->viol.v = o->viol_store;
	o->viol.cap = MAX_VIOLS;
	if (o->json) {
		o->root = json_object();
		o->items = json_array();
		o->viols = json_array();
	}
	decode_stream(o, p, markers, crc, start, buf, len);
	free(buf);
	size_t nviol = o->viol.n + o->viol.dropped;
	if (o->json) {
		json_object_set_new(o->root, "profile", json_string(p->name));
		json_object_set_new(o->root, "items", o->items);
		json_object_set_new(o->root, "violations", o->viols);
		json_object_set_new(o->root, "conforms", json_boolean(nviol == 0));
		json_dumpf(o->root, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(o->root);
	} else {
		if (nviol)
			printf("%zu violation%s\n", nviol, nviol == 1 ? "" : "s");
		else
			printf("the stream conforms (profile %s)\n", p->name);
	}
	status = nviol ? IW_EXIT_FAIL : IW_EXIT_OK;
out:
	free(o);
	return status;
}
