/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/net_yaml.h — a network (sim/net.h) from a topology in YAML: a
 * generator with its parameters, or hosts, switches and links written out.
 * docs/yaml.md documents every key.
 *
 *   generator: leafspine            # ring | star | leafspine | railopt
 *   hosts_per_leaf: 16
 *   leaves: 4
 *   spines: 4
 *   oversubscription: "2:1"
 *
 *   name: two-nodes                 # or written out:
 *   hosts:
 *     - {name: n0, gpus: 8, nvlink: true}
 *     - {name: n1, gpus: 8, nvlink: true}
 *   switches: [leaf0]
 *   links:
 *     - {a: n0.gpu0, b: leaf0, rate: 400Gbps, latency: 600ns, mtu: 4096}
 *     - {a: n1.gpu0, b: leaf0, count: 2}
 */
#ifndef CCLAB_SIM_NET_YAML_H
#define CCLAB_SIM_NET_YAML_H

#include "sim/net.h"
#include "util/yaml.h"

/* Builds and finishes *n from node t: a mapping as above, or a string
 * naming a topology file (relative to base_dir, the directory of the file
 * t came from; "" for the working directory), which is loaded and read the
 * same way.  0, or -EINVAL / -ENOMEM / -errno with err naming file, line
 * and column.  n must be initialised (sim_net_init) and empty. */
int sim_net_from_yaml(struct sim_net *n, const struct cy_node *t, const char *base_dir,
		      struct cy_error *err);

/* The same for a topology file. */
int sim_net_load(struct sim_net *n, const char *path, struct cy_error *err);

#endif /* CCLAB_SIM_NET_YAML_H */
