/*
 * mpa_frame.c - MPA startup Request and Reply frames (MR §6.1, RFC 5044, RFC 6581).
 *
 * Encoding writes whatever the caller put in the struct so tests can send invalid frames;
 * decoding only splits fields; iw_mpa_frame_check() is the one place that judges them.
 */
#include "mpa_frame.h"
#include "iw_octets.h"

#include <string.h>

static const uint8_t key_req[IW_MPA_KEY_LEN] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65,
};
static const uint8_t key_rep[IW_MPA_KEY_LEN] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65,
};

const uint8_t *iw_mpa_key(enum iw_mpa_kind kind)
{
	return kind == IW_MPA_REQUEST ? key_req : key_rep;
}

void iw_mpa_frame_init(iw_mpa_frame *f, const iw_profile *p, enum iw_mpa_kind kind)
{
	memset(f, 0, sizeof *f);
	memcpy(f->key, iw_mpa_key(kind), IW_MPA_KEY_LEN);
	/* MPA-5.2-03: a default configuration uses CRCs, so C=1. */
	f->c = true;
	f->rev = p->mpa_rev;
	f->pd_length_auto = true;
	if (p->enhanced) {
		f->enhanced = true;
		f->has_irdord = true;
		f->ird = 16;
		f->ord = 16;
	}
}

static size_t block_len(const iw_mpa_frame *f)
{
	return f->has_irdord ? IW_MPA_IRDORD_LEN : 0;
}

size_t iw_mpa_frame_size(const iw_mpa_frame *f)
{
	return IW_MPA_FRAME_HDR_LEN + block_len(f) + f->pd_len;
}

int iw_mpa_frame_encode(const iw_mpa_frame *f, uint8_t *out, size_t cap, size_t *out_len, iw_err *e)
{
	size_t pd_total = block_len(f) + f->pd_len;
	size_t n = IW_MPA_FRAME_HDR_LEN + pd_total;
	if (f->pd_length_auto && pd_total > 0xFFFF)
		return iw_errf(e, IW_EINVAL, "MPA frame: %zu octets of private data do not fit PD_Length", pd_total);
	if (cap < n)
		return iw_errf(e, IW_ENOSPC, "MPA frame: needs %zu octets, buffer has %zu", n, cap);

	memcpy(out, f->key, IW_MPA_KEY_LEN);
	/* Res is taken as given (0x1F wide) so a stimulus can set any bit of octet 16. */
	uint8_t flags = (uint8_t)(f->res & IW_MPA_RES_MASK_DRAFT);
	if (f->m)
		flags |= IW_MPA_FLAG_M;
	if (f->c)
		flags |= IW_MPA_FLAG_C;
	if (f->r)
		flags |= IW_MPA_FLAG_R;
	if (f->enhanced)
		flags |= IW_MPA_FLAG_ENHANCED;
	iw_mpa_frame_set_flags(out, flags);
	iw_mpa_frame_set_rev(out, f->rev);
	iw_mpa_frame_set_pd_length(out, f->pd_length_auto ? (uint16_t)pd_total : f->pd_length);

	uint8_t *o = out + IW_MPA_FRAME_HDR_LEN;
	if (f->has_irdord) {
		uint16_t ird = (uint16_t)(f->ird & IW_MPA_IRDORD_MASK);
		uint16_t ord = (uint16_t)(f->ord & IW_MPA_IRDORD_MASK);
		if (f->p2p)
			ird |= IW_MPA_IRD_P2P;
		if (f->rtr_send)
			ird |= IW_MPA_IRD_RTR_SEND;
		if (f->rtr_write)
			ord |= IW_MPA_ORD_RTR_WRITE;
		if (f->rtr_read)
			ord |= IW_MPA_ORD_RTR_READ;
		iw_put_be16(o, ird);
		iw_put_be16(o + 2, ord);
		o += IW_MPA_IRDORD_LEN;
	}
	if (f->pd_len)
		memcpy(o, f->pd, f->pd_len);
	if (out_len)
		*out_len = n;
	iw_err_clear(e);
	return IW_OK;
}

/* Splits octets 0-19 into f. Octet 16's 0x10 is the Enhanced flag only where the profile
 * defines it; elsewhere it is one of the Res bits (MPA-6.1.1-05). */
static void decode_header(const iw_profile *p, const uint8_t *buf, iw_mpa_frame *f)
{
	uint8_t flags = iw_mpa_frame_flags(buf);
	memset(f, 0, sizeof *f);
	memcpy(f->key, buf, IW_MPA_KEY_LEN);
	f->m = flags & IW_MPA_FLAG_M;
	f->c = flags & IW_MPA_FLAG_C;
	f->r = flags & IW_MPA_FLAG_R;
	f->rev = iw_mpa_frame_rev(buf);
	f->enhanced = iw_mpa_frame_enhanced(p, flags, f->rev);
	f->res = flags & (f->enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT);
	f->pd_length = iw_mpa_frame_pd_length(buf);
	f->pd_length_auto = false;
}

