/*
 * perftest_msg.h - the control channel of rdma-core's perftest (ib_send_bw, ib_write_bw,
 * ib_read_bw) run with -R, as it crosses the wire: learnt from perftest 4.5-0.17's source
 * (Debian 12's perftest 4.5+0.17, which calls itself version 6.06), not copied from it.
 *
 * With -R (--rdma_cm) the test connection is made through rdma_cm, the only way iWARP connects;
 * the control channel stays an ordinary TCP connection to the same port (default 18515), which
 * the server accepts once and then closes its listener, so that rdma_cm can listen there. Both
 * sides then exchange, each message in one write, the client writing first and the server
 * answering each with its own:
 *
 *   1. the version, 16 octets of text padded with NULs ("6.06"); a peer below 5.70 is refused;
 *   2. from 5.32 on: the cycle buffer (the page size) and the cache line size, 4 octets each,
 *      network order; each side takes the larger of the two;
 *   3. from 5.1 on: the MTU as text, 2 octets from 5.31 on ("3" and its NUL for IBV_MTU_1024);
 *
 * then the client connects through rdma_cm (no private data of perftest's; ib_read_bw asks for
 * responder resources and initiator depth of its out_reads), and then, three times in a row,
 * each side's keys as one line of text: on an Ethernet link layer (iWARP's) with the GID,
 *
 *   lid:out_reads:qpn:psn:rkey:vaddr:g0:g1:...:g15:srqn:   (%04x:%04x:%06x:%06x:%08x:%016llx:
 *                                                          16 x %02x: %08x: and a NUL, 108 octets)
 *
 * where rkey and vaddr are the peer's buffer: vaddr points past the first BUFF_SIZE octets of
 * a region of 2 x INC(max(size, cycle buffer), cache line) registered for remote write
 * (ib_write_bw), remote read and, on iWARP, remote write (ib_read_bw). After the test the keys go
 * once more each way, then the bandwidth reports, then the keys a last time.
 */
#ifndef IW_PERFTEST_MSG_H
#define IW_PERFTEST_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IW_PERFTEST_PORT 18515
#define IW_PERFTEST_VERSION "6.06"      /* perftest 4.5-0.17's own */
#define IW_PERFTEST_VERSION_LEN 16
#define IW_PERFTEST_MIN_VERSION 570     /* 5.70, in hundredths: older peers are refused */
#define IW_PERFTEST_INT_LEN 4           /* cycle buffer, cache line size */
#define IW_PERFTEST_MTU_LEN 2
#define IW_PERFTEST_KEYS_LEN 108        /* with the GID */
#define IW_PERFTEST_HANDSHAKES 3        /* key exchanges before the test starts */
#define IW_PERFTEST_SIZE 65536          /* -s of the bw tests */
#define IW_PERFTEST_CYCLE_BUFFER 4096   /* the page size */
#define IW_PERFTEST_CACHE_LINE 64

typedef struct iw_perftest_keys {
	uint32_t lid, out_reads, qpn, psn, rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn;
} iw_perftest_keys;

/* The 16-octet version message of text v (at most 15 characters). */
void iw_perftest_version_encode(uint8_t b[IW_PERFTEST_VERSION_LEN], const char *v);

/* The version in hundredths ("6.06" is 606), or -1 when b holds no "D.DD" before its NUL. */
int iw_perftest_version_parse(const uint8_t b[IW_PERFTEST_VERSION_LEN]);

/* The MTU message: the enum ibv_mtu value (1-5) as one digit and a NUL; parse gives -1 when b
 * is not that. */
void iw_perftest_mtu_encode(uint8_t b[IW_PERFTEST_MTU_LEN], int mtu);
int iw_perftest_mtu_parse(const uint8_t b[IW_PERFTEST_MTU_LEN]);

/* The keys line (108 octets, NUL-terminated). */
void iw_perftest_keys_encode(uint8_t b[IW_PERFTEST_KEYS_LEN], const iw_perftest_keys *k);

/* Reads a keys line: every field its hex digits and its ':' as the format writes them, the NUL
 * last. False, with nothing to trust in *k, when b is not one. */
bool iw_perftest_keys_parse(const uint8_t b[IW_PERFTEST_KEYS_LEN], iw_perftest_keys *k);

/* The octets from vaddr to the end of the buffer a peer registered for -s size, the cycle
 * buffer and the cache line size both sides agreed (the larger of each): INC(max(size, cycle),
 * cache line), INC rounding up to a multiple of the cache line. */
uint64_t iw_perftest_range(uint64_t size, uint64_t cycle_buffer, uint64_t cache_line);

#endif
