/*
 * crc32c.h - CRC32C (Castagnoli) as MPA uses it (MR §5.2, MPA-5.2-11).
 *
 * Reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF, the
 * iSCSI digest. Values are the standard CRC ("123456789" -> 0xE3069283). On the wire the
 * CRC goes least-significant octet first (requirements.md §5, A1): use iw_crc32c_put_wire.
 *
 * A portable table-driven implementation (slicing-by-8) and, on x86-64, hardware tiers built
 * on the crc32 instruction (SSE4.2), with PCLMULQDQ to run three streams at once, and with
 * AVX-512 VPCLMULQDQ folding alongside them; iw_crc32c_extend picks the best one the CPU has
 * at run time. All give the same values.
 */
#ifndef IW_CRC32C_H
#define IW_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CRC of buf appended to data whose CRC was crc (0 for the start), like zlib's crc32():
 * iw_crc32c_extend(iw_crc32c_extend(0, a, n), b, m) == CRC of a||b. */
uint32_t iw_crc32c_extend(uint32_t crc, const void *buf, size_t len);

/* CRC of buf alone. */
static inline uint32_t iw_crc32c(const void *buf, size_t len) { return iw_crc32c_extend(0, buf, len); }

/* The portable implementation and the best hardware one, for tests and benchmarks.
 * iw_crc32c_extend_hw must only be called when iw_crc32c_hw_available() is true. */
uint32_t iw_crc32c_extend_sw(uint32_t crc, const void *buf, size_t len);
uint32_t iw_crc32c_extend_hw(uint32_t crc, const void *buf, size_t len);
bool iw_crc32c_hw_available(void);

/* What iw_crc32c_extend uses on this machine: "table", "sse4.2", "sse4.2+pclmul" or
 * "avx512+vpclmulqdq". */
const char *iw_crc32c_impl(void);

/* One implementation by the name iw_crc32c_impl gives, for tests and benchmarks that compare
 * them; NULL when the name is unknown or this CPU cannot run it. "table" always exists. */
typedef uint32_t (*iw_crc32c_fn)(uint32_t crc, const void *buf, size_t len);
iw_crc32c_fn iw_crc32c_impl_named(const char *name);

/* Writes the CRC in MPA wire order (least-significant octet first). */
static inline void iw_crc32c_put_wire(uint8_t out[4], uint32_t crc)
{
	out[0] = (uint8_t)crc;
	out[1] = (uint8_t)(crc >> 8);
	out[2] = (uint8_t)(crc >> 16);
	out[3] = (uint8_t)(crc >> 24);
}

/* Reads a CRC field in MPA wire order. */
static inline uint32_t iw_crc32c_get_wire(const uint8_t in[4])
{
	return (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
}

/* The four octets a CRC value goes on the wire as, read in that order as one number: how a hex
 * dump, tshark ("CRC check: 0x...") and iwspec's output show a CRC field. The CRC value 0xaf7642c1
 * is sent c1 42 76 af and shown 0xc14276af. Only for printing: the value is what compares. */
static inline uint32_t iw_crc32c_wire_order(uint32_t crc)
{
	return crc >> 24 | (crc >> 8 & 0xff00u) | (crc << 8 & 0xff0000u) | crc << 24;
}

#endif
