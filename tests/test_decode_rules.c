/*
 * test_decode_rules.c - `iwspec decode` holds a capture's senders to the rules the runner holds a
 * DUT to, through the same verifiers (suite/verify/): a fault has one requirement ID in both.
 * Each capture is built here, frame by frame, with the engine's encoders, and judged by
 * iw_decode_capture.
 */
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "ddp.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "pcap_fixture.h"
#include "pcap_write.h"
#include "rdmap.h"
#include "verify.h"

/* A connection being built: its chunks in order, the initiator's (0) and responder's (1) FPDU
 * encoders. */
typedef struct capb {
	iw_pcap_chunk ch[32];
	uint8_t mem[32][1024];
	size_t n;
	iw_mpa_tx tx[2];
} capb;

static void cb_frame(capb *b, int dir, const iw_mpa_frame *f)
{
	size_t n = 0;
	CHECK_EQ(iw_mpa_frame_encode(f, b->mem[b->n], sizeof b->mem[0], &n, NULL), IW_OK);
	b->ch[b->n] = (iw_pcap_chunk){dir ? IW_PCAP_S2C : IW_PCAP_C2S, b->mem[b->n], n};
	b->n++;
}

/* A Request of profile preq's revision, a Reply of prep's; CRC on, no markers. */
static void cb_start(capb *b, const iw_profile *preq, const iw_profile *prep)
{
	memset(b, 0, sizeof *b);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, preq, IW_MPA_REQUEST);
	cb_frame(b, 0, &f);
	iw_mpa_frame_init(&f, prep, IW_MPA_REPLY);
	cb_frame(b, 1, &f);
	iw_mpa_tx_init(&b->tx[0], preq, false, true);
	iw_mpa_tx_init(&b->tx[1], prep, false, true);
}

/* One FPDU from side dir carrying the segment h (its RsvdULP[0] set from opcode, RV 1). */
static void cb_seg(capb *b, int dir, iw_ddp_hdr h, unsigned opcode, const void *payload, size_t len)
{
	uint8_t hdr[IW_DDP_UNTAGGED_HDR_LEN];
	size_t hl = 0;
	h.rsvdulp[0] = iw_rdmap_ctrl(1, opcode);
	CHECK_EQ(iw_ddp_hdr_encode(&h, hdr, sizeof hdr, &hl, NULL), IW_OK);
	size_t n = 0;
	CHECK_EQ(iw_mpa_tx_fpdu(&b->tx[dir], hdr, hl, payload, len, NULL, b->mem[b->n], sizeof b->mem[0], &n, NULL),
		 IW_OK);
	b->ch[b->n] = (iw_pcap_chunk){dir ? IW_PCAP_S2C : IW_PCAP_C2S, b->mem[b->n], n};
	b->n++;
}

static iw_ddp_hdr send_hdr(uint32_t msn)
{
	return (iw_ddp_hdr){.tagged = false, .last = true, .dv = 1, .qn = 0, .msn = msn, .mo = 0};
}

/* Writes the connection and decodes it: with every detail, or as JSON. */
static int cb_decode(capb *b, bool json, const iw_profile *given, char **out)
{
	const char *path = pf_tmp_path("rules.pcap");
	iw_err e;
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, b->ch, b->n, &e), 0);
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	o.json = json;
	o.details = !json;
	o.profile = given;
	int rc = pf_decode_stdout(path, &o, out);
	unlink(path);
	return rc;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* What run's verifier says of the segment h as the data source's (iw_verify_segment on a fresh
 * source): the ID decode must give too. */
static const char *run_says(iw_ddp_hdr h, unsigned opcode)
{
	static iw_check chk;
	uint8_t u[IW_DDP_UNTAGGED_HDR_LEN + 4];
	size_t hl = 0;
	h.rsvdulp[0] = iw_rdmap_ctrl(1, opcode);
	CHECK_EQ(iw_ddp_hdr_encode(&h, u, sizeof u, &hl, NULL), IW_OK);
	memcpy(u + hl, "abcd", 4);
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	iw_rdmap_msg m;
	iw_source s;
	iw_source_init(&s);
	CHECK(iw_verify_ulpdu(p, u, hl + 4, &m, &chk));
	return iw_verify_segment(&s, p, &m, &chk) ? "" : chk.req;
}

