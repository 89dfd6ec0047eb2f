/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/check_json.c — the --json report of `cclab check`: the shared
 * parameters and size head (cli/report_json.c), the data executor's own
 * parameters, and its per-rank counters. */
#include "cli/check.h"

void check_json_begin(struct cc_json *j, const struct cli_opts *o)
{
	cli_json_begin(j, o, "data");
	cc_json_kv_uint(j, "order_seed", o->order_seed);
	cc_json_kv_bool(j, "in_place", false);
	cc_json_key(j, "sizes");
	cc_json_array_begin(j);
}

static void per_rank(struct cc_json *j, const char *key, const uint64_t *v, uint32_t n)
{
	cc_json_key(j, key);
	cc_json_array_begin_flat(j);
	for (uint32_t r = 0; v && r < n; r++)
		cc_json_uint(j, v[r]);
	cc_json_array_end(j);
}

void check_json_size(struct cc_json *j, const struct cc_result_row *row,
		     const struct cc_schedule *s, const struct cc_data_result *res)
{
	cli_json_size_begin(j, row);
	cc_json_kv_uint(j, "wrong", res->wrong);
	cli_json_status(j, &res->err);
	per_rank(j, "data_bytes_sent", res->data_bytes, res->nranks);
	per_rank(j, "wire_msgs", res->wire_msgs, res->nranks);
	cc_json_key(j, "ops");
	cc_json_array_begin_flat(j);
	for (uint32_t r = 0; r < s->nranks; r++)
		cc_json_uint(j, s->ranks[r].nops);
	cc_json_array_end(j);
	per_rank(j, "ops_done", res->ops_done, res->nranks);
	cc_json_object_end(j);
}
