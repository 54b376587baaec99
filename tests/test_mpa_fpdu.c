/*
 * test_mpa_fpdu.c - FPDU transmit (MR §4, §5.1-§5.3): compared octet for octet with a slow
 * reference built here from the rules (one octet at a time, bitwise CRC32C), plus the
 * marker, pad, CRC and mod cases one by one.
 */
#include "check.h"
#include "crc32c.h"
#include "mpa_fpdu.h"
#include "mpa_markers.h"

/* Bitwise CRC32C (MPA-5.2-11), independent of suite/engine/crc32c.c. */
static uint32_t ref_crc(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

static uint64_t rng_state;
static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

/* The FPDU as the rules describe it, built one octet at a time: a marker in front of every
 * body octet that sits on a 512 boundary of the stream, the CRC over everything before the
 * CRC field. Returns the wire length. */
/* from_length: RFC 5044's FPDUPTR, counted back to the ULPDU Length field (RFC5044-4-02). */
static size_t ref_fpdu(uint64_t start, bool markers, bool from_length, bool crc_on, const uint8_t *ulpdu, size_t L,
		       const iw_fpdu_mods *m, uint8_t *out)
{
	static uint8_t body[70000];
	size_t pad = (4 - (2 + L) % 4) % 4;
	size_t B = 2 + L + pad + 4;
	uint16_t lf = m->set_length ? m->ulpdu_length : (uint16_t)L;
	body[0] = (uint8_t)(lf >> 8);
	body[1] = (uint8_t)lf;
	memcpy(body + 2, ulpdu, L);
	memset(body + 2 + L, m->pad_fill, pad);
	bool mk = markers && !m->no_markers;
	size_t w = 0, crc_at = 0;
	uint64_t s = start;
	for (size_t b = 0; b < B; b++) {
		if (mk && s % 512 == 0) {
			uint64_t to = s == start ? s : start + (from_length && start % 512 == 0 ? 4 : 0);
			uint16_t ptr = (uint16_t)((uint16_t)(s - to) + m->fpduptr_delta) | m->fpduptr_or;
			out[w++] = (uint8_t)(m->marker_reserved >> 8);
			out[w++] = (uint8_t)m->marker_reserved;
			out[w++] = (uint8_t)(ptr >> 8);
			out[w++] = (uint8_t)ptr;
			s += 4;
		}
		if (b == B - 4)
			crc_at = w;
		out[w++] = body[b];
		s++;
	}
	uint32_t c = crc_on ? ref_crc(out, crc_at) : 0;
	if (m->set_crc)
		c = m->crc_value;
	c ^= m->crc_xor;
	/* The CRC octets: find them again (a marker cannot split them when start % 4 == 0,
	 * but this walk does not rely on it). */
	uint8_t cb[4];
	for (int i = 0; i < 4; i++)
		cb[i] = (uint8_t)(m->crc_big_endian ? c >> (24 - 8 * i) : c >> (8 * i));
	size_t wi = crc_at;
	s = start + crc_at;
	for (int i = 0; i < 4; i++) {
		if (mk && s % 512 == 0 && i > 0) {
			wi += 4;
			s += 4;
		}
		out[wi++] = cb[i];
		s++;
	}
	if (m->corrupt) {
		/* Find ULPDU octet corrupt_at by walking again. */
		size_t ww = 0;
		s = start;
		for (size_t b = 0; b < B; b++) {
			if (mk && s % 512 == 0) {
				ww += 4;
				s += 4;
			}
			if (b == 2 + m->corrupt_at) {
				out[ww] ^= 0xFF;
				break;
			}
			ww++;
			s++;
		}
	}
	return w;
}

/* MPA-5.1-02/03/04/07, MPA-5.2-12/13, MPA-4-02: random FPDUs at random stream positions,
 * with and without markers, CRC and mods, equal the reference octet for octet. */
TEST(mpa_fpdu_matches_reference)
{
	static uint8_t ulpdu[4000], got[8000], want[8000];
	rng_state = 0x5EED0001;
	for (size_t i = 0; i < sizeof ulpdu; i++)
		ulpdu[i] = (uint8_t)rnd();
	for (int iter = 0; iter < 3000; iter++) {
		/* The drafts' FPDUPTR and RFC 5044's, turn about. */
		const iw_profile *p = iw_profile_get(iter & 1 ? IW_PROFILE_RFC5044 : IW_PROFILE_RDDP_MPA_01);
		bool markers = rnd() & 1, crc = rnd() % 4 != 0;
		uint64_t start = rnd() % 4 == 0 ? (uint64_t)rnd() % 2048 : 4 * (uint64_t)(rnd() % 2048);
		if (iter % 100 == 7)
			start += 0xFFFFFF00ull;   /* past 32 bits: positions never wrap */
		size_t L = rnd() % 3000;
		if (iter % 10 == 0)
			L = rnd() % 8;
		size_t h = L ? rnd() % (L + 1) : 0;
		iw_fpdu_mods m = { 0 };
		if (rnd() % 3 == 0) {
			switch (rnd() % 9) {
			case 0: m.set_length = true; m.ulpdu_length = (uint16_t)rnd(); break;
			case 1: m.set_crc = true; m.crc_value = rnd(); break;
			case 2: m.crc_big_endian = true; break;
			case 3: m.crc_xor = 1u << (rnd() % 32); break;
			case 4: if (L) { m.corrupt = true; m.corrupt_at = rnd() % L; } break;
			case 5: m.pad_fill = (uint8_t)(1 + rnd() % 255); break;
			case 6: m.marker_reserved = (uint16_t)rnd(); break;
			case 7: m.fpduptr_or = (uint16_t)(rnd() % 4); m.fpduptr_delta = (int32_t)(rnd() % 9) - 4; break;
			case 8: m.no_markers = true; break;
			}
		}
		iw_mpa_tx tx;
		iw_mpa_tx_init(&tx, p, markers, crc);
		iw_mpa_tx_skip(&tx, (size_t)start);
		size_t predicted = iw_mpa_tx_size(&tx, L);
		size_t n = 0;
		iw_err e;
		int rc = iw_mpa_tx_fpdu(&tx, ulpdu, h, ulpdu + h, L - h, &m, got, sizeof got, &n, &e);
		CHECK_EQ(rc, IW_OK);
		size_t wn = ref_fpdu(start, markers, p->fpduptr_from_length, crc, ulpdu, L, &m, want);
		CHECK_EQ(n, wn);
		if (!m.no_markers)
			CHECK_EQ(n, predicted);
		CHECK_EQ(tx.pos, start + n);
		if (n == wn && memcmp(got, want, n) != 0) {
			size_t k = 0;
			while (got[k] == want[k])
				k++;
			check_fail(__FILE__, __LINE__, "iter %d start %llu L %zu: first difference at %zu", iter,
				   (unsigned long long)start, L, k);
			break;
		}
	}
}

/* MPA-4-F2, MPA-4-02: pad 0-3 zero octets, (2 + L + pad) % 4 == 0. */
TEST(mpa_fpdu_pad)
{
	static const uint8_t u[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	for (size_t L = 0; L < 8; L++) {
		unsigned pad = iw_mpa_pad_len(L);
		CHECK_EQ((2 + L + pad) % 4, 0);
		CHECK(pad <= 3);
		iw_mpa_tx tx;
		iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), false, true);
		uint8_t out[32];
		size_t n = 0;
		CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, L, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
		CHECK_EQ(n, 2 + L + pad + 4);
		CHECK_EQ(out[1], L);
		CHECK_MEM(out + 2, u, L);
		for (unsigned i = 0; i < pad; i++)
			CHECK_EQ(out[2 + L + i], 0);
		CHECK_EQ(iw_crc32c_get_wire(out + n - 4), iw_crc32c(out, n - 4));
	}
	CHECK_EQ(iw_mpa_pad_len(65535), 3);
	CHECK_EQ(iw_mpa_pad_len(42), 0);
}