/* Finding 9: a sender's DV=0 was DDP-6.1-10 in decode and DDP-6.1-09 in run. decode now judges
 * with run's verifier: the same ID, in the text and in the JSON. */
TEST(decode_names_a_dv_fault_as_run_does)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	capb b;
	cb_start(&b, p, p);
	iw_ddp_hdr h = send_hdr(1);
	h.dv = 0;
	cb_seg(&b, 0, h, IW_OP_SEND, "abcd", 4);
	CHECK_STR(run_says(h, IW_OP_SEND), "DDP-6.1-09");
	char *out;
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION DDP-6.1-09 at offset 0 (frame ") != NULL);
	CHECK(strstr(out, "error: the sender's DDP version is 0, 1 required") != NULL);
	CHECK(strstr(out, "[DDP untagged: invalid DDP version") != NULL || strstr(out, "/0x2/0x06") != NULL);
	CHECK(strstr(out, "DDP-6.1-10") == NULL);
	free(out);
	CHECK_EQ(cb_decode(&b, true, NULL, &out), 1);
	json_t *j = json_loads(out, 0, NULL);
	CHECK(j != NULL);
	json_t *dirs = json_object_get(json_array_get(json_object_get(j, "connections"), 0), "directions");
	json_t *v = json_array_get(json_object_get(json_array_get(dirs, 0), "violations"), 0);
	CHECK_STR(json_string_value(json_object_get(v, "requirement")), run_says(h, IW_OP_SEND));
	json_decref(j);
	free(out);
}

/* The rules across segments, which decode did not hold before it judged with run's verifier: an
 * MSN that skips one is DDP-6.3-08, once (the Sends after it are judged from the MSN sent), and
 * a Send's reserved word stays DDP-6.3-02 as before. */
TEST(decode_holds_segments_to_the_message_rules)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	capb b;
	cb_start(&b, p, p);
	cb_seg(&b, 0, send_hdr(1), IW_OP_SEND, "abcd", 4);
	cb_seg(&b, 0, send_hdr(3), IW_OP_SEND, "abcd", 4);
	cb_seg(&b, 0, send_hdr(4), IW_OP_SEND, "abcd", 4);
	iw_ddp_hdr w = send_hdr(5);
	iw_rdmap_set_rsvd_word(&w, 0x77);
	cb_seg(&b, 0, w, IW_OP_SEND, "abcd", 4);
	char *out;
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK_EQ(count(out, "VIOLATION DDP-6.3-08"), 1);
	CHECK(strstr(out, "has MSN 3, 2 expected") != NULL);
	CHECK_EQ(count(out, "VIOLATION DDP-6.3-02"), 1);
	CHECK_EQ(count(out, "  VIOLATION "), 2);
	free(out);
}

/* Finding 13: decode printed the CRC value (0xaf7642c1 for the wire octets c1 42 76 af), tshark
 * the field as sent (0xc14276af). Now decode prints the field as sent, in the text and the JSON,
 * and says so; so does the engine's CRC error. */
