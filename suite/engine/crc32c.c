/*
 * crc32c.c - CRC32C (MR §5.2, MPA-5.2-11): a portable slicing-by-8 table, and on x86-64
 * three hardware tiers picked at run time.
 *
 * Notation. A 32-bit CRC register value v stands for the polynomial sum v_i x^(31-i) (the
 * reflected order the iSCSI digest uses: bit 0 is the highest power), a 64-bit value for
 * sum v_i x^(63-i), and a 128-bit lane for sum v_i x^(127-i), where bit i of a lane is bit
 * i%8 of octet i/8 in memory. "State" below is the inverted register (~crc), the form the
 * crc32 instruction and the CRC recurrence work on; raw CRC of M from state s is
 * (s·x^|M| + M·x^32) mod P. Three facts carry all the tiers:
 *
 *   crc32_u64(0, d) = D·x^32 mod P                          (the instruction's definition)
 *   clmul(a, k) for 32-bit a, k is, read as a 64-bit value, A·K·x  (reflected product)
 *   so crc32_u64(0, clmul(a, x^(n-33) mod P)) = A·x^n mod P: state a advanced over n zero bits.
 *
 * Raw CRC is linear, so the state after A||B is (state after A)·x^|B| xor (raw CRC of B
 * from 0). That lets independent streams run side by side and be joined at the end with one
 * carry-less multiply each. The constants x^k mod P are derived here at start-up by plain
 * polynomial arithmetic (xpow_mod) rather than pasted in; the tests check every tier
 * against the table on thousands of lengths, alignments and split points.
 *
 * Tiers (iw_crc32c_impl names):
 *   "sse4.2"             one crc32 stream; for CPUs with SSE4.2 but no PCLMULQDQ.
 *   "sse4.2+pclmul"      three crc32 streams over thirds of the buffer (the instruction has
 *                        latency 3 and throughput 1, so three streams keep it busy), joined
 *                        with PCLMULQDQ.
 *   "avx512+vpclmulqdq"  from HYB_MIN octets on: the first ~3/4 of a block is folded 256
 *                        octets at a time in four 512-bit registers with VPCLMULQDQ while the
 *                        integer unit runs the three crc32 streams over the rest; the vector
 *                        and scalar units are separate, so the two run at once.
 */
#include "crc32c.h"

#include <string.h>

/* IW_CRC32C_PORTABLE builds the table alone, to check the portable build on x86. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(IW_CRC32C_PORTABLE)
#define IW_CRC_X86 1
#include <immintrin.h>
#endif

#define POLY 0x82F63B78u

/* Largest m with a precomputed x^(64m - 33) mod P, the longest shift a join applies:
 * SHIFT_MAX quadwords (32 KiB), so the streams of one join total at most that. */
#define SHIFT_MAX 4096

static uint32_t table[8][256];
static volatile int ready;

/* A·x mod P: one step of the CRC recurrence. */
static uint32_t mulx(uint32_t v)
{
	return v & 1 ? (v >> 1) ^ POLY : v >> 1;
}

#ifdef IW_CRC_X86
static uint32_t shift_k[SHIFT_MAX + 1];     /* shift_k[m] = x^(64m - 33) mod P, m >= 1 */
static uint64_t fold256[2];                 /* fold a 128-bit lane forward 256 octets */
static uint64_t fold_end[4][8];             /* fold the 16 lanes of a 256-octet window to its last lane */

/* A·B mod P, bit by bit (start-up only). */
static uint32_t mul_mod(uint32_t a, uint32_t b)
{
	uint32_t r = 0;
	for (int k = 0; k < 32; k++) {      /* b holds B·x^k */
		if (a & (0x80000000u >> k))
			r ^= b;
		b = mulx(b);
	}
	return r;
}

/* x^n mod P. */
static uint32_t xpow_mod(uint64_t n)
{
	uint32_t r = 0x80000000u, base = 0x40000000u;   /* x^0, x^1 */
	for (; n; n >>= 1) {
		if (n & 1)
			r = mul_mod(r, base);
		base = mul_mod(base, base);
	}
	return r;
}

/* The pair that moves a 128-bit lane forward by d octets: its first quadword holds the
 * polynomial's high part H (H·x^64), its second the low part L. Read as a 128-bit lane the
 * product clmul(h, k) is H·K·x^33, so H needs K = x^(8d+64-33) and L needs K = x^(8d-33). */
static void fold_pair(uint64_t out[2], unsigned d)
{
	out[0] = d ? xpow_mod(8 * (uint64_t)d + 31) : 0;
	out[1] = d ? xpow_mod(8 * (uint64_t)d - 33) : 0;
}
#endif

