/*
 * atomic_file.c - temp file in the same directory, fsync, rename (see atomic_file.h).
 */
#ifdef __linux__
#define _GNU_SOURCE             /* syncfs: one file system, not every one sync() flushes */
#endif
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AF_BUFSZ 65536

struct iw_atomic_file {
	int fd;
	int err;                /* first errno of a failed write; sticky */
	char *why;              /* a caller's reason to fail (iw_atomic_fail), owned */
	char *path;             /* target, owned */
	char *tmp;              /* temporary file, owned */
	char *dir;              /* the target's directory, for the directory fsync */
	bool batch;             /* no fsync: iw_sync_batch makes it durable with the others */
	size_t nbuf;
	unsigned char buf[AF_BUFSZ];
};

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int iw_mkdir_p(const char *dir, iw_err *e)
{
	if (!dir || !*dir)
		return iw_errf(e, -1, "cannot create directory '': empty name");
	if (is_dir(dir))
		return 0;
	char *p = strdup(dir);
	if (!p)
		return iw_errf(e, -1, "cannot create directory '%s': %s", dir, strerror(ENOMEM));
	/* Each prefix ending before a '/' (and the whole name) is a directory to make. */
	for (char *s = p + 1;; s++) {
		bool end = *s == '\0';
		if (!end && *s != '/')
			continue;
		if (s[-1] == '/' && !end)
			continue;               /* "a//b": the empty component was made already */
		*s = '\0';
		if (mkdir(p, 0777) != 0 && !is_dir(p)) {
			int err = errno;
			if (err == EEXIST)
				err = ENOTDIR;  /* a file where a directory must be */
			iw_errf(e, -1, "cannot create directory '%s': %s", p, strerror(err));
			free(p);
			return -1;
		}
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return 0;
}

/* Splits path into its directory ("." when none) and checks the last part names a file. */
static int split_path(const char *path, char **dir, const char **base, iw_err *e)
{
	if (!path || !*path)
		return iw_errf(e, -1, "cannot write a report to an empty path");
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return iw_errf(e, -1, "cannot write '%s': %s", path, strerror(EISDIR));
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
	if (!*dir)
		return iw_errf(e, -1, "cannot write '%s': %s", path, strerror(ENOMEM));
	return 0;
}

static void af_free(iw_atomic_file *af)
{
	free(af->why);
	free(af->path);
	free(af->tmp);
	free(af->dir);
	free(af);
}

iw_atomic_file *iw_atomic_open(const char *path, iw_err *e)
{
	static unsigned counter;
	char *dir = NULL;
	const char *base = NULL;
	if (split_path(path, &dir, &base, e) != 0)
		return NULL;
	if (iw_mkdir_p(dir, e) != 0) {
		free(dir);
		return NULL;
	}
	iw_atomic_file *af = calloc(1, sizeof *af);
	size_t tcap = strlen(dir) + strlen(base) + 64;
	char *tmp = malloc(tcap);
	char *p = strdup(path);
	if (!af || !tmp || !p) {
		free(af);
		free(tmp);
		free(p);
		free(dir);
		iw_errf(e, -1, "cannot write '%s': %s", path, strerror(ENOMEM));
		return NULL;
	}
	af->path = p;
	af->tmp = tmp;
	af->dir = dir;
	af->fd = -1;
	/* O_EXCL with a fresh name: never write through someone else's file or link. */
	for (int tries = 0; tries < 100 && af->fd < 0; tries++) {
		snprintf(tmp, tcap, "%s/.%s.%ld.%u.tmp", dir, base, (long)getpid(), counter++);
		af->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (af->fd < 0 && errno != EEXIST)
			break;
	}
	if (af->fd < 0) {
		int err = errno;
		iw_errf(e, -1, "cannot write '%s': cannot create a temporary file in '%s': %s", path, dir,
			strerror(err));
		af_free(af);
		return NULL;
	}
	return af;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int af_flush(iw_atomic_file *af)
{
	if (af->err || af->why)
		return -1;
	if (af->nbuf) {
		af->err = write_all(af->fd, af->buf, af->nbuf);
		af->nbuf = 0;
	}
	return af->err ? -1 : 0;
}

int iw_atomic_write(iw_atomic_file *af, const void *data, size_t len)
{
	if (af->err || af->why)
		return -1;
	if (len == 0)
		return 0;
	const unsigned char *p = data;
	if (af->nbuf + len > AF_BUFSZ) {
		if (af_flush(af) != 0)
			return -1;
		if (len >= AF_BUFSZ) {
			af->err = write_all(af->fd, p, len);
			return af->err ? -1 : 0;
		}
	}
	memcpy(af->buf + af->nbuf, p, len);
	af->nbuf += len;
	return 0;
}

int iw_atomic_puts(iw_atomic_file *af, const char *s)
{
	return iw_atomic_write(af, s, strlen(s));
}

int iw_atomic_printf(iw_atomic_file *af, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		iw_atomic_fail(af, "formatting failed");
		return -1;
	}
	if ((size_t)n < sizeof small)
		return iw_atomic_write(af, small, (size_t)n);
	char *big = malloc((size_t)n + 1);
	if (!big) {
		iw_atomic_fail(af, strerror(ENOMEM));
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	int rc = iw_atomic_write(af, big, (size_t)n);
	free(big);
	return rc;
}

bool iw_atomic_ok(const iw_atomic_file *af)
{
	return af && !af->err && !af->why;
}

void iw_atomic_fail(iw_atomic_file *af, const char *why)
{
	if (!af || af->why)
		return;
	af->why = strdup(why ? why : "failed");
	if (!af->why)
		af->err = ENOMEM;   /* still failed, with a generic reason */
}

void iw_atomic_abort(iw_atomic_file *af)
{
	if (!af)
		return;
	if (af->fd >= 0)
		close(af->fd);
	unlink(af->tmp);
	af_free(af);
}

/* The rename is durable only once the directory entry is; some file systems refuse a
 * directory fsync (EINVAL), which costs durability, not correctness, so it is not an error. */
static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int iw_atomic_commit(iw_atomic_file *af, iw_err *e)
{
	if (!af)
		return iw_errf(e, -1, "cannot write a report: no file");
	int rc = 0;
	if (af_flush(af) != 0) {
		/* A failed write is the root cause even when the caller gave up after it. */
		if (af->err)
			rc = iw_errf(e, -1, "cannot write '%s': %s", af->path, strerror(af->err));
		else
			rc = iw_errf(e, -1, "cannot write '%s': %s", af->path, af->why);
	} else if (!af->batch && fsync(af->fd) != 0 && errno != EINVAL && errno != EROFS) {
		rc = iw_errf(e, -1, "cannot write '%s': fsync: %s", af->path, strerror(errno));
	}
	int cerr = close(af->fd) != 0 ? errno : 0;
	af->fd = -1;
	if (rc == 0 && cerr != 0 && cerr != EINTR)
		rc = iw_errf(e, -1, "cannot write '%s': close: %s", af->path, strerror(cerr));
	if (rc == 0 && rename(af->tmp, af->path) != 0)
		rc = iw_errf(e, -1, "cannot write '%s': rename: %s", af->path, strerror(errno));
	if (rc != 0)
		unlink(af->tmp);
	else if (!af->batch)
		fsync_dir(af->dir);
	af_free(af);
	return rc;
}

int iw_write_atomic(const char *path, const void *data, size_t len, iw_err *e)
{
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	if (len)
		iw_atomic_write(af, data, len);
	return iw_atomic_commit(af, e);
}

int iw_write_atomic_batch(const char *path, const void *data, size_t len, iw_err *e)
{
	iw_atomic_file *af = iw_atomic_open(path, e);
	if (!af)
		return -1;
	af->batch = true;
	if (len)
		iw_atomic_write(af, data, len);
	return iw_atomic_commit(af, e);
}

int iw_sync_batch(const char *dir, iw_err *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return iw_errf(e, -1, "cannot sync '%s': %s", dir, strerror(errno));
#ifdef __linux__
	int rc = syncfs(fd);
#else
	sync();
	int rc = 0;
#endif
	int err = errno;
	close(fd);
	if (rc != 0)
		return iw_errf(e, -1, "cannot sync '%s': %s", dir, strerror(err));
	return 0;
}
