/*
 * test_reports_atomic.c - atomic report writes (atomic_file.h): missing directories created, a
 * replaced file left whole with no temp file beside it, clear errors for unwritable places, a
 * streamed write aborted or failed keeping the old content, and every report written into a new
 * directory.
 */
#include "report_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "report.h"

/* ---- atomic writes ---------------------------------------------------------------------- */

TEST(reports_atomic_creates_missing_dirs)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	char sub[256], path[320];
	snprintf(sub, sizeof sub, "%s/a/b//c", dir);
	snprintf(path, sizeof path, "%s/out.txt", sub);
	iw_err e = {{0}};
	CHECK_EQ(iw_write_atomic(path, "hello\n", 6, &e), 0);
	size_t n;
	char *got = rp_read_file(path, &n);
	CHECK(got && n == 6 && !memcmp(got, "hello\n", 6));
	free(got);
	int ntmp;
	CHECK_EQ(rp_count_entries(sub, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
	/* Replacing keeps one file with the new content, nothing else. */
	CHECK_EQ(iw_write_atomic(path, "new content", 11, &e), 0);
	got = rp_read_file(path, &n);
	CHECK(got && n == 11 && !memcmp(got, "new content", 11));
	free(got);
	CHECK_EQ(rp_count_entries(sub, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
	/* An empty file is a file too. */
	CHECK_EQ(iw_write_atomic(path, NULL, 0, &e), 0);
	got = rp_read_file(path, &n);
	CHECK(got && n == 0);
	free(got);
	rp_rm_rf(dir);
}

TEST(reports_atomic_unwritable_location)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	char file[256], path[300];
	snprintf(file, sizeof file, "%s/plain", dir);
	CHECK_EQ(iw_write_atomic(file, "x", 1, NULL), 0);
	snprintf(path, sizeof path, "%s/sub/results.json", file);
	iw_err e = {{0}};
	CHECK(iw_write_atomic(path, "data", 4, &e) != 0);
	CHECK(strstr(e.msg, file) != NULL);
	CHECK(strstr(e.msg, strerror(ENOTDIR)) != NULL);

	/* The target is a directory: the rename fails, the temp file goes, the directory stays. */
	char d2[256];
	snprintf(d2, sizeof d2, "%s/isdir", dir);
	CHECK_EQ(mkdir(d2, 0755), 0);
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic(d2, "data", 4, &e) != 0);
	CHECK(strstr(e.msg, d2) != NULL);
	CHECK(strstr(e.msg, strerror(EISDIR)) != NULL);
	struct stat st;
	CHECK(stat(d2, &st) == 0 && S_ISDIR(st.st_mode));
	int ntmp;
	CHECK_EQ(rp_count_entries(dir, &ntmp), 2);
	CHECK_EQ(ntmp, 0);

	/* A directory we may not write into (permissions do not stop root). */
	if (geteuid() != 0) {
		char ro[256], p2[300];
		snprintf(ro, sizeof ro, "%s/ro", dir);
		CHECK_EQ(mkdir(ro, 0500), 0);
		snprintf(p2, sizeof p2, "%s/junit.xml", ro);
		memset(&e, 0, sizeof e);
		CHECK(iw_write_atomic(p2, "x", 1, &e) != 0);
		CHECK(strstr(e.msg, p2) != NULL);
		CHECK(strstr(e.msg, strerror(EACCES)) != NULL);
		CHECK_EQ(rp_count_entries(ro, &ntmp), 0);
	}
	/* /proc takes no new files, for root either. */
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic("/proc/iwspec-reports-test.json", "x", 1, &e) != 0);
	CHECK(strstr(e.msg, "/proc/iwspec-reports-test.json") != NULL);
	CHECK(strstr(e.msg, strerror(ENOENT)) || strstr(e.msg, strerror(EACCES)) || strstr(e.msg, strerror(EROFS)));
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic("", "x", 1, &e) != 0);
	CHECK(e.msg[0] != '\0');
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic("out/", "x", 1, &e) != 0);
	CHECK(strstr(e.msg, "'out/'") != NULL);
	rp_rm_rf(dir);
}

TEST(reports_atomic_streaming_abort_and_fail)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	char path[256];
	snprintf(path, sizeof path, "%s/report.json", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_write_atomic(path, "old", 3, &e), 0);

	/* Until commit the target keeps its old content; abort leaves it so. */
	iw_atomic_file *af = iw_atomic_open(path, &e);
	CHECK(af != NULL);
	if (af) {
		iw_atomic_puts(af, "half a rep");
		char *mid = rp_read_file(path, NULL);
		CHECK_STR(mid, "old");
		free(mid);
		iw_atomic_abort(af);
	}
	char *got = rp_read_file(path, NULL);
	CHECK_STR(got, "old");
	free(got);

	/* A caller's failure: commit reports it, removes the temp file, keeps the old target. */
	af = iw_atomic_open(path, &e);
	if (af) {
		iw_atomic_puts(af, "partial");
		iw_atomic_fail(af, "out of memory while building the JSON");
		CHECK(!iw_atomic_ok(af));
		CHECK(iw_atomic_puts(af, "more") != 0);
		memset(&e, 0, sizeof e);
		CHECK(iw_atomic_commit(af, &e) != 0);
		CHECK(strstr(e.msg, path) != NULL);
		CHECK(strstr(e.msg, "out of memory") != NULL);
	}
	got = rp_read_file(path, NULL);
	CHECK_STR(got, "old");
	free(got);

	/* Many writes of odd sizes, across and beyond the buffer, arrive in order. */
	size_t total = 300000;
	uint8_t *want = malloc(total);
	af = iw_atomic_open(path, &e);
	CHECK(af != NULL);
	if (af && want) {
		for (size_t k = 0; k < total; k++)
			want[k] = (uint8_t)(k * 31 + (k >> 8));
		size_t off = 0, step = 1;
		while (off < total) {
			size_t n = step < total - off ? step : total - off;
			CHECK_EQ(iw_atomic_write(af, want + off, n), 0);
			off += n;
			step = step * 3 + 1;
			if (step > 100000)
				step = 7;
		}
		iw_atomic_printf(af, "%s-%d", "tail", 7);
		CHECK_EQ(iw_atomic_commit(af, &e), 0);
		size_t n;
		got = rp_read_file(path, &n);
		CHECK_EQ(n, total + 6);
		if (got && n == total + 6) {
			CHECK(memcmp(got, want, total) == 0);
			CHECK_MEM(got + total, "tail-7", 6);
		}
		free(got);
	} else if (af) {
		iw_atomic_abort(af);
	}
	free(want);
	int ntmp;
	CHECK_EQ(rp_count_entries(dir, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
	rp_rm_rf(dir);
}

TEST(reports_write_all_into_new_dir)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	iw_run run;
	rp_make_run(&run);
	char out[256], p[300];
	snprintf(out, sizeof out, "%s/out/latest", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_write_all(&run, out, &e), 0);
	struct stat st;
	snprintf(p, sizeof p, "%s/results.json", out);
	CHECK(stat(p, &st) == 0 && st.st_size > 100);
	snprintf(p, sizeof p, "%s/junit.xml", out);
	CHECK(stat(p, &st) == 0 && st.st_size > 100);
	int ntmp;
	CHECK_EQ(rp_count_entries(out, &ntmp), 2);
	CHECK_EQ(ntmp, 0);
	iw_run_free(&run);
	rp_rm_rf(dir);
}
