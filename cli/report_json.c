/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/report_json.c — the parts of the --json report that `cclab check`
 * and `cclab sim` share: the run's parameters at the top, the head of a
 * size's entry, a run's status, and writing the finished document.
 *
 * One object: what ran (every parameter, so a file is self-describing),
 * then one entry per size with per-rank arrays indexed by rank.  Integers
 * are exact (util/json.h's writer), key order is fixed, so two runs with
 * the same parameters give byte-identical files.
 */
#include <errno.h>
#include <string.h>

#include "cli/check.h"
#include "core/algo.h"
#include "core/dtype.h"

static const char *const run_status_names[] = {
	[CC_RUN_OK] = "ok",
	[CC_RUN_COMPLETION_ERROR] = "completion_error",
	[CC_RUN_POST_ERROR] = "post_error",
	[CC_RUN_DEADLOCK] = "deadlock",
	[CC_RUN_EARLY_READ] = "early_read",
	[CC_RUN_TIME_LIMIT] = "time_limit",
};

const char *cli_run_status_name(enum cc_run_status st)
{
	if ((unsigned)st < sizeof(run_status_names) / sizeof(run_status_names[0]) &&
	    run_status_names[st])
		return run_status_names[st];
	return "unknown";
}

/* Each document's layout, versioned on its own and described by
 * docs/schemas/NAME.schema.json: a version goes up when a key changes
 * meaning or goes, not when one is added. */
static const struct {
	const char *command, *schema;
	unsigned version;
} schemas[] = {
	/* collective 2: under `auto`, "algorithm" and "protocol" say "auto"
	 * where 1 named the settings NCCL's choice replaced */
	{"check", "collective", 2}, {"sim", "collective", 2}, {"run", "collective", 2},
	{"p2p", "p2p", 1}, {"tune", "tune", 1}, {"validate", "validate", 1},
	{"calibrate", "calibrate", 1},
	/* 2: "cclab_version" where 1 had "version" */
	{"sweep", "sweep", 2},
};

void cli_json_head(struct cc_json *j, const char *command)
{
	unsigned version = 0;

	for (size_t i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++)
		if (!strcmp(schemas[i].command, command))
			version = schemas[i].version;
	cc_json_object_begin(j);
	cc_json_kv_string(j, "cclab_version", CCLAB_VERSION);
	cc_json_kv_string(j, "command", command);
	/* a command missing from the table is a bug the schema test finds */
	cc_json_kv_uint(j, "schema_version", version);
}

void cli_json_begin(struct cc_json *j, const struct cli_opts *o, const char *executor)
{
	const struct cc_coll_params *p = &o->p;

	cli_json_head(j, cli_cmd_name(o->cmd));
	cc_json_kv_string(j, "executor", executor);
	cc_json_kv_string(j, "collective", cc_coll_name[p->coll]);
	/* "auto": each size's own, NCCL's choice (its "nccl" object) */
	cc_json_kv_string(j, "algorithm", cli_algo_label(o));
	if (cc_coll_rooted(p->coll)) {
		cc_json_kv_uint(j, "root", p->root);
	}
	cc_json_kv_string(j, "transport", cc_transport_name[p->transport]);
	cc_json_kv_uint(j, "nranks", p->nranks);
	cc_json_kv_string(j, "dtype", cc_dtype_name[p->dtype]);
	cc_json_kv_string(j, "redop", cli_redop_label(p));
	cc_json_kv_uint(j, "minbytes", o->minbytes);
	cc_json_kv_uint(j, "maxbytes", o->maxbytes);
	cc_json_kv_uint(j, "stepfactor", o->stepfactor);
	cc_json_kv_uint(j, "chunk_bytes", p->chunk_bytes);
	/* true: each size's own chunk_bytes (NCCL's tree or NVLS rule) is what ran */
	cc_json_kv_bool(j, "chunk_per_size", cc_coll_chunk_per_size(p) || cli_chunk_auto(o));
	cc_json_kv_uint(j, "slot_bytes", p->slot_bytes);
	/* true: each size's own slot_bytes (its protocol's, NCCL's choice) */
	cc_json_kv_bool(j, "slot_per_size", cli_slot_auto(o));
	cc_json_kv_uint(j, "nslots", p->nslots);
	cc_json_kv_string(j, "protocol", cli_proto_label(o));
	/* auto channels: the communicator's (each size's own in its "nccl") */
	cc_json_kv_uint(j, "nchannels", p->nchannels ? p->nchannels : 1);
	cc_json_kv_uint(j, "ranks_per_node", p->ranks_per_node);
	cc_json_kv_string(j, "ring_order", cc_ring_order_name[p->ring_order]);
	cc_json_kv_string(j, "memory",
			  (unsigned)p->mem < CC_MEM_KIND_COUNT ? cc_mem_kind_name[p->mem] : "?");
	/* host: staging without GPUDirect RDMA (core/schedule.h stage_mem;
	 * LL's network send stages are in host memory either way) */
	cc_json_kv_string(j, "stage_memory", (unsigned)cc_coll_stage_mem(p) < CC_MEM_KIND_COUNT
				     ? cc_mem_kind_name[cc_coll_stage_mem(p)] : "?");
	cc_json_kv_uint(j, "seed", o->seed);
}

void cli_json_size_begin(struct cc_json *j, const struct cc_result_row *row)
{
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "bytes", row->size);
	cc_json_kv_uint(j, "count", row->count);
	cc_json_kv_string(j, "dtype", row->type);
	cc_json_kv_string(j, "redop", row->redop);
	cc_json_kv_uint(j, "chunk_bytes", row->chunk_bytes);
	if (row->slot_bytes)
		cc_json_kv_uint(j, "slot_bytes", row->slot_bytes);
	if (row->nccl) {
		/* `auto`: NCCL's choice, its own estimate, and what ran */
		const struct cc_nccl_pick *k = &row->pick;

		cc_json_key(j, "nccl");
		cc_json_object_begin(j);
		/* point-to-point: no algorithm and no estimate of NCCL's */
		cc_json_kv_string(j, "algorithm", k->p2p ? "P2P" : cc_nccl_algo_name[k->nccl.algo]);
		cc_json_kv_string(j, "protocol", cc_proto_name[k->nccl.proto]);
		cc_json_kv_uint(j, "channels", k->nccl.nchannels);
		cli_json_double_or_null(j, "time_us", !k->p2p, k->nccl.time_us);
		cc_json_kv_string(j, "ran_algorithm", cc_nccl_pick_algo_name(k));
		cc_json_kv_string(j, "ran_protocol", cc_proto_name[k->proto]);
		cc_json_kv_uint(j, "ran_channels", k->nchannels);
		cc_json_kv_bool(j, "stand_in", k->stand_in);
		/* what ran is other than NCCL's choice by -A, -P or --channels */
		cc_json_kv_bool(j, "given", k->given);
		cc_json_object_end(j);
	}
}

