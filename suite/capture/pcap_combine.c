/*
 * pcap_combine.c - captures renumbered into networks of their own and written as one file
 * (see pcap_combine.h).
 */
#include "pcap_combine.h"

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "iw_octets.h"
#include "pcap_read.h"
#include "pcap_write.h"

#define MAX_ADDRS 254u          /* .1 to .254 of the capture's /24 */
/* The longest record copied, as long as the writer takes (pcap_write.c): iwspec writes no
 * longer frame, and a file that holds one is refused before it is copied. */
#define FRAME_MAX 65535u

typedef struct combine {
	const char *path;
	size_t index;               /* of the capture: its network is 10.(index >> 8).(index & 255) */
	uint32_t addrs[MAX_ADDRS];  /* the capture's IPv4 addresses, ascending, after the first pass */
	size_t naddrs;
	iw_pcap_writer *w;          /* the second pass writes here */
	uint8_t *frame;             /* a copy of the record being rewritten */
	char *msg;
	size_t msgcap;
} combine;

/* The checks both passes make: a whole TCP segment over IPv4. */
static int usable(combine *c, const iw_pcap_record *r)
{
	if (r->caplen > FRAME_MAX) {
		snprintf(c->msg, c->msgcap, "frame %llu of '%s' is %zu octets long: frames of up to %u are combined",
			 (unsigned long long)r->frame, c->path, r->caplen, FRAME_MAX);
		return -1;
	}
	if (r->caplen < r->len) {
		snprintf(c->msg, c->msgcap, "frame %llu of '%s' is cut short (%zu of its %zu octets captured)",
			 (unsigned long long)r->frame, c->path, r->caplen, r->len);
		return -1;
	}
	if (r->family != 4) {
		snprintf(c->msg, c->msgcap, "frame %llu of '%s' is not a TCP segment over IPv4",
			 (unsigned long long)r->frame, c->path);
		return -1;
	}
	return 0;
}

static int collect(void *ctx, const iw_pcap_record *r)
{
	combine *c = ctx;
	if (usable(c, r))
		return -1;
	for (int side = 0; side < 2; side++) {
		uint32_t a = iw_get_be32(r->data + r->ip_off + 12 + 4 * side);
		size_t i = 0;
		while (i < c->naddrs && c->addrs[i] < a)
			i++;
		if (i < c->naddrs && c->addrs[i] == a)
			continue;
		if (c->naddrs == MAX_ADDRS) {
			snprintf(c->msg, c->msgcap, "'%s' has more than %u IPv4 addresses (frame %llu)", c->path,
				 MAX_ADDRS, (unsigned long long)r->frame);
			return -1;
		}
		memmove(c->addrs + i + 1, c->addrs + i, (c->naddrs - i) * sizeof c->addrs[0]);
		c->addrs[i] = a;
		c->naddrs++;
	}
	return 0;
}

/* Replaces the 16-bit word old with new under the checksum at p (RFC 1624, eqn. 3). */
static void csum_replace(uint8_t *p, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~iw_get_be16(p);
	sum += (uint16_t)~old;
	sum += new;
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	iw_put_be16(p, (uint16_t)~sum);
}

static int rewrite(void *ctx, const iw_pcap_record *r)
{
	combine *c = ctx;
	iw_err e;
	if (usable(c, r))
		return -1;
	memcpy(c->frame, r->data, r->caplen);
	uint8_t *ip = c->frame + r->ip_off, *tcp = c->frame + r->tcp_off;
	for (int side = 0; side < 2; side++) {
		uint8_t *a = ip + 12 + 4 * side;
		size_t rank = 0;
		while (c->addrs[rank] != iw_get_be32(a))
			rank++;     /* the first pass saw every address */
		uint8_t to[4] = {10, (uint8_t)(c->index >> 8), (uint8_t)c->index, (uint8_t)(rank + 1)};
		for (int w = 0; w < 4; w += 2) {
			uint16_t old = iw_get_be16(a + w), new = iw_get_be16(to + w);
			csum_replace(ip + 10, old, new);
			csum_replace(tcp + 16, old, new);       /* the pseudo-header holds the addresses */
		}
		memcpy(a, to, 4);
	}
	iw_pcap_writer_time(c->w, r->ts_usec, 0);
	if (iw_pcap_writer_frame(c->w, c->frame, r->caplen, &e)) {
		snprintf(c->msg, c->msgcap, "frame %llu of '%s': %s", (unsigned long long)r->frame, c->path, e.msg);
		return -1;
	}
	return 0;
}

int iw_pcap_combine(const char *out, const char *const *paths, size_t n, iw_pcap_part *parts, iw_err *e)
{
	if (n > IW_PCAP_COMBINE_MAX)
		return iw_errf(e, -1, "%zu captures: at most %u can be combined", n, IW_PCAP_COMBINE_MAX);
	combine *c = calloc(1, sizeof *c);
	uint8_t *frame = malloc(FRAME_MAX);
	iw_pcap_writer *w = NULL;
	int link = -1, rc = -1;
	if (!c || !frame) {
		iw_errf(e, -1, "out of memory combining captures");
		goto out;
	}
	c->frame = frame;
	c->msg = e->msg;
	c->msgcap = sizeof e->msg;
	for (size_t i = 0; i < n; i++) {
		c->path = paths[i];
		c->index = i;
		c->naddrs = 0;
		int dlt;
		if (iw_pcap_each_record(paths[i], &dlt, collect, c, e->msg, sizeof e->msg))
			goto out;
		if (dlt != DLT_EN10MB && dlt != DLT_RAW) {
			iw_errf(e, -1, "'%s' has link type %s: only Ethernet and raw IP captures are combined",
				paths[i], pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "unknown");
			goto out;
		}
		if (!w) {
			link = dlt;
			w = iw_pcap_writer_new(dlt == DLT_RAW ? IW_PCAP_LINK_RAW : IW_PCAP_LINK_ETHERNET, e);
			if (!w)
				goto out;
		} else if (dlt != link) {
			iw_errf(e, -1, "'%s' has link type %s, '%s' %s: one file holds one link type", paths[i],
				pcap_datalink_val_to_name(dlt), paths[0], pcap_datalink_val_to_name(link));
			goto out;
		}
		c->w = w;
		parts[i].first_frame = iw_pcap_writer_frames(w) + 1;
		if (iw_pcap_each_record(paths[i], &dlt, rewrite, c, e->msg, sizeof e->msg))
			goto out;
		parts[i].frames = iw_pcap_writer_frames(w) + 1 - parts[i].first_frame;
	}
	if (!w && !(w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, e)))
		goto out;
	rc = iw_pcap_writer_commit(w, out, e);
	w = NULL;
out:
	iw_pcap_writer_free(w);
	free(frame);
	free(c);
	return rc;
}