static void init_tables(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = mulx(c);
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];

#ifdef IW_CRC_X86
	uint32_t x64 = xpow_mod(64);
	shift_k[0] = 0;
	shift_k[1] = xpow_mod(31);
	for (int m = 2; m <= SHIFT_MAX; m++)
		shift_k[m] = mul_mod(shift_k[m - 1], x64);

	fold_pair(fold256, 256);
	/* Register j lane t sits at octet 64j + 16t of the window, 240 - (64j + 16t) octets before
	 * the last lane. The last lane itself gets K = 0 and is added back unmultiplied. */
	for (unsigned j = 0; j < 4; j++)
		for (unsigned t = 0; t < 4; t++)
			fold_pair(&fold_end[j][2 * t], 240 - (64 * j + 16 * t));
#endif
}

static void init_all(void);

uint32_t iw_crc32c_extend_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = ~crc;
	if (!ready)
		init_all();
	while (len && ((uintptr_t)p & 7)) {
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
		len--;
	}
	while (len >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
		    table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
	return ~c;
}

#ifdef IW_CRC_X86
#define T_SSE42 __attribute__((target("sse4.2")))
#define T_PCLMUL __attribute__((target("sse4.2,pclmul")))
#define T_AVX512 __attribute__((target("sse4.2,pclmul,avx512f,vpclmulqdq")))

/* Below this the vector unit's set-up and reduction cost more than they save. */
#define HYB_MIN 384
/* Quadwords each crc32 stream takes per 256-octet vector step. The vector unit folds about
 * 16 octets a cycle and three streams do 8, which suggests 5; 4 measured faster on AMD Zen 4
 * (the vector side also spends integer-port slots on loads and loop control). */
#define HYB_Q 4
/* Percent of a block for the vector unit, so both sides end together:
 * lv / 256 = q / HYB_Q with q = (len - lv) / 24 gives lv = len / (1 + 24 * HYB_Q / 256). */
#define HYB_PCT 73
/* The vector share that keeps pace with streams of SHIFT_MAX / 3 quadwords. */
#define HYB_LV_MAX ((SHIFT_MAX / 3) / HYB_Q * 256)

static T_SSE42 inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Fewer than 24 octets, or the single-stream tier. */
static T_SSE42 inline uint32_t tail_sse42(uint32_t c, const uint8_t *p, size_t len)
{
	uint64_t c64 = c;
	for (; len >= 8; len -= 8, p += 8)
		c64 = _mm_crc32_u64(c64, ld64(p));
	c = (uint32_t)c64;
	if (len & 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		c = _mm_crc32_u32(c, v);
		p += 4;
	}
	if (len & 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		c = _mm_crc32_u16(c, v);
		p += 2;
	}
	if (len & 1)
		c = _mm_crc32_u8(c, *p);
	return c;
}

static T_SSE42 uint32_t hw_sse42(uint32_t c, const uint8_t *p, size_t len)
{
	return tail_sse42(c, p, len);
}

/* clmul(s, k) as a 64-bit value: crc32_u64(0, it) is s advanced by the shift k encodes. */
static T_PCLMUL inline uint64_t clmul32(uint32_t s, uint32_t k)
{
	__m128i r = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)s), _mm_cvtsi32_si128((int)k), 0x00);
	return (uint64_t)_mm_cvtsi128_si64(r);
}

/* Three streams of q quadwords each (1 <= q, 2q <= SHIFT_MAX) from state c. The shifts of the
 * first two are folded into the third stream's last quadword, which saves a crc32. */
static T_PCLMUL inline uint32_t three_way(uint32_t c, const uint8_t *p, size_t q)
{
	const uint8_t *p2 = p + 8 * q, *p3 = p + 16 * q;
	uint64_t a = c, b = 0, d = 0;
	for (size_t i = 0; i + 1 < q; i++) {
		a = _mm_crc32_u64(a, ld64(p + 8 * i));
		b = _mm_crc32_u64(b, ld64(p2 + 8 * i));
		d = _mm_crc32_u64(d, ld64(p3 + 8 * i));
	}
	size_t e = 8 * (q - 1);
	a = _mm_crc32_u64(a, ld64(p + e));
	b = _mm_crc32_u64(b, ld64(p2 + e));
	uint64_t t = clmul32((uint32_t)a, shift_k[2 * q]) ^ clmul32((uint32_t)b, shift_k[q]);
	return (uint32_t)_mm_crc32_u64(d, ld64(p3 + e) ^ t);
}

