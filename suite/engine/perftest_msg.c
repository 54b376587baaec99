/*
 * perftest_msg.c - perftest's control-channel messages (perftest_msg.h).
 */
#include "perftest_msg.h"

#include <stdio.h>
#include <string.h>

void iw_perftest_version_encode(uint8_t b[IW_PERFTEST_VERSION_LEN], const char *v)
{
	memset(b, 0, IW_PERFTEST_VERSION_LEN);
	size_t n = strlen(v);
	memcpy(b, v, n < IW_PERFTEST_VERSION_LEN - 1 ? n : IW_PERFTEST_VERSION_LEN - 1);
}

static bool digit(uint8_t c) { return c >= '0' && c <= '9'; }

int iw_perftest_version_parse(const uint8_t b[IW_PERFTEST_VERSION_LEN])
{
	size_t i = 0;
	int major = 0;
	while (i < IW_PERFTEST_VERSION_LEN && digit(b[i]) && major < 1000)
		major = major * 10 + (b[i++] - '0');
	if (i == 0 || i >= IW_PERFTEST_VERSION_LEN - 3 || b[i] != '.' || !digit(b[i + 1]) || !digit(b[i + 2]))
		return -1;
	int minor = (b[i + 1] - '0') * 10 + (b[i + 2] - '0');
	return b[i + 3] == '\0' ? major * 100 + minor : -1;
}

void iw_perftest_mtu_encode(uint8_t b[IW_PERFTEST_MTU_LEN], int mtu)
{
	b[0] = (uint8_t)('0' + (mtu >= 1 && mtu <= 5 ? mtu : 3));
	b[1] = '\0';
}

int iw_perftest_mtu_parse(const uint8_t b[IW_PERFTEST_MTU_LEN])
{
	return b[0] >= '1' && b[0] <= '5' && b[1] == '\0' ? b[0] - '0' : -1;
}

void iw_perftest_keys_encode(uint8_t b[IW_PERFTEST_KEYS_LEN], const iw_perftest_keys *k)
{
	char s[IW_PERFTEST_KEYS_LEN + 8];
	int o = snprintf(s, sizeof s, "%04x:%04x:%06x:%06x:%08x:%016llx:", k->lid & 0xffff, k->out_reads & 0xffff,
			 k->qpn & 0xffffff, k->psn & 0xffffff, k->rkey, (unsigned long long)k->vaddr);
	for (int i = 0; i < 16; i++)
		o += snprintf(s + o, sizeof s - (size_t)o, "%02x:", k->gid[i]);
	snprintf(s + o, sizeof s - (size_t)o, "%08x:", k->srqn);
	memset(b, 0, IW_PERFTEST_KEYS_LEN);
	memcpy(b, s, IW_PERFTEST_KEYS_LEN - 1);
}

/* n hex digits at *p, then a ':'. */
static bool hex_field(const uint8_t **p, unsigned n, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t c = (*p)[i];
		unsigned d;
		if (digit(c))
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return false;
		x = x << 4 | d;
	}
	if ((*p)[n] != ':')
		return false;
	*p += n + 1;
	*v = x;
	return true;
}

bool iw_perftest_keys_parse(const uint8_t b[IW_PERFTEST_KEYS_LEN], iw_perftest_keys *k)
{
	const uint8_t *p = b;
	uint64_t v[6], g, s;
	static const unsigned width[6] = { 4, 4, 6, 6, 8, 16 };
	for (int i = 0; i < 6; i++)
		if (!hex_field(&p, width[i], &v[i]))
			return false;
	for (int i = 0; i < 16; i++) {
		if (!hex_field(&p, 2, &g))
			return false;
		k->gid[i] = (uint8_t)g;
	}
	if (!hex_field(&p, 8, &s) || p != b + IW_PERFTEST_KEYS_LEN - 1 || *p != '\0')
		return false;
	k->lid = (uint32_t)v[0];
	k->out_reads = (uint32_t)v[1];
	k->qpn = (uint32_t)v[2];
	k->psn = (uint32_t)v[3];
	k->rkey = (uint32_t)v[4];
	k->vaddr = v[5];
	k->srqn = (uint32_t)s;
	return true;
}

uint64_t iw_perftest_range(uint64_t size, uint64_t cycle_buffer, uint64_t cache_line)
{
	uint64_t m = size > cycle_buffer ? size : cycle_buffer;
	if (cache_line == 0 || m <= cache_line)
		return cache_line ? cache_line : m;
	return (m + cache_line - 1) / cache_line * cache_line;
}
