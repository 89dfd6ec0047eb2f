/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/scenario_int.h — between sim/scenario.c (the file, a collective)
 * and sim/scenario_p2p.c (the `p2p:` section and its expectations); not
 * for other users. */
#ifndef CCLAB_SIM_SCENARIO_INT_H
#define CCLAB_SIM_SCENARIO_INT_H

#include "sim/scenario.h"
#include "util/json.h"
#include "util/yaml.h"

/* A typed reader of util/yaml.h (cy_time, cy_rate, cy_msg_rate). */
typedef int (*cc_scenario_value_fn)(const struct cy_node *n, const char *key, uint64_t *out,
				    struct cy_error *err);

/* {min: X, max: Y} (either or both) read by `value`; *lo and *hi are left
 * as they are for a bound not given. */
int cc_scenario_read_range(const struct cy_node *m, const char *key, cc_scenario_value_fn value,
			   uint64_t *lo, uint64_t *hi, struct cy_error *err);

/* ---- sim/scenario_p2p.c, in the order cc_scenario_load() calls them ---- */

/* The document has `p2p:`: refuses a collective's keys beside it (at the
 * first such key), reads the section into sc->p2p with perftest's
 * defaults, sets sc->is_p2p. */
int cc_scenario_p2p_read(const struct cy_node *doc, struct cc_scenario *sc, struct cy_error *err);
/* After `sizes` (or its absence: perftest's default size) and `fabric`:
 * every size of the sweep is one the test takes, and GPU buffers are
 * reachable on the fabric. */
int cc_scenario_p2p_sizes(const struct cy_node *doc, struct cc_scenario *sc, struct cy_error *err);
/* After the topology: it has the two ranks the test needs. */
int cc_scenario_p2p_net(const struct cy_node *doc, struct cc_scenario *sc, struct cy_error *err);

/* The keys an expectation of this scenario takes (NULL-terminated), and
 * a refusal of the other kind's keys, named as such.  0 or -EINVAL. */
const char *const *cc_scenario_expect_keys(const struct cc_scenario *sc);
int cc_scenario_expect_kind(const struct cy_node *e, const struct cc_scenario *sc,
			    struct cy_error *err);
/* A p2p expectation's lat, bw and msg_rate into x (size already read). */
int cc_scenario_p2p_expect(const struct cy_node *e, const struct cc_scenario *sc,
			   struct cc_expect *x, struct cy_error *err);

/* The resolved section, and one expectation's p2p bounds, as JSON members
 * of the object being written. */
void cc_scenario_p2p_json(struct cc_json *j, const struct cc_scenario *sc);
void cc_scenario_p2p_expect_json(struct cc_json *j, const struct cc_expect *x);

/* ---- sim/scenario_nccl.c: NCCL's choices (`auto`, nccl_version, env) ---- */

/* `key: auto` sets *autov; any other value is read as cy_enum(). */
int cc_scenario_auto_enum(const struct cy_node *doc, const char *key, const char *const *names,
			  unsigned count, unsigned *out, bool *autov, struct cy_error *err);
/* `channels: auto` or a count 1..64. */
int cc_scenario_auto_channels(const struct cy_node *doc, struct cc_scenario *sc,
			      struct cy_error *err);
/* `nccl_version:` and `env:` into sc->nccl. */
int cc_scenario_nccl_read(const struct cy_node *doc, struct cc_scenario *sc,
			  struct cy_error *err);
/* After the topology and fabric: NCCL's communicator for them, when
 * anything is auto; the communicator's channels and rail-ordered rings
 * until a size chooses. */
int cc_scenario_nccl_finish(const struct cy_node *doc, struct cc_scenario *sc,
			    struct cy_error *err);
/* "nccl": what is auto, the release, the NCCL_* variables given and the
 * communicator's channels, as members of the scenario's object. */
void cc_scenario_nccl_json(struct cc_json *j, const struct cc_scenario *sc);

#endif /* CCLAB_SIM_SCENARIO_INT_H */
