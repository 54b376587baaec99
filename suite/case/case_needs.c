/*
 * case_needs.c - the capabilities of the `needs:` header by name, their values, and whether
 * what a DUT provides meets them (the runner's SKIP reason, docs/ulp-profiles.md's table).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "case.h"
#include "case_schema.h"

/* The capabilities in enum iw_cap bit order, and the same as one string for messages. */
static const char *const cap_names[] = {
	"markers", "crc-off", "reject", "pd", "rping", "recv", "write-stag", "read-stag", "echo", "greeting",
	"shared-buffer", "second-conn", "dut-send", "dut-read", "dut-write", "answer",
};
const char iw_schema_caps[] = "markers crc-off reject pd rping recv write-stag read-stag echo greeting shared-buffer "
			      "second-conn dut-send dut-read dut-write answer";

#define NCAPS (sizeof cap_names / sizeof cap_names[0])
_Static_assert(1u << (NCAPS - 1) == IW_CAP_ANSWER, "cap_names follows enum iw_cap");

unsigned iw_needs_bit(const char *name, size_t n)
{
	for (size_t i = 0; i < NCAPS; i++)
		if (strlen(cap_names[i]) == n && memcmp(cap_names[i], name, n) == 0)
			return 1u << i;
	return 0;
}

const char *iw_needs_name(unsigned bit)
{
	for (size_t i = 0; i < NCAPS; i++)
		if (bit == 1u << i)
			return cap_names[i];
	return NULL;
}

/* One number: decimal, or hex after 0x; at least 1 and at most max. Returns its length, 0 if none. */
static size_t number(const char *v, size_t n, uint64_t max, uint64_t *out)
{
	size_t i = 0;
	unsigned base = 10;
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		i = 2;
	}
	size_t st = i;
	uint64_t x = 0;
	for (; i < n; i++) {
		unsigned d;
		char ch = v[i];
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (base == 16 && ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (base == 16 && ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			break;
		if (x > (max - d) / base)
			return 0;
		x = x * base + d;
	}
	if (i == st || x == 0)
		return 0;
	*out = x;
	return i;
}

size_t iw_needs_parse_amount(unsigned bit, const char *v, size_t n, uint64_t *x, uint64_t *y)
{
	if (bit == IW_CAP_RECV) {
		size_t a = number(v, n, UINT32_MAX, x);
		if (a == 0 || a >= n || v[a] != 'x')
			return 0;
		size_t b = number(v + a + 1, n - a - 1, UINT32_MAX, y);
		return b ? a + 1 + b : 0;
	}
	if (bit == IW_CAP_WRITE_STAG || bit == IW_CAP_READ_STAG)
		return number(v, n, UINT64_MAX, x);
	return 0;
}

/* One capability as the header writes it ("recv=1x16", "echo"). */
static const char *cap_text(unsigned bit, const iw_case_needs_amounts *a, char *buf, size_t cap)
{
	const char *name = iw_needs_name(bit);
	if (bit == IW_CAP_RECV)
		snprintf(buf, cap, "%s=%" PRIu32 "x%" PRIu32, name, a->recv_n, a->recv_size);
	else if (bit == IW_CAP_WRITE_STAG || bit == IW_CAP_READ_STAG)
		snprintf(buf, cap, "%s=%" PRIu64, name, bit == IW_CAP_WRITE_STAG ? a->write_stag : a->read_stag);
	else
		snprintf(buf, cap, "%s", name ? name : "?");
	return buf;
}

const char *iw_needs_text(unsigned needs, const iw_case_needs_amounts *a, char *buf, size_t cap)
{
	size_t o = 0;
	if (cap)
		buf[0] = '\0';
	for (unsigned bit = 1; bit && o < cap; bit <<= 1) {
		if (!(needs & bit) || !iw_needs_name(bit))
			continue;
		char one[48];
		int k = snprintf(buf + o, cap - o, "%s%s", o ? " " : "", cap_text(bit, a, one, sizeof one));
		o += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* Whether have's amount of bit is at least need's. */
static bool amount_met(unsigned bit, const iw_case_needs_amounts *na, const iw_case_needs_amounts *ha)
{
	if (bit == IW_CAP_RECV)
		return ha->recv_n >= na->recv_n && ha->recv_size >= na->recv_size;
	if (bit == IW_CAP_WRITE_STAG)
		return ha->write_stag >= na->write_stag;
	return ha->read_stag >= na->read_stag;
}

bool iw_needs_unmet(unsigned need, const iw_case_needs_amounts *na, unsigned have, const iw_case_needs_amounts *ha,
		    char *buf, size_t cap)
{
	for (unsigned bit = 1; bit; bit <<= 1) {
		if (!(need & bit) || ((have & bit) && amount_met(bit, na, ha)))
			continue;
		char want[48], there[48];
		if (have & bit)
			snprintf(buf, cap, "%s (there: %s)", cap_text(bit, na, want, sizeof want),
				 cap_text(bit, ha, there, sizeof there));
		else
			snprintf(buf, cap, "%s", cap_text(bit, na, want, sizeof want));
		return true;
	}
	return false;
}
