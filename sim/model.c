/* sim/model.c — helpers shared by the models (sim/model.h). */
#include "sim/model.h"

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