TEST(decode_prints_the_crc_as_the_wire_has_it)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	capb b;
	cb_start(&b, p, p);
	cb_seg(&b, 0, send_hdr(1), IW_OP_SEND, "abcd", 4);
	const uint8_t *crc = b.ch[b.n - 1].data + b.ch[b.n - 1].len - 4;
	char wire[16], want[64], value[16];
	snprintf(wire, sizeof wire, "0x%02x%02x%02x%02x", crc[0], crc[1], crc[2], crc[3]);
	snprintf(want, sizeof want, "CRC=%s (wire order, valid)", wire);
	snprintf(value, sizeof value, "0x%02x%02x%02x%02x", crc[3], crc[2], crc[1], crc[0]);
	char *out;
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 0);
	CHECK(strstr(out, want) != NULL);
	CHECK(strstr(out, value) == NULL);
	free(out);
	CHECK_EQ(cb_decode(&b, true, NULL, &out), 0);
	json_t *j = json_loads(out, 0, NULL);
	json_t *dirs = json_object_get(json_array_get(json_object_get(j, "connections"), 0), "directions");
	json_t *items = json_object_get(json_array_get(dirs, 0), "items");
	CHECK_STR(json_string_value(json_object_get(json_array_get(items, 1), "crc")), wire);
	json_decref(j);
	free(out);

	/* A damaged CRC: the engine's error names the field as sent and the CRC it should be. */
	uint8_t *last = b.mem[b.n - 1];
	size_t len = b.ch[b.n - 1].len;
	last[len - 1] ^= 0xff;
	char bad[64];
	snprintf(bad, sizeof bad, "CRC field 0x%02x%02x%02x%02x, should be 0x%02x%02x%02x%02x (both in wire order)",
		 last[len - 4], last[len - 3], last[len - 2], last[len - 1], last[len - 4], last[len - 3], last[len - 2],
		 last[len - 1] ^ 0xff);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, bad) != NULL);
	free(out);
}

/* Finding 10: decode took the profile from the Request's Rev and held the responder to it, so a
 * Rev 0 Request answered with a Rev 1 Reply, an RFC 5044 responder that chose to interoperate
 * (RFC 5044 §7.1.1, TR-03: run passes it, mpa.startup.resp.rev-00-rfc), was blamed for its Rev.
 * Now the Reply is judged by the profile it shows when that profile may answer such a Request,
 * and the output says which profile judged each side and why; with --profile the Reply is held
 * to the profile given. */
