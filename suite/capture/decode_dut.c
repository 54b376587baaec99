/*
 * decode_dut.c - the DUT's endpoint for `iwspec decode --dut` (see decode_dut.h).
 */
#include "decode_dut.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(const char *s, char *msg, size_t cap, const char *why)
{
	snprintf(msg, cap, "--dut '%s': %s; give the DUT's numeric address, with its port to tell two endpoints "
			   "of one host apart (10.0.0.2, 10.0.0.2:4791, fe80::1, [fe80::1]:4791)", s, why);
	return -1;
}

int iw_decode_dut_parse(const char *s, iw_decode_dut *d, char *msg, size_t cap)
{
	memset(d, 0, sizeof *d);
	char host[64];
	const char *port = NULL;
	if (!*s)
		return bad(s, msg, cap, "no address");
	if (strlen(s) >= sizeof host || strlen(s) >= sizeof d->text)
		return bad(s, msg, cap, "too long for an address");
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (end[1] && end[1] != ':'))
			return bad(s, msg, cap, "an IPv6 address in brackets is followed by :PORT or nothing");
		snprintf(host, sizeof host, "%.*s", (int)(end - s - 1), s + 1);
		port = end[1] ? end + 2 : NULL;
	} else {
		const char *colon = strchr(s, ':');
		/* One colon: IPv4 and a port; more: an IPv6 address without one. */
		if (colon && !strchr(colon + 1, ':')) {
			snprintf(host, sizeof host, "%.*s", (int)(colon - s), s);
			port = colon + 1;
		} else {
			snprintf(host, sizeof host, "%s", s);
		}
	}
	if (inet_pton(AF_INET, host, d->addr) == 1)
		d->family = 4;
	else if (inet_pton(AF_INET6, host, d->addr) == 1)
		d->family = 6;
	else
		return bad(s, msg, cap, "not a numeric IPv4 or IPv6 address");
	if (port) {
		char *end;
		errno = 0;
		unsigned long p = strtoul(port, &end, 10);
		if (!*port || *end || errno || p == 0 || p > 65535 || port[0] == '-' || port[0] == '+')
			return bad(s, msg, cap, "the port is not a number from 1 to 65535");
		d->port = (uint16_t)p;
	}
	snprintf(d->text, sizeof d->text, "%s", s);
	d->set = true;
	return 0;
}

bool iw_decode_dut_is(const iw_decode_dut *d, const iw_pcap_conn *c, int k)
{
	if (!d->set || c->family != d->family)
		return false;
	if (memcmp(c->addr[k], d->addr, d->family == 4 ? 4 : 16))
		return false;
	return d->port == 0 || c->port[k] == d->port;
}
