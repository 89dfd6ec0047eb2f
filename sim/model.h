/* sim/model.h — what every model (link, switch, PCIe, compute, ...) shares.
 * Internal to sim/. */
#ifndef CCLAB_SIM_MODEL_H
#define CCLAB_SIM_MODEL_H

#include <stdarg.h>

/* Prints "file:line: sim <who> invariant violated: <message>" and aborts;
 * the engine and the models wrap it. */
_Noreturn void sim__vdie(const char *who, const char *file, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* An event handler cannot return an error to anyone: a broken model
 * invariant, or an engine out of event slots mid-run, prints
 * "file:line: sim model invariant violated: ..." and aborts. */
_Noreturn void sim__model_die(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* CCLAB_SIM_MODEL_H */
