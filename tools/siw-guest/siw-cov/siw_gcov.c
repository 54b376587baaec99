// SPDX-License-Identifier: GPL-2.0
/*
 * siw_gcov.c - siw's coverage counters, read and reset from user space, on a kernel that has no
 * CONFIG_GCOV_KERNEL (Debian's). Linked into siw.ko when tools/siw-guest/build.sh builds the
 * profiled module (siw-cov.ko, siw-patched-cov.ko): siw's own objects are compiled with
 * -fprofile-arcs -fprofile-info-section, and sit between gcov_begin.o and gcov_end.o, whose null
 * entries bracket the section of gcov_info pointers (gcov_begin.c says why).
 *
 * debugfs, /sys/kernel/debug/siw_gcov/ (the guest's agent reads them for the harness,
 * reflector/rfl_agent.c):
 *   gcda   the .gcda of each unit, as text the agent can relay line by line:
 *          "file PATH" (the path the compiler gave it), then "hex HEX" lines of at most 64
 *          octets each; a snapshot taken when the file is opened.
 *   arcs   "arcs TOTAL HIT": arc counters in all, and how many are nonzero; then the bitmap of
 *          the nonzero ones as "hex HEX" lines (bit i is octet i/8, bit i%8, least significant
 *          first): what a fuzzer steering by coverage compares run by run. -fprofile-arcs makes
 *          the arc counters the only kind, so these are every counter the units have.
 *   reset  writing anything zeroes every counter.
 * The counters are plain memory that siw's code increments without locks, as in any gcov build:
 * a count may lose an increment to a race, a nonzero one stays nonzero.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "gcda.h"

#define HEX_OCTETS 64

extern const void *siw_gcov_section_begin[1], *siw_gcov_section_end[1];

void siw_gcov_start(void);
void siw_gcov_stop(void);
void __gcov_merge_add(u64 *counters, u32 n);

/* Named in every gcov_info; only libgcov's merging of runs into a file calls it, never here. */
void __gcov_merge_add(u64 *counters, u32 n)
{
}

#define for_each_unit(gi, p)                                                                 \
	for (p = siw_gcov_section_begin; p <= siw_gcov_section_end; p++)                   \
		if (!(gi = *p)) {} else

static struct dentry *dir;

/* A text snapshot: filled at open, read with simple_read_from_buffer, freed at release. */
struct snapshot {
	size_t len, cap;
	char text[];
};

static void put_text(struct snapshot *s, const char *t, size_t n)
{
	if (s->len + n <= s->cap)
		memcpy(s->text + s->len, t, n);
	s->len += n;
}

static void put_hex_lines(struct snapshot *s, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i += HEX_OCTETS) {
		size_t k = min_t(size_t, HEX_OCTETS, n - i);
		char line[8 + 2 * HEX_OCTETS];
		put_text(s, line, scnprintf(line, sizeof line, "hex %*phN\n", (int)k, b + i));
	}
}

static size_t hex_size(size_t octets)
{
	return octets / HEX_OCTETS * (5 + 2 * HEX_OCTETS) + (octets % HEX_OCTETS ? 5 + 2 * (octets % HEX_OCTETS) : 0);
}

static int open_snapshot(struct file *f, struct snapshot *s)
{
	if (!s)
		return -ENOMEM;
	f->private_data = s;
	return 0;
}

static ssize_t read_snapshot(struct file *f, char __user *buf, size_t n, loff_t *pos)
{
	struct snapshot *s = f->private_data;

	return simple_read_from_buffer(buf, n, pos, s->text, min(s->len, s->cap));
}

static int release_snapshot(struct inode *inode, struct file *f)
{
	vfree(f->private_data);
	return 0;
}

static struct snapshot *new_snapshot(size_t cap)
{
	struct snapshot *s = vmalloc(sizeof(*s) + cap);

	if (s) {
		s->len = 0;
		s->cap = cap;
	}
	return s;
}

