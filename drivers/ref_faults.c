#include "ref_faults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa_rx.h"
#include "ref_mutants.h"
#include "ref_server.h"

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "mpa_fpdu.h"
#include "rdmap.h"

static const iw_fault_info hostile_tab[IW_HOSTILE_COUNT] = {
	[IW_HOSTILE_NONE] = { .name = "none", .desc = "a conforming DUT" },
	[IW_HOSTILE_GARBAGE] = { .name = "garbage",
		.desc = "answers anything with random octets, without end, until the peer has been silent for the idle timeout" },
	[IW_HOSTILE_RESET_MID_FRAME] = { .name = "reset-mid-frame",
		.desc = "sends the first half of its Reply (Request as initiator), then resets the connection (RST)" },
	[IW_HOSTILE_SLOW] = { .name = "slow",
		.desc = "sends its Reply (Request as initiator) one octet per second, then the rest at full speed" },
	[IW_HOSTILE_PD_NEVER] = { .name = "pd-never",
		.desc = "its Reply announces PD_Length 100 but carries 10 octets of private data, then nothing more" },
	[IW_HOSTILE_ENDLESS] = { .name = "endless",
		.desc = "after its Reply streams random octets without end, until the peer goes away" },
	[IW_HOSTILE_NEVER_CLOSE] = { .name = "never-close",
		.desc = "never closes: not after a bad Request, not on the peer's FIN; only the idle timeout ends it" },
	[IW_HOSTILE_SILENT] = { .name = "silent",
		.desc = "never sends an octet: reads and drops what the peer sends, open until the peer closes (or the idle timeout)" },
	[IW_HOSTILE_CLOSE] = { .name = "close",
		.desc = "closes (FIN) as soon as the connection is open, without reading or sending anything" },
	[IW_HOSTILE_RST] = { .name = "rst",
		.desc = "resets (RST: SO_LINGER 0, then close) as soon as the connection is open, without reading or sending" },
	[IW_HOSTILE_BAD_REPLY_STALL] = { .name = "bad-reply-stall",
		.desc = "reads the Request, answers a Reply header announcing PD_Length 65535 (Request as initiator), "
			"then sends nothing more and stays open" },
	[IW_HOSTILE_DRIP] = { .name = "drip",
		.desc = "sends everything one octet per second: its Reply (Request as initiator) and every FPDU after it" },
};

