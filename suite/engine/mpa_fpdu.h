/*
 * mpa_fpdu.h - building FPDUs and sizing them (MR §4, §5.2, §5.3).
 *
 *   FPDU = ULPDU_Length (2, big-endian) | ULPDU | PAD (0-3 zero octets, (2 + L + pad) % 4 == 0)
 *          | CRC (4, CRC32C over everything before it, markers included, LS octet first)
 *   with a marker inserted at every 512th stream octet when markers are on.
 *
 * The transmitter keeps the stream position of its direction so it can place markers; one
 * iw_mpa_tx serves one direction of one connection. It never allocates.
 *
 * iw_fpdu_mods carries deliberate defects for test stimuli. A zeroed iw_fpdu_mods (or NULL)
 * produces a conforming FPDU. The CRC is computed over the octets actually sent (so a
 * non-zero pad or marker RESERVED still carries a valid CRC) unless a CRC mod says otherwise.
 */
#ifndef IW_MPA_FPDU_H
#define IW_MPA_FPDU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"
#include "iw_octets.h"
#include "iw_proto.h"
#include "profile.h"

typedef struct iw_mpa_tx {
	const iw_profile *profile;
	bool markers;       /* insert markers: the peer's frame had M=1 (or culley) */
	bool crc;           /* generate a valid CRC; when false the CRC field is 0 */
	uint64_t pos;       /* octets emitted since SeqStart */
} iw_mpa_tx;

typedef struct iw_fpdu_mods {
	bool set_length;        /* send ulpdu_length instead of the real ULPDU length */
	uint16_t ulpdu_length;
	bool set_crc;           /* send crc_value (a CRC value, written LS octet first) */
	uint32_t crc_value;
	bool crc_big_endian;    /* write the (valid) CRC most-significant octet first: a code 2 stimulus */
	uint32_t crc_xor;       /* XORed into the CRC value before it is written */
	bool corrupt;           /* flip all bits of ULPDU octet corrupt_at after the CRC is computed */
	size_t corrupt_at;
	uint8_t pad_fill;       /* value of every pad octet (0 conforming) */
	uint16_t marker_reserved;   /* RESERVED of this FPDU's markers (0 conforming) */
	uint16_t fpduptr_or;        /* ORed into every FPDUPTR of this FPDU (low bits: MPA-5.1-05) */
	int32_t fpduptr_delta;      /* added to every FPDUPTR of this FPDU (code 3 stimulus) */
	bool no_markers;            /* leave this FPDU's markers out */
	bool marker_swapped;        /* each marker's halves the wrong way round: FPDUPTR in RESERVED's
				     * place, RESERVED (0) in FPDUPTR's (an MPA-4.1-01 defect) */
} iw_fpdu_mods;

/* Starts a direction at SeqStart with the negotiated markers and CRC. A profile with
 * markers_always/crc_always (culley-mpa-02) turns them on whatever is passed; use
 * iw_fpdu_mods to send a culley FPDU without them. */
void iw_mpa_tx_init(iw_mpa_tx *tx, const iw_profile *p, bool markers, bool crc);

/* Wire octets of an FPDU carrying ulpdu_len octets if sent now. */
size_t iw_mpa_tx_size(const iw_mpa_tx *tx, size_t ulpdu_len);

/* Frames one ULPDU given in two pieces (typically a DDP header and its payload; either may be
 * empty) into out and advances the stream position. IW_ENOSPC if cap < iw_mpa_tx_size();
 * IW_EINVAL if the ULPDU exceeds 65535 octets. */
int iw_mpa_tx_fpdu(iw_mpa_tx *tx, const uint8_t *hdr, size_t hdr_len, const uint8_t *payload,
		   size_t payload_len, const iw_fpdu_mods *mods, uint8_t *out, size_t cap, size_t *out_len,
		   iw_err *e);

/* Accounts for octets sent raw (outside iw_mpa_tx_fpdu), so later markers stay in place. */
static inline void iw_mpa_tx_skip(iw_mpa_tx *tx, size_t n) { tx->pos += n; }

/* Pad octets for a ULPDU of this length: (4 - (2 + len) % 4) % 4 (MPA-4-F2). */
static inline unsigned iw_mpa_pad_len(size_t ulpdu_len)
{
	return (unsigned)((4 - (IW_MPA_LEN_FIELD + ulpdu_len) % 4) % 4);
}

/* Where an FPDU's parts sit, markers excluded (MPA-4): ULPDU_Length (2 octets) at 0, the ULPDU
 * at IW_MPA_LEN_FIELD, the pad after it, then the CRC field (always present; with CRC off
 * its value is not checked, MPA-5.2-09). The body is all of it: what marker positions are counted over. */
typedef struct iw_fpdu_layout {
	size_t ulpdu_off, ulpdu_len;
	size_t pad_off, pad_len;
	size_t crc_off;
	size_t body_len;
} iw_fpdu_layout;

static inline iw_fpdu_layout iw_fpdu_layout_of(size_t ulpdu_len)
{
	iw_fpdu_layout l;
	l.ulpdu_off = IW_MPA_LEN_FIELD;
	l.ulpdu_len = ulpdu_len;
	l.pad_off = l.ulpdu_off + ulpdu_len;
	l.pad_len = iw_mpa_pad_len(ulpdu_len);
	l.crc_off = l.pad_off + l.pad_len;
	l.body_len = l.crc_off + IW_MPA_CRC_LEN;
	return l;
}

/* The ULPDU_Length field of an FPDU in octets (markers excluded from the first 2 octets). */
static inline uint16_t iw_fpdu_ulpdu_length(const uint8_t *fpdu) { return iw_get_be16(fpdu); }

/* MULPDU formulas (MPA-5.3.2-01/02) without clamping; may be below 128 or negative for tiny EMSS.
 *   markers:    EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS % 4)
 *   no markers: EMSS - (6 + EMSS % 4) */
long iw_mulpdu_formula(uint32_t emss, bool markers);

/* The formula clamped to [128, 64768] (MPA-3.2-03, MPA-5.3.2-05). */
uint32_t iw_mulpdu(uint32_t emss, bool markers);

#endif
