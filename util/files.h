/* SPDX-License-Identifier: BSD-3-Clause */
/* util/files.h — the files a run reads, kept apart from those it writes.
 *
 * Inputs (scenario, topology and fabric files, result files read back,
 * traces) are opened with cc_input_open(): without blocking, so a FIFO
 * with no writer cannot hang the program, and only when they are regular
 * files.  Each is remembered by its device and inode, for as long as the
 * program runs, so that an output can be refused when it is one of them
 * (util/atomic_file.c: `cclab run s.yaml --json s.yaml` would otherwise
 * destroy the scenario).  Identity by (device, inode) sees through
 * symbolic and hard links alike.
 *
 * Errors are negative errno values, or one of the CC_E* codes below, which
 * lie past every errno; cc_file_strerror() names either.
 */
#ifndef CCLAB_UTIL_FILES_H
#define CCLAB_UTIL_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

enum {
	CC_EFILE_BASE = 4096, /* errno values are below this */
	CC_ENOTREG,	      /* an input that is not a regular file */
	CC_EISINPUT,	      /* an output that is one of the run's inputs */
	CC_EUNSAFE,	      /* an output that is a block device or a socket */
	CC_ENOREADER,	      /* an output FIFO that no process reads */
	CC_ESAMEOUT,	      /* two outputs of one run name the same file */
};

/* Opens path for reading (O_RDONLY | O_NONBLOCK, then blocking again) and
 * remembers it as an input: 0 and *fd, or -errno, -EISDIR for a folder,
 * -CC_ENOTREG for a FIFO, device or socket. */
int cc_input_open(const char *path, int *fd);

/* Forgets every input opened so far and closes the descriptors kept for
 * them: for a library (lib/cclab.c), which writes no outputs to check
 * against its inputs and must not hold a descriptor per file it ever read. */
void cc_inputs_forget(void);
/* True when st is the file of an input opened so far. */
bool cc_input_is(const struct stat *st);

/* "a FIFO", "a character device", ... for st's type. */
const char *cc_file_kind(const struct stat *st);

/* What err (negative) means: strerror() or the CC_E* code's text. */
const char *cc_file_strerror(int err);

/* True for the errors that refuse an output for what it is (an input,
 * a device that would be destroyed, a second output of the same file)
 * rather than for a failure to write it: a bad command line, exit 2. */
bool cc_file_refused(int err);

/* A path (or any user text) as a message shows it: as it is, or, past
 * CC_SHOWN_MAX characters, its first and last 60 and its length, so that
 * the reason after it is still read.  buf holds CC_SHOWN_BUF bytes. */
#define CC_SHOWN_MAX 160u
#define CC_SHOWN_BUF (CC_SHOWN_MAX + 48u)
const char *cc_shown(char *buf, const char *path);

/* Whether two output paths end at the same file once their links are
 * followed, existing or not (the same folder and name, or the same inode). */
bool cc_output_same(const char *a, const char *b);

/* The whole of fd, read to its end (not trusting st_size: a file still
 * being written reads whole), into *buf (the caller frees; one byte past
 * *len is spare): 0, -errno, -ENOMEM, or -EFBIG past max bytes. */
int cc_read_all(int fd, size_t max, char **buf, size_t *len);

#endif