static const iw_fault_info mutant_tab[IW_MUTANT_COUNT] = {
	[IW_MUTANT_NONE] = { .name = "none", .desc = "no requirement broken" },
	[IW_MUTANT_ACCEPT_BAD_KEY] = { "accept-bad-key", "MPA-6.1-R5",
		"accepts a Request whose Key is wrong (the Key is corrected before the model sees it)", "startup", NULL },
	[IW_MUTANT_REPLY_WRONG_REV] = { "reply-wrong-rev", "MPA-6.1.1-06", "Reply Rev = the profile's Rev + 1",
		"startup", NULL },
	[IW_MUTANT_REPLY_RES_SET] = { "reply-res-set", "MPA-6.1.1-05",
		"Reply with every Res bit set (0x1F; 0x0F under rfc6581, where 0x10 is Enhanced)", "startup", NULL },
	[IW_MUTANT_IGNORE_M] = { "ignore-m", "MPA-6.1.1-M2", "sends no markers although the Request had M=1",
		"startup", "markers" },
	[IW_MUTANT_REPLY_C0] = { "reply-c0", "MPA-5.2-03", "Reply C=0 in the default configuration", "startup", NULL },
	[IW_MUTANT_EARLY_FPDU] = { "early-fpdu", "MPA-6.1-R4",
		"sends an FPDU (a zero-length RDMA Write) right after its Reply, before receiving one", "startup", "responder" },
	[IW_MUTANT_TRUNCATE_PD] = { "truncate-pd", "MPA-6.1.1-08",
		"Reply PD_Length says 4 octets more than the private data sent", "startup",
		"profile:rfc5044" },
	[IW_MUTANT_TERM_WRONG_CODE] = { "term-wrong-code", "DDP-9.2-01",
		"every Terminate it sends carries a wrong error code (ECode XOR 0x20)", "ddp", NULL },
	[IW_MUTANT_NO_TERMINATE] = { "no-terminate", "DDP-9.1-04",
		"reports no error to the peer: its Terminates are dropped, it only closes", "errors", NULL },
	[IW_MUTANT_DELIVER_AFTER_ERROR] = { "deliver-after-error", "MPA-7-08",
		"passes the first FPDU with a bad CRC or marker on as valid and goes on delivering what follows", "errors",
		NULL },
	[IW_MUTANT_IGNORE_BOUNDS] = { "ignore-bounds", "DDP-9.1-T4",
		"places the part of an RDMA Write that fits its buffer, drops the rest, and reports nothing", "ddp", NULL },
	[IW_MUTANT_INTEROP_CODES] = { "interop-codes", "DDP-9.2-01",
		"reports errors with real stacks' codes: LLP error type 3 (cxgb4), 0x2/0x02 for a message too long "
		"and 0x1/0x01 for a TO wrap (siw)", "errors", NULL },
	[IW_MUTANT_CRASH_SHORT_ULPDU] = { "crash-short-ulpdu", "DDP-6.4-01",
		"abort()s on an FPDU whose ULPDU_Length is shorter than a DDP header (a process crash: run it as "
		"exec:'iwspec serve --mutant crash-short-ulpdu --port {port}')", "robustness",
		"exec responder profile:rddp-mpa-01 profile:rfc5044 profile:rfc6581" },
	[IW_MUTANT_HANG_PARTIAL_HEADER] = { "hang-partial-header", "MPA-5.4-04",
		"stops reading, and never closes, once a read ends inside an FPDU header", "robustness", "responder" },
	/* The mutant zoo (ref_mutants.c). */
	[IW_MUTANT_IGNORE_C] = { "ignore-c", "MPA-6.1.1-C2",
		"in its no-CRC mode ignores the peer's C=1: sends no CRCs and checks none", "startup", "crc-off" },
	[IW_MUTANT_NO_STARTUP_TIMEOUT] = { "no-startup-timeout", "MPA-6.1-R10a",
		"never times out a connection whose startup frame does not complete (only the idle timeout ends it)",
		"startup", "responder profile:rfc5044" },
	[IW_MUTANT_REPLY_EARLY] = { "reply-early", "MPA-6.1-R2a",
		"replies as soon as the Request header is in, without waiting for its private data (which it drops) "
		"when PD_Length is below 512",
		"startup", "responder" },
	[IW_MUTANT_ACCEPT_BAD_REV] = { "accept-bad-rev", "MPA-6.1.1-07",
		"accepts a startup frame whose Rev it does not support (the Rev is not checked)", "startup", NULL },
	[IW_MUTANT_ACCEPT_OVERSIZED_PD] = { "accept-oversized-pd", "MPA-6.1-R9d",
		"accepts a startup frame with more private data than the profile allows, keeping the first 512 octets",
		"startup", "profile:rfc5044 profile:rfc6581" },
	[IW_MUTANT_IGNORE_REJECT] = { "ignore-reject", "MPA-6.1-R3c",
		"as initiator, goes on to full operation (and sends FPDUs) after a Reply with R=1", "startup",
		"initiator" },
	[IW_MUTANT_REQUEST_REPLY_KEY] = { "request-reply-key", "MPA-6.1.1-01",
		"as initiator, sends the Reply key in its Request ('MPA ID Rep Frame')", "startup", "initiator" },
	[IW_MUTANT_PAD_NONZERO] = { "pad-nonzero", "MPA-4-02",
		"sends pad octets 0xFF (its CRCs cover them)", "framing", NULL },
	[IW_MUTANT_PAD_WRONG_LENGTH] = { "pad-wrong-length", "MPA-4-01",
		"pads ULPDU_Length, not 2 + ULPDU_Length, to a multiple of 4: every FPDU has the wrong pad length "
		"(without markers)", "framing", NULL },
	[IW_MUTANT_CRC_BIG_ENDIAN] = { "crc-big-endian", "MPA-5.2-11",
		"sends its CRCs most-significant octet first", "framing", NULL },
	[IW_MUTANT_CRC_UNCHECKED] = { "crc-unchecked", "MPA-5.2-14",
		"does not check CRCs: an FPDU whose CRC does not match is delivered", "framing", NULL },
	[IW_MUTANT_IGNORE_EMSS] = { "ignore-emss", "MPA-5.3.2-02",
		"sizes its FPDUs for an EMSS of 1460 whatever MSS the connection has: on a 536-octet path its "
		"ULPDUs are too long", "framing", NULL },
	[IW_MUTANT_MULPDU_UNCLAMPED] = { "mulpdu-unclamped", "MPA-5.3.2-05",
		"takes MULPDU from the formula without its floor of 128: on an 88-octet MSS its ULPDUs shrink to 70",
		"framing", NULL },
	[IW_MUTANT_MARKER_WRONG_FPDUPTR] = { "marker-wrong-fpduptr", "MPA-5.1-03",
		"markers inside its FPDUs have FPDUPTR 4 too large (markers between FPDUs stay 0)", "markers", "markers" },
	[IW_MUTANT_MARKER_FIRST_MISSING] = { "marker-first-missing", "MPA-5.1-06",
		"leaves out the marker at the start of full operation; the later markers are in place", "markers",
		"markers" },
	[IW_MUTANT_MARKER_DRIFT] = { "marker-drift", "MPA-5.1-02",
		"its marker grid slips 4 octets with every FPDU instead of staying every 512 octets", "markers",
		"markers" },
	[IW_MUTANT_MARKERS_UNREQUESTED] = { "markers-unrequested", "MPA-6.1.1-M1",
		"sends markers although the peer's frame had M=0", "markers", NULL },
	[IW_MUTANT_MARKER_RESERVED_SET] = { "marker-reserved-set", "MPA-4.1-02",
		"sends markers with RESERVED = 0xFFFF", "markers", "markers" },
	[IW_MUTANT_CRC_SKIPS_LEADING_MARKER] = { "crc-skips-leading-marker", "MPA-5.2-13",
		"computes the CRC of an FPDU that starts with a marker from its ULPDU_Length on, without the marker",
		"markers", "markers" },
	[IW_MUTANT_BOUNDS_OFF_BY_ONE] = { "bounds-off-by-one", "DDP-10.1-01",
		"accepts an RDMA Write ending one octet past its buffer (the octet past the end goes nowhere visible)",
		"ddp", NULL },
	[IW_MUTANT_TO_WRAP_UNCHECKED] = { "to-wrap-unchecked", "DDP-9.1-T5",
		"adds TO + length modulo 2^64: a Write that wraps passes the bounds check and its tail lands at the "
		"buffer start", "ddp", NULL },
	[IW_MUTANT_ACCEPT_FOREIGN_STAG] = { "accept-foreign-stag", "DDP-10.3-02",
		"places an RDMA Write carrying another connection's STag into its own buffer", "ddp", NULL },
	[IW_MUTANT_MSN_START_0] = { "msn-start-0", "DDP-6.3-09",
		"numbers the messages of every queue from MSN 0 instead of 1", "ddp", NULL },
	[IW_MUTANT_MO_UNCHECKED] = { "mo-unchecked", "DDP-9.1-U3",
		"does not check MO: a Send segment whose MO is past its buffer is written out of sight, no error",
		"ddp", NULL },
	[IW_MUTANT_L_ON_MIDDLE] = { "l-on-middle", "DDP-6.1-04",
		"sets L on the middle segments of its multi-segment messages too", "ddp", NULL },
	[IW_MUTANT_QN_UNCHECKED] = { "qn-unchecked", "DDP-9.1-U1",
		"does not check QN: a Send on an invalid queue is taken as the next Send on QN 0", "ddp", NULL },
	[IW_MUTANT_DELIVER_OUT_OF_ORDER] = { "deliver-out-of-order", "DDP-7.3-07",
		"delivers Sends in the order they arrive, not in MSN order", "ddp", NULL },
	[IW_MUTANT_ZERO_LENGTH_WRITE_CHECKED] = { "zero-length-write-checked", "DDP-7.2-10",
		"checks the STag of a zero-length RDMA Write and refuses an unknown one", "ddp", NULL },
	[IW_MUTANT_READ_OUT_OF_BOUNDS] = { "read-out-of-bounds", "RFC5040-5.2",
		"serves a Read Request running past its source buffer up to the buffer end instead of refusing it",
		"rdmap", NULL },
	[IW_MUTANT_UNKNOWN_OPCODE_IGNORED] = { "unknown-opcode-ignored", "RFC5040-4.2",
		"silently discards a message with a reserved RDMAP opcode (0xC-0xF)", "rdmap", NULL },
	[IW_MUTANT_TERM_WRONG_LAYER] = { "term-wrong-layer", "RFC5040-4.8",
		"its Terminates name the wrong layer (RDMAP and DDP swapped, LLP as 3)", "rdmap", NULL },
	[IW_MUTANT_SEND_INV_UNCHECKED] = { "send-inv-unchecked", "RFC5040-5.3",
		"takes a Send with Invalidate as a plain Send, whatever STag it names", "rdmap", NULL },
	[IW_MUTANT_RDMAP_VERSION_UNCHECKED] = { "rdmap-version-unchecked", "RFC5040-4.2",
		"does not check RDMAP's RV: a message of another version is taken as its own", "rdmap", NULL },
	[IW_MUTANT_PLACE_AFTER_ERROR] = { "place-after-error", "DDP-9.1-03",
		"after an error (Terminate sent) still places the RDMA Writes that follow, then closes", "errors", NULL },
	[IW_MUTANT_NEVER_CLOSE] = { "never-close", "DDP-5-10",
		"after an error sends its Terminate but never closes the connection (only the idle timeout does)",
		"errors", "profile:rfc5044" },
};