static int gcda_open(struct inode *inode, struct file *f)
{
	const struct gcov_info *gi;
	const void **p;
	size_t cap = 0, most = 0;
	unsigned char *buf;
	struct snapshot *s;

	/* Sized for the largest .gcda of each unit: siw runs on while the copy is made, and an
	 * all-zero counter array that turns nonzero meanwhile makes its file longer. */
	for_each_unit(gi, p) {
		u32 n = gcda_max_size(gi);

		cap += 6 + strlen(gi->filename) + hex_size(n);
		most = max_t(size_t, most, n);
	}
	buf = vmalloc(most + 1);
	s = new_snapshot(cap);
	if (!buf || !s) {
		vfree(buf);
		vfree(s);
		return -ENOMEM;
	}
	for_each_unit(gi, p) {
		u32 n = gcda_write(gi, buf, most);

		put_text(s, "file ", 5);
		put_text(s, gi->filename, strlen(gi->filename));
		put_text(s, "\n", 1);
		put_hex_lines(s, buf, n);
	}
	vfree(buf);
	return open_snapshot(f, s);
}

struct arc_count {
	u32 total, hit;
	unsigned char *bits;
};

static void count_arcs(u64 *values, u32 n, void *arg)
{
	struct arc_count *c = arg;

	for (u32 i = 0; i < n; i++, c->total++) {
		if (!values[i])
			continue;
		c->hit++;
		if (c->bits)
			c->bits[c->total / 8] |= 1u << (c->total % 8);
	}
}

static int arcs_open(struct inode *inode, struct file *f)
{
	const struct gcov_info *gi;
	const void **p;
	struct arc_count c = {0};
	struct snapshot *s;
	char line[40];
	u32 octets;

	for_each_unit(gi, p)
		gcda_each_counter_array(gi, count_arcs, &c);
	octets = (c.total + 7) / 8;
	c.bits = vzalloc(octets + 1);
	s = new_snapshot(sizeof line + hex_size(octets));
	if (!c.bits || !s) {
		vfree(c.bits);
		vfree(s);
		return -ENOMEM;
	}
	c.total = c.hit = 0;
	for_each_unit(gi, p)
		gcda_each_counter_array(gi, count_arcs, &c);
	put_text(s, line, scnprintf(line, sizeof line, "arcs %u %u\n", c.total, c.hit));
	put_hex_lines(s, c.bits, octets);
	vfree(c.bits);
	return open_snapshot(f, s);
}

static void zero_array(u64 *values, u32 n, void *arg)
{
	memset(values, 0, n * sizeof(*values));
}

static ssize_t reset_write(struct file *f, const char __user *buf, size_t n, loff_t *pos)
{
	const struct gcov_info *gi;
	const void **p;

	for_each_unit(gi, p)
		gcda_each_counter_array(gi, zero_array, NULL);
	return n;
}

static const struct file_operations gcda_fops = {
	.owner = THIS_MODULE,
	.open = gcda_open,
	.read = read_snapshot,
	.release = release_snapshot,
	.llseek = default_llseek,
};

static const struct file_operations arcs_fops = {
	.owner = THIS_MODULE,
	.open = arcs_open,
	.read = read_snapshot,
	.release = release_snapshot,
	.llseek = default_llseek,
};

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.write = reset_write,
	.llseek = noop_llseek,
};

/* Called once siw's own init succeeded (the hook build.sh puts on siw_main.c's module_init
 * line). Without debugfs the module still works, uncounted: said on the console. */
void siw_gcov_start(void)
{
	const struct gcov_info *gi;
	const void **p;
	int units = 0;

	for_each_unit(gi, p)
		units++;
	dir = debugfs_create_dir("siw_gcov", NULL);
	if (IS_ERR_OR_NULL(dir)) {
		pr_warn("siw_gcov: no debugfs directory: siw's coverage cannot be read\n");
		return;
	}
	debugfs_create_file("gcda", 0400, dir, NULL, &gcda_fops);
	debugfs_create_file("arcs", 0400, dir, NULL, &arcs_fops);
	debugfs_create_file("reset", 0200, dir, NULL, &reset_fops);
	pr_info("siw_gcov: coverage of %d units in /sys/kernel/debug/siw_gcov\n", units);
}

void siw_gcov_stop(void)
{
	debugfs_remove_recursive(dir);
}
