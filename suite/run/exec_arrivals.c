/*
 * exec_arrivals.c - the DUT's octets that no expectation takes: what arrives while `measure
 * close` or `expect close allow_data=1` waits, what breaks a silence or a close, what a step read
 * past what it judged, and what is left when the case ends. A DUT's octet is judged the same
 * whatever step it arrives in: each startup frame and FPDU goes through the checks an
 * expectation applies (exec_frames.c, exec_receive.c, suite/verify/) and into the wire log, so a
 * Reply to a Request that never completed is a finding (MPA-6.1-R2a), not an INFO.
 */
#include "exec_int.h"

#include <stdlib.h>

/* Octets of the DUT where its startup frame is due that are no frame: an initiator's first
 * octets must be its Request (MPA-6.1-R1a); a responder's, before the Request is complete, are
 * an answer it may not give yet (R2a), and after it, they should be its Reply (R2f). */
static bool not_a_frame(ctx *x, const char *where, enum iw_mpa_kind kind, const iw_err *e)
{
	hconn *h = x->h;
	size_t n = ex_avail(x);
	h->in_cur = h->in_len; /* shown by ex_frame_take (its first 512 octets) */
	if (kind == IW_MPA_REQUEST)
		return ex_fail_frame(x, "MPA-6.1-R1a", "%s: the DUT's first %zu octets are not a Request: %s", where, n, e->msg);
	if (h->model && iw_conn_state(h->model) == IW_CS_STARTUP)
		return ex_fail_frame(x, "MPA-6.1-R2a", "%s: the DUT sent %zu octets before the Request was complete, and "
				     "they are not a Reply: %s", where, n, e->msg);
	return ex_fail_frame(x, "MPA-6.1-R2f", "%s: the DUT's first %zu octets are not a Reply: %s", where, n, e->msg);
}

/* Octets after the startup frames that cannot be FPDUs: after a refusing Reply no FPDU may
 * follow (a responder's: MPA-6.1-R2e; an initiator's after the harness refused: R3c), and an
 * initiator sends none before the harness's Reply (R3a). They are shown as they came. */
static bool no_fpdus_here(ctx *x, const char *where, const char *req, const char *why)
{
	hconn *h = x->h;
	size_t n = ex_avail(x);
	ex_wire_in(x, "raw", NULL, h->in_cur, n, "%zu octets %s", n, why);
	h->in_cur = h->in_len;
	return ex_fail_frame(x, req, "%s: the DUT sent %zu octets %s", where, n, why);
}

/* What the DUT sent past its startup frame while no full operation is due, or false when full
 * operation is (then it is set up). */
static bool before_full_operation(ctx *x, const char *where, bool *failed)
{
	hconn *h = x->h;
	*failed = false;
	if (h->rx_ready)
		return false;
	if (x->p->startup_frames && x->dut_role == IW_ROLE_RESPONDER && h->got_frame.r) {
		*failed = !no_fpdus_here(x, where, "MPA-6.1-R2e", "after its Reply refused the connection (R=1)");
		return true;
	}
	if (x->p->startup_frames && x->dut_role == IW_ROLE_INITIATOR && h->sent_frame_valid && h->sent_frame.r) {
		*failed = !no_fpdus_here(x, where, "MPA-6.1-R3c", "after the harness's Reply refused the connection (R=1)");
		return true;
	}
	if (x->p->startup_frames && x->dut_role == IW_ROLE_INITIATOR && !h->sent_frame_valid &&
	    (!h->model || iw_conn_state(h->model) == IW_CS_STARTUP)) {
		*failed = !no_fpdus_here(x, where, "MPA-6.1-R3a", "after its Request, before the harness's Reply");
		return true;
	}
	ex_enter_full_operation(x);
	return false;
}

/* final: what could not be judged is shown as it is. */
static void show_rest(ctx *x, bool failed)
{
	hconn *h = x->h;
	size_t n = ex_avail(x);
	if (n && failed) {
		ex_wire_in(x, "raw", NULL, h->in_cur, n, "%zu more octets, not judged after the failure", n);
		h->in_cur = h->in_len;
	} else if (n) {
		/* Only an incomplete startup frame stays unconsumed (FPDU octets go into the decoder). */
		ex_wire_in(x, "raw", NULL, h->in_cur, n, "%zu octets of an incomplete %s, not judged", n,
			   ex_kind_name(x->dut_role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST));
		h->in_cur = h->in_len;
	}
	ex_log_partial_fpdu(x, "no more arrived");
}

bool ex_take_arrivals(ctx *x, const char *where, bool final)
{
	hconn *h = x->h;
	if (!h->in || !h->rx)
		return true;
	iw_fpdu *fp = NULL;
	bool ok = true;
	while (ok && ex_avail(x)) {
		if (x->p->startup_frames && !h->got_frame_valid) {
			enum iw_mpa_kind kind = x->dut_role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST;
			iw_mpa_frame f;
			size_t need;
			iw_err e;
			int rc = ex_frame_take(x, kind, &f, &need, &e);
			if (rc == EX_TAKE_PARTIAL)
				break;
			if (rc == EX_TAKE_NOT_FRAME)
				ok = not_a_frame(x, where, kind, &e);
			else
				ok = rc == EX_TAKE_OK;
			continue;
		}
		bool failed;
		if (before_full_operation(x, where, &failed)) {
			ok = !failed;
			continue;
		}
		if (h->rx->failed) {
			/* The decoder refused the stream (a failure was recorded then): it would swallow
			 * the rest unseen, so the rest is shown as it came. */
			size_t n = ex_avail(x);
			ex_wire_in(x, "raw", NULL, h->in_cur, n, "%zu octets after the stream failed to decode, not judged", n);
			h->in_cur = h->in_len;
			break;
		}
		if (!fp && !(fp = malloc(sizeof *fp)))
			return ex_herror(x, "out of memory");
		int rc = ex_fpdu_take(x, fp, where);
		if (rc == EX_TAKE_PARTIAL)
			break;
		iw_rdmap_msg m;
		ok = rc == EX_TAKE_OK && ex_ulpdu_judged(x, fp, &m, where);
	}
	free(fp);
	if (final)
		show_rest(x, !ok || x->failed);
	return ok;
}
