/*
 * perftest_msg.c - perftest's control-channel messages (perftest_msg.h).
 */
#include "perftest_msg.h"

#include "iw_octets.h"

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
	memset(b, 0, IW_PERFTEST_KEYS_LEN);
	iw_put_be32(b, k->lid);
	iw_put_be32(b + 4, k->out_reads);
	iw_put_be32(b + 8, k->qpn);
	iw_put_be32(b + 12, k->psn);
	iw_put_be32(b + 16, k->rkey);
	iw_put_be64(b + 24, k->vaddr);
	memcpy(b + 32, k->gid, 16);
	iw_put_be32(b + 48, k->srqn);
	iw_put_be32(b + 52, k->gid_index);
}

void iw_perftest_keys_parse(const uint8_t b[IW_PERFTEST_KEYS_LEN], iw_perftest_keys *k)
{
	k->lid = iw_get_be32(b);
	k->out_reads = iw_get_be32(b + 4);
	k->qpn = iw_get_be32(b + 8);
	k->psn = iw_get_be32(b + 12);
	k->rkey = iw_get_be32(b + 16);
	k->vaddr = iw_get_be64(b + 24);
	memcpy(k->gid, b + 32, 16);
	k->srqn = iw_get_be32(b + 48);
	k->gid_index = iw_get_be32(b + 52);
}

uint64_t iw_perftest_range(uint64_t size, uint64_t cycle_buffer, uint64_t cache_line)
{
	uint64_t m = size > cycle_buffer ? size : cycle_buffer;
	if (cache_line == 0 || m <= cache_line)
		return cache_line ? cache_line : m;
	return (m + cache_line - 1) / cache_line * cache_line;
}