void cli_json_double_or_null(struct cc_json *j, const char *key, bool have, double v)
{
	cc_json_key(j, key);
	if (have)
		cc_json_double(j, v);
	else
		cc_json_null(j);
}

void cli_json_status(struct cc_json *j, const struct cc_run_error *e)
{
	cc_json_kv_string(j, "status", cli_run_status_name(e->status));
	if (e->status == CC_RUN_OK)
		return;
	cc_json_key(j, "error");
	cc_json_object_begin(j);
	if (e->status == CC_RUN_COMPLETION_ERROR) {
		cc_json_kv_string(j, "wc_status", cc_wc_status_name(e->wc));
	}
	cc_json_kv_uint(j, "rank", e->rank);
	cc_json_kv_uint(j, "qp", e->qp);
	cc_json_kv_uint(j, "op", e->op);
	cc_json_kv_uint(j, "wr_id", e->wr_id);
	/* msg is a fixed array; do not trust it to be terminated. */
	char msg[sizeof(e->msg) + 1];

	memcpy(msg, e->msg, sizeof(e->msg));
	msg[sizeof(e->msg)] = '\0';
	cc_json_kv_string(j, "message", msg);
	cc_json_object_end(j);
}

int cli_json_write(struct cc_json *j, struct cc_atomic_file *af)
{
	const char *text;
	size_t len;
	int err = cc_json_finish(j, &text, &len);

	if (err) {
		cc_atomic_abort(af);
		return err;
	}
	errno = 0;
	if (fwrite(text, 1, len, af->f) != len) {
		err = errno ? -errno : -EIO;
		cc_atomic_abort(af);
		return err;
	}
	return cc_atomic_commit(af);
}

int cli_json_end(struct cc_json *j, struct cc_atomic_file *af, bool ok)
{
	const char *text;
	size_t len;

	cc_json_array_end(j);
	cc_json_kv_bool(j, "ok", ok);
	cc_json_object_end(j);
	if (!af) /* only finished: the text is j->buf, j->len */
		return cc_json_finish(j, &text, &len);
	return cli_json_write(j, af);
}