int iw_mpa_frame_decode(const iw_profile *p, const uint8_t *buf, size_t len, iw_mpa_frame *f,
			size_t *frame_len, iw_err *e)
{
	if (!p->startup_frames)
		return iw_errf(e, IW_EINVAL, "profile %s has no MPA startup frames", p->name);
	if (len < IW_MPA_FRAME_HDR_LEN) {
		if (frame_len)
			*frame_len = IW_MPA_FRAME_HDR_LEN;
		return iw_errf(e, IW_ETRUNC, "MPA frame: %zu of %d header octets", len, IW_MPA_FRAME_HDR_LEN);
	}
	decode_header(p, buf, f);
	size_t need = IW_MPA_FRAME_HDR_LEN + (size_t)f->pd_length;
	if (frame_len)
		*frame_len = need;
	if (len < need)
		return iw_errf(e, IW_ETRUNC, "MPA frame: %zu of %zu octets (PD_Length %u)", len, need,
			       (unsigned)f->pd_length);

	const uint8_t *pd = buf + IW_MPA_FRAME_HDR_LEN;
	size_t pd_len = f->pd_length;
	if (f->enhanced && pd_len >= IW_MPA_IRDORD_LEN) {
		uint16_t ird = iw_get_be16(pd), ord = iw_get_be16(pd + 2);
		f->has_irdord = true;
		f->ird = ird & IW_MPA_IRDORD_MASK;
		f->ord = ord & IW_MPA_IRDORD_MASK;
		f->p2p = ird & IW_MPA_IRD_P2P;
		f->rtr_send = ird & IW_MPA_IRD_RTR_SEND;
		f->rtr_write = ord & IW_MPA_ORD_RTR_WRITE;
		f->rtr_read = ord & IW_MPA_ORD_RTR_READ;
		pd += IW_MPA_IRDORD_LEN;
		pd_len -= IW_MPA_IRDORD_LEN;
	}
	f->pd = pd;
	f->pd_len = pd_len;
	iw_err_clear(e);
	return IW_OK;
}

static const char *kind_name(enum iw_mpa_kind k)
{
	return k == IW_MPA_REQUEST ? "Request" : "Reply";
}

static void check_key(const iw_mpa_frame *f, enum iw_mpa_kind expected, iw_viol_list *out, bool *ok)
{
	const uint8_t *want = iw_mpa_key(expected);
	enum iw_mpa_kind other = expected == IW_MPA_REQUEST ? IW_MPA_REPLY : IW_MPA_REQUEST;
	/* A responder checks for the Request key (MPA-6.1.1-02), an initiator for the Reply key
	 * (MPA-6.1.1-04). */
	const char *role_req = expected == IW_MPA_REQUEST ? "MPA-6.1.1-02" : "MPA-6.1.1-04";
	if (memcmp(f->key, want, IW_MPA_KEY_LEN) == 0)
		return;
	*ok = false;
	if (memcmp(f->key, iw_mpa_key(other), IW_MPA_KEY_LEN) == 0) {
		/* MPA-6.1-R8a: the key difference exists to catch Initiator/Initiator (a Request
		 * where a Reply belongs) and its mirror image. */
		iw_viol_add(out, "MPA-6.1-R8a", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP,
			    IW_MPA_KEY_DIFF_OCTET, "%s key received where a %s was expected (%s startup; "
			    "MPA-6.1-R5, %s)", kind_name(other), kind_name(expected),
			    expected == IW_MPA_REPLY ? "Initiator/Initiator" : "Responder/Responder", role_req);
		return;
	}
	size_t k = 0;
	while (f->key[k] == want[k])
		k++;
	/* A15: the prose's lower-case "frame" is not the key; only 'F' (0x46) is. */
	const char *note = k == 11 && f->key[k] == 'f' ? " (lower-case 'f', A15)" : "";
	iw_viol_add(out, "MPA-6.1-R5", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, k,
		    "%s key octet %zu is 0x%02x, expected 0x%02x%s (%s)", kind_name(expected), k, f->key[k],
		    want[k], note, role_req);
}

bool iw_mpa_frame_check(const iw_profile *p, const iw_mpa_frame *f, enum iw_mpa_kind expected,
			iw_viol_list *out)
{
	bool ok = true;
	if (!p->startup_frames) {
		iw_viol_add(out, "MPAc-8.1-04", IW_VIOL_FATAL, -1, -1, -1, 0,
			    "profile %s has no startup frames: full operation begins with a marker", p->name);
		return false;
	}
	check_key(f, expected, out, &ok);
	/* A frame built here rather than decoded judges the PD_Length it would send. */
	size_t pd_length = f->pd_length_auto ? block_len(f) + f->pd_len : f->pd_length;

	if (!iw_profile_rev_ok(p, f->rev)) {
		ok = false;
		iw_viol_add(out, "MPA-6.1.1-07", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 17,
			    "Rev %u, profile %s accepts %u..%u", (unsigned)f->rev, p->name,
			    (unsigned)p->rev_accept_min, (unsigned)p->rev_accept_max);
	}
	if (pd_length > p->pd_max) {
		ok = false;
		iw_viol_add(out, "MPA-6.1-R9a", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 18,
			    "PD_Length %zu above the %s limit of %u", pd_length, p->name,
			    (unsigned)p->pd_max);
	}
	bool enhanced = p->enhanced && f->enhanced && f->rev == 2;
	if (enhanced && pd_length < IW_MPA_IRDORD_LEN) {
		ok = false;
		iw_viol_add(out, "RFC6581-6-03", IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 18,
			    "Enhanced frame with PD_Length %zu: its Private Data must begin with the 4-octet IRD/ORD block "
			    "(RFC 6581 §6)",
			    pd_length);
	}

	/* Where 0x10 is not the Enhanced flag (another profile, or a frame not of Rev 2) it is a
	 * Res bit like the others. */
	unsigned res = f->res & (enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT);
	if (!enhanced && f->enhanced)
		res |= IW_MPA_FLAG_ENHANCED;
	if (res)
		iw_viol_add(out, "MPA-6.1.1-05", IW_VIOL_SENDER, -1, -1, -1, 16,
			    "Res bits 0x%02x set (must be sent as zero, not checked on receipt)", res);
	if (expected == IW_MPA_REQUEST && f->r)
		iw_viol_add(out, "MPA-6.1.1-R1", IW_VIOL_SENDER, -1, -1, -1, 16,
			    "R set in a Request (must be zero there, not checked)");
	return ok;
}