/* MPA-5.2-12: a marker that falls between PAD and CRC belongs to the FPDU and is covered by
 * its CRC; the next FPDU then starts without a marker. */
TEST(mpa_fpdu_marker_between_pad_and_crc)
{
	static uint8_t u[506], out[1024];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	size_t n = 0;
	/* marker 4 + length 2 + 506 = 512: the CRC field would start on the next marker. */
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, sizeof u, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
	CHECK_EQ(n, 520);
	/* RFC 5044 counts FPDUPTR back to the ULPDU Length field, 4 octets past the marker that
	 * begins the FPDU: 508, where the drafts count 512 (RFC5044-4-02). */
	CHECK_MEM(out + 512, "\x00\x00\x01\xfc", 4);
	CHECK_EQ(iw_crc32c_get_wire(out + 516), iw_crc32c(out, 516));
	CHECK_EQ(iw_markers_in_fpdu(0, 2 + 506 + 4), 2);
	size_t n2 = 0;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 8, NULL, 0, NULL, out + n, sizeof out - n, &n2, NULL), IW_OK);
	CHECK_EQ(n2, 16);
	CHECK_MEM(out + n, "\x00\x08", 2);
}

/* MPA-5.1-04, MPA-5.2-13: an FPDU that ends on a 512 boundary leaves the marker to the next
 * FPDU, which starts with 00 00 00 00 and covers it with its CRC. */