const iw_fault_info *iw_hostile_info(enum iw_hostile h)
{
	return (unsigned)h < IW_HOSTILE_COUNT ? &hostile_tab[h] : NULL;
}

const iw_fault_info *iw_mutant_info(enum iw_mutant m)
{
	return (unsigned)m < IW_MUTANT_COUNT ? &mutant_tab[m] : NULL;
}

static void names(const iw_fault_info *tab, int n, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 1; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i > 1 ? ", " : "", tab[i].name);
}

void iw_hostile_names(char *buf, size_t cap) { names(hostile_tab, IW_HOSTILE_COUNT, buf, cap); }
void iw_mutant_names(char *buf, size_t cap) { names(mutant_tab, IW_MUTANT_COUNT, buf, cap); }

static int find(const iw_fault_info *tab, int n, const char *what, const char *name, int *out, iw_err *e)
{
	if (!name || !*name) {
		*out = 0;
		return IW_OK;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(tab[i].name, name) == 0) {
			*out = i;
			return IW_OK;
		}
	char list[1200];
	names(tab, n, list, sizeof list);
	/* The mutants are too many to list in one message. */
	if (strlen(list) > 150)
		return iw_errf(e, IW_EINVAL, "unknown %s '%s' ('iwspec mutants --list' names them all)", what, name);
	return iw_errf(e, IW_EINVAL, "unknown %s '%s' (known: none, %s)", what, name, list);
}

int iw_hostile_find(const char *name, enum iw_hostile *out, iw_err *e)
{
	int v = 0;
	int rc = find(hostile_tab, IW_HOSTILE_COUNT, "hostile mode", name, &v, e);
	if (rc == IW_OK)
		*out = (enum iw_hostile)v;
	return rc;
}

int iw_mutant_find(const char *name, enum iw_mutant *out, iw_err *e)
{
	int v = 0;
	int rc = find(mutant_tab, IW_MUTANT_COUNT, "mutant", name, &v, e);
	if (rc == IW_OK)
		*out = (enum iw_mutant)v;
	return rc;
}

static uint8_t rnd8(iw_fault_conn *f)
{
	/* xorshift64: garbage needs no quality, only no pattern a decoder could lock on to */
	uint64_t x = f->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	f->rng = x;
	return (uint8_t)(x >> 24);
}

void iw_fault_conn_init(iw_fault_conn *f, enum iw_hostile h, enum iw_mutant m, const iw_profile *p,
			enum iw_role role, uint64_t seed)
{
	memset(f, 0, sizeof *f);
	f->hostile = h;
	f->mutant = m;
	f->profile = p;
	f->role = role;
	f->rng = seed ? seed : 0x9E3779B97F4A7C15ull;
	/* The modes that never answer as the model would keep the peer's octets from it: it would
	 * otherwise time the startup out, or close after a bad Request, and so speak after all. */
	f->feed_model = h != IW_HOSTILE_GARBAGE && h != IW_HOSTILE_SILENT && h != IW_HOSTILE_CLOSE &&
			h != IW_HOSTILE_RST && h != IW_HOSTILE_BAD_REPLY_STALL;
	f->hold_open = h == IW_HOSTILE_NEVER_CLOSE;
	f->fin_at_once = h == IW_HOSTILE_CLOSE;
	f->reset_when_flushed = h == IW_HOSTILE_RST;
	f->idle_input_only = h == IW_HOSTILE_GARBAGE;
	if (!p->startup_frames) {
		/* Without startup frames (culley) our "frame" is empty and full operation starts at once. */
		f->out_hdr_known = true;
		f->out_frame_len = 0;
	}
	/* An initiator speaks first, so its garbage needs no provocation. */
	if (h == IW_HOSTILE_GARBAGE && role == IW_ROLE_INITIATOR)
		f->triggered = true;
	iw_mut_init(f);
}

