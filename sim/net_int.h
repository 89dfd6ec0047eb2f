/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/net_int.h — what sim/net.c shares with the other files that build
 * networks (sim/net_gen.c).  Internal to sim/.
 */
#ifndef CCLAB_SIM_NET_INT_H
#define CCLAB_SIM_NET_INT_H

#include <stddef.h>


#endif /* CCLAB_SIM_NET_INT_H */
