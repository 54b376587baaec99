/* Helpers of the capture tests (pcap_fixture.h). */
#include "pcap_fixture.h"

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
