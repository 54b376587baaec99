/*
 * net_tcpinfo.c - what the kernel's TCP tells about a connection (TCP_INFO), apart from net.c:
 * linux/tcp.h, which has the newer fields, cannot be included beside netinet/tcp.h.
 */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "net.h"

int iw_net_tcp_ooo_packets(int fd, uint32_t *n)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_rcv_ooopack) + sizeof ti.tcpi_rcv_ooopack)
		return -1;
	*n = ti.tcpi_rcv_ooopack;
	return 0;
}
