/*
 * verify_ddp.c - a sender as a DDP data source, segment by segment (DDP-6.1, 6.2, 6.3, 7.2;
 * RFC 5040 §4.2 for the RDMAP reserved word). Most of these rules are the sender's alone (a sink
 * places by TO or MO whatever came before): their faults are IW_VIOL_SENDER without a code.
 */
#include "verify_int.h"

#include <string.h>

#include "iw_proto.h"

void iw_source_init(iw_source *s)
{
	memset(s, 0, sizeof *s);
	for (int q = 0; q < 4; q++)
		s->next_msn[q] = 1; /* each queue's first MSN is 1 (DDP-6.3-09) */
	s->msn_known = 0xFu;
}

void iw_source_join(iw_source *s)
{
	iw_source_init(s);
	s->msn_known = 0;
	s->joined = true;
}

/* RFC 5040: after the control octet, a Send's, Terminate's and Read Request's RsvdULP is
 * reserved and sent as zero (a Send with Invalidate carries its STag there). */
static bool rsvd_word_reserved(unsigned opcode)
{
	return opcode == IW_OP_SEND || opcode == IW_OP_SEND_SE || opcode == IW_OP_TERMINATE ||
	       opcode == IW_OP_READ_REQ;
}

static bool first_segment(iw_source *s, const iw_rdmap_msg *m, iw_check *out)
{
	const iw_ddp_hdr *h = &m->ddp;
	if (!h->tagged && h->qn < 4 && (s->msn_known & 1u << h->qn)) {
		uint32_t want = s->next_msn[h->qn];
		/* The queue's previous message ended with its L=1 segment: one more segment of it came
		 * after the L=1 one (DDP-6.1-05), not a new message with a wrong MSN. */
		if (want > 1)
			iw_check_applied(out, "DDP-6.1-05");
		if (want > 1 && h->msn == want - 1)
			return iw_check_sender(out, "DDP-6.1-05",
					       "the sender's %s on QN %u carries MSN %u, of a message that already ended "
					       "with its L=1 segment", iw_rdmap_op(m->opcode)->name, h->qn, h->msn);
		iw_check_applied(out, want == 1 ? "DDP-6.3-09" : "DDP-6.3-08");
		/* A sink takes an MSN for the buffer it names: another than the next one is an error
		 * there, whose code depends on the buffers it has posted (A28), so none is given. */
		if (h->msn != want)
			return iw_check_broken(out, want == 1 ? "DDP-6.3-09" : "DDP-6.3-08", IW_VIOL_FATAL, -1, 0, 0,
					       "the sender's %s on QN %u has MSN %u, %u expected (%s)",
					       iw_rdmap_op(m->opcode)->name, h->qn, h->msn, want,
					       want == 1 ? "the first MSN is 1" : "one more than the previous message's");
	}
	if (rsvd_word_reserved(m->opcode)) {
		iw_check_applied(out, "DDP-6.3-02");
		iw_check_applied(out, "RFC5040-4.1-07");    /* the same octets, RDMAP's row for them */
	}
	if (rsvd_word_reserved(m->opcode) && iw_rdmap_rsvd_word(h))
		return iw_check_sender(out, "DDP-6.3-02",
				       "the sender's %s has RDMAP reserved word 0x%08x in DDP header octets 2-5",
				       iw_rdmap_op(m->opcode)->name, iw_rdmap_rsvd_word(h));
	return true;
}

