/*
 * test_kernel_console.c - reading a guest kernel's console for reports (kernel_console.c): the
 * signatures of each kind of report, a report tied to the mark before it even when a later mark
 * is printed between its lines, one report per fault however many trigger lines it has, a
 * report with no end line ended by silence, and the mark request the guest's agent answers.
 * The console lines are Linux 6.1's, as siw's F3 printed them in the qemu guest.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "kernel_console.h"
#include "net.h"

TEST(kernel_console_signatures_drop_cpu_pid_and_offsets)
{
	char kind[24], sig[200];
	CHECK(kc_trigger("[  226.210750] WARNING: CPU: 1 PID: 141 at drivers/infiniband/sw/siw/siw_cm.c:453 siw_cep_put+0x11d/0x130 [siw]",
			 kind, sizeof kind, sig, sizeof sig));
	CHECK_STR(kind, "WARNING");
	CHECK_STR(sig, "WARNING at siw_cm.c siw_cep_put");
	/* The same WARN_ON in 6.12.117, four lines up: the same fault, so the same signature. */
	CHECK(kc_trigger("[   31.5] WARNING: CPU: 0 PID: 77 at drivers/infiniband/sw/siw/siw_cm.c:449 siw_cep_put+0x10d/0x120 [siw]",
			 kind, sizeof kind, sig, sizeof sig));
	CHECK_STR(sig, "WARNING at siw_cm.c siw_cep_put");
	CHECK(kc_trigger("[    9.1] BUG: KASAN: use-after-free in siw_cep_put+0x2c/0x90", kind, sizeof kind, sig, sizeof sig));
	CHECK_STR(kind, "KASAN");
	CHECK_STR(sig, "KASAN: use-after-free in siw_cep_put");
	CHECK(kc_trigger("UBSAN: array-index-out-of-bounds in drivers/infiniband/sw/siw/siw_qp.c:12:3", kind, sizeof kind, sig,
			 sizeof sig));
	CHECK_STR(sig, "UBSAN: array-index-out-of-bounds in siw_qp.c");
	CHECK(kc_trigger("[  1.0] INFO: task iwspec-reflecto:123 blocked for more than 120 seconds.", kind, sizeof kind, sig,
			 sizeof sig));
	CHECK_STR(sig, "hung task iwspec-reflecto");
	CHECK(kc_trigger("[ 80.1] rcu: INFO: rcu_preempt self-detected stall on CPU", kind, sizeof kind, sig, sizeof sig));
	CHECK_STR(kind, "RCU stall");
	CHECK(kc_trigger("[ 80.1] kernel BUG at lib/list_debug.c:49!", kind, sizeof kind, sig, sizeof sig));
	CHECK_STR(sig, "kernel BUG at list_debug.c");
	CHECK(kc_trigger("[ 80.1] BUG: kernel NULL pointer dereference, address: 0000000000000008", kind, sizeof kind, sig,
			 sizeof sig));
	CHECK_STR(sig, "BUG: kernel NULL pointer dereference");
	CHECK(kc_trigger("[ 80.1] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:80]", kind, sizeof kind,
			 sig, sizeof sig));
	CHECK_STR(kind, "soft lockup");
	/* Ordinary lines, and the guest's own words, start none. */
	CHECK(!kc_trigger("[ 3.7] IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready", kind, sizeof kind, sig, sizeof sig));
	CHECK(!kc_trigger("iwspec-reflector: run 141: ended, exit 0", kind, sizeof kind, sig, sizeof sig));
	CHECK(!kc_trigger("[ 1.0] iwspec-mark: fuzz run 3", kind, sizeof kind, sig, sizeof sig));
}

/* F3 as the guest printed it: siw_cep_put's WARNING, then the refcount underflow, with a mark
 * (written by the agent for the next run) landing between the WARNING's lines. */
static const char f3[] =
	"[  226.1] iwspec-mark: fuzz run 1\n"
	"[  226.210484] ------------[ cut here ]------------\n"
	"[  226.210750] WARNING: CPU: 1 PID: 141 at /b/siw_cm.c:453 siw_cep_put+0x11d/0x130 [siw]\n"
	"[  226.211201] Modules linked in: siw(OE) libcrc32c rdma_ucm ib_uverbs rdma_cm\n"
	"[  226.2112] iwspec-mark: fuzz run 2\n"
	"[  226.211850] CPU: 1 PID: 141 Comm: iwspec-reflecto Tainted: G           OE      6.1.0-56-amd64 #1\n"
	"[  226.211900] Call Trace:\n"
	"[  226.211950]  siw_destroy_listen+0xf9/0x1a0 [siw]\n"
	"[  226.212000] ---[ end trace 0000000000000000 ]---\n"
	"[  226.238842] ------------[ cut here ]------------\n"
	"[  226.238910] refcount_t: underflow; use-after-free.\n"
	"[  226.239016] WARNING: CPU: 1 PID: 141 at lib/refcount.c:28 refcount_warn_saturate+0xba/0x110\n"
	"[  226.239750] RIP: 0010:refcount_warn_saturate+0xba/0x110\n"
	"[  226.245622] Call Trace:\n"
	"[  226.245686]  <TASK>\n"
	"[  226.245731]  siw_destroy_listen+0xf9/0x1a0 [siw]\n"
	"[  226.245840]  destroy_cm_id+0xa2/0x230 [iw_cm]\n"
	"[  226.248195]  </TASK>\n"
	"[  226.248200] ---[ end trace 0000000000000000 ]---\n";

