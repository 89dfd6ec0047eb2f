/* SPDX-License-Identifier: BSD-3-Clause */
/* util/atomic_file.h — atomic output files.
 *
 * A result file is either complete or absent: the data goes to a temporary
 * file created (mkstemp) in the target's directory, is flushed and
 * fsync()ed, and is renamed over the target, which replaces it atomically
 * (rename(2)); the directory is then fsync()ed so the rename itself is
 * durable.  On any error the temporary file is removed and the target is
 * left as it was.  SIGINT, SIGTERM and SIGHUP remove the temporary files
 * still open before the program ends (util/atomic_file.c).
 *
 * Only a regular file (or a name not yet taken) is replaced so.  What the
 * target is decides, as a shell's '>' would, but never destroying it:
 *   "-"                         stdout itself;
 *   a symbolic link             followed: its target is replaced, the link stays;
 *   /dev/stdout, /dev/fd/N, ... the open file itself, written where it stands
 *                               (shares the offset: nothing already there is lost);
 *   a FIFO, a character device  opened and written directly (a FIFO without a
 *                               reader is refused, never waited for);
 *   a directory                 -EISDIR, at open;
 *   a block device, a socket    refused (-CC_EUNSAFE);
 *   one of the run's inputs     refused (-CC_EISINPUT, util/files.h), through links too.
 * A file written directly cannot be taken back: abort closes it as it is.
 * Functions return 0 or a negative error, named by cc_file_strerror(). */
#ifndef CCLAB_UTIL_ATOMIC_FILE_H
#define CCLAB_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cc_atomic_file {
	FILE *f;       /* write here between open and commit */
	char *tmp;     /* temporary path; NULL when written directly */
	char *path;    /* target path, links followed */
	int slot;      /* its place among the files a signal removes, or -1 */
	bool borrowed; /* f is stdout: flushed, never closed */
};

int cc_atomic_open(struct cc_atomic_file *af, const char *path);
/* Flush, fsync, close, rename.  Whatever happens, af is released. */
int cc_atomic_commit(struct cc_atomic_file *af);
/* Drop the temporary file; the target is untouched. */
void cc_atomic_abort(struct cc_atomic_file *af);
/* The three above for a buffer. */
int cc_write_file_atomic(const char *path, const void *data, size_t len);
/* What cc_atomic_open() would refuse, said before a long run without
 * creating, opening or changing anything at path. */
int cc_atomic_check(const char *path);

#endif