/* ---- re-framing (message-level mutants) ---- */

struct iw_reframe {
	iw_mpa_rx dec;
	iw_mpa_tx enc;
	iw_fpdu fp;
	uint8_t ulpdu[65536];
	uint8_t *out;               /* framed octets not yet handed on */
	size_t out_len, out_off, out_cap;
};

static bool out_mutant(enum iw_mutant m)
{
	return m == IW_MUTANT_TERM_WRONG_CODE || m == IW_MUTANT_NO_TERMINATE || m == IW_MUTANT_INTEROP_CODES ||
	       iw_mut_is_out(m);
}

static bool in_mutant(enum iw_mutant m)
{
	return m == IW_MUTANT_DELIVER_AFTER_ERROR || m == IW_MUTANT_IGNORE_BOUNDS || iw_mut_is_in(m);
}

void iw_fault_conn_free(iw_fault_conn *f)
{
	for (int i = 0; i < 2; i++) {
		iw_reframe *r = i ? f->rf_out : f->rf_in;
		if (r)
			free(r->out);
		free(r);
	}
	f->rf_in = f->rf_out = NULL;
}

static iw_reframe *reframe_new(const iw_profile *p, bool markers, bool crc)
{
	iw_reframe *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->out_cap = 1u << 18;
	r->out = malloc(r->out_cap);
	if (!r->out) {
		free(r);
		return NULL;
	}
	iw_mpa_rx_init(&r->dec, p, markers, crc);
	iw_mpa_tx_init(&r->enc, p, markers, crc);
	return r;
}

/* Frames one ULPDU into r->out (mods may carry a CRC defect); false when it does not fit. */
static bool reframe_emit(iw_reframe *r, const uint8_t *u, size_t n, const iw_fpdu_mods *mods)
{
	if (r->out_off && r->out_off == r->out_len)
		r->out_off = r->out_len = 0;
	size_t need = iw_mpa_tx_size(&r->enc, n);
	if (r->out_len + need > r->out_cap) {
		memmove(r->out, r->out + r->out_off, r->out_len - r->out_off);
		r->out_len -= r->out_off;
		r->out_off = 0;
		if (r->out_len + need > r->out_cap)
			return false;
	}
	size_t w = 0;
	if (iw_mpa_tx_fpdu(&r->enc, u, n, NULL, 0, mods, r->out + r->out_len, r->out_cap - r->out_len, &w, NULL))
		return false;
	r->out_len += w;
	return true;
}

/* The DUT's Terminates as a message-level mutant rewrites them (RFC 5040 §4.8: the control
 * word after the 18-octet untagged header is Layer|EType, ECode, flags). */
static bool rewrite_out(iw_fault_conn *f, uint8_t *u, size_t n)
{
	if (iw_mut_is_out(f->mutant))
		return iw_mut_rewrite_out(f, u, &n);
	bool term = n >= IW_TERM_OFF_CTRL + 4 && !iw_ddp_octets_tagged(u) && iw_rdmap_octets_opcode(u) == IW_OP_TERMINATE;
	if (!term)
		return true;
	uint8_t *cw = u + IW_TERM_OFF_CTRL;
	unsigned layer = iw_term_ctrl_layer(cw), etype = iw_term_ctrl_etype(cw), ecode = iw_term_ctrl_ecode(cw);
	switch (f->mutant) {
	case IW_MUTANT_NO_TERMINATE:
		return false;
	case IW_MUTANT_TERM_WRONG_CODE:
		iw_term_ctrl_set(cw, layer, etype, ecode ^ 0x20);
		break;
	case IW_MUTANT_INTEROP_CODES:
		if (layer == IW_LAYER_LLP && etype == IW_LLP_ET_MPA)
			iw_term_ctrl_set(cw, IW_LAYER_LLP, 3, ecode);       /* cxgb4: 0x23 */
		else if (layer == IW_LAYER_DDP && etype == IW_DDP_ET_UNTAGGED && ecode == IW_DDP_EC_TOO_LONG)
			iw_term_ctrl_set(cw, layer, etype, IW_DDP_EC_MSN_NO_BUFFER); /* siw: "no buffer" */
		else if (layer == IW_LAYER_DDP && etype == IW_DDP_ET_TAGGED && ecode == IW_DDP_EC_TO_WRAP)
			iw_term_ctrl_set(cw, layer, etype, IW_DDP_EC_BASE_BOUNDS);   /* siw: no wrap check */
		break;
	default:
		break;
	}
	return true;
}

/* The peer's ULPDU as the input mutant lets the model see it: false drops it. An RDMA Write
 * running past the reflector's buffer is cut to what fits (ignore-bounds). */
static bool rewrite_in(iw_fault_conn *f, uint8_t *u, size_t *n)
{
	if (iw_mut_is_in(f->mutant))
		return iw_mut_rewrite_in(f, u, n);
	if (f->mutant != IW_MUTANT_IGNORE_BOUNDS || *n < IW_DDP_TAGGED_HDR_LEN || !iw_ddp_octets_tagged(u) ||
	    iw_rdmap_octets_opcode(u) != IW_OP_WRITE)
		return true;
	uint64_t to = iw_ddp_octets_to(u);
	size_t len = *n - IW_DDP_TAGGED_HDR_LEN;
	if (!len)
		return true;
	if (to >= IW_REF_STAG_LEN)
		return false;
	if (to + len > IW_REF_STAG_LEN)
		*n = IW_DDP_TAGGED_HDR_LEN + (size_t)(IW_REF_STAG_LEN - to);
	return true;
}

