/*
 * ref_fault_input.c - a connection's fault state made, and the peer's octets through it before
 * the model sees them: header rewrites, the robustness mutants' length chain, the input
 * re-framer.
 */
#include "ref_fault_int.h"

#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "ref_mutants.h"

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

size_t iw_fault_input_limit(const iw_fault_conn *f, size_t n)
{
	bool robust = f->mutant == IW_MUTANT_CRASH_SHORT_ULPDU || f->mutant == IW_MUTANT_HANG_PARTIAL_HEADER;
	if (!(fs_in_mutant(f->mutant) || robust) || !f->profile->startup_frames)
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
	if (fs_in_mutant(f->mutant) && before >= frame && (f->out_hdr_known || (f->model && fs_frame_known(f, f->model)))) {
		if (!f->rf_in) {
			bool markers = f->profile->markers_always || (iw_mpa_frame_flags(f->out_hdr) & IW_MPA_FLAG_M);
			bool crc = f->profile->crc_always || ((iw_mpa_frame_flags(f->in_hdr) | iw_mpa_frame_flags(f->out_hdr)) &
							       IW_MPA_FLAG_C);
			f->rf_in = fs_reframe_new(f->profile, markers, crc);
		}
		if (f->rf_in) {
			/* FPDU by FPDU: a mutant that looks at the data sink (next MSN, registered
			 * buffers) sees it as the FPDUs before left it, however many came in one read. */
			f->direct_feed = f->model != NULL;
			fs_reframe_input(f, data, len);
			if (f->direct_feed)
				f->feed_model = false;  /* the fault stage fed the model */
		}
	}
	if (f->hostile == IW_HOSTILE_GARBAGE)
		f->triggered = true;
	if (f->hostile == IW_HOSTILE_RESET_MID_FRAME && !f->profile->startup_frames)
		f->reset_when_flushed = true;
}
