/*
 * fuzz_diff_markers.c - two ways to find FPDUs in a stream with markers (MR §5.1): by the
 * length chain (each ULPDU_Length leads to the next FPDU) and by the markers (each marker's
 * FPDUPTR points back to the start of the FPDU that holds it).
 *
 * Input: [profile][flags][count][nmut] then per FPDU [len (2)], then per mutation
 * [offset (4)][xor], then, with flags bit 1, the stream itself.
 *   flags: 1 CRC on, 2 the stream is the fuzzer's own octets (else the engine frames count
 *          FPDUs of the given lengths, then the mutations flip octets in it)
 *
 * Invariants:
 *  - for a stream the engine framed, the two locations agree for every marker: FPDUPTR
 *    (low two bits cleared) leads to the start of the length-chain FPDU holding the marker
 *    (modulo 2^16, like FPDUPTR itself), an FPDU starts there, and the decoder delivers exactly
 *    the length-chain FPDUs;
 *  - for any stream, the decoder never delivers an FPDU whose markers disagree with the
 *    length chain: it reports MPA code 2 when CRC is on and the CRC is wrong (MPA-5.2-14),
 *    else code 3 (MPA-7-03); it delivers every FPDU whose CRC (when on) is right and whose
 *    markers agree.
 */
#include <string.h>

#include "fuzz.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "refwalk.h"

#define MAX_FPDU 16
#define MAX_MUT 32

static iw_mpa_rx rx;
static iw_fpdu fp;
static fz_ref_fpdu ref;

/* The engine's framing: both locations agree, and the decoder follows them. */
static void agree(const iw_profile *p, bool crc, const uint8_t *s, size_t len, size_t count)
{
	uint64_t starts[MAX_FPDU + 1];
	size_t n = 0, off = 0;
	while (off < len) {
		fz_ref_fpdu_read(s + off, len - off, off, true, p->fpduptr_from_length, false, &ref, NULL);
		FZ_CHECK(ref.complete, "engine stream ends inside an FPDU at %zu", off);
		FZ_CHECK(ref.markers_agree, "a marker of the engine's FPDU at %zu disagrees with the length chain", off);
		FZ_CHECK(n < MAX_FPDU, "more FPDUs than framed");
		starts[n++] = off;
		off += ref.wire_len;
	}
	FZ_CHECK(n == count, "%zu FPDUs by the length chain, %zu framed", n, count);
	starts[n] = len;
	/* Marker by marker: FPDUPTR leads to a length-chain start, or (RFC 5044) to the length
	 * field 4 octets past a marker that begins the FPDU. */
	size_t k = 0;
	for (size_t m = 0; m + 4 <= len; m += IW_MPA_MARKER_INTERVAL) {
		uint16_t ptr = (uint16_t)(s[m + 2] << 8 | s[m + 3]) & IW_MPA_FPDUPTR_MASK;
		while (k + 1 < n && starts[k + 1] <= m)
			k++;
		size_t to = m == starts[k] ? m : starts[k] + (p->fpduptr_from_length && starts[k] % 512 == 0 ? 4 : 0);
		FZ_CHECK((uint16_t)(m - to) == ptr, "marker at %zu: FPDUPTR %u, length chain %llu", m, ptr,
			 (unsigned long long)(m - to));
		if (m - to < 0x10000)
			FZ_CHECK(m - ptr == to, "marker at %zu points at %zu, no FPDU's %s is there", m, (size_t)(m - ptr),
				 to == starts[k] ? "start" : "length field");
	}
	/* The decoder delivers the same FPDUs. */
	iw_mpa_rx_init(&rx, p, true, crc);
	size_t got = 0;
	off = 0;
	while (off < len) {
		size_t used;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, s + off, len - off, &used, &fp, &err);
		off += used;
		FZ_CHECK(st != IW_RX_ERROR, "decoder rejects the engine's stream: %s %s", err.req, err.detail);
		if (st == IW_RX_FPDU) {
			FZ_CHECK(got < n && fp.start == starts[got], "decoder FPDU %zu at %llu, length chain %llu", got,
				 (unsigned long long)fp.start, (unsigned long long)starts[got]);
			got++;
		}
	}
	FZ_CHECK(got == n, "decoder delivered %zu of %zu FPDUs", got, n);
}

