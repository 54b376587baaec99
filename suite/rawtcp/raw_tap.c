/*
 * raw_tap.c - the TAP link: Ethernet frames through /dev/net/tun, in a network namespace.
 *
 * A TAP device has the kernel's network stack on one side and a file descriptor on the other;
 * the harness holds the descriptor and plays a host on that link. The device lives in the
 * namespace of the thread that opens /dev/net/tun, so the calling thread enters the named
 * namespace (setns, which moves only this thread) for the open and returns at once; the
 * descriptor keeps working from the caller's namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rawtcp.h"

typedef struct tap_link {
	int fd;
	char name[IFNAMSIZ];
} tap_link;

static int tap_send(void *ctx, const uint8_t *frame, size_t len, iw_err *e)
{
	tap_link *t = ctx;
	ssize_t w;
	do
		w = write(t->fd, frame, len);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return iw_errf(e, IW_RAW_ESYS, "write of a %zu-octet frame to TAP %s: %s", len, t->name, strerror(errno));
	if ((size_t)w != len)
		return iw_errf(e, IW_RAW_ESYS, "TAP %s took %zd of a %zu-octet frame", t->name, w, len);
	return IW_OK;
}

static int tap_recv(void *ctx, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e)
{
	tap_link *t = ctx;
	struct pollfd p = { .fd = t->fd, .events = POLLIN };
	*got = 0;
	int n = poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
	if (n < 0 && errno == EINTR)
		return IW_OK;
	if (n < 0)
		return iw_errf(e, IW_RAW_ESYS, "poll on TAP %s: %s", t->name, strerror(errno));
	if (n == 0)
		return IW_OK;
	ssize_t r = read(t->fd, buf, cap);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return IW_OK;
	if (r < 0)
		return iw_errf(e, IW_RAW_ESYS, "read from TAP %s: %s", t->name, strerror(errno));
	*got = (size_t)r;
	return IW_OK;
}

static void tap_close(void *ctx)
{
	tap_link *t = ctx;
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

/* Opens /dev/net/tun and attaches ifname, in whatever namespace this thread is in now. */
static int tap_attach(tap_link *t, const char *ifname, iw_err *e)
{
	t->fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (t->fd < 0) {
		int err = errno;
		return iw_errf(e, err == ENOENT || err == EACCES || err == EPERM ? IW_RAW_EPERM : IW_RAW_ESYS,
			       "open /dev/net/tun: %s (the raw segment path needs the tun module and root or CAP_NET_ADMIN)",
			       strerror(err));
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		int err = errno;
		close(t->fd);
		t->fd = -1;
		return iw_errf(e, err == EPERM ? IW_RAW_EPERM : IW_RAW_ESYS,
			       "TUNSETIFF %s (IFF_TAP | IFF_NO_PI): %s%s", ifname, strerror(err),
			       err == EPERM ? " (needs root or CAP_NET_ADMIN)"
			       : err == EBUSY ? " (another process holds the device)"
			       : err == EINVAL ? " (a device of that name exists and is not a TAP)" : "");
	}
	snprintf(t->name, sizeof t->name, "%s", ifr.ifr_name);
	return IW_OK;
}

int iw_raw_tap_open(iw_raw_link *link, const char *netns, const char *ifname, iw_err *e)
{
	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return iw_errf(e, IW_EINVAL, "TAP device name '%s': give 1 to %d characters", ifname ? ifname : "",
			       IFNAMSIZ - 1);
	tap_link *t = calloc(1, sizeof *t);
	if (!t)
		return iw_errf(e, IW_ENOSPC, "no memory for a TAP link");
	t->fd = -1;
	int rc;
	if (!netns || !*netns) {
		rc = tap_attach(t, ifname, e);
	} else {
		char path[256];
		snprintf(path, sizeof path, "/var/run/netns/%s", netns);
		int target = open(path, O_RDONLY | O_CLOEXEC);
		int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (target < 0 || home < 0) {
			int err = errno;
			rc = iw_errf(e, IW_RAW_EPERM, "open %s: %s (create it with `ip netns add %s`)",
				     target < 0 ? path : "/proc/thread-self/ns/net", strerror(err), netns);
		} else if (setns(target, CLONE_NEWNET) < 0) {
			int err = errno;
			rc = iw_errf(e, err == EPERM ? IW_RAW_EPERM : IW_RAW_ESYS, "enter namespace %s: %s%s", netns,
				     strerror(err), err == EPERM ? " (needs root or CAP_SYS_ADMIN)" : "");
		} else {
			rc = tap_attach(t, ifname, e);
			if (setns(home, CLONE_NEWNET) < 0) {
				/* This thread would stay in the test namespace: never carry on like that. */
				int err = errno;
				if (t->fd >= 0)
					close(t->fd);
				t->fd = -1;
				rc = iw_errf(e, IW_RAW_ESYS, "return from namespace %s: %s", netns, strerror(err));
			}
		}
		if (target >= 0)
			close(target);
		if (home >= 0)
			close(home);
	}
	if (rc != IW_OK) {
		tap_close(t);
		return rc;
	}
	*link = (iw_raw_link){ .send = tap_send, .recv = tap_recv, .close = tap_close, .ctx = t };
	return IW_OK;
}