TEST(kernel_console_f3_is_two_reports_tied_to_the_mark_they_began_under)
{
	kc_parser p;
	kc_parser_init(&p);
	kc_report r[4];
	/* Fed in pieces that cut lines, as a growing file is read. */
	size_t n = 0;
	for (size_t off = 0; off < sizeof f3 - 1; off += 37) {
		size_t len = sizeof f3 - 1 - off < 37 ? sizeof f3 - 1 - off : 37;
		n += kc_feed(&p, f3 + off, len, r + n, 4 - n);
	}
	CHECK_EQ(n, 2);
	CHECK_STR(r[0].sig, "WARNING at siw_cm.c siw_cep_put");
	CHECK_STR(r[0].mark, "fuzz run 1");
	CHECK(strstr(r[0].excerpt, "[ cut here ]") != NULL);
	CHECK(strstr(r[0].excerpt, "siw_destroy_listen") != NULL); /* the lines after the mark stay in */
	CHECK(strstr(r[0].excerpt, "iwspec-mark") == NULL);
	CHECK_STR(r[1].kind, "refcount_t");
	CHECK_STR(r[1].sig, "refcount_t: underflow; use-after-free. in siw_destroy_listen");
	CHECK_STR(r[1].mark, "fuzz run 2");
	CHECK_EQ(r[1].nlines, 10);
	CHECK(!p.open);
}

TEST(kernel_console_a_page_fault_and_its_oops_are_one_report)
{
	static const char pf[] = "[ 41.1] iwspec-mark: fuzz minimise run 0\n"
				 "[ 41.650810] BUG: kernel NULL pointer dereference, address: 0000000000000004\n"
				 "[ 41.651172] #PF: supervisor read access in kernel mode\n"
				 "[ 41.651290] #PF: error_code(0x0000) - not-present page\n"
				 "[ 41.651433] PGD 498d067 P4D 0\n"
				 "[ 41.651658] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
				 "[ 41.652038] Workqueue: siw_cm_wq siw_cm_work_handler [siw]\n"
				 "[ 41.652038] RIP: 0010:memcpy_erms+0x6/0x10\n"
				 "[ 41.652100]  siw_cm_work_handler+0x5a/0x900 [siw]\n"
				 "[ 41.652200] ---[ end trace 0000000000000000 ]---\n";
	kc_parser p;
	kc_parser_init(&p);
	kc_report r[2];
	CHECK_EQ(kc_feed(&p, pf, sizeof pf - 1, r, 2), 1);
	CHECK_STR(r[0].sig, "BUG: kernel NULL pointer dereference in siw_cm_work_handler");
	CHECK_STR(r[0].mark, "fuzz minimise run 0");
}

TEST(kernel_console_a_fault_without_an_rdma_frame_is_placed_by_its_work_item)
{
	static const char gpf[] = "[ 25.402743] general protection fault, probably for non-canonical address 0xe8a3: 0000 [#1]\n"
				  "[ 25.403351] Workqueue: siw_cm_wq siw_cm_work_handler [siw]\n"
				  "[ 25.403512] RIP: 0010:__list_add_valid+0x15/0x50\n"
				  "[ 25.405549] Call Trace:\n"
				  "[ 25.405549]  process_one_work+0x1c7/0x380\n"
				  "[ 25.407461] ---[ end trace 0000000000000000 ]---\n"
				  "[ 30.0] general protection fault, probably for non-canonical address 0x1: 0000 [#2]\n"
				  "[ 30.1] RIP: 0010:__list_add_valid+0x15/0x50\n"
				  "[ 30.2] ---[ end trace 0000000000000000 ]---\n";
	kc_parser p;
	kc_parser_init(&p);
	kc_report r[2];
	CHECK_EQ(kc_feed(&p, gpf, sizeof gpf - 1, r, 2), 2);
	CHECK_STR(r[0].sig, "general protection fault in siw_cm_work_handler");
	CHECK_STR(r[1].sig, "general protection fault"); /* the next report does not inherit it */
}