bool iw_verify_ulpdu(const iw_profile *p, const uint8_t *ulpdu, size_t len, iw_rdmap_msg *m, iw_check *out)
{
	iw_violation v;
	iw_check_begin(out);
	bool ok = iw_rdmap_parse(p, ulpdu, len, m, &v);
	/* The T bit says which header the sender meant; an empty ULPDU has none to judge. */
	bool tagged = ok ? m->ddp.tagged : len > 0 && iw_ddp_octets_tagged(ulpdu);
	if (len > 0)
		iw_check_applied(out, tagged ? "DDP-6.2-01" : "DDP-6.3-01");
	bool hdr_whole = ok || len >= iw_ddp_hdr_len(tagged);
	if (tagged && hdr_whole)
		iw_check_applied(out, "DDP-6.2-02");
	/* RFC 5040 §4.1, §4.2 as a sender's rules: the parse above is the receiver's (rows -4.1-03,
	 * -4.2-04, -4.2-05), a DUT's own message breaks the sender's row of the same field. Only
	 * where the profile's RDMAP is RFC 5040's (the seeds' hex dumps carry RV 0). */
	bool rfc_rdmap = p && p->rdmap_version == 1 && hdr_whole && len > 0;
	if (rfc_rdmap) {
		iw_check_applied(out, "RFC5040-4.1-02");
		iw_check_applied(out, "RFC5040-4.2-01");
		iw_check_applied(out, "RFC5040-4.2-02");
		/* -4.2-02's T bit as RFC 5040 §5.4 states it for a Terminate (untagged: the request to
		 * DDP and its effect) */
		if (m->opcode == IW_OP_TERMINATE) {
			iw_check_applied(out, "RFC5040-5.4-05");
			iw_check_applied(out, "RFC5040-5.4-06");
		}
	}
	if (ok && rfc_rdmap) {
		iw_check_applied(out, "RFC5040-4.1-04");
		if (iw_rdmap_ctrl_rsvd(m->ddp.rsvdulp[0]))
			return iw_check_sender(out, "RFC5040-4.1-04", "the sender's %s has the RDMAP Rsvd bits set "
					       "(control octet 0x%02x)", iw_rdmap_op(m->opcode)->name, m->ddp.rsvdulp[0]);
		/* The 13 bits after a Terminate's M, D, R are zero on transmit (RFC 5040 §4.8): a
		 * sender's rule on every Terminate, whatever a case asked of it. Its control word opens
		 * the message: the segment at MO 0. */
		if (m->opcode == IW_OP_TERMINATE && !m->ddp.tagged && m->ddp.mo == 0 && m->payload_len >= 4) {
			iw_check_applied(out, "RFC5040-4.8-05");
			if (iw_term_ctrl_rsvd(m->payload))
				return iw_check_sender(out, "RFC5040-4.8-05", "the sender's Terminate has reserved bits "
						       "0x%04x set after M, D, R", iw_term_ctrl_rsvd(m->payload));
		}
	}
	if (ok)
		return true;
	const char *req = v.req;
	if (rfc_rdmap && !strcmp(req, "RFC5040-4.1-03"))
		req = "RFC5040-4.1-02";
	else if (rfc_rdmap && !strcmp(req, "RFC5040-4.2-04"))
		req = "RFC5040-4.2-01";
	else if (rfc_rdmap && !strcmp(req, "RFC5040-4.2-05"))
		req = "RFC5040-4.2-02";
	if (len > 0 && !hdr_whole)
		req = tagged ? "DDP-6.2-01" : "DDP-6.3-01";
	else if (tagged && v.layer == IW_LAYER_RDMAP)
		req = "DDP-6.2-02"; /* RV or opcode: the RsvdULP octet is not RDMAP's control octet */
	return iw_check_broken(out, req, v.kind, v.layer, v.etype, v.ecode, "%s", v.detail);
}

static bool next_segment(const iw_source *s, const iw_rdmap_msg *m, iw_check *out)
{
	const iw_ddp_hdr *h = &m->ddp, *f = &s->first;
	iw_check_applied(out, "DDP-6.1-03");
	if (h->tagged != f->tagged || m->opcode != s->opcode)
		return iw_check_sender(out, "DDP-6.1-03", "a new %s began before the sender's %s ended with L=1",
				       iw_rdmap_op(m->opcode)->name, iw_rdmap_op(s->opcode)->name);
	if (h->tagged) {
		iw_check_applied(out, "DDP-6.2-08");
		if (h->stag != f->stag)
			return iw_check_sender(out, "DDP-6.2-08", "STag changed within a message (0x%x then 0x%x)", f->stag,
					       h->stag);
		/* An L=1 segment beyond the octets so far: it was posted before segments of its message
		 * that carry octets before it (DDP-6.1-05), not merely a wrong TO. */
		if (h->last)
			iw_check_applied(out, "DDP-6.1-05");
		if (h->last && h->to > f->to + s->len)
			return iw_check_sender(out, "DDP-6.1-05",
					       "the sender's L=1 segment (TO 0x%llx) came before the segments carrying the "
					       "octets from TO 0x%llx on", (unsigned long long)h->to,
					       (unsigned long long)(f->to + s->len));
		iw_check_applied(out, "DDP-7.2-07");
		if (h->to != f->to + s->len)
			return iw_check_sender(out, "DDP-7.2-07", "segment TO 0x%llx, expected initial TO + %zu = 0x%llx",
					       (unsigned long long)h->to, s->len, (unsigned long long)(f->to + s->len));
		iw_check_applied(out, "DDP-6.2-04");
		if (h->rsvdulp[0] != f->rsvdulp[0])
			return iw_check_sender(out, "DDP-6.2-04", "RsvdULP changed within a tagged message");
		return true;
	}
	iw_check_applied(out, "DDP-6.3-07");
	if (h->qn != f->qn)
		return iw_check_sender(out, "DDP-6.3-07", "QN changed within a message (%u then %u)", f->qn, h->qn);
	iw_check_applied(out, "DDP-6.3-11");
	if (h->msn != f->msn)
		return iw_check_sender(out, "DDP-6.3-11", "MSN changed within a message (%u then %u)", f->msn, h->msn);
	iw_check_applied(out, "DDP-6.3-04");
	if (memcmp(h->rsvdulp, f->rsvdulp, sizeof h->rsvdulp))
		return iw_check_sender(out, "DDP-6.3-04", "RsvdULP changed within an untagged message");
	return true;
}

