/* Helpers of the capture tests (pcap_fixture.h). */
#include "pcap_fixture.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *pf_tmp_path(const char *name)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, sizeof buf[0], "/tmp/iwspec-test-pcap-%d-%s", (int)getpid(), name);
	return b;
}

uint8_t *pf_pattern(size_t n, uint8_t seed)
{
	uint8_t *b = malloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + seed);
	return b;
}

int pf_decode_stdout(const char *pcap, const iw_decode_opts *o, char **out)
{
	const char *opath = pf_tmp_path("decode.out");
	fflush(stdout);
	int saved = dup(1);
	int fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	int rc = iw_decode_capture(pcap, o);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	FILE *f = fopen(opath, "rb");
	*out = calloc(1, 1 << 20);
	if (f && *out) {
		size_t n = fread(*out, 1, (1 << 20) - 1, f);
		(*out)[n] = '\0';
	}
	if (f)
		fclose(f);
	unlink(opath);
	return rc;
}

uint16_t pf_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t pf_sum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += pf_rd16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

uint16_t pf_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}
