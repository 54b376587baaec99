/*
 * decode_dut.h - which side of a captured connection is the device under test, for `iwspec
 * decode --dut ADDRESS[:PORT]` and `--side initiator|responder`.
 *
 * A capture of a suite run holds both the DUT's octets and the harness's, and the harness breaks
 * rules on purpose: judged together, a conforming DUT's capture "has violations" on most of its
 * connections. A lab names the DUT by the endpoint it has (an address, or an address and a port:
 * the side whose endpoint matches), or by its role; the other side's violations are then listed as
 * not judged, and only the DUT's count for the verdict and the exit status.
 */
#ifndef IW_DECODE_DUT_H
#define IW_DECODE_DUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap_read.h"

/* The DUT's endpoint as --dut gives it. */
typedef struct iw_decode_dut {
	bool set;
	int family;                 /* 4 or 6 */
	uint8_t addr[16];
	uint16_t port;              /* 0: any port of that address */
	char text[64];              /* as given, for the output ("10.0.0.2:4791") */
} iw_decode_dut;

/* Parses "10.0.0.2", "10.0.0.2:4791", "fe80::1" or "[fe80::1]:4791" (numeric addresses only: a
 * capture holds no names). Returns 0, or -1 with msg saying what is wrong and what to give. */
int iw_decode_dut_parse(const char *s, iw_decode_dut *d, char *msg, size_t cap);

/* Whether side k (0 the client, 1 the server) of connection c is the DUT's endpoint. */
bool iw_decode_dut_is(const iw_decode_dut *d, const iw_pcap_conn *c, int k);

#endif