TEST(decode_does_not_blame_an_answer_some_profile_allows)
{
	const iw_profile *draft = iw_profile_get(IW_PROFILE_RDDP_MPA_01), *rfc = iw_profile_get(IW_PROFILE_RFC5044);
	capb b;
	cb_start(&b, draft, rfc);
	cb_seg(&b, 0, send_hdr(1), IW_OP_SEND, "abcd", 4);
	cb_seg(&b, 1, send_hdr(1), IW_OP_SEND, "abcd", 4);
	char *out;
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 0);
	CHECK(strstr(out, "profile rddp-mpa-01 (guessed from the Request's Rev 0; --profile chooses another); the "
			  "responder's rfc5044 (from its Reply, Rev 1: an RFC 5044 responder may answer a Rev 0 Request so)") !=
	      NULL);
	CHECK(strstr(out, "VIOLATION") == NULL);
	CHECK_EQ(count(out, "RDMAP RV=1 Opcode=0x3 (Send)"), 2);    /* both sides' FPDUs judged */
	free(out);
	CHECK_EQ(cb_decode(&b, true, NULL, &out), 0);
	json_t *j = json_loads(out, 0, NULL);
	json_t *c0 = json_array_get(json_object_get(j, "connections"), 0);
	CHECK_STR(json_string_value(json_object_get(c0, "profile")), "rddp-mpa-01");
	CHECK_STR(json_string_value(json_object_get(c0, "responder_profile")), "rfc5044");
	const char *why = json_string_value(json_object_get(c0, "profile_reason"));
	CHECK(why && strstr(why, "guessed from the Request's Rev 0") != NULL);
	json_decref(j);
	free(out);
	/* The profile given: the Reply is held to it. */
	CHECK_EQ(cb_decode(&b, false, draft, &out), 1);
	CHECK(strstr(out, "profile rddp-mpa-01 (given)") != NULL);
	CHECK(strstr(out, "VIOLATION MPA-6.1.1-06 at offset 17") != NULL); /* the sender's Rev rule */
	free(out);

	/* A Rev 1 Request and Reply with RFC 6581's Enhanced bit and IRD/ORD block: RFC 6581
	 * frames are Rev 2, so under every profile 0x10 is a Res bit of these Rev 1 frames, which
	 * their senders must clear (F9, mpa_frame.h iw_mpa_frame_enhanced). */
	const iw_profile *enh = iw_profile_get(IW_PROFILE_RFC6581);
	memset(&b, 0, sizeof b);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, enh, IW_MPA_REQUEST);
	f.rev = 1;
	cb_frame(&b, 0, &f);
	iw_mpa_frame_init(&f, enh, IW_MPA_REPLY);
	f.rev = 1;
	cb_frame(&b, 1, &f);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1.1-05") != NULL);
	free(out);
	CHECK_EQ(cb_decode(&b, false, enh, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1.1-05") != NULL);   /* given rfc6581 too */
	CHECK(strstr(out, "IRD=") == NULL);                      /* and no IRD/ORD block read */
	free(out);
	CHECK_EQ(cb_decode(&b, false, rfc, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1.1-05") != NULL);   /* given rfc5044, 0x10 is a Res bit */
	free(out);

	/* The other way round no profile allows: a draft responder closes on a Rev 1 Request. */
	cb_start(&b, rfc, draft);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION RFC5044-7.1.1-01 at offset 17") != NULL); /* RFC 5044's sender Rev rule */
	free(out);

	/* A Rev 0 Request with no Reply: an RFC 5044 responder may refuse it by closing, so that is
	 * no violation unless the draft is given; a Rev 1 Request no Reply answers still is. */
	cb_start(&b, draft, draft);
	b.n = 1;
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 0);
	CHECK(strstr(out, "no Reply, which is no violation here: an RFC 5044 responder may refuse a Rev 0 Request by "
			  "closing (--profile rddp-mpa-01 holds the responder to a Reply)") != NULL);
	free(out);
	CHECK_EQ(cb_decode(&b, false, draft, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R2a") != NULL);
	free(out);
	cb_start(&b, rfc, rfc);
	b.n = 1;
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R2a") != NULL);
	free(out);
}

/* ---- Read Responses against their Read Requests (finding 12) ---- */

static void read_req(capb *b, int dir, uint32_t msn, uint32_t sink_stag, uint64_t sink_to, uint32_t size)
{
	iw_read_req rr = {.sink_stag = sink_stag, .sink_to = sink_to, .size = size, .src_stag = 0x77, .src_to = 0};
	uint8_t body[IW_RDMAP_READ_REQ_LEN];
	iw_read_req_encode(&rr, body);
	iw_ddp_hdr h = {.tagged = false, .last = true, .dv = 1, .qn = 1, .msn = msn, .mo = 0};
	cb_seg(b, dir, h, IW_OP_READ_REQ, body, sizeof body);
}

static void read_resp(capb *b, int dir, uint32_t stag, uint64_t to, bool last, size_t len)
{
	static uint8_t pl[512];
	memset(pl, 0x5a, sizeof pl);
	iw_ddp_hdr h = {.tagged = true, .last = last, .dv = 1, .stag = stag, .to = to};
	cb_seg(b, dir, h, IW_OP_READ_RESP, pl, len);
}

/* Finding 12: in a capture between two peers, a Read Response whose STag and length do not match
 * the Read Request it answers passed. decode now holds each side's Responses to the Requests the
 * other side sent, in order, by the runner's rule (iw_verify_read_resp, RFC5040-5.2-03), and a
 * Response that answers no Request is RFC5040-5.2-09. */
TEST(decode_holds_read_responses_to_their_requests)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	capb b;
	char *out;
	/* A Response as asked: conforms, and says which Request it answers. */
	cb_start(&b, p, p);
	read_req(&b, 0, 1, 0x100, 0x2000, 8);
	read_resp(&b, 1, 0x100, 0x2000, true, 8);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 0);
	CHECK(strstr(out, "answers the Read Request of frame 6: 8 octets to sink STag 0x00000100 TO 0x2000") != NULL);
	free(out);

	/* Another STag, another TO, more octets: each RFC5040-5.2-03, as the runner's check names it. */
	const struct { uint32_t stag; uint64_t to; size_t len; const char *how; } bad[] = {
		{0x101, 0x2000, 8, "(another STag)"}, {0x100, 0x2008, 8, "(another TO)"}, {0x100, 0x2000, 9, "(more octets)"},
		{0x100, 0x2000, 7, "(fewer octets)"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cb_start(&b, p, p);
		read_req(&b, 0, 1, 0x100, 0x2000, 8);
		read_resp(&b, 1, bad[i].stag, bad[i].to, true, bad[i].len);
		CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
		CHECK(strstr(out, "VIOLATION RFC5040-5.2-03") != NULL);
		CHECK(strstr(out, bad[i].how) != NULL);
		CHECK_EQ(count(out, "  VIOLATION "), 1);
		free(out);
		iw_read_req rr = {.sink_stag = 0x100, .sink_to = 0x2000, .size = 8};
		iw_ddp_hdr f = {.tagged = true, .last = true, .dv = 1, .stag = bad[i].stag, .to = bad[i].to};
		iw_check chk;
		CHECK(!iw_verify_read_resp(&rr, &f, bad[i].len, true, &chk));
		CHECK_STR(chk.req, "RFC5040-5.2-03");
	}

	/* Two Requests, two segments each way: answered in order, conforms; the Responses swapped,
	 * the first is held to the first Request and broken. */
	cb_start(&b, p, p);
	read_req(&b, 0, 1, 0x100, 0x2000, 200);
	read_req(&b, 0, 2, 0x300, 0x0, 8);
	read_resp(&b, 1, 0x100, 0x2000, false, 150);
	read_resp(&b, 1, 0x100, 0x2000 + 150, true, 50);
	read_resp(&b, 1, 0x300, 0x0, true, 8);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 0);
	CHECK_EQ(count(out, "answers the Read Request of frame"), 2);
	free(out);
	cb_start(&b, p, p);
	read_req(&b, 0, 1, 0x100, 0x2000, 200);
	read_req(&b, 0, 2, 0x300, 0x0, 8);
	read_resp(&b, 1, 0x300, 0x0, true, 8);
	read_resp(&b, 1, 0x100, 0x2000, false, 150);
	read_resp(&b, 1, 0x100, 0x2000 + 150, true, 50);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION RFC5040-5.2-03") != NULL);
	free(out);
	/* A Response cut short over two segments: its last segment says so. */
	cb_start(&b, p, p);
	read_req(&b, 0, 1, 0x100, 0x2000, 200);
	read_resp(&b, 1, 0x100, 0x2000, false, 150);
	read_resp(&b, 1, 0x100, 0x2000 + 150, true, 40);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "this one carries 190 octets to STag 0x100 TO 0x2000 (fewer octets)") != NULL);
	free(out);

	/* A Response nobody asked for, or one sent before the Request it would answer. */
	cb_start(&b, p, p);
	cb_seg(&b, 0, send_hdr(1), IW_OP_SEND, "abcd", 4);
	read_resp(&b, 1, 0x100, 0x2000, true, 8);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION RFC5040-5.2-09") != NULL);
	CHECK(strstr(out, "answers no Read Request") != NULL);
	free(out);
	cb_start(&b, p, p);
	cb_seg(&b, 0, send_hdr(1), IW_OP_SEND, "abcd", 4);
	read_resp(&b, 1, 0x100, 0x2000, true, 8);
	read_req(&b, 0, 1, 0x100, 0x2000, 8);
	CHECK_EQ(cb_decode(&b, false, NULL, &out), 1);
	CHECK(strstr(out, "VIOLATION RFC5040-5.2-09") != NULL);
	CHECK(strstr(out, "before the Read Request it could answer") != NULL);
	free(out);
}
