/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/nccl_tests_json.c — -J FILE.json in nccl-tests' own layout (src/util.cu
 * 2.19.6, JSON_FILE_VERSION 3: jsonOutputInit(), writeDeviceReport()'s
 * "config", writeBenchmarkLine*()'s "results", writeResultFooter(),
 * writeErrors(), jsonOutputFinalize()), so its readers (nccl-tests'
 * tools/analyze_perf_json.py) take this file.  Its quirks are kept: its
 * booleans are the strings "true" and "false" (jsonBool() writes them
 * with jsonStr()), the root a "%6i" string.  Two differences: "env" lists
 * the variables this run read (NCCL_*, the launcher's size), not the whole
 * environment, and a "cclab" object says what was simulated. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/nccl_tests.h"
#include "core/algo.h"
#include "core/results.h"

static void now(struct cc_json *j, const char *key)
{
	char buf[64] = "?";
	time_t t = time(NULL);
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	cc_json_kv_string(j, key, buf);
}

/* jsonBool(): a string */
static void kv_boolstr(struct cc_json *j, const char *key, bool v)
{
	cc_json_kv_string(j, key, v ? "true" : "false");
}

static void devices(struct cc_json *j, const struct nt_opts *n, const struct cli_opts *o)
{
	char host[32], info[96], hex[16];
	uint32_t dev;

	nt_device_info(o, info, sizeof(info));
	cc_json_key(j, "devices");
	cc_json_array_begin(j);
	for (uint32_t r = 0; r < n->nranks; r++) {
		nt_device(o, r, host, sizeof(host), &dev);
		snprintf(hex, sizeof(hex), "%04x:%02x:%02x", 0u, dev & 0xffu, 0u);
		cc_json_object_begin(j);
		cc_json_kv_uint(j, "rank", r);
		cc_json_kv_int(j, "group", 0);
		cc_json_kv_int(j, "pid", getpid());
		cc_json_kv_string(j, "hostname", host);
		cc_json_kv_uint(j, "device", dev);
		cc_json_kv_string(j, "device_hex", hex);
		cc_json_kv_string(j, "device_info", info);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
}

static void config(struct cc_json *j, const struct nt_opts *n, const struct cli_opts *o)
{
	cc_json_key(j, "config");
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "nthreads", n->nthreads);
	cc_json_kv_uint(j, "ngpus", n->ngpus);
	cc_json_kv_uint(j, "minimum_bytes", n->minbytes);
	cc_json_kv_uint(j, "maximum_bytes", n->maxbytes);
	if (n->stepfactor > 1)
		cc_json_kv_uint(j, "step_factor", n->stepfactor);
	else
		cc_json_kv_uint(j, "step_bytes", n->stepbytes);
	cc_json_kv_uint(j, "warmup_iters", n->warmup);
	cc_json_kv_uint(j, "iterations", n->iters);
	cc_json_kv_uint(j, "aggregated_iterations", n->agg_iters);
	cc_json_kv_uint(j, "validation", n->check);
	cc_json_kv_uint(j, "graph", n->graph);
	kv_boolstr(j, "blocking_collectives", n->blocking);
	kv_boolstr(j, "per_iter_timing", false);
	cc_json_kv_uint(j, "per_iter_skip", n->per_iter_skip);
	kv_boolstr(j, "parallel_init", n->parallel_init);
	devices(j, n, o);
	cc_json_object_end(j);
}

void nt_json_begin(struct cc_json *j, const struct nt_opts *n, const struct cli_opts *o)
{
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "version", NT_JSON_VERSION);
	now(j, "start_time");
	cc_json_key(j, "args");
	cc_json_array_begin(j);
	for (int i = 0; i < n->argc; i++)
		cc_json_string(j, n->argv[i]);
	cc_json_array_end(j);
	cc_json_key(j, "env");
	cc_json_array_begin(j);
	if (n->nprocs_from) {
		char v[64];

		snprintf(v, sizeof(v), "%s=%" PRIu32, n->nprocs_from, n->nprocs);
		cc_json_string(j, v);
	}
	for (uint32_t i = 0; i < n->nenv; i++)
		cc_json_string(j, n->env[i]);
	cc_json_array_end(j);
	cc_json_kv_int(j, "nccl_version", nt_nccl_code(o));
	cc_json_key(j, "cclab");
	cc_json_object_begin(j);
	cc_json_kv_string(j, "version", CCLAB_VERSION);
	cc_json_kv_string(j, "executor", "sim");
	cc_json_kv_string(j, "fabric", o->fabric.name);
	cc_json_kv_string(j, "topology", sim_topo_kind_name[o->topo]);
	cc_json_kv_string(j, "in_place", "the same schedule as out_of_place");
	cc_json_object_end(j);
	config(j, n, o);
	cc_json_key(j, "results");
	cc_json_array_begin(j);
}

static void half(struct cc_json *j, const char *key, const struct cc_result_row *row,
		 bool checked)
{
	double algbw = 0, busbw = 0;
	bool have = !row->failed &&
		    cc_result_bw(row->size, row->time_us, row->busbw_factor, &algbw, &busbw);

	cc_json_key(j, key);
	cc_json_object_begin(j);
	cli_json_double_or_null(j, "time", have, row->time_us);
	cli_json_double_or_null(j, "alg_bw", have, algbw);
	cli_json_double_or_null(j, "bus_bw", have, busbw);
	cli_json_double_or_null(j, "nwrong", checked, (double)row->wrong);
	cc_json_object_end(j);
}

void nt_json_row(struct cc_json *j, const struct cc_result_row *row, bool checked,
		 bool checked_ip, uint64_t iters)
{
	char root[16];

	snprintf(root, sizeof(root), "%6i", row->root);
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "size", row->size);
	cc_json_kv_uint(j, "count", row->count);
	cc_json_kv_string(j, "type", row->type);
	cc_json_kv_string(j, "redop", row->redop);
	cc_json_kv_string(j, "root", root);
	half(j, "out_of_place", row, checked);
	half(j, "in_place", row, checked_ip);
	cc_json_kv_uint(j, "actual_iterations", iters);
	cc_json_kv_string(j, "experiment_name", "");
	cc_json_object_end(j);
}

void nt_json_end(struct cc_json *j, const struct nt_run *r)
{
	bool have = r->bw_count > 0;

	cc_json_array_end(j);
	cc_json_key(j, "out_of_bounds");
	cc_json_object_begin(j);
	cc_json_kv_uint(j, "count", r->errors);
	kv_boolstr(j, "okay", r->errors == 0);
	cc_json_object_end(j);
	cc_json_key(j, "average_bus_bandwidth");
	cc_json_object_begin(j);
	cli_json_double_or_null(j, "bandwidth", have, have ? r->bw_sum / r->bw_count : 0);
	if (r->n->min_bw < 0)
		cc_json_kv_string(j, "okay", "unchecked");
	else
		kv_boolstr(j, "okay", nt_bw_ok(r));
	cc_json_object_end(j);
	cc_json_key(j, "errors");
	cc_json_array_begin(j);
	cc_json_array_end(j);
	now(j, "end_time");
	cc_json_object_end(j);
}