TEST(kernel_console_a_stall_without_an_end_line_ends_when_flushed)
{
	static const char stall[] = "[ 90.0] iwspec-mark: fuzz run 7\n"
				    "[ 91.0] rcu: INFO: rcu_preempt self-detected stall on CPU\n"
				    "[ 91.1] rcu: \t1-....: (5249 ticks this GP)\n"
				    "[ 91.2] RIP: 0010:_raw_spin_lock_irqsave+0x20/0x40\n"
				    "[ 91.3]  siw_cep_set_inuse+0x30/0x90 [siw]\n"
				    "[ 91.4]  siw_destroy_listen+0x60/0x1a0 [siw]\n";
	kc_parser p;
	kc_parser_init(&p);
	kc_report r[2];
	CHECK_EQ(kc_feed(&p, stall, sizeof stall - 1, r, 2), 0);
	CHECK(p.open);
	CHECK_EQ(kc_flush(&p, r), 1);
	CHECK_STR(r[0].sig, "RCU stall in siw_cep_set_inuse");
	CHECK_STR(r[0].mark, "fuzz run 7");
	CHECK_EQ(kc_flush(&p, r), 0);
}

TEST(kernel_console_follows_a_file_from_its_end_and_from_the_start_after_a_reboot)
{
	char path[] = "/tmp/iwspec-kc-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char old[] = "[ 1.0] WARNING: CPU: 0 PID: 1 at a/old.c:1 old_fn+0x1/0x2\n";
	CHECK_EQ(write(fd, old, sizeof old - 1), (ssize_t)(sizeof old - 1));
	kc_console c;
	iw_err e;
	CHECK_EQ(kc_console_open(&c, path, &e), IW_OK);
	kc_report r[2];
	CHECK_EQ(kc_console_poll(&c, 60000, r, 2), 0); /* what was there before is not this session's */
	static const char now[] = "[ 2.0] iwspec-mark: fuzz run 0\n[ 2.1] WARNING: CPU: 0 PID: 1 at b/new.c:2 new_fn+0x1/0x2\n"
				  "[ 2.2] ---[ end trace 0 ]---\n";
	CHECK_EQ(write(fd, now, sizeof now - 1), (ssize_t)(sizeof now - 1));
	CHECK_EQ(kc_console_poll(&c, 60000, r, 2), 1);
	CHECK_STR(r[0].sig, "WARNING at new.c new_fn");
	/* A new boot writes a new, shorter file: read from its start. */
	CHECK_EQ(ftruncate(fd, 0), 0);
	static const char boot[] = "[ 0.5] UBSAN: shift-out-of-bounds in x/y.c:3:4\n";
	CHECK_EQ(pwrite(fd, boot, sizeof boot - 1, 0), (ssize_t)(sizeof boot - 1));
	CHECK_EQ(kc_console_poll(&c, 0, r, 2), 1); /* quiet 0: ended at once */
	CHECK_STR(r[0].sig, "UBSAN: shift-out-of-bounds in y.c");
	close(fd);
	unlink(path);
	CHECK(kc_console_open(&c, path, &e) != IW_OK);
}

/* A stand-in for the guest's agent: takes one request line and answers as the agent does. */
typedef struct agent {
	int lfd;
	char got[200];
	const char *answer;
} agent;

static void *agent_main(void *arg)
{
	agent *a = arg;
	int fd;
	iw_err e;
	if (iw_net_accept(a->lfd, 5000, &fd, &e))
		return NULL;
	size_t n = 0;
	while (n < sizeof a->got - 1 && !memchr(a->got, '\n', n)) {
		ssize_t k = read(fd, a->got + n, sizeof a->got - 1 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	a->got[n] = '\0';
	if (write(fd, a->answer, strlen(a->answer)) < 0)
		n = 0;
	close(fd);
	return NULL;
}

static int mark_against(agent *a, const char *text, iw_err *e)
{
	uint16_t port = 0;
	if (iw_net_listen("127.0.0.1", &port, &a->lfd, e))
		return -99;
	pthread_t th;
	pthread_create(&th, NULL, agent_main, a);
	int rc = kc_mark("127.0.0.1", port, text, 5000, e);
	pthread_join(th, NULL);
	close(a->lfd);
	return rc;
}

TEST(kernel_console_mark_asks_the_agent_and_waits_for_its_answer)
{
	agent a = {.answer = "exit 0\n"};
	iw_err e;
	CHECK_EQ(mark_against(&a, "fuzz run 12", &e), IW_OK);
	CHECK_STR(a.got, "mark fuzz run 12\n");
	agent b = {.answer = "error expected 'connect HOST PORT'\n"}; /* an agent without marks */
	CHECK(mark_against(&b, "fuzz run 13", &e) != IW_OK);
	CHECK(strstr(e.msg, "did not take the mark") != NULL);
	/* What the console could not show as written is refused before anything is sent. */
	CHECK_EQ(kc_mark("127.0.0.1", 9, "run\n<0>panic", 1000, &e), IW_EINVAL);
}