/* Octets of the peer's FPDU stream through the input re-framer; the result is in f->in_buf. */
static void reframe_input(iw_fault_conn *f, const uint8_t *data, size_t len)
{
	iw_reframe *r = f->rf_in;
	r->out_off = r->out_len = 0;
	f->in_rewritten = true;
	f->in_buf = r->out;
	f->in_len = 0;
	while (len) {
		size_t used = 0;
		iw_violation v;
		enum iw_rx_status st = iw_mpa_rx_push(&r->dec, data, len, &used, &r->fp, &v);
		data += used;
		len -= used;
		size_t from = r->out_len;
		if (st == IW_RX_FPDU) {
			size_t n = r->fp.ulpdu_length;
			memcpy(r->ulpdu, r->fp.ulpdu, n);
			if (rewrite_in(f, r->ulpdu, &n))
				(void)reframe_emit(r, r->ulpdu, n, NULL);
		} else if (st == IW_RX_ERROR) {
			/* deliver-after-error hands the first bad FPDU on as if it were valid, so it and what
			 * follows are delivered; any later one reaches the model as a CRC error. */
			bool pass = (f->mutant == IW_MUTANT_DELIVER_AFTER_ERROR && !f->dropped_once) || iw_mut_pass_bad(f, &v);
			iw_fpdu_mods bad;
			memset(&bad, 0, sizeof bad);
			bad.crc_xor = pass ? 0 : 1;
			(void)reframe_emit(r, r->fp.ulpdu, r->fp.ulpdu_length, &bad);
			f->dropped_once = true;
			uint64_t pos = r->dec.pos;
			iw_mpa_rx_init_at(&r->dec, f->profile, r->dec.markers, r->dec.crc, pos);
		} else {
			break;
		}
		/* The model takes each FPDU here, before the next one is rewritten. The octets stay in
		 * r->out until the server has drained the model's events, which may point into them. */
		if (f->direct_feed)
			iw_mut_fed(f, r->out + from, r->out_len - from);
	}
	f->in_len = r->out_len;
}

/* Frames one of our ULPDUs into r->out as the output mutant wants; false when it does not fit. */
static bool reframe_emit_out(iw_fault_conn *f, iw_reframe *r, const uint8_t *u, size_t n)
{
	if (r->out_off && r->out_off == r->out_len)
		r->out_off = r->out_len = 0;
	size_t need = iw_mut_out_size(&r->enc, n);
	if (r->out_len + need > r->out_cap) {
		memmove(r->out, r->out + r->out_off, r->out_len - r->out_off);
		r->out_len -= r->out_off;
		r->out_off = 0;
		if (r->out_len + need > r->out_cap)
			return false;
	}
	size_t w = 0;
	if (iw_mut_out_frame(f, &r->enc, u, n, r->out + r->out_len, r->out_cap - r->out_len, &w) != IW_OK)
		return false;
	r->out_len += w;
	return true;
}

/* Model output through the output re-framer into tx. */
static void reframe_output(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx)
{
	iw_reframe *r = f->rf_out;
	for (;;) {
		/* Hand on what is framed first, so the buffers stay bounded. */
		size_t pend = r->out_len - r->out_off, room = iw_txbuf_room(tx);
		size_t k = pend < room ? pend : room;
		memcpy(iw_txbuf_tail(tx), r->out + r->out_off, k);
		tx->len += k;
		r->out_off += k;
		if (r->out_off < r->out_len)
			return;
		r->out_off = r->out_len = 0;
		size_t avail;
		const uint8_t *src = iw_conn_output_peek(model, &avail);
		if (!avail)
			return;
		size_t used = 0;
		iw_violation v;
		enum iw_rx_status st = iw_mpa_rx_push(&r->dec, src, avail, &used, &r->fp, &v);
		iw_conn_output_consume(model, used);
		f->out_pos += used;
		if (st == IW_RX_FPDU) {
			size_t n = r->fp.ulpdu_length;
			memcpy(r->ulpdu, r->fp.ulpdu, n);
			if (rewrite_out(f, r->ulpdu, n))
				(void)reframe_emit_out(f, r, r->ulpdu, n);
		} else if (st == IW_RX_ERROR || used == 0) {
			return;
		}
	}
}

/* The length chain of the peer's FPDUs after its startup frame, for the robustness mutants:
 * crash-short-ulpdu trusts ULPDU_Length to hold a DDP header (A9, DDP-6.4-01: it need not),
 * hang-partial-header gives up on a read that ends inside an FPDU header (MPA-5.4-04: the
 * receiver must wait for the rest). */
static void track(iw_fault_conn *f, const uint8_t *data, size_t len, uint64_t pos0)
{
	uint64_t frame_end = 0;
	if (f->profile->startup_frames) {
		/* FPDUs follow a frame with the right key only: before that there is no FPDU stream. */
		const char *key = f->role == IW_ROLE_RESPONDER ? IW_MPA_KEY_REQ : IW_MPA_KEY_REP;
		if (pos0 + len < IW_MPA_FRAME_HDR_LEN || memcmp(f->in_hdr, key, IW_MPA_KEY_LEN))
			return;
		frame_end = iw_mpa_frame_len(f->in_hdr);
	}
	for (size_t i = 0; i < len; i++) {
		if (pos0 + i < frame_end)
			continue;
		uint8_t o = data[i];
		uint64_t k = f->trk_in_fpdu++;
		if (k == 0) {
			f->trk_len_hi = o;
		} else if (k == 1) {
			f->trk_len = (uint16_t)(f->trk_len_hi << 8 | o);
			f->trk_total = iw_fpdu_layout_of(f->trk_len).body_len;
			if (f->mutant == IW_MUTANT_CRASH_SHORT_ULPDU && f->trk_len < IW_DDP_TAGGED_HDR_LEN)
				f->crash_armed = true;
		} else if (k == 2 && f->mutant == IW_MUTANT_CRASH_SHORT_ULPDU && !(o & IW_DDP_T) &&
			   f->trk_len < IW_DDP_UNTAGGED_HDR_LEN) {
			f->crash_armed = true;
		}
		if (k >= 1 && f->trk_in_fpdu == f->trk_total)
			f->trk_in_fpdu = 0;
	}
	uint64_t k = f->trk_in_fpdu;
	bool partial = k > 0 && (k < 2 || (k < 2u + IW_DDP_TAGGED_HDR_LEN && k < 2u + (uint64_t)f->trk_len));
	if (f->mutant == IW_MUTANT_HANG_PARTIAL_HEADER && pos0 + len > frame_end && partial) {
		f->hang_armed = true;
		f->hold_open = true;
	}
}