/* Any stream: a disagreeing marker is never delivered. */
static void judge(const iw_profile *p, const uint8_t *s, size_t len, bool crc)
{
	iw_mpa_rx_init(&rx, p, true, crc);
	size_t off = 0;
	while (off < len) {
		fz_ref_fpdu_read(s + off, len - off, off, true, p->fpduptr_from_length, crc, &ref, NULL);
		size_t used;
		iw_violation err;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, s + off, len - off, &used, &fp, &err);
		if (!ref.complete) {
			FZ_CHECK(st == IW_RX_NEED_MORE && used == len - off, "incomplete FPDU: status %d", st);
			return;
		}
		FZ_CHECK(st != IW_RX_NEED_MORE, "complete FPDU at %zu not judged", off);
		FZ_CHECK(used == ref.wire_len, "FPDU at %zu: decoder took %zu, length chain %zu", off, used, ref.wire_len);
		bool bad_crc = crc && ref.crc_received != ref.crc_computed;
		if (bad_crc || !ref.markers_agree) {
			FZ_CHECK(st == IW_RX_ERROR, "FPDU at %zu delivered with %s", off,
				 bad_crc ? "a bad CRC" : "a marker that disagrees with the length chain");
			FZ_CHECK(err.ecode == (bad_crc ? IW_MPA_E_CRC : IW_MPA_E_MARKER), "FPDU at %zu: code %d, expected %d",
				 off, err.ecode, bad_crc ? IW_MPA_E_CRC : IW_MPA_E_MARKER);
			return;
		}
		FZ_CHECK(st == IW_RX_FPDU, "FPDU at %zu rejected (%s) though CRC and markers agree", off, err.req);
		off += used;
	}
}

int iw_fuzz_diff_markers(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	const iw_profile *p = fz_profile(&f);
	uint8_t fl = fz_u8(&f);
	size_t count = fz_u8(&f) % (MAX_FPDU + 1);
	size_t nmut = fz_u8(&f) % (MAX_MUT + 1);
	bool crc = (fl & 1) || p->crc_always;
	if (fl & 2) {
		size_t len;
		const uint8_t *s = fz_rest(&f, &len);
		judge(p, s, len, crc);
		return 0;
	}
	size_t L[MAX_FPDU], total = 0;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, true, crc);
	for (size_t k = 0; k < count; k++) {
		uint16_t l = fz_u16(&f);
		L[k] = (l & 0xC000) == 0xC000 && total < 70000 ? l : l % 1500;
		iw_mpa_tx t = tx;
		t.pos = total;
		total += iw_mpa_tx_size(&t, L[k]);
	}
	uint8_t *s = malloc(total ? total : 1);
	FZ_CHECK(s != NULL, "out of memory");
	/* FPDU k's ULPDU octet i is i * 31 + k (mod 256) = (i + 223 k) * 31, as 31 * 223 = 1 (mod 256):
	 * a window of one table made once, instead of writing up to 64 KiB per FPDU per input. */
	static uint8_t pat[65535 + 256];
	if (!pat[1])
		for (size_t i = 0; i < sizeof pat; i++)
			pat[i] = (uint8_t)(i * 31);
	size_t off = 0;
	for (size_t k = 0; k < count; k++) {
		const uint8_t *ulpdu = pat + (223 * k) % 256;
		size_t n;
		iw_err e;
		FZ_CHECK(iw_mpa_tx_fpdu(&tx, ulpdu, L[k], NULL, 0, NULL, s + off, total - off, &n, &e) == IW_OK, "frame: %s",
			 e.msg);
		off += n;
	}
	agree(p, crc, s, total, count);
	if (total) {
		for (size_t i = 0; i < nmut; i++) {
			uint32_t at = fz_u32(&f);
			uint8_t x = fz_u8(&f);
			s[at % total] ^= x;
		}
	}
	judge(p, s, total, crc);
	free(s);
	return 0;
}