TEST(mpa_fpdu_marker_between_fpdus)
{
	static uint8_t u[502], out[1200];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	size_t n = 0, n2 = 0;
	/* 4 + 2 + 502 + 4 = 512 exactly. */
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, sizeof u, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
	CHECK_EQ(n, 512);
	CHECK_EQ(iw_markers_in_fpdu(0, 508), 1);
	CHECK_EQ(iw_mpa_tx_size(&tx, 2), 12);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 2, NULL, 0, NULL, out + n, sizeof out - n, &n2, NULL), IW_OK);
	CHECK_EQ(n2, 12);
	CHECK_MEM(out + 512, "\x00\x00\x00\x00\x00\x02", 6);
	CHECK_EQ(iw_crc32c_get_wire(out + 520), iw_crc32c(out + 512, 8));
}

/* MPA-5.1-07: every marker of a large FPDU points to its first octet. */
TEST(mpa_fpdu_markers_point_to_start)
{
	static uint8_t u[4000], out[5000];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	iw_mpa_tx_skip(&tx, 100);
	size_t n = 0;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 18, u, sizeof u - 18, NULL, out, sizeof out, &n, NULL), IW_OK);
	size_t seen = 0;
	for (uint64_t s = 512; s < 100 + n; s += 512) {
		size_t w = (size_t)(s - 100);
		CHECK_EQ(out[w + 2] << 8 | out[w + 3], w);
		CHECK_EQ(out[w] | out[w + 1], 0);
		seen++;
	}
	CHECK_EQ(seen, 8);
	CHECK_EQ(n, 2 + 4000 + 2 + 4 + 4 * 8);
	CHECK_EQ(iw_markers_in_fpdu(100, 2 + 4000 + 2 + 4), 8);
}

/* Each mod changes exactly what it says; the CRC stays valid over the octets sent unless a
 * CRC mod says otherwise. */
TEST(mpa_fpdu_mods_one_by_one)
{
	static const uint8_t u[21] = "abcdefghijklmnopqrstu";
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t base[64], out[64];
	size_t bn = 0, n = 0;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, true, true);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 21, NULL, 0, NULL, base, sizeof base, &bn, NULL), IW_OK);
	CHECK_EQ(bn, 4 + 2 + 21 + 1 + 4);
	uint32_t good = iw_crc32c(base, bn - 4);
	CHECK_EQ(iw_crc32c_get_wire(base + bn - 4), good);

