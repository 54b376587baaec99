/*
 * refwalk.h - a second, deliberately simple reading of an MPA FPDU stream, written from the
 * spec (MR §4, §5.1, §5.2) for the differential targets: it walks the whole stream at once
 * with the length chain, octet by octet, instead of the engine's streaming runs.
 *
 *  - a marker sits at every stream offset that is a multiple of 512 (MPA-5.1-02) and belongs
 *    to the FPDU whose next octet follows it (one exactly between two FPDUs belongs to the
 *    next, MPA-5.1-04);
 *  - the CRC covers every octet from the FPDU's first (its leading marker included) to the
 *    octet before the CRC field, markers included (MPA-5.2-12/13);
 *  - markers agree when FPDUPTR, low two bits cleared (MPA-5.1-05), equals the distance from
 *    the FPDU start to the marker modulo 2^16.
 */
#ifndef IW_FUZZ_REFWALK_H
#define IW_FUZZ_REFWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpa_rx.h"

typedef struct fz_ref_fpdu {
	uint64_t start;         /* stream offset of the first octet */
	size_t wire_len;        /* octets consumed (all of them when !complete) */
	bool complete;
	uint16_t ulpdu_length;
	unsigned pad_len;
	uint8_t pad[3];
	uint32_t crc_received;  /* LS octet first */
	uint32_t crc_computed;
	size_t nmarkers;
	uint64_t mpos[IW_FPDU_MAX_MARKERS + 4];
	uint16_t mres[IW_FPDU_MAX_MARKERS + 4];
	uint16_t mptr[IW_FPDU_MAX_MARKERS + 4];
	bool markers_agree;
	size_t ulpdu_have;      /* ULPDU octets copied to the caller's buffer */
} fz_ref_fpdu;

/* Reads the FPDU that starts at s[0], stream offset pos. With from_length (RFC 5044 §4.3) a
 * marker inside the FPDU counts back to its ULPDU Length field, past a marker that begins the
 * FPDU; without, to the FPDU's first octet (the drafts). ulpdu (65535 octets, may be NULL)
 * receives the ULPDU without markers. crc_computed is computed only when crc is true (else 0):
 * a caller that only follows the length chain saves a bytewise CRC over up to 64 KiB. Returns
 * the octets consumed. */
size_t fz_ref_fpdu_read(const uint8_t *s, size_t len, uint64_t pos, bool markers, bool from_length, bool crc,
			fz_ref_fpdu *out, uint8_t *ulpdu);

/* CRC32C, bytewise from its own table (not the engine's code). */
uint32_t fz_ref_crc32c(uint32_t crc, const uint8_t *p, size_t n);

#endif