static bool frame_known(iw_fault_conn *f, iw_conn *model);

size_t iw_fault_input_limit(const iw_fault_conn *f, size_t n)
{
	bool robust = f->mutant == IW_MUTANT_CRASH_SHORT_ULPDU || f->mutant == IW_MUTANT_HANG_PARTIAL_HEADER;
	if (!(in_mutant(f->mutant) || robust) || !f->profile->startup_frames)
		return n;
	uint64_t end = f->in_pos >= IW_MPA_FRAME_HDR_LEN ? iw_mpa_frame_len(f->in_hdr) : IW_MPA_FRAME_HDR_LEN;
	if (f->in_pos >= end)
		return n;
	return end - f->in_pos < n ? (size_t)(end - f->in_pos) : n;
}

void iw_fault_input(iw_fault_conn *f, uint8_t *data, size_t len)
{
	uint64_t pos0 = f->in_pos;
	if (f->direct_feed) {
		f->direct_feed = false;
		f->feed_model = true;
	}
	if (f->model && iw_conn_state(f->model) == IW_CS_FAILED)
		f->model_failed = true;
	if (f->hang_armed)
		f->feed_model = false;
	const uint8_t *key = (const uint8_t *)(f->role == IW_ROLE_RESPONDER ? IW_MPA_KEY_REQ : IW_MPA_KEY_REP);
	for (size_t i = 0; i < len && f->in_pos + i < IW_MPA_FRAME_HDR_LEN; i++) {
		size_t p = (size_t)f->in_pos + i;
		f->in_hdr[p] = data[i];
		if (!f->profile->startup_frames)
			continue;
		if (f->mutant == IW_MUTANT_ACCEPT_BAD_KEY && p < IW_MPA_KEY_LEN)
			data[i] = key[p];
		if (f->mutant == IW_MUTANT_IGNORE_M && p == 16)
			data[i] &= (uint8_t)~IW_MPA_FLAG_M;
		data[i] = iw_mut_hdr_in(f, p, data[i]);
	}
	uint64_t before = f->in_pos;
	f->in_pos += len;
	f->in_rewritten = false;
	iw_mut_clamp_pd(f, data, len, before);
	if (f->mutant == IW_MUTANT_CRASH_SHORT_ULPDU || f->mutant == IW_MUTANT_HANG_PARTIAL_HEADER)
		track(f, data, len, pos0);
	if (f->crash_armed)
		f->feed_model = false;  /* it is about to die, not to answer */
	if (len == 0)
		return;
	/* The peer's FPDUs start after its startup frame (20 + PD_Length octets), and a chunk never
	 * straddles the frame's end (iw_fault_input_limit). Our frame, which says whether the peer
	 * sends markers, is the model's answer to the peer's: it is known by now when there is one. */
	size_t frame = f->profile->startup_frames ? iw_mpa_frame_len(f->in_hdr) : 0;
	if (in_mutant(f->mutant) && before >= frame && (f->out_hdr_known || (f->model && frame_known(f, f->model)))) {
		if (!f->rf_in) {
			bool markers = f->profile->markers_always || (iw_mpa_frame_flags(f->out_hdr) & IW_MPA_FLAG_M);
			bool crc = f->profile->crc_always || ((iw_mpa_frame_flags(f->in_hdr) | iw_mpa_frame_flags(f->out_hdr)) &
							       IW_MPA_FLAG_C);
			f->rf_in = reframe_new(f->profile, markers, crc);
		}
		if (f->rf_in) {
			/* FPDU by FPDU: a mutant that looks at the data sink (next MSN, registered
			 * buffers) sees it as the FPDUs before left it, however many came in one read. */
			f->direct_feed = f->model != NULL;
			reframe_input(f, data, len);
			if (f->direct_feed)
				f->feed_model = false;  /* the fault stage fed the model */
		}
	}
	if (f->hostile == IW_HOSTILE_GARBAGE)
		f->triggered = true;
	if (f->hostile == IW_HOSTILE_RESET_MID_FRAME && !f->profile->startup_frames)
		f->reset_when_flushed = true;
}

/* Our startup frame header with the mutant's one change. */
static void mutated_hdr(const iw_fault_conn *f, uint8_t h[IW_MPA_FRAME_HDR_LEN])
{
	memcpy(h, f->out_hdr, IW_MPA_FRAME_HDR_LEN);
	switch (f->mutant) {
	case IW_MUTANT_REPLY_WRONG_REV:
		iw_mpa_frame_set_rev(h, (uint8_t)(iw_mpa_frame_rev(h) + 1));
		break;
	case IW_MUTANT_REPLY_RES_SET:
		iw_mpa_frame_set_flags(h, iw_mpa_frame_flags(h) |
						  (f->profile->enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT));
		break;
	case IW_MUTANT_REPLY_C0:
		iw_mpa_frame_set_flags(h, iw_mpa_frame_flags(h) & (uint8_t)~IW_MPA_FLAG_C);
		break;
	case IW_MUTANT_TRUNCATE_PD:
		iw_mpa_frame_set_pd_length(h, (uint16_t)(iw_mpa_frame_pd_length(h) + 4u));
		break;
	default:
		break;
	}
	iw_mut_hdr_out(f, h);
}

