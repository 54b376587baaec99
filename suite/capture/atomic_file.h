/*
 * atomic_file.h - write a report so that its path never holds a half-written file.
 *
 * A CI job may read results.json while a run is being interrupted, and a lab keeps the
 * previous report until the new one is whole. So a report is written to a temporary file
 * in the target's directory (".<name>.<pid>.<n>.tmp", same file system, so rename(2) is
 * atomic), flushed with fsync, then renamed over the target; the directory is fsynced too.
 * On any error the temporary file is removed and the target is left as it was. Only a
 * process killed between open and rename leaves a temporary file behind.
 *
 * Missing directories of the target are created (mkdir -p, mode 0777 less the umask).
 * Failures return -1 and fill e with the path and the errno text, e.g.
 *   "cannot create directory 'out/x': Not a directory".
 * (iw_err.h has no I/O code: -1 is not meant as IW_EINVAL.)
 */
#ifndef IW_ATOMIC_FILE_H
#define IW_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "iw_err.h"

/* Writes data to path atomically. 0 or -1. */
int iw_write_atomic(const char *path, const void *data, size_t len, iw_err *e);

/* A file of a batch (a run's case pcaps: hundreds in one directory), written and renamed as
 * above but without the two fsyncs; iw_sync_batch then makes the whole batch durable with one
 * sync of the file system. Each fsync waits for a journal commit: two per case pcap made a run
 * with --pcap take 7.6 s instead of 2.6 s. A reader still never sees half a file; only a crash
 * before the batch's sync may leave one empty. */
int iw_write_atomic_batch(const char *path, const void *data, size_t len, iw_err *e);

/* Makes the files of a batch written into dir durable (syncfs on Linux, sync elsewhere). 0 or
 * -1 with e when dir cannot be opened or the sync fails. */
int iw_sync_batch(const char *dir, iw_err *e);

/* Creates dir and its missing parents. An existing directory is success. 0 or -1. */
int iw_mkdir_p(const char *dir, iw_err *e);

/*
 * Streaming form, for reports too large to build in memory first:
 *
 *   iw_atomic_file *af = iw_atomic_open(path, e);
 *   if (!af) return -1;
 *   iw_atomic_write(af, ...); ...            (errors are sticky, checked at commit)
 *   return iw_atomic_commit(af, e);          (or iw_atomic_abort(af) to give up)
 *
 * commit and abort always free af.
 */
typedef struct iw_atomic_file iw_atomic_file;

iw_atomic_file *iw_atomic_open(const char *path, iw_err *e);

/* Buffered; returns 0, or -1 once any write has failed (the error is reported by commit). */
int iw_atomic_write(iw_atomic_file *af, const void *data, size_t len);
int iw_atomic_puts(iw_atomic_file *af, const char *s);
int iw_atomic_printf(iw_atomic_file *af, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* False once a write has failed or iw_atomic_fail was called: the caller may stop early. */
bool iw_atomic_ok(const iw_atomic_file *af);

/* Marks the file failed with a message of the caller's (e.g. out of memory while
 * building it): commit then removes the temporary file and returns -1 with that message. */
void iw_atomic_fail(iw_atomic_file *af, const char *why);

/* Flushes, fsyncs and renames over the target. 0 or -1 (then the target is untouched). */
int iw_atomic_commit(iw_atomic_file *af, iw_err *e);

/* Removes the temporary file; the target is untouched. */
void iw_atomic_abort(iw_atomic_file *af);

#endif
