/*
 * exec_rping.c - rping's application messages judged (docs/rping.md): the 16-octet buffer
 * advertisement a client DUT sends (suite/engine/rping_info.h), and the Read Request a server DUT
 * makes of the buffer the harness advertised. Both reach the steps after them the way the
 * reflector's greeting does: as the defaults of `write`, `read_req` and `read_resp`.
 */
#include "exec_int.h"

#include <stdio.h>
#include <string.h>

#include "rping_info.h"

/* rping's every message is a Send of exactly 16 octets: its only posted receive has that size,
 * and any other is "bogus data" to rping, which then disconnects. qn= and msn= are checked as for
 * any message. */
static bool rping_send(ctx *x, const iw_step *s, const dut_msg *dm, const char *what)
{
	if (dm->opcode != IW_OP_SEND || !iw_rping_info_len_ok(dm->len))
		return ex_fail(x, NULL, "expected %s (a Send of 16 octets), the DUT sent %s with %zu payload octets", what,
			       iw_rdmap_op(dm->opcode)->name, dm->len);
	char why[160];
	if (!ex_pattern_ok(s, "qn", dm->first.qn, why, sizeof why) || !ex_pattern_ok(s, "msn", dm->first.msn, why, sizeof why))
		return ex_fail(x, NULL, "%s: %s", what, why);
	return true;
}

/* `expect rping_go`: the server's "go ahead", whose contents rping never reads. */
bool ex_rping_go(ctx *x, const iw_step *s, const dut_msg *dm)
{
	return rping_send(x, s, dm, "rping's go-ahead");
}

/* `expect rping_info`: the client's advertisement; its buffer becomes the connection's advertised
 * one. stag=, to=, size= check its fields (size is the buffer's length here). */
bool ex_rping_info(ctx *x, const iw_step *s, const dut_msg *dm)
{
	if (!rping_send(x, s, dm, "rping's buffer advertisement (address, rkey, size)"))
		return false;
	iw_rping_info in;
	iw_rping_info_parse(dm->data, &in);
	ex_note(x, "rping advertises rkey (STag) 0x%x, address (TO) 0x%llx, %u octets", in.stag,
		(unsigned long long)in.to, in.len);
	char why[160];
	if (!ex_pattern_ok(s, "stag", in.stag, why, sizeof why) || !ex_pattern_ok(s, "to", (int64_t)in.to, why, sizeof why) ||
	    !ex_pattern_ok(s, "size", in.len, why, sizeof why))
		return ex_fail(x, NULL, "rping advertisement: %s", why);
	if (in.len == 0)
		return ex_fail(x, NULL, "rping advertises a buffer of 0 octets: no Read or Write of its flow can follow");
	x->h->have_adv = true;
	x->h->adv_stag = in.stag;
	x->h->adv_to = in.to;
	x->h->adv_len = in.len;
	ex_adv_to_model(x->h);
	return true;
}

/* The DUT's Read Request (its body, 28 octets): each body field a step names is checked, and the
 * request is kept so that `send read_resp` places the answer where the DUT asked. */
bool ex_dut_read_req(ctx *x, const iw_step *s, const uint8_t *body, size_t len)
{
	iw_read_req rr;
	iw_err e;
	if (iw_read_req_decode(body, len, &rr, &e))
		return ex_fail(x, NULL, "the DUT's Read Request cannot be decoded: %s", e.msg);
	ex_note(x, "the DUT's Read Request: sink STag 0x%x TO 0x%llx, %u octets from source STag 0x%x TO 0x%llx",
		rr.sink_stag, (unsigned long long)rr.sink_to, rr.size, rr.src_stag, (unsigned long long)rr.src_to);
	char why[160];
	if (!ex_pattern_ok(s, "sink_stag", rr.sink_stag, why, sizeof why) ||
	    !ex_pattern_ok(s, "sink_to", (int64_t)rr.sink_to, why, sizeof why) ||
	    !ex_pattern_ok(s, "src_stag", rr.src_stag, why, sizeof why) ||
	    !ex_pattern_ok(s, "src_to", (int64_t)rr.src_to, why, sizeof why) ||
	    !ex_pattern_ok(s, "rsize", rr.size, why, sizeof why))
		return ex_fail(x, NULL, "Read Request: %s", why);
	x->h->dut_rr = rr;
	x->h->have_dut_rr = true;
	return true;
}
