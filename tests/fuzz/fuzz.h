/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/fuzz/fuzz.h — what the libFuzzer targets (tests/fuzz/fuzz_*.c,
 * docs/reliability.md) share: libFuzzer's entry points, declared here
 * because the build's -Wmissing-prototypes wants a prototype before each
 * definition; a failure that libFuzzer reports as a crash; and a private
 * scratch directory for the code under test that takes a path. */
#ifndef CCLAB_TESTS_FUZZ_H
#define CCLAB_TESTS_FUZZ_H

#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken invariant: the message, then abort(), which libFuzzer reports
 * as a crash and saves the input for (-artifact_prefix). */
static inline void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz: invariant broken: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static char fuzz_dir[256];

static inline int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static inline void fuzz_dir_remove(void)
{
	if (fuzz_dir[0])
		nftw(fuzz_dir, fuzz_rm, 8, FTW_DEPTH | FTW_PHYS);
}

/* A fresh, empty directory of our own, removed at exit (not after a crash:
 * tests/fuzz/run.sh points TMPDIR at a folder it removes itself).  In
 * $TMPDIR, else /dev/shm, else /tmp: the result writers fsync() every file
 * (util/atomic_file.h), which costs milliseconds on a disk and nothing on
 * tmpfs, thousands of times a second.  Its path, or NULL (perror said). */
static inline const char *fuzz_scratch(void)
{
	const char *base = getenv("TMPDIR");

	if (fuzz_dir[0])
		return fuzz_dir;
	if (!base || !*base)
		base = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/cclab-fuzz.XXXXXX", base);
	if (!mkdtemp(fuzz_dir)) {
		perror(fuzz_dir);
		fuzz_dir[0] = '\0';
		return NULL;
	}
	atexit(fuzz_dir_remove);
	return fuzz_dir;
}

#endif /* CCLAB_TESTS_FUZZ_H */