/* DV and the reserved bits, independent of each other: both judged. */
static bool hdr_rules(const iw_profile *p, const iw_ddp_hdr *h, iw_check *out)
{
	/* DDP-6.1-09 is the data source's rule; DDP-6.1-10 (one DV on a stream) is the sink's. A
	 * sink refuses another version with the T-appropriate code (A4). */
	iw_check_applied(out, "DDP-6.1-09");
	if (h->dv != p->ddp_version)
		iw_check_broken(out, "DDP-6.1-09", IW_VIOL_FATAL, IW_LAYER_DDP,
				h->tagged ? IW_DDP_ET_TAGGED : IW_DDP_ET_UNTAGGED,
				h->tagged ? IW_DDP_EC_T_VERSION : IW_DDP_EC_U_VERSION,
				"the sender's DDP version is %u, %u required (profile %s)", h->dv, p->ddp_version, p->name);
	iw_check_applied(out, "DDP-6.1-08");
	if (h->rsvd)
		iw_check_sender(out, "DDP-6.1-08",
				"the sender set DDP reserved bits 0x%x (they are sent as zero; receivers ignore them)", h->rsvd);
	return out->req == NULL;
}

bool iw_verify_ddp_hdr(const iw_profile *p, const iw_ddp_hdr *h, iw_check *out)
{
	iw_check_begin(out);
	return hdr_rules(p, h, out);
}

bool iw_verify_segment(iw_source *s, const iw_profile *p, const iw_rdmap_msg *m, iw_check *out)
{
	const iw_ddp_hdr *h = &m->ddp;
	iw_check_begin(out);
	if (!hdr_rules(p, h, out))
		return false;
	if (!(s->in_msg ? next_segment(s, m, out) : first_segment(s, m, out)))
		return false;
	size_t before = s->in_msg ? s->len : 0, nseg = s->in_msg ? s->nseg : 0;
	/* Met mid-stream, the first segment may be a later one of its message: its MO says where. */
	if (s->joined && !h->tagged)
		before = h->mo;
	/* An L=1 segment beyond the octets so far was posted before segments carrying octets
	 * before it (DDP-6.1-05), not merely given a wrong MO. */
	if (!h->tagged && h->last && s->in_msg)
		iw_check_applied(out, "DDP-6.1-05");
	if (!h->tagged && h->last && s->in_msg && h->mo > before)
		return iw_check_sender(out, "DDP-6.1-05",
				       "the sender's L=1 segment (MO %u) came before the segments carrying octets %zu to "
				       "%u of its message", h->mo, before, h->mo);
	if (!h->tagged)
		iw_check_applied(out, "DDP-7.2-05");
	if (!h->tagged && h->mo != before)
		return iw_check_sender(out, "DDP-7.2-05", "segment %zu has MO %u, expected %zu (the octets before it)",
				       nseg + 1, h->mo, before);
	/* MULPDU never goes below 128 (MPA-5.3.2-05/06), but DDP may post a ULPDU of any size
	 * (MPA-3.2-05): a middle ULPDU below 128 shows only that DDP did not fill MULPDU, which it
	 * should (MPA-5.3.2-04), never that MPA offered less than 128. */
	size_t ulpdu = m->hdr_len + m->payload_len;
	if (!h->last)
		iw_check_applied(out, "MPA-5.3.2-04");
	if (!h->last && ulpdu < IW_MPA_MULPDU_MIN)
		return iw_check_sender(out, "MPA-5.3.2-04",
				       "segment %zu of the sender's %s is a ULPDU of %zu octets without L=1: ULPDUs should "
				       "be as large as MULPDU, which is never below %u, allows", nseg + 1,
				       iw_rdmap_op(m->opcode)->name, ulpdu, IW_MPA_MULPDU_MIN);
	s->joined = false;
	if (!s->in_msg) {
		if (!h->tagged && h->qn < 4) {
			s->next_msn[h->qn] = h->msn + 1;  /* the MSN rule held, or the queue is met here */
			s->msn_known |= 1u << h->qn;
		}
		s->in_msg = true;
		s->first = *h;
		s->opcode = m->opcode;
		s->len = before;    /* 0, or where a message met mid-stream stood */
		s->nseg = 0;
	}
	s->len += m->payload_len;
	s->nseg++;
	if (h->last)
		s->in_msg = false;
	return true;
}

void iw_source_take(iw_source *s, const iw_rdmap_msg *m)
{
	const iw_ddp_hdr *h = &m->ddp, *f = &s->first;
	bool continues = s->in_msg && h->tagged == f->tagged && m->opcode == s->opcode &&
			 (h->tagged ? h->stag == f->stag : h->qn == f->qn && h->msn == f->msn);
	if (!continues) {
		s->in_msg = true;
		s->first = *h;
		s->opcode = m->opcode;
		s->nseg = 0;
		if (!h->tagged && h->qn < 4) {
			s->next_msn[h->qn] = h->msn + 1;
			s->msn_known |= 1u << h->qn;
		}
	}
	s->joined = false;
	/* The octets before this segment's are where the sender put them, so the next segment is
	 * judged against its own message and not against the fault. */
	size_t at = h->tagged ? (h->to >= f->to ? (size_t)(h->to - f->to) : 0) : h->mo;
	s->len = at + m->payload_len;
	s->nseg++;
	if (h->last)
		s->in_msg = false;
}
