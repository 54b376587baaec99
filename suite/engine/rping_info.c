/*
 * rping_info.c - rping's client data pattern (rping_info.h): what the harness expects to read
 * from a client DUT, and what the built-in client DUT offers.
 */
#include "rping_info.h"

#include <stdio.h>

void iw_rping_data(unsigned ping, uint8_t *buf, size_t size)
{
	if (size == 0)
		return;
	char head[32];
	int n = snprintf(head, sizeof head, "rdma-ping-%u: ", ping);
	size_t i = 0;
	for (; i < size && i < (size_t)n; i++)
		buf[i] = (uint8_t)head[i];
	/* Letters 'A'..'z' (65..122): each iteration starts one later, wrapping after 'z'. */
	unsigned c = 65 + ping % 58;
	for (; i < size; i++) {
		buf[i] = (uint8_t)c;
		c = c == 122 ? 65 : c + 1;
	}
	buf[size - 1] = 0;
}