#define RUN(...)                                                                                     \
	do {                                                                                         \
		iw_fpdu_mods m = { __VA_ARGS__ };                                                    \
		iw_mpa_tx_init(&tx, p, true, true);                                                  \
		CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 21, NULL, 0, &m, out, sizeof out, &n, NULL), IW_OK); \
	} while (0)

	RUN(.set_length = true, .ulpdu_length = 0x1234);
	CHECK_EQ(n, bn);
	CHECK_MEM(out + 4, "\x12\x34", 2);
	CHECK_MEM(out + 6, base + 6, bn - 10);
	CHECK_EQ(iw_crc32c_get_wire(out + n - 4), iw_crc32c(out, n - 4));

	RUN(.set_crc = true, .crc_value = 0xDEADBEEF);
	CHECK_MEM(out + n - 4, "\xEF\xBE\xAD\xDE", 4);

	RUN(.crc_xor = 0x80000000u);
	CHECK_EQ(iw_crc32c_get_wire(out + n - 4), good ^ 0x80000000u);

	RUN(.crc_big_endian = true);
	CHECK_EQ(out[n - 4], (uint8_t)(good >> 24));
	CHECK_EQ(out[n - 1], (uint8_t)good);

	RUN(.corrupt = true, .corrupt_at = 20);
	CHECK_EQ(out[6 + 20], (uint8_t)~'u');
	CHECK_EQ(iw_crc32c_get_wire(out + n - 4), good);   /* computed before the flip */

	RUN(.pad_fill = 0xFF);
	CHECK_EQ(out[6 + 21], 0xFF);
	CHECK_EQ(iw_crc32c_get_wire(out + n - 4), iw_crc32c(out, n - 4));

	RUN(.marker_reserved = 0xFFFF, .fpduptr_or = 3);
	CHECK_MEM(out, "\xFF\xFF\x00\x03", 4);
	CHECK_EQ(iw_crc32c_get_wire(out + n - 4), iw_crc32c(out, n - 4));

	RUN(.fpduptr_delta = 4);
	CHECK_MEM(out, "\x00\x00\x00\x04", 4);

	RUN(.no_markers = true);
	CHECK_EQ(n, bn - 4);
	CHECK_MEM(out, base + 4, 2 + 21 + 1);
	CHECK_EQ(tx.pos, bn - 4);
#undef RUN
}

/* MPA-4-04 stimulus side: with CRC off the field is 0 unless a mod sets it. */
TEST(mpa_fpdu_crc_off)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	iw_mpa_tx tx;
	uint8_t out[32];
	size_t n = 0;
	iw_mpa_tx_init(&tx, p, false, false);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, (const uint8_t *)"hi", 2, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
	CHECK_EQ(n, 8);
	CHECK_MEM(out, "\x00\x02hi\x00\x00\x00\x00", 8);
	iw_fpdu_mods m = { .set_crc = true, .crc_value = 0xEFBEADDE };
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, (const uint8_t *)"hi", 2, NULL, 0, &m, out, sizeof out, &n, NULL), IW_OK);
	CHECK_MEM(out + 4, "\xDE\xAD\xBE\xEF", 4);
	CHECK_EQ(tx.pos, 16);
}

/* culley-mpa-02 (MC §7.1, §7.2): markers and CRC whatever is passed. */
TEST(mpa_fpdu_culley_always_markers_and_crc)
{
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_CULLEY_MPA_02), false, false);
	CHECK(tx.markers && tx.crc);
	uint8_t out[32];
	size_t n = 0;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, (const uint8_t *)"hi", 2, NULL, 0, NULL, out, sizeof out, &n, NULL), IW_OK);
	CHECK_EQ(n, 12);
	CHECK_MEM(out, "\x00\x00\x00\x00\x00\x02hi", 8);
	CHECK_EQ(iw_crc32c_get_wire(out + 8), iw_crc32c(out, 8));
}

