/*
 * pcap_write.h - captures Wireshark and tshark can open, synthesized from byte streams.
 *
 * A conversation held in memory (the harness's wire log, a vector, a fuzz finding) has no
 * packets; labs still want to look at it in Wireshark, and Wireshark's iWARP dissectors only
 * engage on a complete TCP connection whose first data octets are the MPA Request and Reply
 * (rfc-and-interop.md §2.1). So this module builds one: SYN, SYN-ACK, ACK, the data of both
 * directions in segments of at most the MSS with sequence and acknowledgment numbers that
 * follow the octets really sent, IPv4 and TCP checksums, and the FIN exchange (or an RST).
 * libpcap writes the file (pcap_open_dead + pcap_dump_fopen), into memory first; the file is
 * then written atomically (atomic_file.h), so a reader never sees half a capture.
 *
 *   iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
 *   iw_pcap_tcp *t = iw_pcap_tcp_open(w, &params, &e);      (the three-way handshake)
 *   iw_pcap_tcp_data(t, IW_PCAP_C2S, request, n, &e);        (one or more segments)
 *   iw_pcap_tcp_data(t, IW_PCAP_S2C, reply, m, &e);
 *   iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e); iw_pcap_tcp_fin(t, IW_PCAP_S2C, &e);
 *   iw_pcap_writer_commit(w, "out/case.pcap", &e);           (writes and frees)
 *
 * Several connections may be open at once in one writer; frames go out in call order.
 * Timestamps start at a fixed instant and advance 1 ms per frame, so the same calls give
 * byte-identical files (the checked-in vector set depends on it); iw_pcap_writer_time sets
 * real times instead. Frame numbers in Wireshark start at 1: iw_pcap_writer_frames() tells the
 * number of the last frame written, so a caller can note where an octet went.
 *
 * Every function returns 0 or -1 with e naming the problem; none prints or exits.
 */
#ifndef IW_PCAP_WRITE_H
#define IW_PCAP_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

enum iw_pcap_link {
	IW_PCAP_LINK_ETHERNET,      /* DLT_EN10MB: Ethernet II frames, locally administered MACs */
	IW_PCAP_LINK_RAW,           /* DLT_RAW: bare IPv4 packets */
};

/* Direction of a segment: from the side that sent the SYN (the client) or to it. */
enum iw_pcap_dir { IW_PCAP_C2S = 0, IW_PCAP_S2C = 1 };

#define IW_PCAP_MSS_DEFAULT 1460

/* The default instant of the first frame: 2004-07-13 00:00:00 UTC, the date of
 * draft-ietf-rddp-mpa-01 (any fixed value would do; a fixed one keeps files reproducible). */
#define IW_PCAP_EPOCH_DEFAULT 1089676800ull

typedef struct iw_pcap_tcp_params {
	uint8_t client_ip[4], server_ip[4];
	uint16_t client_port, server_port;
	uint32_t client_isn, server_isn;    /* initial sequence numbers (the SYNs carry them) */
	uint16_t mss;                       /* data is cut into segments of at most this; 0 = 1460 */
	uint16_t window;                    /* advertised window; 0 = 65535 */
} iw_pcap_tcp_params;

/* 10.0.0.1:40001 -> 10.0.0.2:4791 (the iWARP port IANA lists), ISNs 1000 and 5000, MSS 1460. */
void iw_pcap_tcp_params_default(iw_pcap_tcp_params *p);

typedef struct iw_pcap_writer iw_pcap_writer;
typedef struct iw_pcap_tcp iw_pcap_tcp;

iw_pcap_writer *iw_pcap_writer_new(enum iw_pcap_link link, iw_err *e);

/* Timestamp of the next frame, in microseconds since the Unix epoch; later frames still
 * advance by step_usec each (0 keeps the current step, 1000 at first). */
void iw_pcap_writer_time(iw_pcap_writer *w, uint64_t usec, uint32_t step_usec);

/* Frames written so far (the number Wireshark gives the last one). */
uint64_t iw_pcap_writer_frames(const iw_pcap_writer *w);

/* Writes the capture to path atomically (missing directories are created) and frees w,
 * whatever the outcome. */
int iw_pcap_writer_commit(iw_pcap_writer *w, const char *path, iw_err *e);

/* The same as one file of a batch (atomic_file.h iw_write_atomic_batch): no fsync; the caller
 * syncs the batch's directory once (iw_sync_batch). */
int iw_pcap_writer_commit_batch(iw_pcap_writer *w, const char *path, iw_err *e);

/* The capture as a malloc'd pcap image (*out, *len), and frees w. For tests and for callers
 * that store captures elsewhere. */
int iw_pcap_writer_take(iw_pcap_writer *w, uint8_t **out, size_t *len, iw_err *e);

/* Frees w without writing anything. */
void iw_pcap_writer_free(iw_pcap_writer *w);

/* One frame as captured (an Ethernet frame on an ETHERNET writer), at the writer's time: a
 * capture of segments the harness really sent and received (the raw segment path, suite/rawtcp/),
 * not synthesized. Frames above 65535 octets are refused. */
int iw_pcap_writer_frame(iw_pcap_writer *w, const uint8_t *frame, size_t len, iw_err *e);

/* Opens a connection: writes SYN (with the MSS option), SYN-ACK and ACK. The connection
 * belongs to w (freed with it). NULL on error. */
iw_pcap_tcp *iw_pcap_tcp_open(iw_pcap_writer *w, const iw_pcap_tcp_params *p, iw_err *e);

/* Data from one side: segments of at most the MSS, PSH on the last, each acknowledging all
 * the other side has sent. len 0 writes nothing. -1 after that side's FIN or an RST. */
int iw_pcap_tcp_data(iw_pcap_tcp *t, enum iw_pcap_dir dir, const uint8_t *data, size_t len, iw_err *e);

/* That side closes: FIN+ACK from it, then the other side's ACK of the FIN. */
int iw_pcap_tcp_fin(iw_pcap_tcp *t, enum iw_pcap_dir dir, iw_err *e);

/* That side resets the connection (RST+ACK); nothing more may be sent on it. */
int iw_pcap_tcp_rst(iw_pcap_tcp *t, enum iw_pcap_dir dir, iw_err *e);

/* One piece of a conversation, for the one-call form below. */
typedef struct iw_pcap_chunk {
	enum iw_pcap_dir dir;
	const uint8_t *data;
	size_t len;
} iw_pcap_chunk;

/* A whole connection in one file: handshake, the chunks in order (each chunk starts a new
 * segment), then FIN from the client and FIN from the server. p NULL = the defaults. */
int iw_pcap_write_conn(const char *path, enum iw_pcap_link link, const iw_pcap_tcp_params *p,
		       const iw_pcap_chunk *chunks, size_t n, iw_err *e);

#endif
