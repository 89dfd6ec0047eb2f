/* SPDX-License-Identifier: BSD-3-Clause */
/* util/err.c — a message into the caller's buffer, an error code returned
 * (util/err.h). */
#include "util/err.h"

#include <stdio.h>

int cc_verrf(char *err, size_t len, int rc, const char *fmt, va_list ap)
{
	if (err && len)
		vsnprintf(err, len, fmt, ap);
	return rc;
}

int cc_errf(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = cc_verrf(err, len, rc, fmt, ap);
	va_end(ap);
	return rc;
}