/* Moves up to max model octets into tx, applying the mutant to our frame header. */
static size_t move(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, size_t max)
{
	size_t avail;
	const uint8_t *src = iw_conn_output_peek(model, &avail);
	size_t n = avail;
	size_t room = iw_txbuf_room(tx);
	if (n > room)
		n = room;
	if (n > max)
		n = max;
	if (n == 0)
		return 0;
	uint8_t *dst = iw_txbuf_tail(tx);
	memcpy(dst, src, n);
	if (f->profile->startup_frames && f->out_pos < IW_MPA_FRAME_HDR_LEN) {
		uint8_t h[IW_MPA_FRAME_HDR_LEN];
		mutated_hdr(f, h);
		for (size_t i = 0; i < n && f->out_pos + i < IW_MPA_FRAME_HDR_LEN; i++)
			dst[i] = h[f->out_pos + i];
	}
	tx->len += n;
	f->out_pos += n;
	iw_conn_output_consume(model, n);
	return n;
}

static void discard(iw_fault_conn *f, iw_conn *model)
{
	size_t avail;
	(void)iw_conn_output_peek(model, &avail);
	f->out_pos += avail;
	iw_conn_output_consume(model, avail);
}

static void fill_random(iw_fault_conn *f, iw_txbuf *tx)
{
	size_t room = iw_txbuf_room(tx);
	uint8_t *dst = iw_txbuf_tail(tx);
	for (size_t i = 0; i < room; i++)
		dst[i] = rnd8(f);
	tx->len += room;
	f->injected += room;
}

/* MPA-6.1-R4 broken: an FPDU before the peer's first one. A zero-length RDMA Write is never
 * checked by the receiver (DDP-7.2-10) and consumes no MSN, so the mutant breaks rule 4 and
 * nothing else (with markers on our side later marker positions shift: what follows is not judged). */
static void inject_early_fpdu(iw_fault_conn *f, iw_txbuf *tx)
{
	const iw_profile *p = f->profile;
	bool markers = p->markers_always || (iw_mpa_frame_flags(f->in_hdr) & IW_MPA_FLAG_M);
	bool crc = p->crc_always || ((iw_mpa_frame_flags(f->in_hdr) | iw_mpa_frame_flags(f->out_hdr)) & IW_MPA_FLAG_C);
	iw_mpa_tx mtx;
	iw_mpa_tx_init(&mtx, p, markers, crc);
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = true;
	h.last = true;
	h.dv = p->ddp_version;
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, IW_OP_WRITE);
	h.stag = 1;
	uint8_t hb[IW_DDP_TAGGED_HDR_LEN];
	size_t hl, n;
	if (iw_ddp_hdr_encode(&h, hb, sizeof hb, &hl, NULL) != IW_OK)
		return;
	size_t need = iw_mpa_tx_size(&mtx, hl);
	if (iw_txbuf_room(tx) < need)
		return; /* next pump */
	if (iw_mpa_tx_fpdu(&mtx, hb, hl, NULL, 0, NULL, iw_txbuf_tail(tx), iw_txbuf_room(tx), &n, NULL) != IW_OK)
		return;
	tx->len += n;
	f->injected += n;
	f->early_sent = true;
}

static bool frame_known(iw_fault_conn *f, iw_conn *model)
{
	if (f->out_hdr_known)
		return true;
	size_t avail;
	const uint8_t *src = iw_conn_output_peek(model, &avail);
	/* The model queues a whole frame at once; until 20 octets are there, there is no frame. */
	if (f->out_pos != 0 || avail < IW_MPA_FRAME_HDR_LEN)
		return false;
	memcpy(f->out_hdr, src, IW_MPA_FRAME_HDR_LEN);
	f->out_frame_len = iw_mpa_frame_len(src);
	f->out_hdr_known = true;
	return true;
}

static void pd_never(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx)
{
	if (f->out_pos != 0) {
		discard(f, model);
		return;
	}
	enum { SENT = 10, ANNOUNCED = 100 };
	if (iw_txbuf_room(tx) < IW_MPA_FRAME_HDR_LEN + SENT)
		return;
	size_t avail;
	const uint8_t *src = iw_conn_output_peek(model, &avail);
	uint8_t *dst = iw_txbuf_tail(tx);
	memcpy(dst, src, IW_MPA_FRAME_HDR_LEN);
	iw_mpa_frame_set_pd_length(dst, ANNOUNCED);
	size_t have = avail - IW_MPA_FRAME_HDR_LEN;
	size_t pdl = f->out_frame_len - IW_MPA_FRAME_HDR_LEN;
	if (have > pdl)
		have = pdl;
	for (size_t i = 0; i < SENT; i++)
		dst[IW_MPA_FRAME_HDR_LEN + i] = i < have ? src[IW_MPA_FRAME_HDR_LEN + i] : 0;
	tx->len += IW_MPA_FRAME_HDR_LEN + SENT;
	discard(f, model);
}

/* bad-reply-stall: once the peer's whole Request is in (at once as initiator), our frame header
 * as the engine encodes it, but announcing 65535 octets of private data that never come. */
