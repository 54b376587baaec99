#include "ref_faults.h"

#include <stdio.h>
#include <string.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "rdmap.h"

static const iw_fault_info hostile_tab[IW_HOSTILE_COUNT] = {
	[IW_HOSTILE_NONE] = { "none", NULL, "a conforming DUT" },
	[IW_HOSTILE_GARBAGE] = { "garbage", NULL,
		"answers anything with random octets, without end, until the peer has been silent for the idle timeout" },
	[IW_HOSTILE_RESET_MID_FRAME] = { "reset-mid-frame", NULL,
		"sends the first half of its Reply (Request as initiator), then resets the connection (RST)" },
	[IW_HOSTILE_SLOW] = { "slow", NULL,
		"sends its Reply (Request as initiator) one octet per second, then the rest at full speed" },
	[IW_HOSTILE_PD_NEVER] = { "pd-never", NULL,
		"its Reply announces PD_Length 100 but carries 10 octets of private data, then nothing more" },
	[IW_HOSTILE_ENDLESS] = { "endless", NULL,
		"after its Reply streams random octets without end, until the peer goes away" },
	[IW_HOSTILE_NEVER_CLOSE] = { "never-close", NULL,
		"never closes: not after a bad Request, not on the peer's FIN; only the idle timeout ends it" },
};

static const iw_fault_info mutant_tab[IW_MUTANT_COUNT] = {
	[IW_MUTANT_NONE] = { "none", NULL, "no requirement broken" },
	[IW_MUTANT_ACCEPT_BAD_KEY] = { "accept-bad-key", "MPA-6.1-R5",
		"accepts a Request whose Key is wrong (the Key is corrected before the model sees it)" },
	[IW_MUTANT_REPLY_WRONG_REV] = { "reply-wrong-rev", "MPA-6.1.1-06", "Reply Rev = the profile's Rev + 1" },
	[IW_MUTANT_REPLY_RES_SET] = { "reply-res-set", "MPA-6.1.1-05",
		"Reply with every Res bit set (0x1F; 0x0F under rfc6581, where 0x10 is Enhanced)" },
	[IW_MUTANT_IGNORE_M] = { "ignore-m", "MPA-6.1.1-M2", "sends no markers although the Request had M=1" },
	[IW_MUTANT_REPLY_C0] = { "reply-c0", "MPA-5.2-03", "Reply C=0 in the default configuration" },
	[IW_MUTANT_EARLY_FPDU] = { "early-fpdu", "MPA-6.1-R4",
		"sends an FPDU (a zero-length RDMA Write) right after its Reply, before receiving one" },
	[IW_MUTANT_TRUNCATE_PD] = { "truncate-pd", "MPA-6.1.1-08",
		"Reply PD_Length says 4 octets more than the private data sent" },
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
	char list[200];
	names(tab, n, list, sizeof list);
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
	f->feed_model = h != IW_HOSTILE_GARBAGE;
	f->hold_open = h == IW_HOSTILE_NEVER_CLOSE;
	f->idle_input_only = h == IW_HOSTILE_GARBAGE;
	if (!p->startup_frames) {
		/* Without startup frames (culley) our "frame" is empty and full operation starts at once. */
		f->out_hdr_known = true;
		f->out_frame_len = 0;
	}
	/* An initiator speaks first, so its garbage needs no provocation. */
	if (h == IW_HOSTILE_GARBAGE && role == IW_ROLE_INITIATOR)
		f->triggered = true;
}

void iw_fault_input(iw_fault_conn *f, uint8_t *data, size_t len)
{
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
	}
	f->in_pos += len;
	if (len == 0)
		return;
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
		h[17] = (uint8_t)(h[17] + 1);
		break;
	case IW_MUTANT_REPLY_RES_SET:
		h[16] |= f->profile->enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT;
		break;
	case IW_MUTANT_REPLY_C0:
		h[16] &= (uint8_t)~IW_MPA_FLAG_C;
		break;
	case IW_MUTANT_TRUNCATE_PD: {
		unsigned pdl = ((unsigned)h[18] << 8 | h[19]) + 4;
		h[18] = (uint8_t)(pdl >> 8);
		h[19] = (uint8_t)pdl;
		break;
	}
	default:
		break;
	}
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
	bool markers = p->markers_always || (f->in_hdr[16] & IW_MPA_FLAG_M);
	bool crc = p->crc_always || (f->in_hdr[16] & IW_MPA_FLAG_C) || (f->out_hdr[16] & IW_MPA_FLAG_C);
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
	f->out_frame_len = IW_MPA_FRAME_HDR_LEN + ((size_t)src[18] << 8 | src[19]);
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
	dst[18] = 0;
	dst[19] = ANNOUNCED;
	size_t have = avail - IW_MPA_FRAME_HDR_LEN;
	size_t pdl = f->out_frame_len - IW_MPA_FRAME_HDR_LEN;
	if (have > pdl)
		have = pdl;
	for (size_t i = 0; i < SENT; i++)
		dst[IW_MPA_FRAME_HDR_LEN + i] = i < have ? src[IW_MPA_FRAME_HDR_LEN + i] : 0;
	tx->len += IW_MPA_FRAME_HDR_LEN + SENT;
	discard(f, model);
}

int64_t iw_fault_pump(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx, int64_t now_ms)
{
	switch (f->hostile) {
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
	move(f, model, tx, SIZE_MAX);
	if (f->mutant == IW_MUTANT_EARLY_FPDU && !f->early_sent && f->role == IW_ROLE_RESPONDER &&
	    f->profile->startup_frames && f->out_pos >= f->out_frame_len &&
	    iw_conn_state(model) == IW_CS_AWAIT_FIRST_FPDU)
		inject_early_fpdu(f, tx);
	return -1;
}
