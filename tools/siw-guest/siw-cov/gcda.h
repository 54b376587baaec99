/*
 * gcda.h - gcc's profiling data, as a module built with -fprofile-arcs -fprofile-info-section
 * holds it, and the .gcda file gcov reads back from it.
 *
 * siw.ko is profiled on Debian's kernel, which has no CONFIG_GCOV_KERNEL: the module carries its
 * own runtime (siw_gcov.c). -fprofile-info-section (gcc 12) puts a pointer to each translation
 * unit's gcov_info in the section .gcov_info instead of registering it from a constructor, so no
 * libgcov and no constructors are needed; the counters are plain memory the instrumented code
 * increments. This header is the one place the layout of gcc 12's structures (gcc/gcov-io.h,
 * libgcc/libgcov.h) and of the .gcda format is written down. Both the module and the host test
 * (tests/cli/siw_gcda.sh) include it: the test checks the writer against libgcov's own output.
 *
 * The includer defines the fixed-width types (u32, u64) and nothing else: no libc is used.
 */
#ifndef IWSPEC_SIW_GCDA_H
#define IWSPEC_SIW_GCDA_H

#if !defined(__GNUC__) || defined(__clang__) || __GNUC__ != 12
#error "gcda.h describes gcc 12's gcov_info; another compiler lays it out differently (Debian 12's kernel is built with gcc 12)"
#endif

#define GCDA_MAGIC           0x67636461u /* "gcda" */
#define GCDA_TAG_FUNCTION    0x01000000u
#define GCDA_TAG_COUNTER(i)  (0x01a10000u + ((u32)(i) << 17))
#define GCDA_TAG_SUMMARY     0xa1000000u
#define GCDA_COUNTER_KINDS   8           /* arcs, interval, pow2, topn, indirect call, average, ior, time */

struct gcov_info;
typedef void (*gcov_merge_fn)(u64 *, u32);

struct gcov_ctr_info {
	u32 num;        /* counters of this kind in the function */
	u64 *values;
};

struct gcov_fn_info {
	const struct gcov_info *key; /* the unit it belongs to; another unit's: a COMDAT copy */
	u32 ident;
	u32 lineno_checksum;
	u32 cfg_checksum;
	struct gcov_ctr_info ctrs[]; /* one per active kind (merge[kind] != 0), in kind order */
};

struct gcov_info {
	u32 version;
	struct gcov_info *next;
	u32 stamp;
	u32 checksum;
	const char *filename;        /* the .gcda's path, as the compiler saw the object's */
	gcov_merge_fn merge[GCDA_COUNTER_KINDS];
	u32 n_functions;
	const struct gcov_fn_info *const *functions;
};

/* The counters of one unit, in the order the .gcda lists them: calls fn(values, n, arg). */
static inline void gcda_each_counter_array(const struct gcov_info *gi, void (*fn)(u64 *, u32, void *), void *arg)
{
	for (u32 f = 0; f < gi->n_functions; f++) {
		const struct gcov_fn_info *fi = gi->functions[f];
		if (!fi || fi->key != gi)
			continue;
		const struct gcov_ctr_info *c = fi->ctrs;
		for (u32 k = 0; k < GCDA_COUNTER_KINDS; k++)
			if (gi->merge[k])
				fn(c->values, c->num, arg), c++;
	}
}

/* Appends a word at *pos when it fits in buf (size cap); the size is counted either way. */
static inline void gcda_put(unsigned char *buf, u32 cap, u32 *pos, u32 w)
{
	if (buf && *pos + 4 <= cap) {
		buf[*pos] = (unsigned char)w;
		buf[*pos + 1] = (unsigned char)(w >> 8);
		buf[*pos + 2] = (unsigned char)(w >> 16);
		buf[*pos + 3] = (unsigned char)(w >> 24);
	}
	*pos += 4;
}

/* The largest .gcda gi can have: every counter array written out (gcda_write writes an all-zero
 * one shorter), so a buffer this large holds the file however the counters move meanwhile. */
static inline u32 gcda_max_size(const struct gcov_info *gi)
{
	u32 size = 32;
	for (u32 f = 0; f < gi->n_functions; f++) {
		const struct gcov_fn_info *fi = gi->functions[f];
		size += 8;
		if (!fi || fi->key != gi)
			continue;
		size += 12;
		const struct gcov_ctr_info *c = fi->ctrs;
		for (u32 k = 0; k < GCDA_COUNTER_KINDS; k++)
			if (gi->merge[k])
				size += 8 + c->num * 8, c++;
	}
	return size;
}

/*
 * Writes gi's .gcda into buf (at most cap octets; buf may be NULL) for one run, and returns its
 * size: with a size over cap, call again with a buffer that large. Little-endian, as gcov on
 * this host reads it. As libgcov does, a counter array that is all zero is written as its length
 * negated and no values, and the object summary gives one run and the largest arc counter.
 */
static inline u32 gcda_write(const struct gcov_info *gi, unsigned char *buf, u32 cap)
{
	u32 pos = 0;
	u64 sum_max = 0;
	for (u32 f = 0; f < gi->n_functions; f++) {
		const struct gcov_fn_info *fi = gi->functions[f];
		if (!fi || fi->key != gi || !gi->merge[0])
			continue;
		for (u32 i = 0; i < fi->ctrs[0].num; i++)
			if (fi->ctrs[0].values[i] > sum_max)
				sum_max = fi->ctrs[0].values[i];
	}
	gcda_put(buf, cap, &pos, GCDA_MAGIC);
	gcda_put(buf, cap, &pos, gi->version);
	gcda_put(buf, cap, &pos, gi->stamp);
	gcda_put(buf, cap, &pos, gi->checksum);
	gcda_put(buf, cap, &pos, GCDA_TAG_SUMMARY);
	gcda_put(buf, cap, &pos, 8);
	gcda_put(buf, cap, &pos, 1);
	gcda_put(buf, cap, &pos, sum_max > 0xffffffffu ? 0xffffffffu : (u32)sum_max);
	for (u32 f = 0; f < gi->n_functions; f++) {
		const struct gcov_fn_info *fi = gi->functions[f];
		gcda_put(buf, cap, &pos, GCDA_TAG_FUNCTION);
		if (!fi || fi->key != gi) {
			gcda_put(buf, cap, &pos, 0);
			continue;
		}
		gcda_put(buf, cap, &pos, 12);
		gcda_put(buf, cap, &pos, fi->ident);
		gcda_put(buf, cap, &pos, fi->lineno_checksum);
		gcda_put(buf, cap, &pos, fi->cfg_checksum);
		const struct gcov_ctr_info *c = fi->ctrs;
		for (u32 k = 0; k < GCDA_COUNTER_KINDS; k++) {
			if (!gi->merge[k])
				continue;
			int any = 0;
			for (u32 i = 0; i < c->num; i++)
				any |= c->values[i] != 0;
			gcda_put(buf, cap, &pos, GCDA_TAG_COUNTER(k));
			gcda_put(buf, cap, &pos, (any ? 1u : (u32)-1) * c->num * 8u);
			for (u32 i = 0; any && i < c->num; i++) {
				gcda_put(buf, cap, &pos, (u32)c->values[i]);
				gcda_put(buf, cap, &pos, (u32)(c->values[i] >> 32));
			}
			c++;
		}
	}
	return pos;
}

#endif
