/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/fabric_yaml.h — a fabric (sim/params.h) from YAML: a scenario's
 * `fabric:` mapping, or a fabric file such as `cclab calibrate` writes.
 *
 *     preset: roce-100g          # required: the values not given below
 *     name: rxe-vm               # optional: what reports call it
 *     link: {rate_bps: 240Mbps, prop_delay_ps: 3us}
 *     rnic: {req_proc_ps: 5us}
 *
 * Every key of docs/fabric.md by section (link, switch, rnic, cc, pcie,
 * host, software), each value read by its unit (util/units.h); the result
 * must pass sim_params_validate().  Messages name file, line and column.
 */
#ifndef CCLAB_SIM_FABRIC_YAML_H
#define CCLAB_SIM_FABRIC_YAML_H

#include "sim/params.h"
#include "util/yaml.h"

/* Fills *out from node f: a mapping as above, or a string naming a fabric
 * file (relative to base_dir, the directory of the file f came from; ""
 * for the working directory).  0, or -EINVAL / -ENOMEM / -errno with err
 * set; *out is undefined on error. */
int sim_fabric_from_yaml(struct sim_params *out, const struct cy_node *f, const char *base_dir,
			 struct cy_error *err);

/* The same for a fabric file: `cclab sim --fabric FILE.yaml`. */
int sim_fabric_load(struct sim_params *out, const char *path, struct cy_error *err);

/* Whether a --fabric argument names a file rather than a preset: it
 * contains a '/' or ends in .yaml or .yml. */
int sim_fabric_is_file(const char *arg);

#endif /* CCLAB_SIM_FABRIC_YAML_H */
