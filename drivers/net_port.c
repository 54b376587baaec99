/*
 * net_port.c - who holds a TCP port a listener could not bind, read from the kernel's socket
 * tables (/proc/net/tcp, tcp6), so "Address already in use" comes with its cause and its way out.
 *
 * The listeners set SO_REUSEADDR, which lets them bind over connections of an earlier listener
 * on the port that wait in TIME-WAIT. It cannot bind over a listener, nor over TIME-WAIT
 * connections whose local end took the port as the kernel's ephemeral choice for an outgoing
 * connection: a fuzz run opens thousands a second, and a port inside ip_local_port_range is then
 * held for a minute (Linux's TIME-WAIT) whatever the new listener asks.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "net.h"

/* TCP states as the tables number them (include/net/tcp_states.h). */
#define ST_TIME_WAIT 0x06
#define ST_LISTEN 0x0A

/* Counts the sockets of one table whose local port is port: listening, in TIME-WAIT, other. */
static void count_table(const char *path, uint16_t port, unsigned long n[3])
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	if (!fgets(line, sizeof line, f)) {    /* the header */
		fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		char local[64];
		unsigned lport, st;
		/* "  0: 0100007F:C554 0100007F:5BA5 06 ..." */
		if (sscanf(line, " %*[^:]: %63s %*s %x", local, &st) != 2)
			continue;
		const char *colon = strrchr(local, ':');
		if (!colon || sscanf(colon + 1, "%x", &lport) != 1 || lport != port)
			continue;
		n[st == ST_LISTEN ? 0 : st == ST_TIME_WAIT ? 1 : 2]++;
	}
	fclose(f);
}

void iw_net_port_busy_why(uint16_t port, char *buf, size_t cap)
{
	if (!cap)
		return;
	buf[0] = '\0';
	unsigned long n[3] = {0, 0, 0};
	count_table("/proc/net/tcp", port, n);
	count_table("/proc/net/tcp6", port, n);
	unsigned lo = 32768, hi = 60999;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	if (f) {
		unsigned a, b;
		if (fscanf(f, "%u %u", &a, &b) == 2 && a <= b) {
			lo = a;
			hi = b;
		}
		fclose(f);
	}
	bool ephemeral = port >= lo && port <= hi;
	if (n[0])
		snprintf(buf, cap, "a listener already holds port %u", (unsigned)port);
	else if (n[1] && ephemeral)
		snprintf(buf, cap, "%lu outgoing connection%s in TIME-WAIT hold%s port %u, of the kernel's ephemeral range "
			 "%u-%u; SO_REUSEADDR cannot take it over: wait (60 s) or use a port below %u", n[1],
			 n[1] == 1 ? "" : "s", n[1] == 1 ? "s" : "", (unsigned)port, lo, hi, lo);
	else if (n[1])
		snprintf(buf, cap, "%lu connection%s in TIME-WAIT hold%s port %u, which SO_REUSEADDR cannot take over (not "
			 "a listener's own): wait for %s to end (60 s)", n[1], n[1] == 1 ? "" : "s", n[1] == 1 ? "s" : "",
			 (unsigned)port, n[1] == 1 ? "it" : "them");
	else if (n[2])
		snprintf(buf, cap, "%lu open connection%s use%s port %u as %s local port%s", n[2], n[2] == 1 ? "" : "s",
			 n[2] == 1 ? "s" : "", (unsigned)port, n[2] == 1 ? "its" : "their",
			 ephemeral ? ", of the kernel's ephemeral range: use a port below it" : "");
}
