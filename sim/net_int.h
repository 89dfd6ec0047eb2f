/* sim/net_int.h — what sim/net.c shares with the other files that build
 * networks (sim/net_gen.c).  Internal to sim/.
 */
#ifndef CCLAB_SIM_NET_INT_H
#define CCLAB_SIM_NET_INT_H

#include <stddef.h>

/* Formats a message into err (when there is room) and returns rc: the
 * error path of every function that takes (err, errlen). */
int sim_net__errf(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* CCLAB_SIM_NET_INT_H */
