/* sim/model.c — helpers shared by the models (sim/model.h). */
#include "sim/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void sim__model_die(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: sim model invariant violated: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}
