/*
 * ref_fault_pump.c - the model's octets through the fault stage into the transmit buffer: each
 * hostile mode's misbehaviour, our frame header as a mutant has it, the injected early FPDU,
 * and the output re-framer.
 */
#include "ref_fault_int.h"

#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "rdmap.h"
#include "ref_mutants.h"

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
	case IW_MUTANT_REPLY_ECHOES_R:
		/* MPA-6.1.1-R1: a Request's R is not checked; this responder copies it into its Reply
		 * (Linux siw sends the Request's header back with the key swapped). */
		if (f->role == IW_ROLE_RESPONDER && (iw_mpa_frame_flags(f->in_hdr) & IW_MPA_FLAG_R))
			iw_mpa_frame_set_flags(h, iw_mpa_frame_flags(h) | IW_MPA_FLAG_R);
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

/* A zero-length RDMA Write framed with the given markers and CRC into tx; false when there is
 * no room yet. */
static bool put_zero_write(iw_fault_conn *f, iw_txbuf *tx, bool markers, bool crc)
{
	const iw_profile *p = f->profile;
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
		return false;
	size_t need = iw_mpa_tx_size(&mtx, hl);
	if (iw_txbuf_room(tx) < need)
		return false; /* next pump */
	if (iw_mpa_tx_fpdu(&mtx, hb, hl, NULL, 0, NULL, iw_txbuf_tail(tx), iw_txbuf_room(tx), &n, NULL) != IW_OK)
		return false;
	tx->len += n;
	f->injected += n;
	return true;
}

/* MPA-6.1-R4 broken: an FPDU before the peer's first one. A zero-length RDMA Write is never
 * checked by the receiver (DDP-7.2-10) and consumes no MSN, so the mutant breaks rule 4 and
 * nothing else (with markers on our side later marker positions shift: what follows is not judged). */
static void inject_early_fpdu(iw_fault_conn *f, iw_txbuf *tx)
{
	const iw_profile *p = f->profile;
	bool markers = p->markers_always || (iw_mpa_frame_flags(f->in_hdr) & IW_MPA_FLAG_M);
	bool crc = p->crc_always || ((iw_mpa_frame_flags(f->in_hdr) | iw_mpa_frame_flags(f->out_hdr)) & IW_MPA_FLAG_C);
	if (put_zero_write(f, tx, markers, crc))
		f->early_sent = true;
}

/* reply-to-partial-request (MPA-6.1-R2a broken): once the peer's octets of a Request that is not
 * complete have been quiet for PARTIAL_REPLY_MS, a Reply (the profile's, C=1, no private data)
 * and a zero-length RDMA Write go out, as though the Request had ended there. The model, still
 * waiting for the rest, is mute from then on (what it would say later is dropped) and its
 * startup timeout still closes the connection. True when it took the pump; *wake is when it
 * wants to run again (-1: on the next event). */
#define PARTIAL_REPLY_MS 1000
static bool reply_to_partial(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, int64_t now_ms, int64_t *wake)
{
	*wake = -1;
	if (f->role != IW_ROLE_RESPONDER || !f->profile->startup_frames)
		return false;
	if (f->partial_replied) {
		discard(f, model);
		return true;
	}
	if (f->in_pos == 0 || iw_conn_state(model) != IW_CS_STARTUP)
		return false; /* nothing yet, or the whole Request: the model answers */
	if (f->quiet_since_ms == 0 || f->in_pos != f->quiet_in_pos) {
		f->quiet_in_pos = f->in_pos;
		f->quiet_since_ms = now_ms;
	}
	if (now_ms - f->quiet_since_ms < PARTIAL_REPLY_MS) {
		*wake = f->quiet_since_ms + PARTIAL_REPLY_MS;
		return true;
	}
	iw_mpa_frame fr;
	iw_mpa_frame_init(&fr, f->profile, IW_MPA_REPLY);
	uint8_t frame[IW_MPA_FRAME_HDR_LEN + IW_MPA_IRDORD_LEN];
	size_t n;
	if (iw_mpa_frame_encode(&fr, frame, sizeof frame, &n, NULL) != IW_OK)
		return true;
	if (iw_txbuf_room(tx) < n + 64) {
		*wake = now_ms + 10;
		return true;
	}
	memcpy(iw_txbuf_tail(tx), frame, n);
	tx->len += n;
	f->injected += n;
	(void)put_zero_write(f, tx, f->profile->markers_always, true);
	f->partial_replied = true;
	return true;
}

bool fs_frame_known(iw_fault_conn *f, iw_conn *model)
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
	if (f->profile->startup_frames && !fs_frame_known(f, model))
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
		if (!fs_frame_known(f, model))
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
		if (!fs_frame_known(f, model))
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
		if (!fs_frame_known(f, model))
			return -1;
		if (f->out_frame_len == 0)
			break; /* no frame to lie in (culley) */
		pd_never(f, model, tx);
		return -1;
	case IW_HOSTILE_ENDLESS:
		if (!fs_frame_known(f, model))
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
	if (f->mutant == IW_MUTANT_REPLY_TO_PARTIAL_REQUEST) {
		int64_t wake;
		if (reply_to_partial(f, model, tx, now_ms, &wake))
			return wake;
	}
	/* Plain path (with the mutant's rewrites). Wait for a whole frame header first, so the
	 * header can be rewritten as one. */
	if (f->profile->startup_frames && !fs_frame_known(f, model))
		return -1;
	int64_t wake = iw_mut_pump(f, model, now_ms);
	if (fs_out_mutant(f->mutant)) {
		/* Our frame goes out as it is; the FPDUs after it through the re-framer. */
		if (f->out_pos < f->out_frame_len)
			move(f, model, tx, f->out_frame_len - (size_t)f->out_pos);
		iw_conn_params prm;
		iw_conn_params_get(model, &prm);
		if (f->out_pos >= f->out_frame_len && iw_conn_state(model) != IW_CS_STARTUP && !f->rf_out) {
			f->rf_out = fs_reframe_new(f->profile, prm.markers_tx, prm.crc);
			if (f->rf_out)
				iw_mut_out_init(f, &f->rf_out->enc);
		}
		if (f->rf_out && f->out_pos >= f->out_frame_len)
			fs_reframe_output(f, model, tx);
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
