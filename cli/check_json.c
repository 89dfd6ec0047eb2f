/* cli/check_json.c — the --json report of `cclab check`.
 *
 * One object: what ran (every parameter, so a file is self-describing),
 * then one entry per size with per-rank arrays indexed by rank.  Integers
 * are exact (core/results.h's writer), key order is fixed, so two runs with
 * the same parameters give byte-identical files.
 */
#include <errno.h>
#include <string.h>

#include "cli/check.h"
#include "core/dtype.h"

static const char *const run_status_names[] = {
	[CC_RUN_OK] = "ok",
	[CC_RUN_COMPLETION_ERROR] = "completion_error",
	[CC_RUN_POST_ERROR] = "post_error",
	[CC_RUN_DEADLOCK] = "deadlock",
};

const char *cli_run_status_name(enum cc_run_status st)
{
	if ((unsigned)st < sizeof(run_status_names) / sizeof(run_status_names[0]) &&
	    run_status_names[st])
		return run_status_names[st];
	return "unknown";
}

void check_json_begin(struct cc_json *j, const struct cli_opts *o)
{
	const struct cc_coll_params *p = &o->p;

	cc_json_object_begin(j);
	cc_json_key(j, "cclab_version");
	cc_json_string(j, CCLAB_VERSION);
	cc_json_key(j, "command");
	cc_json_string(j, "check");
	cc_json_key(j, "executor");
	cc_json_string(j, "data");
	cc_json_key(j, "collective");
	cc_json_string(j, cc_coll_name[p->coll]);
	cc_json_key(j, "transport");
	cc_json_string(j, cc_transport_name[p->transport]);
	cc_json_key(j, "nranks");
	cc_json_uint(j, p->nranks);
	cc_json_key(j, "dtype");
	cc_json_string(j, cc_dtype_name[p->dtype]);
	cc_json_key(j, "redop");
	cc_json_string(j, cli_redop_label(p));
	cc_json_key(j, "minbytes");
	cc_json_uint(j, o->minbytes);
	cc_json_key(j, "maxbytes");
	cc_json_uint(j, o->maxbytes);
	cc_json_key(j, "stepfactor");
	cc_json_uint(j, o->stepfactor);
	cc_json_key(j, "chunk_bytes");
	cc_json_uint(j, p->chunk_bytes);
	cc_json_key(j, "slot_bytes");
	cc_json_uint(j, p->slot_bytes);
	cc_json_key(j, "nslots");
	cc_json_uint(j, p->nslots);
	cc_json_key(j, "memory");
	cc_json_string(j, (unsigned)p->mem < CC_MEM_KIND_COUNT ? cc_mem_kind_name[p->mem] : "?");
	cc_json_key(j, "seed");
	cc_json_uint(j, o->seed);
	cc_json_key(j, "order_seed");
	cc_json_uint(j, o->order_seed);
	cc_json_key(j, "in_place");
	cc_json_bool(j, false);
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
	const struct cc_run_error *e = &res->err;

	cc_json_object_begin(j);
	cc_json_key(j, "bytes");
	cc_json_uint(j, row->size);
	cc_json_key(j, "count");
	cc_json_uint(j, row->count);
	cc_json_key(j, "dtype");
	cc_json_string(j, row->type);
	cc_json_key(j, "redop");
	cc_json_string(j, row->redop);
	cc_json_key(j, "wrong");
	cc_json_uint(j, res->wrong);
	cc_json_key(j, "status");
	cc_json_string(j, cli_run_status_name(e->status));
	if (e->status != CC_RUN_OK) {
		cc_json_key(j, "error");
		cc_json_object_begin(j);
		if (e->status == CC_RUN_COMPLETION_ERROR) {
			cc_json_key(j, "wc_status");
			cc_json_string(j, cc_wc_status_name(e->wc));
		}
		cc_json_key(j, "rank");
		cc_json_uint(j, e->rank);
		cc_json_key(j, "qp");
		cc_json_uint(j, e->qp);
		cc_json_key(j, "op");
		cc_json_uint(j, e->op);
		cc_json_key(j, "wr_id");
		cc_json_uint(j, e->wr_id);
		/* msg is a fixed array; do not trust it to be terminated. */
		char msg[sizeof(e->msg) + 1];

		memcpy(msg, e->msg, sizeof(e->msg));
		msg[sizeof(e->msg)] = '\0';
		cc_json_key(j, "message");
		cc_json_string(j, msg);
		cc_json_object_end(j);
	}
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

int check_json_end(struct cc_json *j, struct cc_atomic_file *af, bool ok)
{
	const char *text;
	size_t len;
	int err;

	cc_json_array_end(j);
	cc_json_key(j, "ok");
	cc_json_bool(j, ok);
	cc_json_object_end(j);
	err = cc_json_finish(j, &text, &len);
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