static void bad_reply_stall(iw_fault_conn *f, iw_txbuf *tx)
{
	if (f->stalled || !f->profile->startup_frames)
		return; /* without startup frames (culley) there is no frame to lie in: it only stalls */
	if (f->role == IW_ROLE_RESPONDER &&
	    (f->in_pos < IW_MPA_FRAME_HDR_LEN || f->in_pos < iw_mpa_frame_len(f->in_hdr)))
		return;
	if (iw_txbuf_room(tx) < IW_MPA_FRAME_HDR_LEN)
		return;
	iw_mpa_frame fr;
	iw_mpa_frame_init(&fr, f->profile, f->role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST);
	uint8_t frame[IW_MPA_FRAME_HDR_LEN + IW_MPA_IRDORD_LEN];
	size_t n;
	if (iw_mpa_frame_encode(&fr, frame, sizeof frame, &n, NULL) != IW_OK)
		return;
	iw_mpa_frame_set_pd_length(frame, UINT16_MAX);
	memcpy(iw_txbuf_tail(tx), frame, IW_MPA_FRAME_HDR_LEN);
	tx->len += IW_MPA_FRAME_HDR_LEN;
	f->injected += IW_MPA_FRAME_HDR_LEN;
	f->stalled = true;
}

/* drip: the model's octets one per second, its frame and every FPDU after it. */
static int64_t drip(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, int64_t now_ms)
{
	if (f->profile->startup_frames && !frame_known(f, model))
		return -1;
	size_t avail;
	(void)iw_conn_output_peek(model, &avail);
	if (avail == 0)
		return -1;
	if (now_ms < f->next_slow_ms)
		return f->next_slow_ms;
	if (move(f, model, tx, 1) == 1)
		f->next_slow_ms = now_ms + 1000;
	return avail > 1 ? f->next_slow_ms : -1;
}

int64_t iw_fault_pump(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, int64_t now_ms)
{
	switch (f->hostile) {
	case IW_HOSTILE_SILENT:
	case IW_HOSTILE_CLOSE:
	case IW_HOSTILE_RST:
		discard(f, model);
		return -1;
	case IW_HOSTILE_BAD_REPLY_STALL:
		discard(f, model);
		bad_reply_stall(f, tx);
		return -1;
	case IW_HOSTILE_DRIP:
		return drip(f, model, tx, now_ms);
	case IW_HOSTILE_GARBAGE:
		discard(f, model);
		if (f->triggered)
			fill_random(f, tx);
		return -1;
	case IW_HOSTILE_RESET_MID_FRAME: {
		if (f->reset_when_flushed) {
			discard(f, model);
			return -1;
		}
		if (!frame_known(f, model))
			return -1;
		size_t half = f->out_frame_len / 2;
		if (f->out_pos < half)
			move(f, model, tx, half - (size_t)f->out_pos);
		if (f->out_pos >= half) {
			discard(f, model);
			f->reset_when_flushed = true;
		}
		return -1;
	}
	case IW_HOSTILE_SLOW:
		if (!frame_known(f, model))
			return -1;
		if (f->out_pos < f->out_frame_len) {
			if (now_ms < f->next_slow_ms)
				return f->next_slow_ms;
			if (move(f, model, tx, 1) == 1)
				f->next_slow_ms = now_ms + 1000;
			if (f->out_pos < f->out_frame_len)
				return f->next_slow_ms;
			return -1;
		}
		break;
	case IW_HOSTILE_PD_NEVER:
		if (!frame_known(f, model))
			return -1;
		if (f->out_frame_len == 0)
			break; /* no frame to lie in (culley) */
		pd_never(f, model, tx);
		return -1;
	case IW_HOSTILE_ENDLESS:
		if (!frame_known(f, model))
			return -1;
		if (!f->triggered && f->out_pos < f->out_frame_len)
			move(f, model, tx, f->out_frame_len - (size_t)f->out_pos);
		if (f->out_pos >= f->out_frame_len && (f->out_frame_len > 0 || f->in_pos > 0 ||
							f->role == IW_ROLE_INITIATOR))
			f->triggered = true;
		if (f->triggered) {
			discard(f, model);
			fill_random(f, tx);
		}
		return -1;
	default:
		break;
	}
	/* Plain path (with the mutant's rewrites). Wait for a whole frame header first, so the
	 * header can be rewritten as one. */
	if (f->profile->startup_frames && !frame_known(f, model))
		return -1;
	int64_t wake = iw_mut_pump(f, model, now_ms);
	if (out_mutant(f->mutant)) {
		/* Our frame goes out as it is; the FPDUs after it through the re-framer. */
		if (f->out_pos < f->out_frame_len)
			move(f, model, tx, f->out_frame_len - (size_t)f->out_pos);
		iw_conn_params prm;
		iw_conn_params_get(model, &prm);
		if (f->out_pos >= f->out_frame_len && iw_conn_state(model) != IW_CS_STARTUP && !f->rf_out) {
			f->rf_out = reframe_new(f->profile, prm.markers_tx, prm.crc);
			if (f->rf_out)
				iw_mut_out_init(f, &f->rf_out->enc);
		}
		if (f->rf_out && f->out_pos >= f->out_frame_len)
			reframe_output(f, model, tx);
		return wake;
	}
	/* early-fpdu: right behind an accepting Reply, before anything else of the model's, whatever
	 * the model made of what the peer sent after its Request (in the same read or later). */
	if (f->mutant == IW_MUTANT_EARLY_FPDU && !f->early_sent && f->role == IW_ROLE_RESPONDER &&
	    f->profile->startup_frames) {
		if (f->out_pos < f->out_frame_len)
			move(f, model, tx, f->out_frame_len - (size_t)f->out_pos);
		if (f->out_pos < f->out_frame_len)
			return wake;
		if (iw_mpa_frame_flags(f->out_hdr) & IW_MPA_FLAG_R)
			f->early_sent = true;   /* a rejecting Reply: no full operation to break */
		else
			inject_early_fpdu(f, tx);
		if (!f->early_sent)
			return wake;            /* no room yet: the next pump */
	}
	move(f, model, tx, SIZE_MAX);
	return wake;
}
