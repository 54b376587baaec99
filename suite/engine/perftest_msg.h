/*
 * perftest_msg.h - what rdma-core's perftest (ib_send_bw, ib_write_bw, ib_read_bw) run with -R
 * says on the wire besides its test: learnt from perftest 4.5-0.17's source (Debian 12's perftest
 * 4.5+0.17, which calls itself version 6.06), not copied from it.
 *
 * -R (--rdma_cm) connects the test through rdma_cm, the only way iWARP connects, and makes the
 * control channel an rdma_cm connection too (the parser turns use_rdma_cm on with it): before
 * the test, the client opens a first connection to the server's port, the comm connection, on
 * which each side keeps one receive of 56 octets (sizeof struct pingpong_dest on x86-64) posted
 * and each message is one Send, the client sending first and the server answering each with its
 * own, reposting its receive as it reads one:
 *
 *   1. the version, 16 octets of text padded with NULs ("6.06"); a peer below 5.70 is refused;
 *   2. from 5.32 on: the cycle buffer (the page size) and the cache line size, 4 octets each,
 *      network order; each side takes the larger of the two;
 *   3. from 5.1 on: the MTU as text, 2 octets from 5.31 on ("3" and its NUL for IBV_MTU_1024);
 *
 * then each side's keys once, all zero (a sync before the test connection: the server listens
 * for it through rdma_cm only after this), then the client connects the test connection to the
 * same port (no private data of perftest's), and then each side's keys four times more as one
 * Send of the 56-octet struct, network order (the first of them still zero, the last ones with
 * the test connection's buffer; ib_send_bw and ib_send_lat five times, the last the sync after
 * which the server has posted its receives and the client starts the test):
 *
 *   0 lid | 4 out_reads | 8 qpn | 12 psn | 16 rkey | 20 (4 octets of padding, not set) |
 *   24 vaddr (8) | 32 gid (16) | 48 srqn | 52 gid_index
 *
 * where rkey and vaddr are the sender's buffer: vaddr points past the first half of a region of
 * 2 x INC(max(size, cycle buffer), cache line) registered for remote write (ib_write_bw), remote
 * read and, on iWARP, remote write (ib_read_bw). After the test the client closes the flow, each
 * message again the client's first and the server's answer: ib_write_bw and ib_read_bw the keys,
 * the five values of the bandwidth report (size, iters, peak, average, message rate: 8 octets
 * each, network order, from 5.33 on), the keys a last time; ib_send_bw the keys once (it trades
 * reports only in duplex). Then the client disconnects both connections and exits.
 *
 * ib_send_lat (-s 2 by default; the harness's profile asks for -s 65536) is ib_send_bw's flow with
 * a test both sides take part in: its server posts rx_depth receives of -s octets (512, capped at
 * -n) and answers each Send it receives with one Send of -s octets of its own buffer, -n times
 * (1000 by default); a receive completed in error ends it.
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
#define IW_PERFTEST_KEYS_LEN 56         /* struct pingpong_dest, x86-64 */
#define IW_PERFTEST_RECV_LEN 56         /* the one receive each side keeps posted on the comm connection */
#define IW_PERFTEST_KEYS_BEFORE 1       /* key exchanges before the test connection (zeros) */
#define IW_PERFTEST_KEYS_AFTER 4        /* ... and after it, before the test starts */
#define IW_PERFTEST_SEND_KEYS_AFTER 5   /* ib_send_bw's and ib_send_lat's: one more, once its
					 * receives are posted */
#define IW_PERFTEST_SIZE 65536          /* -s of the bw tests */
#define IW_PERFTEST_REPORT_LEN 8        /* each value of the bandwidth report after the test */
#define IW_PERFTEST_REPORTS 5           /* ... of ib_write_bw and ib_read_bw (ib_send_bw: none) */
#define IW_PERFTEST_CYCLE_BUFFER 4096   /* the page size */
#define IW_PERFTEST_HARNESS_RKEY 0x00c00001u   /* the buffer the harness's keys name as server */
#define IW_PERFTEST_HARNESS_VADDR 0x0000700000010000ull
#define IW_PERFTEST_ITERS 5             /* -n of a client against iwspec: perftest's least (MIN_ITER),
					 * so a case's startup takes the whole test (5 x 64 KiB) */
#define IW_PERFTEST_CACHE_LINE 64

typedef struct iw_perftest_keys {
	uint32_t lid, out_reads, qpn, psn, rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn, gid_index;
} iw_perftest_keys;

/* The 16-octet version message of text v (at most 15 characters). */
void iw_perftest_version_encode(uint8_t b[IW_PERFTEST_VERSION_LEN], const char *v);

/* The version in hundredths ("6.06" is 606), or -1 when b holds no "D.DD" before its NUL. */
int iw_perftest_version_parse(const uint8_t b[IW_PERFTEST_VERSION_LEN]);

/* The MTU message: the enum ibv_mtu value (1-5) as one digit and a NUL; parse gives -1 when b
 * is not that. */
void iw_perftest_mtu_encode(uint8_t b[IW_PERFTEST_MTU_LEN], int mtu);
int iw_perftest_mtu_parse(const uint8_t b[IW_PERFTEST_MTU_LEN]);

/* The keys message (56 octets, network order; the padding zero). */
void iw_perftest_keys_encode(uint8_t b[IW_PERFTEST_KEYS_LEN], const iw_perftest_keys *k);

/* Reads a keys message (every value is possible, the padding is not read). */
void iw_perftest_keys_parse(const uint8_t b[IW_PERFTEST_KEYS_LEN], iw_perftest_keys *k);

/* The octets from vaddr to the end of the buffer a peer registered for -s size, the cycle
 * buffer and the cache line size both sides agreed (the larger of each): INC(max(size, cycle),
 * cache line), INC rounding up to a multiple of the cache line. */
uint64_t iw_perftest_range(uint64_t size, uint64_t cycle_buffer, uint64_t cache_line);

#endif
