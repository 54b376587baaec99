/*
 * pcap_fixture.h - what the capture tests share (tests/test_pcap_*.c, defined in
 * pcap_fixture.c): scratch capture paths and patterned payloads.
 */
#ifndef IW_TEST_PCAP_FIXTURE_H
#define IW_TEST_PCAP_FIXTURE_H

#include "check.h"

#include "decode_pcap.h"

/* /tmp/iwspec-test-pcap-PID-name, in one of four rotating static buffers. */
const char *pf_tmp_path(const char *name);

/* n octets (malloc'd, at least 1) of a pattern that differs with seed; free() it. */
uint8_t *pf_pattern(size_t n, uint8_t seed);

/* The Internet checksum, written here apart from pcap_write.c so that the tests check the
 * writer's and pcap-combine's checksums against a second reading of RFC 1071: the big-endian
 * word at p, the running sum of n octets, and the sum folded to 16 bits (0xFFFF: correct). */
uint16_t pf_rd16(const uint8_t *p);
uint32_t pf_sum16(const uint8_t *p, size_t n);
uint16_t pf_fold(uint32_t s);

/* Runs `iwspec decode` (iw_decode_capture) on a capture with its stdout in a scratch file;
 * returns the exit status and the output (malloc'd, at most 1 MiB, NUL-terminated). */
int pf_decode_stdout(const char *pcap, const iw_decode_opts *o, char **out);

#endif
