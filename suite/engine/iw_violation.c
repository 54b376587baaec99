#include "iw_violation.h"

#include <stdarg.h>
#include <stdio.h>

#include "iw_proto.h"

iw_violation *iw_viol_add(iw_viol_list *l, const char *req, enum iw_viol_kind kind, int layer, int etype,
			  int ecode, uint64_t offset, const char *fmt, ...)
{
	if (!l)
		return NULL;
	if (l->n >= l->cap) {
		l->dropped++;
		return NULL;
	}
	iw_violation *v = &l->v[l->n++];
	v->req = req;
	v->kind = kind;
	v->layer = layer;
	v->etype = etype;
	v->ecode = ecode;
	v->offset = offset;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->detail, sizeof v->detail, fmt, ap);
	va_end(ap);
	return v;
}

static const char *mpa_name(int ecode)
{
	switch (ecode) {
	case IW_MPA_E_TCP_LOST: return "TCP connection closed, terminated or lost";
	case IW_MPA_E_CRC: return "MPA CRC error";
	case IW_MPA_E_MARKER: return "MPA marker and ULPDU_Length disagree";
	case IW_MPA_E_STARTUP: return "invalid MPA Request or Reply frame";
	case IW_MPA_E_LOCAL_CATASTROPHIC: return "local catastrophic";
	case IW_MPA_E_INSUFFICIENT_IRD: return "insufficient IRD resources";
	case IW_MPA_E_NO_MATCHING_RTR: return "no matching RTR option";
	default: return "unknown MPA error";
	}
}

static const char *ddp_name(int etype, int ecode)
{
	if (etype == IW_DDP_ET_CATASTROPHIC)
		return "local catastrophic";
	if (etype == IW_DDP_ET_TAGGED) {
		switch (ecode) {
		case IW_DDP_EC_INVALID_STAG: return "invalid STag";
		case IW_DDP_EC_BASE_BOUNDS: return "base or bounds violation";
		case IW_DDP_EC_STAG_NOT_ASSOC: return "STag not associated with DDP stream";
		case IW_DDP_EC_TO_WRAP: return "TO wrap";
		case IW_DDP_EC_T_VERSION: return "invalid DDP version";
		}
	} else if (etype == IW_DDP_ET_UNTAGGED) {
		switch (ecode) {
		case IW_DDP_EC_INVALID_QN: return "invalid QN";
		case IW_DDP_EC_MSN_NO_BUFFER: return "invalid MSN, no buffer available";
		case IW_DDP_EC_MSN_RANGE: return "invalid MSN, MSN range is not valid";
		case IW_DDP_EC_INVALID_MO: return "invalid MO";
		case IW_DDP_EC_TOO_LONG: return "DDP message too long for available buffer";
		case IW_DDP_EC_U_VERSION: return "invalid DDP version";
		}
	}
	return "unknown DDP error";
}

static const char *rdmap_name(int etype, int ecode)
{
	if (etype == IW_RDMAP_ET_CATASTROPHIC)
		return "local catastrophic";
	switch (ecode) {
	case IW_RDMAP_EC_INVALID_STAG: return "invalid STag";
	case IW_RDMAP_EC_BASE_BOUNDS: return "base or bounds violation";
	case IW_RDMAP_EC_ACCESS: return "access rights violation";
	case IW_RDMAP_EC_STAG_NOT_ASSOC: return "STag not associated with RDMAP stream";
	case IW_RDMAP_EC_TO_WRAP: return "TO wrap";
	case IW_RDMAP_EC_VERSION: return "invalid RDMAP version";
	case IW_RDMAP_EC_OPCODE: return "unexpected opcode";
	case IW_RDMAP_EC_CATASTROPHIC_STREAM: return "catastrophic error, localized to stream";
	case IW_RDMAP_EC_CATASTROPHIC_GLOBAL: return "catastrophic error, global";
	case IW_RDMAP_EC_CANNOT_INVALIDATE: return "STag cannot be invalidated";
	case IW_RDMAP_EC_UNSPECIFIED: return "unspecified error";
	default: return "unknown RDMAP error";
	}
}

const char *iw_error_name(int layer, int etype, int ecode)
{
	static _Thread_local char buf[128];
	const char *lname, *what;
	switch (layer) {
	case IW_LAYER_RDMAP: lname = "RDMAP"; what = rdmap_name(etype, ecode); break;
	case IW_LAYER_DDP: lname = "DDP"; what = ddp_name(etype, ecode); break;
	case IW_LAYER_LLP: lname = "LLP"; what = etype == IW_LLP_ET_MPA ? mpa_name(ecode) : "LLP error"; break;
	default: return "no error code";
	}
	snprintf(buf, sizeof buf, "%s/0x%x/0x%02x (%s)", lname, (unsigned)etype & 0xF, (unsigned)ecode & 0xFF, what);
	return buf;
}