TEST(mpa_fpdu_errors)
{
	static uint8_t big[65536], out[70000];
	iw_mpa_tx tx;
	iw_err e;
	size_t n = 77;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	iw_mpa_tx_skip(&tx, 12);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, big, 1, big, 65535, NULL, out, sizeof out, &n, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "65536") != NULL);
	size_t need = iw_mpa_tx_size(&tx, 100);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, big, 100, NULL, 0, NULL, out, need - 1, &n, &e), IW_ENOSPC);
	iw_fpdu_mods m = { .corrupt = true, .corrupt_at = 100 };
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, big, 100, NULL, 0, &m, out, sizeof out, &n, &e), IW_EINVAL);
	CHECK_EQ(n, 77);
	CHECK_EQ(tx.pos, 12);   /* failures emit nothing */
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, big, 100, NULL, 0, NULL, out, need, &n, &e), IW_OK);
	CHECK_EQ(n, need);
	/* The largest ULPDU fits, with all its markers. */
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, big, 65535, NULL, 0, NULL, out, sizeof out, &n, &e), IW_OK);
	CHECK_EQ(n, iw_fpdu_wire_len(0, 2 + 65535 + 3 + 4));
	CHECK_EQ(iw_crc32c_get_wire(out + n - 4), iw_crc32c(out, n - 4));
}

/* iw_markers_in_fpdu against a walk of the layout, for every start modulo 512 and many
 * body sizes. */
TEST(mpa_fpdu_markers_in_fpdu_vs_walk)
{
	for (uint64_t start = 0; start < 1536; start += 1) {
		for (size_t body = 0; body < 1600; body += (start % 4 == 0 ? 1 : 37)) {
			size_t n = 0;
			uint64_t s = start;
			for (size_t b = 0; b < body; b++) {
				if (s % 512 == 0) {
					n++;
					s += 4;
				}
				s++;
			}
			if (iw_markers_in_fpdu(start, body) != n) {
				check_fail(__FILE__, __LINE__, "start %llu body %zu: %zu != %zu",
					   (unsigned long long)start, body, iw_markers_in_fpdu(start, body), n);
				return;
			}
			CHECK_EQ(iw_fpdu_wire_len(start, body), body + 4 * n);
		}
	}
	CHECK_EQ(iw_markers_in_fpdu(0, 0), 0);
	CHECK_EQ(iw_markers_in_fpdu(512, 1), 1);
	CHECK_EQ(iw_markers_in_fpdu(500, 12), 0);
	CHECK_EQ(iw_markers_in_fpdu(500, 13), 1);
	CHECK_EQ(iw_markers_in_fpdu(0, 509), 2);
	CHECK_EQ(iw_markers_in_fpdu(0xFFFFFFFFFFull * 512, 1), 1);
}

/* MPA-5.3.2-01/02/05, MPA-3.2-03: the formulas are always 2 mod 4 (a maximal FPDU needs no
 * PAD), the clamp keeps MULPDU in [128, 64768], and a maximal FPDU fits EMSS. */
TEST(mpa_fpdu_mulpdu_properties)
{
	for (uint32_t emss = 0; emss < 70000; emss++) {
		for (int mk = 0; mk < 2; mk++) {
			long f = iw_mulpdu_formula(emss, mk);
			uint32_t c = iw_mulpdu(emss, mk);
			if (((f % 4) + 4) % 4 != 2 || c < 128 || c > 64768 ||
			    (f >= 128 && f <= 64768 && (long)c != f)) {
				check_fail(__FILE__, __LINE__, "emss %u markers %d: formula %ld clamp %u", emss, mk, f, c);
				return;
			}
			/* A full FPDU with its worst-case markers never exceeds EMSS. */
			if (f >= 0 && mk) {
				size_t body = 2 + (size_t)f + 4;
				size_t worst = body + 4 * (size_t)((emss + 511) / 512);
				CHECK(worst <= emss);
			}
		}
	}
	CHECK_EQ(iw_mulpdu_formula(0, true), -6);
	CHECK_EQ(iw_mulpdu_formula(1, false), -6);
	CHECK_EQ(iw_mulpdu(0xFFFFFFFFu, true), 64768);
}
