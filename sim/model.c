/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/model.c — helpers shared by the models (sim/model.h). */
#include "sim/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void sim__vdie(const char *who, const char *file, int line, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s:%d: sim %s invariant violated: ", file, line, who);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

_Noreturn void sim__model_die(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim__vdie("model", file, line, fmt, ap);
}

static _Thread_local jmp_buf *nomem_jump;

void sim__nomem_catch(jmp_buf *jb)
{
	nomem_jump = jb;
}

_Noreturn void sim__nomem(const char *file, int line, const char *what)
{
	if (nomem_jump)
		longjmp(*nomem_jump, 1);
	sim__model_die(file, line, "%s", what);
}

_Noreturn void sim__sched_die(const char *file, int line, const char *who)
{
	if (errno == ENOMEM)
		sim__nomem(file, line, "out of memory for the event queue");
	sim__model_die(file, line, "%s: cannot schedule an event (errno %d)", who, errno);
}
