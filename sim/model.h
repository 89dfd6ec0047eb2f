/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/model.h — what every model (link, switch, PCIe, compute, ...) shares.
 * Internal to sim/. */
#ifndef CCLAB_SIM_MODEL_H
#define CCLAB_SIM_MODEL_H

#include <setjmp.h>
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

/* Out of memory where no error can be returned (an event handler, a
 * model's queue, the engine's heap mid-run): not a broken invariant but a
 * run too large for the memory it may use.  Unwinds to the recovery point
 * of the run on this thread (sim__nomem_catch(): cc_sim_run sets one, and
 * the run then fails with -ENOMEM, everything freed); with none, prints
 * the message and aborts as sim__model_die. */
_Noreturn void sim__nomem(const char *file, int line, const char *what);
/* The recovery point sim__nomem() jumps to on this thread (per thread:
 * `cclab tune` runs simulations on several at once); NULL clears it. */
void sim__nomem_catch(jmp_buf *jb);
/* A failed sim_schedule() mid-run: out of memory for the event heap
 * (errno ENOMEM) goes to sim__nomem, anything else is a broken invariant. */
_Noreturn void sim__sched_die(const char *file, int line, const char *who);

#endif /* CCLAB_SIM_MODEL_H */
