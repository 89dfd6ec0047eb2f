/* SPDX-License-Identifier: BSD-3-Clause */
/* util/err.h — the one way a check reports a bad input: a message into the
 * caller's buffer and an error code returned, so that a check reads
 * `return cc_errf(err, len, -EINVAL, "size %llu is not ...", ...)`.
 *
 * Library code never prints (docs/architecture.md, "Errors"): the caller
 * decides whether and how the message is shown.  The YAML reader's cy_fail()
 * (util/yaml.h) is this with the node's file:line:col in front. */
#ifndef CCLAB_UTIL_ERR_H
#define CCLAB_UTIL_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Formats fmt into err (len bytes, truncated, NUL-terminated; nothing when
 * err is NULL or len is 0) and returns rc, a negative errno. */
int cc_errf(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int cc_verrf(char *err, size_t len, int rc, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

#endif /* CCLAB_UTIL_ERR_H */