/* Splits len into three streams and a tail; from 48 octets on the join pays for itself. */
static T_PCLMUL inline uint32_t streams_pclmul(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 48) {
		size_t q = len / 24;
		if (q > SHIFT_MAX / 2)
			q = SHIFT_MAX / 2;
		c = three_way(c, p, q);
		p += 24 * q;
		len -= 24 * q;
	}
	return tail_sse42(c, p, len);
}

static T_PCLMUL uint32_t hw_pclmul(uint32_t c, const uint8_t *p, size_t len)
{
	return streams_pclmul(c, p, len);
}

/* One fold of each 128-bit lane by the pair k, plus new data: x·x^(8d) + data. */
static T_AVX512 inline __m512i fold512(__m512i x, __m512i k, __m512i data)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11),
					 data, 0x96);
}

/* A block of lv octets (a multiple of 256, >= 256) folded in vector registers, followed by three
 * crc32 streams of q quadwords each (1 <= q, 3q <= SHIFT_MAX), from state c. The state enters
 * the fold by being XORed into the first four octets (raw CRC from s over M equals raw CRC
 * from 0 over M with s XORed into its first 32 bits). */
static T_AVX512 uint32_t hybrid(uint32_t c, const uint8_t *p, size_t lv, size_t q)
{
	const __m512i k256 = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)fold256));
	__m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)c));
	__m512i x1 = _mm512_loadu_si512(p + 64);
	__m512i x2 = _mm512_loadu_si512(p + 128);
	__m512i x3 = _mm512_loadu_si512(p + 192);
	const uint8_t *v = p + 256, *vend = p + lv;
	const uint8_t *s1 = vend, *s2 = s1 + 8 * q, *s3 = s2 + 8 * q;
	uint64_t a = 0, b = 0, d = 0;
	size_t i = 0;

	for (; v < vend && i + HYB_Q < q; v += 256, i += HYB_Q) {
		x0 = fold512(x0, k256, _mm512_loadu_si512(v));
		x1 = fold512(x1, k256, _mm512_loadu_si512(v + 64));
		x2 = fold512(x2, k256, _mm512_loadu_si512(v + 128));
		x3 = fold512(x3, k256, _mm512_loadu_si512(v + 192));
		/* Written out: a counted loop here costs about a tenth of the throughput. */
#define CRC3(r)                                                                      \
	a = _mm_crc32_u64(a, ld64(s1 + 8 * (i + r)));                                \
	b = _mm_crc32_u64(b, ld64(s2 + 8 * (i + r)));                                \
	d = _mm_crc32_u64(d, ld64(s3 + 8 * (i + r)))
		_Static_assert(HYB_Q == 4, "one CRC3 per quadword of a step");
		CRC3(0);
		CRC3(1);
		CRC3(2);
		CRC3(3);
#undef CRC3
	}
	for (; v < vend; v += 256) {
		x0 = fold512(x0, k256, _mm512_loadu_si512(v));
		x1 = fold512(x1, k256, _mm512_loadu_si512(v + 64));
		x2 = fold512(x2, k256, _mm512_loadu_si512(v + 128));
		x3 = fold512(x3, k256, _mm512_loadu_si512(v + 192));
	}
	for (; i + 1 < q; i++) {
		a = _mm_crc32_u64(a, ld64(s1 + 8 * i));
		b = _mm_crc32_u64(b, ld64(s2 + 8 * i));
		d = _mm_crc32_u64(d, ld64(s3 + 8 * i));
	}
	a = _mm_crc32_u64(a, ld64(s1 + 8 * i));
	b = _mm_crc32_u64(b, ld64(s2 + 8 * i));

	/* Every lane moved to the window's last lane and summed: 16 octets with the same raw CRC
	 * from state 0 as the whole vector block from state c. */
	__m512i y = fold512(x0, _mm512_loadu_si512(fold_end[0]), fold512(x1, _mm512_loadu_si512(fold_end[1]),
									  _mm512_maskz_mov_epi64(0xC0, x3)));
	y = fold512(x2, _mm512_loadu_si512(fold_end[2]), fold512(x3, _mm512_loadu_si512(fold_end[3]), y));
	__m256i y2 = _mm256_xor_si256(_mm512_castsi512_si256(y), _mm512_extracti64x4_epi64(y, 1));
	__m128i y1 = _mm_xor_si128(_mm256_castsi256_si128(y2), _mm256_extracti128_si256(y2, 1));
	uint64_t sv = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(y1));
	sv = _mm_crc32_u64(sv, (uint64_t)_mm_extract_epi64(y1, 1));

	uint64_t t = clmul32((uint32_t)sv, shift_k[3 * q]) ^ clmul32((uint32_t)a, shift_k[2 * q]) ^
		     clmul32((uint32_t)b, shift_k[q]);
	return (uint32_t)_mm_crc32_u64(d, ld64(s3 + 8 * i) ^ t);
}

