/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/scenario.h — a scenario file: what to run (a collective, or with a
 * `p2p:` section one of perftest's point-to-point tests; sizes, ...),
 * on what (a topology and a fabric), with which executors, and what the
 * results must be (expectations for regression).  docs/yaml.md documents
 * every key with its unit, default and source; scenarios/ has examples.
 *
 * Loading is strict (util/yaml.h): an unknown key, a wrong type or unit, a
 * value out of range, a missing required key, a topology that is not
 * connected or has fewer GPUs than the scenario's ranks — each stops the
 * load with file:line:col and what was expected.  Command-line overrides
 * (`--set sizes.max=1GiB`) are applied to the document before it is read,
 * so they pass the same checks; their messages name the --set.
 */
#ifndef CCLAB_SIM_SCENARIO_H
#define CCLAB_SIM_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/exec.h"
#include "core/nccl_auto.h"
#include "core/p2p.h"
#include "core/schedule.h"
#include "sim/fault.h"
#include "sim/launch.h"
#include "sim/net.h"
#include "sim/params.h"
#include "util/json.h"
#include "util/yaml.h"

/* Bounds a run's results must meet at one size (an `expect:` entry).
 * Every min is 0 and every max UINT64_MAX when unbounded. */
struct cc_expect {
	uint64_t size;                     /* the size column, bytes */
	uint32_t line;                     /* of the entry, for messages */
	char where[160];                   /* "file:line" of the entry (a --set's too) */
	/* a collective's */
	uint64_t time_min_ps, time_max_ps;
	uint64_t busbw_min_bps, busbw_max_bps;
	uint64_t data_bytes;               /* every rank's data bytes; UINT64_MAX: any */
	/* a p2p test's, perftest's columns (docs/yaml.md): t_avg as printed
	 * (half the round trip for a ping-pong), in ps; BW average in SI bit/s
	 * (perftest prints MB/sec = 2^20 B/s); MsgRate in messages per second */
	uint64_t lat_min_ps, lat_max_ps;
	uint64_t bw_min_bps, bw_max_bps;
	uint64_t rate_min_pps, rate_max_pps;
};

/* verbs: the schedule on this host's (or the launcher's) RDMA devices,
 * measured (cli/cmd_verbs.c); its ranks ignore the scenario's topology. */

#define CC_SCENARIO_NAME_LEN 64
#define CC_SCENARIO_MAX_FAULTS 8u

struct cc_scenario {
	char name[CC_SCENARIO_NAME_LEN];
	char file[1024];
	struct cc_coll_params p;   /* coll, transport, dtype, redop, nranks, chunk, slots */
	bool chunk_given, slot_given;
	uint64_t minbytes, maxbytes, stepfactor;
	uint64_t seed;
	unsigned model;            /* `model:` enum cc_sim_model (sim/exec.h): packet, flow */
	bool executor[CC_EXECUTOR_COUNT];
	uint64_t check_max;        /* sizes above it run without data (sim); UINT64_MAX: all */
	struct sim_params fabric;  /* preset + overrides, validated */
	struct sim_net net;        /* finished */
	struct cc_expect *expect;
	uint32_t nexpect;
	/* `faults:` — the simulator's (sim/fault.h), checked against net,
	 * and key and receive faults (rkey|lkey|norecv:RANK:OP, as --fault),
	 * at most CC_SCENARIO_MAX_FAULTS of both */
	struct cc_sim_fault faults[CC_SCENARIO_MAX_FAULTS];
	uint32_t nfaults;
	struct cc_fault key_faults[CC_SCENARIO_MAX_FAULTS];
	uint32_t nkey_faults;
	/* `p2p:` given: one of perftest's tests between ranks 0 and 1 instead
	 * of a collective (p, chunk_given, executor and check_max unused).
	 * p2p.size is the first size; p2p.nranks the topology's GPUs. */
	bool is_p2p;
	struct cc_p2p_params p2p;
	/* `auto` algorithm, protocol or channels: NCCL's choice per size, by
	 * nccl_version's rules under env's NCCL_* variables */
	struct cc_nccl_auto nccl;
	/* `launch:` how the benchmark's threads launch each collective
	 * (sim/launch.h); gpus_per_thread 1 (nccl-tests' default) unless given */
	struct cc_sim_launch launch;
};

/* Loads `path`, applying sets[0 .. nsets) ("key.path=value") first.
 * 0, or an error code with err filled (-EINVAL for the file's content,
 * -ENOENT/-EACCES for a file that cannot be read, -ENOMEM).  On error the
 * scenario holds nothing to free. */
int cc_scenario_load(const char *path, const char *const *sets, uint32_t nsets,
		     struct cc_scenario *sc, struct cy_error *err);
void cc_scenario_free(struct cc_scenario *sc);

/* The scenario as resolved — every default filled in — as one JSON
 * object, so a result file says exactly how it was produced. */
void cc_scenario_json(struct cc_json *j, const struct cc_scenario *sc);

/* The expectation for `size`, or NULL. */
const struct cc_expect *cc_scenario_expect(const struct cc_scenario *sc, uint64_t size);

#endif /* CCLAB_SIM_SCENARIO_H */
