/*
 * pcap_combine.h - several captures as one file whose connections stay apart.
 *
 * Wireshark's start-up costs more than dissecting one case capture, so the tshark cross-check
 * (tests/cli/tshark_check.sh) reads a batch of captures as one file. Concatenated as they are,
 * iwspec's synthesized captures would be one TCP conversation to Wireshark: they all use the
 * same addresses, ports and initial sequence numbers (pcap_write.h), and Wireshark keeps its
 * reassembly and MPA state per conversation. So each capture's IPv4 addresses are renumbered
 * into a network of its own, 10.H.L.0/24 with H.L the capture's index; within it the
 * capture's addresses keep their order (the lowest becomes .1, the next .2), because Wireshark
 * tells a conversation's two directions apart by comparing addresses. Ports, sequence numbers,
 * payloads and timestamps are unchanged, and the IPv4 and TCP checksums are adjusted for the
 * new addresses (RFC 1624): a checksum that was right stays right, a wrong one stays wrong.
 *
 * The records are copied, not rebuilt: each output frame is the input record, so Wireshark
 * sees the same segments. Refused, with a message naming the file and the frame: a link type
 * other than Ethernet or raw IP (or two different ones), a record that is not a TCP segment
 * over IPv4, a record the snap length or the file's end cut short, one longer than 65535 octets
 * (what the writer takes), more than 254 addresses in one capture, more than
 * IW_PCAP_COMBINE_MAX captures.
 */
#ifndef IW_PCAP_COMBINE_H
#define IW_PCAP_COMBINE_H

#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

#define IW_PCAP_COMBINE_MAX 65536u      /* 10.H.L.x: 256 times 256 networks */

/* Where one input capture went in the combined file. */
typedef struct iw_pcap_part {
	uint64_t first_frame;   /* the combined file's number for its frame 1 */
	uint64_t frames;        /* its records (0: it had none) */
} iw_pcap_part;

/* Writes the captures paths[0..n-1], in that order, as one capture at out (atomically), and
 * fills parts[0..n-1]. Returns 0, or -1 with e (nothing is written then). */
int iw_pcap_combine(const char *out, const char *const *paths, size_t n, iw_pcap_part *parts, iw_err *e);

#endif