static T_AVX512 uint32_t hw_avx512(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= HYB_MIN) {
		/* HYB_PCT to the vector unit, rounded to the nearest step; never more stream
		 * quadwords than one join can shift. From HYB_MIN on, lv >= 256 and q >= 1. */
		size_t lv = (len * HYB_PCT / 100 + 128) / 256 * 256;
		if (len - lv < 24)
			lv -= 256;
		size_t q = (len - lv) / 24;
		if (q > SHIFT_MAX / 3) {
			q = SHIFT_MAX / 3;
			lv = (len - 24 * q) / 256 * 256;
			if (lv > HYB_LV_MAX)
				lv = HYB_LV_MAX;
		}
		c = hybrid(c, p, lv, q);
		p += lv + 24 * q;
		len -= lv + 24 * q;
	}
	return streams_pclmul(c, p, len);
}

/* Each tier as an iw_crc32c_fn: the state functions inline into these. */
static T_SSE42 uint32_t named_sse42(uint32_t crc, const void *buf, size_t len)
{
	return ~hw_sse42(~crc, buf, len);
}

static T_PCLMUL uint32_t named_pclmul(uint32_t crc, const void *buf, size_t len)
{
	return ~hw_pclmul(~crc, buf, len);
}

static T_AVX512 uint32_t named_avx512(uint32_t crc, const void *buf, size_t len)
{
	return ~hw_avx512(~crc, buf, len);
}

/* Slowest first. */
static const struct {
	const char *name;
	iw_crc32c_fn fn;
} hw_tiers[] = {
	{ "sse4.2", named_sse42 },
	{ "sse4.2+pclmul", named_pclmul },
	{ "avx512+vpclmulqdq", named_avx512 },
};
#define N_TIERS (sizeof hw_tiers / sizeof hw_tiers[0])

/* How many tiers this CPU runs (each needs the ones before it). */
static size_t tiers_usable(void)
{
	if (!__builtin_cpu_supports("sse4.2"))
		return 0;
	if (!__builtin_cpu_supports("pclmul"))
		return 1;
	if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("vpclmulqdq"))
		return 2;
	return 3;
}
#else
static const struct {
	const char *name;
	iw_crc32c_fn fn;
} hw_tiers[1] = { { "", 0 } };
#define N_TIERS 0

static size_t tiers_usable(void)
{
	return 0;
}
#endif

static uint32_t extend_first(uint32_t crc, const void *buf, size_t len);

static size_t n_usable;                         /* hw_tiers[0 .. n_usable) run here */
static iw_crc32c_fn hw_fn;                      /* the best of them, or NULL */
static iw_crc32c_fn extend_fn = extend_first;   /* what iw_crc32c_extend calls */
static const char *impl_name = "table";

static void init_all(void)
{
	init_tables();
	n_usable = tiers_usable();
	if (n_usable) {
		hw_fn = hw_tiers[n_usable - 1].fn;
		impl_name = hw_tiers[n_usable - 1].name;
	}
	extend_fn = hw_fn ? hw_fn : iw_crc32c_extend_sw;
	ready = 1;
}

/* At load time, so concurrent first calls never race on the tables; a call that comes
 * earlier (from another constructor) initializes on the spot. */
__attribute__((constructor)) static void crc32c_ctor(void)
{
	if (!ready)
		init_all();
}

static uint32_t extend_first(uint32_t crc, const void *buf, size_t len)
{
	if (!ready)
		init_all();
	return extend_fn(crc, buf, len);
}

uint32_t iw_crc32c_extend(uint32_t crc, const void *buf, size_t len)
{
	return extend_fn(crc, buf, len);
}

uint32_t iw_crc32c_extend_hw(uint32_t crc, const void *buf, size_t len)
{
	if (!ready)
		init_all();
	return hw_fn ? hw_fn(crc, buf, len) : iw_crc32c_extend_sw(crc, buf, len);
}

bool iw_crc32c_hw_available(void)
{
	if (!ready)
		init_all();
	return hw_fn != 0;
}

const char *iw_crc32c_impl(void)
{
	if (!ready)
		init_all();
	return impl_name;
}

iw_crc32c_fn iw_crc32c_impl_named(const char *name)
{
	if (!ready)
		init_all();
	if (!strcmp(name, "table"))
		return iw_crc32c_extend_sw;
	for (size_t i = 0; i < n_usable; i++)
		if (!strcmp(name, hw_tiers[i].name))
			return hw_tiers[i].fn;
	return 0;
}
