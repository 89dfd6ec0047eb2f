/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/files.h — file helpers for the cmocka tests that write result
 * files (test_results.c, test_trace.c): a private temporary directory, paths
 * in it, its entry count, and a whole file read back.  Include after
 * <cmocka.h>. */
#ifndef CCLAB_TESTS_FILES_H
#define CCLAB_TESTS_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tmpdir {
	char path[64];
};

/* A fresh directory /tmp/cclab-test-<tag>.XXXXXX. */
static inline void tmpdir_make(struct tmpdir *t, const char *tag)
{
	snprintf(t->path, sizeof(t->path), "/tmp/cclab-test-%s.XXXXXX", tag);
	assert_non_null(mkdtemp(t->path));
}

static inline void path_in(char *buf, size_t len, const struct tmpdir *t, const char *name)
{
	snprintf(buf, len, "%s/%s", t->path, name);
}

/* Entries in dir other than . and .. */
static inline int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* The whole file, NUL-terminated (caller frees); NULL if it cannot be
 * opened.  *len, when given, gets its size. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static inline void file_is(const char *path, const char *want)
{
	char *s = slurp(path, NULL);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

#endif
